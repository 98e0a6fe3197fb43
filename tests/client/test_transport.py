"""The httpx boundary: failures translated once, marked with whether the request left."""

from __future__ import annotations

import httpx

import gatewaykit as gk
from gatewaykit.client.transports.http import translate_error


def test_connect_error_was_not_sent() -> None:
    """A connect failure is APIConnectionError with request_sent False (safe to retry)."""
    error = translate_error(httpx.ConnectError("refused"))
    assert type(error) is gk.APIConnectionError and error.request_sent is False


def test_read_timeout_was_sent() -> None:
    """A read timeout is APITimeoutError with request_sent True (the server may have it)."""
    error = translate_error(httpx.ReadTimeout("slow"))
    assert isinstance(error, gk.APITimeoutError) and error.request_sent is True


def test_remote_protocol_error_was_sent() -> None:
    """A dropped connection after sending is request_sent True."""
    assert translate_error(httpx.RemoteProtocolError("peer closed")).request_sent is True


def test_client_errors_are_gateway_errors_not_httpx() -> None:
    """A MockTransport raising ConnectError surfaces as gatewaykit's error, not httpx's."""

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    policy = gk.RetryPolicy(max_retries=1, backoff_base=0.0)
    with gk.Client(api_key="sk-bf-x", base_url="http://gw.test", retry_policy=policy, ledger=object(), http_transport=httpx.MockTransport(refuse)) as client:
        try:
            client.models.list()
        except gk.APIConnectionError as error:
            assert not isinstance(error, httpx.HTTPError)
        else:  # pragma: no cover
            raise AssertionError("no error raised")


def test_only_the_transports_package_imports_httpx() -> None:
    """No module of gatewaykit outside client/transports/ imports httpx (the emulator serves, it never sends),
    but the classroom's own network modules: it is a proxy whose job is to send (its upstream, its
    pass-through, and the teacher's admin calls from the CLI and from ``gk.Classroom``)."""
    import re
    from pathlib import Path

    import gatewaykit

    root = Path(gatewaykit.__file__).parent
    importing = re.compile(r"^\s*(import httpx|from httpx\b)", re.MULTILINE)
    offenders = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "transports" not in path.parts and importing.search(path.read_text())
    ]
    classroom_network = {"classroom/upstream.py", "classroom/passthrough.py", "classroom/admin_client.py",
                         "classroom/student_budget.py", "classroom/hub_auth.py"}
    assert sorted(set(offenders) - classroom_network) == []
    assert importing.search((root / "client" / "transports" / "http.py").read_text())
