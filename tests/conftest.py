import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("LANGSMITH_TRACING", "false")
if os.environ.get("PYTEST_XDIST_WORKER"):  # a process a core: a library's own threads (torch, BLAS) in each
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # only contend with the other workers' (6:14 → 5:42 on 2 cores)

import pytest  # noqa: E402

from karaka import services  # noqa: E402


@pytest.fixture(autouse=True)
def _close_workspaces():
    yield
    for key in list(services._workspaces):
        services._workspaces.pop(key).close()


@pytest.fixture(autouse=True)
def _close_checkpointers():
    yield
    from karaka.app.runner import close_checkpointers

    close_checkpointers()


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL server on 127.0.0.1 (Debian's binaries), started once for the session."""
    from tests.pgtemp import TempServer, find_bindir

    if find_bindir() is None:
        pytest.skip("no PostgreSQL server binaries: scripts/setup.sh installs Debian's postgresql package")
    server = TempServer().start()
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server):
    """A fresh, empty database on the session's server."""
    import uuid

    return pg_server.create_db(f"t{uuid.uuid4().hex[:12]}")
