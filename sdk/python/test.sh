#!/usr/bin/env bash
# `npm run test:python [-- pytest args]`: the Python client's tests in sdk/python/.venv (made when missing, the
# package and its test extra installed into it), against a local stack the tests start (tests/stack.ts).
# Exits with pytest's status: non-zero when a test fails.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
.venv/bin/pip install --quiet --editable '.[test]'
exec .venv/bin/python -m pytest "$@"
