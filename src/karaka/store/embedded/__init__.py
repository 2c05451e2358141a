"""The embedded backend: one workspace folder (NetworkX graph and its SQLite index, FAISS vectors, SQLite records, a lock)."""
