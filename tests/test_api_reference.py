"""docs/api.md: its reference between the markers is what `flask --app app openapi --markdown` prints, and it holds
every operation of the OpenAPI document the app serves, with each one's parameters and answers.

The document is read as a client reads it (GET /api/v1/openapi.json, of an app with an API key configured, so that
every answer is in it); docs/api.md is read as a reader reads it: a heading per operation, a table row per parameter
and per answer."""

import re
from pathlib import Path

import pytest
from contract import ok

from app import create_app
from app.api import reference
from app.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "api.md"


@pytest.fixture(scope="module")
def keyed_doc(demo_store):
    app = create_app(
        Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}, api_key_secret="env:AWRLENS_DOCS_KEY")
    )
    return ok(app.test_client(), "/api/v1/openapi.json")  # the document needs no key (app/api/auth.py EXEMPT)


def sections(text: str) -> dict[tuple[str, str], str]:
    """{(method, path): the text under its heading}, from docs/api.md's `### METHOD `path`` headings."""
    parts = re.split(r"^### (GET|POST|PUT|PATCH|DELETE) `([^`]+)`$", text, flags=re.M)
    return {(parts[i].lower(), parts[i + 1]): parts[i + 2] for i in range(1, len(parts), 3)}


def test_docs_api_md_is_what_the_generator_prints(app):
    made = reference.markdown(app)
    assert app.test_cli_runner().invoke(args=["openapi", "--markdown"]).output == made
    text = DOCS.read_text()
    assert made.startswith(reference.BEGIN + "\n") and made.endswith(reference.END + "\n")
    assert text.count(reference.BEGIN) == 1 and text.count(reference.END) == 1
    assert made in text, "docs/api.md drifted: put `flask --app app openapi --markdown` between its markers"
    assert text.endswith(made), "docs/api.md: nothing after the generated reference's end marker"


def test_every_operation_is_documented_with_its_parameters_and_answers(keyed_doc):
    documented = sections(DOCS.read_text())
    served = {(method, path): op for path, item in keyed_doc["paths"].items() for method, op in item.items()}
    assert set(documented) == set(served)
    for key, op in served.items():
        text = documented[key]
        for p in op["parameters"]:
            row = re.search(rf"^\| `{re.escape(p['name'])}` \| (\w+) \|[^\n]*?\| (yes|no) \|", text, flags=re.M)
            assert row, f"{key}: no row for parameter {p['name']}"
            assert (row[1], row[2] == "yes") == (p["in"], p["required"]), (key, p["name"])
        answered = set(re.findall(r"^\| ([0-9]{3}(?:, [0-9]{3})*) \|", text, flags=re.M))
        assert {code for codes in answered for code in codes.split(", ")} == set(op["responses"]), key
        if "requestBody" in op:
            assert all(f"Body: {media}" in text for media in op["requestBody"]["content"]), key


def test_the_errors_every_operation_shares_are_listed_once(keyed_doc):
    """A status with one meaning on most operations (ERRORS in app/api/openapi.py) is in the Errors table, as
    the served document words it."""
    text = DOCS.read_text()
    errors = text.split("## Error statuses")[1].split("## Each endpoint")[0]
    table = dict(re.findall(r"^\| ([0-9]{3}) \| (.+) \|$", errors, flags=re.M))
    assert table["400"] == keyed_doc["paths"]["/api/v1/dbs/{db}/series"]["get"]["responses"]["400"]["description"]
    assert table["401"] == keyed_doc["paths"]["/api/v1/dbs/{db}/series"]["get"]["responses"]["401"]["description"]
    assert {"400", "401", "404", "413", "422", "503", "504"} <= set(table)
