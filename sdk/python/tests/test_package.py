"""The package itself: the committed generated code is what the generator makes from sdk/openapi.json, the
hand-written layer type-checks and gives its callers real types, and error answers become typed errors."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT

import gpuo
from gpuo.errors import error_from_response

PACKAGE = Path(gpuo.__file__).resolve().parent


def test_the_generated_code_is_what_the_generator_makes_from_the_document(
    tmp_path: Path,
) -> None:
    out = tmp_path / "openapi"
    subprocess.run(
        [
            "node",
            "--import",
            "tsx",
            "sdk/python/generate.ts",
            "sdk/openapi.json",
            str(out),
        ],
        cwd=REPO_ROOT,
        check=True,
    )

    def differences(c: filecmp.dircmp[str], where: str = "") -> list[str]:
        found = [
            f"{where}{name}"
            for name in c.left_only + c.right_only + c.diff_files
            if name != "__pycache__"
        ]
        # dircmp compares by size and time unless told otherwise: look at the bytes.
        _, mismatch, errors = filecmp.cmpfiles(
            c.left, c.right, c.same_files, shallow=False
        )
        found += [f"{where}{name}" for name in mismatch + errors]
        for name, sub in c.subdirs.items():
            if name != "__pycache__":
                found += differences(sub, f"{where}{name}/")
        return found

    stale = differences(filecmp.dircmp(PACKAGE / "openapi", out))
    assert stale == [], (
        "run `npm run sdk:generate`: the generated code differs in "
        + ", ".join(stale[:10])
    )


def test_the_hand_written_layer_type_checks_and_types_its_callers(
    tmp_path: Path,
) -> None:
    user = tmp_path / "user.py"
    user.write_text(
        "import gpuo\n"
        "client = gpuo.Client(api_key='gpuo_sk_x')\n"
        "dollars: float = client.billing.balance().balance\n"
        "for tx in client.billing.transactions():\n"
        "    tx_id: str = tx.id\n"
        "wrong: str = client.billing.balance().balance\n"
    )
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--no-incremental",
        ]
        + [str(PACKAGE / name) for name in ("__init__.py", "_client.py", "errors.py")]
        + [str(user)],
        capture_output=True,
        check=False,
        text=True,
    )
    # The one error is the user's line that takes a balance for a string: the types are real, not Any.
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "user.py:6:" in errors[0] and '"float"' in errors[0], (
        checked.stdout
    )


def test_a_rate_limited_answer_carries_its_retry_after() -> None:
    body = b'{"error": {"code": "rate_limited", "message": "Too many requests", "request_id": "req_1"}}'
    error = error_from_response(429, body, {"retry-after": "7"})
    assert isinstance(error, gpuo.RateLimited)
    assert (error.status, error.code, error.retry_after, error.request_id) == (
        429,
        "rate_limited",
        7.0,
        "req_1",
    )
    assert str(error) == "rate_limited: Too many requests"


def test_an_answer_that_is_not_the_apis_error_body_is_still_typed() -> None:
    error = error_from_response(
        502, b"<html>Bad Gateway</html>", {"x-request-id": "req_2"}
    )
    assert isinstance(error, gpuo.Unavailable)
    assert (error.code, error.message, error.request_id, error.retry_after) == (
        "http_error",
        "HTTP 502",
        "req_2",
        None,
    )
