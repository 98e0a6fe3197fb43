"""The HTTP server parts both servers share: the offline gateway (:mod:`gatewaykit.emulator`) and the
classroom (:mod:`gatewaykit.classroom`) import them from here, and this package imports neither.

    accounts.py          Account (balance, holds, rate limit), key_digest
    holds.py             Hold: the price held before paid work, charged or released after
    ratelimit.py         SlidingWindow: requests per account per window
    bodies.py            reading a request body: size limit, JSON, multipart forms
    errors.py            ApiError and the spec's error envelope
    responses.py         JSON and SSE responses, the X-Gateway-Offline header
    trailing_slash.py    /v1/x/ served as /v1/x
    uvicorn_server.py    uvicorn's config, the port and loopback checks
    connection_guard.py  the h11 protocol that closes connections which never finish a request

Money (nano-dollars, ``$`` amounts) is :mod:`gatewaykit.money`.
"""
