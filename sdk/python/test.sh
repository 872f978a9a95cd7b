#!/usr/bin/env bash
# `npm run test:python [-- pytest args]`: the Python client's tests in sdk/python/.venv (made when missing, the
# package and its test extra installed into it, again when pyproject.toml changes), against a local stack the
# tests start (tests/stack.ts).
# Exits with pytest's status: non-zero when a test fails.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
# The install is editable (the sources are used in place): it is redone only when pyproject.toml changes, which
# saves pip's resolution and build (about 3.5 CPU-s) on every other run.
stamp=.venv/.installed-pyproject
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install --quiet --editable '.[test]'
  echo "$want" >"$stamp"
fi
exec .venv/bin/python -m pytest "$@"
