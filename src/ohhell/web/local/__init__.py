"""The offline site's server: tables and score sheets answered in the
browser's worker under Pyodide, with the server's own messages
(``server.LocalServer``; docs/site.md). The site is built by ``site``."""
