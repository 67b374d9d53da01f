"""Settings: the table in docs/oracle.md is the one `Settings` makes, and bad AWRLENS_* variables stop the app."""

from pathlib import Path

import pytest

from app.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def test_the_documented_table_is_the_settings():
    guide = (ROOT / "docs" / "oracle.md").read_text()
    assert Settings.markdown() in guide, "docs/oracle.md's table drifted: paste `flask --app app settings --markdown`"
    documented = {line.split("`")[1] for line in guide.splitlines() if line.startswith("| `AWRLENS_")}
    assert documented == {var for var, _, _ in Settings.describe()}


@pytest.mark.parametrize(
    "env, message",
    [
        ({"AWRLENS_MAX_SERIE": "8"}, "unknown setting AWRLENS_MAX_SERIE"),
        ({"AWRLENS_MAX_SERIES": "eight"}, "AWRLENS_MAX_SERIES='eight' is not valid"),
        ({"AWRLENS_TARGETS": "[]"}, "AWRLENS_TARGETS='[]' is not valid"),
    ],
)
def test_a_bad_variable_is_named(env, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Settings.from_env(env)
