"""Schema-driven fuzzing of the offline gateway from its own /openapi.json (schemathesis).

Every generated case (positive and negative, every operation) must get no 5xx,
a status and content type the document declares, a body that matches the
declared schema, and every non-2xx body in the spec's error envelope. The
gateway has its own well-funded account and a short retention, so jobs the
fuzzer creates neither drain the suite's accounts nor pile up.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any, Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import (content_type_conformance, response_schema_conformance,
                                               status_code_conformance)

FUZZ_KEY = "sk-bf-fuzz-account-000000000000001"
EXAMPLES = int(os.environ.get("GATEWAYKIT_FUZZ_EXAMPLES", "60"))  # per operation (x phases: ~1,600 cases)
CASES: dict[str, int] = {}
_lock = threading.Lock()


@pytest.fixture(scope="module")
def fuzz_gateway() -> Iterator[Any]:
    from gatewaykit import emulator

    accounts = {"accounts": [{"id": "fuzz", "balance_usd": 1e6, "rate_limit": {"requests": 10**9, "per_seconds": 1},
                              "keys": [{"key": FUZZ_KEY, "status": "active", "models": "*"}]}]}
    with emulator.start(accounts=accounts, time_scale=0, seed=0, admin_token="fuzz-admin",
                        retention_seconds=5) as running:
        yield running


def _live_schema() -> Any:
    """The document as a running gateway serves it (read at collection: schemathesis's lazy
    fixture loader does not work under pytest 9)."""
    from gatewaykit import emulator

    with emulator.start(time_scale=0) as running:
        return schemathesis.openapi.from_url(f"{running.base_url}/openapi.json")


schema = _live_schema()


def error_envelope_check(response: Any) -> None:
    """A non-2xx/3xx answer is ``{"error": {"message": str, "type": str, "code": str|null, "param": str|null}}``."""
    if response.status_code < 400:
        return
    body = json.loads(response.content)
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"message", "type", "code", "param"}, error
    assert isinstance(error["message"], str) and error["message"], error
    assert isinstance(error["type"], str) and error["type"], error
    assert error["code"] is None or isinstance(error["code"], str), error
    assert error["param"] is None or isinstance(error["param"], str), error


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_generated_requests_get_declared_answers(case: Any, fuzz_gateway: Any) -> None:
    """No 5xx; status, content type and body as declared; every error in the envelope."""
    response = case.call(base_url=fuzz_gateway.base_url, headers={"Authorization": f"Bearer {FUZZ_KEY}"},
                         timeout=60, allow_redirects=False)
    with _lock:
        CASES[case.operation.label] = CASES.get(case.operation.label, 0) + 1
    assert response.status_code < 500, response.text[:500]
    case.validate_response(response, checks=[status_code_conformance, content_type_conformance,
                                             response_schema_conformance])
    error_envelope_check(response)


def test_fuzzing_ran_at_least_a_thousand_cases(request: pytest.FixtureRequest) -> None:
    """The fuzz run above generated at least 1,000 cases across the operations."""
    fuzzed = "test_generated_requests_get_declared_answers"
    if not any(item.originalname == fuzzed for item in request.session.items if isinstance(item, pytest.Function)):
        pytest.skip("the fuzz test was not selected in this run")
    total = sum(CASES.values())
    print(f"\nfuzz cases: {total} over {len(CASES)} operations: {CASES}")
    assert total >= 1000 and len(CASES) >= 10
