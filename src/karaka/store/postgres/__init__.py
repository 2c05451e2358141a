"""The PostgreSQL backend: one database shared by many workers and servers (``backend.PgStore``, ``db.Database``)."""
