"""The documents' relative links resolve: every `[text](path#anchor)`, `![alt](path)` and `<img src>` of the
repository's Markdown names a file that exists, and an anchor names a heading of it by GitHub's rule for section
links (GitHub Docs, "Basic writing and formatting syntax", Section links: lower case, spaces to hyphens, other
punctuation removed, a repeated heading numbered -1, -2...)."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]+`")  # `[a-z](?:...)` is a pattern, not a link: GitHub links nothing in code


def documents() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    return [ROOT / name for name in listed] or sorted(
        p for p in ROOT.rglob("*.md") if not {"node_modules", ".venv", ".git"} & set(p.relative_to(ROOT).parts)
    )


def slug(heading: str) -> str:
    text = re.sub(r"[`*_]|<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", FENCE.sub("", text), re.M):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(text: str) -> list[str]:
    return [a or b for a, b in LINK.findall(CODE_SPAN.sub("", FENCE.sub("", text)))]


def broken(doc: Path) -> list[str]:
    out = []
    for target in links(doc.read_text()):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not this repository's
            continue
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            out.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text()):
            out.append(f"{target}: no heading {anchor!r} in {file.name}")
    return out


def test_the_slugs_are_githubs():
    assert slug("Never hang: the bounds and field test 001") == "never-hang-the-bounds-and-field-test-001"
    assert slug("21. Long ranges: buckets") == "21-long-ranges-buckets"
    assert slug("Supported releases: Oracle 12.1 to 23ai") == "supported-releases-oracle-121-to-23ai"
    assert slug("27. Oracle's own reports") == "27-oracles-own-reports"
    assert slug("What `make test` covers") == "what-make-test-covers"
    assert anchors("# A\n## A\n```\n# A\n```\n") == {"a", "a-1"}


def test_a_broken_link_is_found(tmp_path):
    doc = tmp_path / "a.md"
    doc.write_text(
        "# Top\n[ok](#top) [gone](b.md) [no heading](#nowhere) ![pic](c.png) `[a-z](?:b)`\n```\n[code](x.md)\n```\n"
    )
    (tmp_path / "c.png").write_bytes(b"")
    assert [b.split(":")[0] for b in broken(doc)] == ["b.md", "#nowhere"]


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc):
    assert not broken(doc), f"{doc.relative_to(ROOT)}: {broken(doc)}"
