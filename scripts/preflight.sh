#!/bin/sh
# What a fresh machine needs before `make run` or `make test` (README, "Before the two commands"), checked first so
# that a missing tool is one line naming it, not a stack trace from pip, npm or apt.
# Usage: scripts/preflight.sh run|test     (make calls it; PYTHON names the interpreter, python3 by default)
set -u
fail() { echo "awrlens: $*" >&2; exit 1; }
PYTHON=${PYTHON:-python3}

command -v "$PYTHON" >/dev/null 2>&1 || fail "$PYTHON not found: Python 3.11 or newer is needed"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
  fail "Python 3.11 or newer is needed; $PYTHON is $("$PYTHON" -c 'import platform; print(platform.python_version())')"
"$PYTHON" -c 'import ensurepip, venv' 2>/dev/null ||
  fail "$PYTHON cannot make a virtual environment: install its venv module (Debian: apt-get install python3-venv)"
command -v node >/dev/null 2>&1 || fail "node not found: Node.js 18 or newer and npm 9 or newer are needed (the page's libraries come from npm)"
node -e 'process.exit(Number(process.versions.node.split(".")[0]) < 18 ? 1 : 0)' ||
  fail "Node.js 18 or newer is needed; node is $(node --version)"
command -v npm >/dev/null 2>&1 || fail "npm not found: npm 9 or newer is needed (it comes with Node.js)"
[ "$(npm --version | cut -d. -f1)" -ge 9 ] || fail "npm 9 or newer is needed; npm is $(npm --version)"
if [ "${1:-}" = test ]; then  # the JS unit tests' runner (Vitest 4, jsdom 27) needs Node.js 20.19 or newer
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' ||
    fail "the tests need Node.js 20.19 or newer (Vitest and jsdom); node is $(node --version)"
fi
if [ "${1:-}" = test ] && ! command -v chromium >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 ||
    fail "the browser tests need Chromium at /usr/bin/chromium, and this machine has no apt-get to install Debian's"
  [ "$(id -u)" = 0 ] || command -v sudo >/dev/null 2>&1 ||
    fail "the browser tests need Debian's chromium: run 'apt-get install chromium' as root, then make test again"
fi
exit 0
