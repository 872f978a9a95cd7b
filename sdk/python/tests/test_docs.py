"""The Python blocks of README.md and docs/interfaces.md run as written, against the local stack, with the
environment their text says (the key in GPUO_API_KEY, the API in GPUO_API_URL as docs/interfaces.md's shell
setup exports it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import REPO_ROOT, Stack


def python_blocks(document: str) -> list[str]:
    text = (REPO_ROOT / document).read_text()
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize(
    ("document", "prints"),
    [
        ("README.md", r"^\$\d+\.\d\d of credit, \d+ GPU types priced$"),
        ("docs/interfaces.md", r"^launched \S+$"),
    ],
)
def test_the_python_blocks_run_as_written(
    stack: Stack, document: str, prints: str
) -> None:
    blocks = python_blocks(document)
    assert blocks, f"{document} has no python block"
    env = {**os.environ, "GPUO_API_KEY": stack.api_key, "GPUO_API_URL": stack.base_url}
    env.pop("GPUO_BASE_URL", None)
    for block in blocks:
        ran = subprocess.run(
            [sys.executable, "-c", block],
            env=env,
            capture_output=True,
            check=False,
            text=True,
            timeout=120,
        )
        assert ran.returncode == 0, ran.stderr
        assert re.search(prints, ran.stdout, flags=re.MULTILINE), ran.stdout
