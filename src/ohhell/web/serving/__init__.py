"""HTTP: the guard (security headers, same-origin checks, addresses, quotas:
``guard``), the transport's limits on uvicorn (``transport``), request
bodies (``requests``), health, metrics, logs and the host's orders
(``health``, ``metrics``, ``logs``, ``ops``, ``admin``), and the routes of
replays, reviews and score sheets (``replays``, ``reviews``, ``scores``)."""
