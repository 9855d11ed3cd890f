"""Several server processes on one database: the broker's messages and who
holds which table (``broker``), the tables this process holds (``hub``),
clients relayed to another process's table (``relay``), and ``ohhell serve
--workers`` (``workers``)."""
