"""The database: the tables' store (``store``) and its schema's upgrades
(``schema``, Alembic's ``migrations``)."""
