"""The two commands on a fresh machine stop with one line naming what is missing (scripts/preflight.sh, README
"Before the two commands"), instead of a stack trace from pip, npm or apt. The tools are the machine's own; a
missing one is left out of PATH."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("sh", "id", "cut", "make", "python3", "node", "npm", "chromium", "apt-get", "sudo")


def _run(tmp_path, leave_out, target="preflight-run"):
    """`make <target>` with a PATH that holds the machine's tools except `leave_out`."""
    bin_dir = tmp_path / f"bin-{target}"
    bin_dir.mkdir(parents=True)
    for tool in TOOLS:  # python3: the interpreter itself (a version manager's shim needs its own tools)
        found = str(Path(sys.base_prefix, "bin", "python3").resolve()) if tool == "python3" else shutil.which(tool)
        if found and tool not in leave_out:
            (bin_dir / tool).symlink_to(found)
    return subprocess.run(
        [shutil.which("make"), "-s", target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(bin_dir)},
        timeout=60,
    )


@pytest.mark.slow  # the preflight script in a shell: over half a second
def test_a_machine_with_every_tool_passes(tmp_path):
    assert _run(tmp_path, ()).returncode == 0


@pytest.mark.parametrize(
    "missing,named", [("python3", "Python 3.11 or newer"), ("node", "Node.js 18 or newer"), ("npm", "npm 9 or newer")]
)
def test_a_missing_tool_is_one_line_naming_it(tmp_path, missing, named):
    done = _run(tmp_path, (missing,))
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.startswith("awrlens: ")]
    assert len(lines) == 1 and named in lines[0] and missing in lines[0], done.stderr
    assert "Traceback" not in done.stderr and "npm ERR" not in done.stderr


@pytest.mark.slow  # the preflight script in a shell: over half a second
def test_the_browser_tests_need_chromium_or_a_way_to_install_it(tmp_path):
    done = _run(tmp_path, ("chromium", "apt-get"), "preflight-test")
    assert done.returncode != 0 and "awrlens: the browser tests need Chromium" in done.stderr
    assert _run(tmp_path, ("chromium", "apt-get"), "preflight-run").returncode == 0  # make run needs no browser
