"""The recorded answers (tests/answers.py) are given again byte for byte: a refactoring changes no answer."""

import json

import pytest
from answers import RECORD, documented_examples, fingerprint

RECORDED = json.loads(RECORD.read_text())


def test_the_record_covers_the_documented_examples():
    examples = documented_examples()
    assert len(examples) >= 5
    assert set(examples) <= set(RECORDED["answers"])


@pytest.mark.slow  # every recorded request (tests/data/answers.json): about 12 s
def test_every_recorded_answer_is_the_same(app, demo_store):
    assert RECORDED["days"] == 10  # the store conftest builds
    client = app.test_client()
    changed = {}
    for url, expected in RECORDED["answers"].items():
        got = fingerprint(client.get(url))
        if got != expected:
            changed[url] = {k: (expected[k], got[k]) for k in expected if got[k] != expected[k]}
    assert not changed, f"{len(changed)} of {len(RECORDED['answers'])} answers changed: " + json.dumps(
        dict(list(changed.items())[:5]), indent=1
    )
