"""The local stack for the tests: tests/stack.ts started once per run, its base URL and funded key shared."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

import gpuo

REPO_ROOT = Path(__file__).resolve().parents[3]
STACK = Path(__file__).resolve().parent / "stack.ts"
#: Postgres, the Temporal dev server, the API and the worker: about 15 s on an idle 2-core machine.
STACK_START_TIMEOUT_S = 180

T = TypeVar("T")


class Stack:
    def __init__(self, base_url: str, api_key: str) -> None:
        self.base_url = base_url
        self.api_key = api_key


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    # A stack already running (test/sdk/python.test.ts serves one from jest's own Postgres and Temporal):
    # GPUO_TEST_STACK is its {"base_url", "api_key"}, as tests/stack.ts prints them.
    given = os.environ.get("GPUO_TEST_STACK")
    if given:
        started = json.loads(given)
        yield Stack(started["base_url"], started["api_key"])
        return
    process = subprocess.Popen(
        ["node", "--import", "tsx", str(STACK)],
        cwd=REPO_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    stdout, stdin = process.stdout, process.stdin
    assert stdout is not None and stdin is not None
    first_line: list[str] = []
    reader = threading.Thread(
        target=lambda: first_line.append(stdout.readline()), daemon=True
    )
    reader.start()
    reader.join(STACK_START_TIMEOUT_S)
    try:
        if not first_line or not first_line[0]:
            raise RuntimeError(
                f"the stack did not start within {STACK_START_TIMEOUT_S} s (see its stderr above)"
            )
        started = json.loads(first_line[0])
        yield Stack(started["base_url"], started["api_key"])
    finally:
        # Closing its stdin stops it (and everything it started); a stack that hangs is ended.
        stdin.close()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def client(stack: Stack) -> Iterator[gpuo.Client]:
    with gpuo.Client(api_key=stack.api_key, base_url=stack.base_url) as c:
        yield c


def eventually(
    check: Callable[[], T | None], *, timeout: float = 20.0, interval: float = 0.2
) -> T:
    """Polls ``check`` until it returns something other than None (or False), or fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result is not None and result is not False:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(
                f"not true within {timeout} s: {check.__doc__ or check}"
            )
        time.sleep(interval)
