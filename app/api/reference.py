"""The API reference docs/api.md holds between its markers: every endpoint, its parameters (name, where, type,
required, default, description) and its answers, rendered as Markdown from the OpenAPI document (openapi.py) of a
deployment with an API key, so that every answer is listed. An operation's summary there is its view's docstring's
first line: the reference gives the whole docstring. `flask --app app openapi --markdown` prints it;
tests/test_api_reference.py keeps docs/api.md equal to it."""

import json

from app.api.openapi import openapi_document

BEGIN = "<!-- made by `flask --app app openapi --markdown`; tests/test_api_reference.py keeps it so -->"
END = "<!-- end -->"


def markdown(app) -> str:
    """The reference, its markers included."""
    with app.test_request_context():
        document = openapi_document(app, keyed=True)
    views = {rule.endpoint.split(".")[-1]: app.view_functions[rule.endpoint] for rule in app.url_map.iter_rules()}
    operations = [(method, path, op) for path, item in document["paths"].items() for method, op in item.items()]
    about = {(path, method): _docstring(views[op["operationId"]]) or op["summary"] for method, path, op in operations}
    errors = _usual_errors(operations)
    out = [
        BEGIN,
        "",
        "## Endpoints",
        "",
        "| Method | Path | What it answers |",
        "|---|---|---|",
        *(f"| {m.upper()} | `{path}` | {_cell(_first_sentence(about[path, m]))} |" for m, path, _ in operations),
        "",
        "## Error statuses",
        "",
        'Every error is JSON of one shape, `{"error": {"status", "code", "message", "parameter"}}` (`parameter` names',
        "the parameter at fault, where one is). What each status means, unless an endpoint says otherwise:",
        "",
        "| Status | When |",
        "|---|---|",
        *(f"| {code} | {_cell(text)} |" for code, text in sorted(errors.items())),
        "",
        "## Each endpoint",
        "",
        "Its parameters (a query parameter given empty is as if left out), and its answers: `field`? is a field an",
        "answer may leave out.",
    ]
    for method, path, op in operations:
        out += ["", f"### {method.upper()} `{path}`", "", _prose(about[path, method]), ""]
        out += [f"API key: {_key(op)}.", ""]
        if op["parameters"]:
            out += ["| Parameter | In | Type | Required | Default | Description |", "|---|---|---|---|---|---|"]
            out += [_parameter(p) for p in op["parameters"]]
            out.append("")
        if "requestBody" in op:
            for media, content in op["requestBody"]["content"].items():
                out += [f"Body: {media}, {_shape(content['schema'])}.", ""]
        out += ["| Answer | Description | Content |", "|---|---|---|"]
        usual = []
        for code, answer in sorted(op["responses"].items()):
            if code in errors and answer["description"] == errors[code]:
                usual.append(code)
            else:
                out.append(f"| {code} | {_cell(answer['description'])} | {_cell(_content(answer))} |")
        out.append(f"| {', '.join(usual)} | as in Error statuses | error |")
    return "\n".join([*out, "", END, ""])


def _usual_errors(operations) -> dict[str, str]:
    """Per error status that most operations answer with, the description most of them give it."""
    counts: dict[str, dict[str, int]] = {}
    for _, _, op in operations:
        for code, answer in op["responses"].items():
            if code[0] in "45":
                texts = counts.setdefault(code, {})
                texts[answer["description"]] = texts.get(answer["description"], 0) + 1
    return {
        code: max(texts, key=lambda t: (texts[t], t))
        for code, texts in counts.items()
        if 2 * max(texts.values()) > len(operations)
    }


def _first_sentence(text: str) -> str:
    return text.split(". ")[0].rstrip(".") + "."


def _docstring(view) -> str:
    return " ".join(line.strip() for line in (view.__doc__ or "").strip().splitlines())


def _key(op) -> str:
    security = op.get("security", [])
    if {} in security:
        return "not required"
    return "required where one is configured"


def _parameter(p) -> str:
    schema = p["schema"]
    default = schema.get("items", schema).get("default")
    return (
        f"| `{p['name']}` | {p['in']} | {_cell(_type(schema))} | {'yes' if p['required'] else 'no'} | "
        f"{'' if default is None else _cell(f'`{_value(default)}`')} | {_cell(p['description'])} |"
    )


def _value(default) -> str:
    return default if isinstance(default, str) else json.dumps(default)


def _type(schema) -> str:
    if schema.get("type") == "array":
        return _type(schema["items"]) + ", repeatable"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"])
    kind = schema.get("format", schema.get("type", "any"))
    bounds = [f"{schema[k]}" for k in ("minimum", "maximum") if k in schema]
    if len(bounds) == 2:
        kind += f" {bounds[0]} to {bounds[1]}"
    if "pattern" in schema:  # anchored and grouped as params.py writes it: the expression itself
        kind += f" matching `{schema['pattern'].removeprefix('^(').removesuffix(')$')}`"
    elif "maxLength" in schema:
        kind += f", at most {schema['maxLength']} characters"
    return kind


def _content(answer) -> str:
    return "; ".join(f"{media}, {_shape(content['schema'])}" for media, content in answer.get("content", {}).items())


def _shape(schema) -> str:
    """A schema in a few words: its type, and an object's fields (the required ones first)."""
    if "$ref" in schema:
        return "error"
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    required = schema.get("required", [])
    optional = [name for name in schema.get("properties", {}) if name not in required]
    fields = ", ".join([*(f"`{name}`" for name in required), *(f"`{name}`?" for name in optional)])
    return f"{kind}: {fields}" if fields else kind


def _cell(text: str) -> str:
    """Text in a Markdown table's cell: its pipes escaped (GitHub splits cells at every bare pipe, code spans too)."""
    return _prose(text).replace("|", "\\|").replace("\n", " ")


def _prose(text: str) -> str:
    """The document's text as Markdown shows it: `<` outside code spans escaped, or `<db>` would read as a tag."""
    return "`".join(part if i % 2 else part.replace("<", "&lt;") for i, part in enumerate(text.split("`")))
