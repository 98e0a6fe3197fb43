"""The two places the client's transport leans on httpx beyond its public API, and why.

- ``_with_content`` sets ``response._content``: the body is read in capped chunks (a gateway cannot
  fill memory) and then handed back as the response httpx would have after ``read()``; building a new
  ``httpx.Response`` instead costs more than the rest of the client's work on a call
  (``benchmarks/client_overhead.py``).
- ``_NoCookies`` files no ``Set-Cookie``: ``httpx.Client.send`` files each answer's cookies through
  ``client.cookies.extract_cookies`` (about 20 µs a request), in a jar this client never sends.

httpx is pinned below 1.0; these tests fail first if a release changes what either relies on.
"""

from __future__ import annotations

import httpx

from gatewaykit.client.transports.http import _Client, _with_content


def _streamed(body: bytes, **headers: str) -> httpx.Response:
    """An answer whose body has not been read (as ``send(..., stream=True)`` returns it)."""
    return httpx.Response(200, headers=headers, stream=httpx.ByteStream(body),
                          request=httpx.Request("GET", "http://gw.test/v1/models"))  # fmt: skip


def test_a_response_given_its_content_reads_as_httpx_s_own_read_leaves_it() -> None:
    """content, text, json() and iter_bytes() give the decoded body; the coding headers that described it go."""
    response = _with_content(_streamed(b"raw", **{"content-encoding": "gzip", "content-length": "3"}), b'{"a": 1}')
    assert response.content == b'{"a": 1}' and response.text == '{"a": 1}' and response.json() == {"a": 1}
    assert b"".join(response.iter_bytes()) == b'{"a": 1}'
    assert "content-encoding" not in response.headers and "content-length" not in response.headers


def test_the_transport_s_httpx_client_files_no_cookie_where_httpx_s_own_would() -> None:
    """The same Set-Cookie answer: httpx.Client files it (the work skipped), the transport's client does not."""
    transport = httpx.MockTransport(lambda request: httpx.Response(200, headers={"set-cookie": "route=2; Path=/"}))
    with httpx.Client(transport=transport) as plain, _Client(transport=transport) as ours:
        plain.get("http://gw.test/")
        ours.get("http://gw.test/")
        assert len(plain.cookies) == 1 and len(ours.cookies) == 0
