"""Transports: the only modules that import httpx, and the cassette that can stand in for the network.

- ``http``: the one boundary to httpx (sync and async); transport errors become
  ``APIConnectionError`` / ``APITimeoutError`` here, and ``request_sent`` records
  whether a retry could charge twice;
- ``cassette``: an httpx transport that records real exchanges (never the key)
  and replays them with no network;
- ``cassette_store``: the cassette file and its media folder, with no I/O policy.

Everything above this package speaks :class:`~gatewaykit.client.api_request.ApiRequest`.
"""
