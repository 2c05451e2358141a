import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("LANGSMITH_TRACING", "false")

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
    from karaka.runner import close_checkpointers

    close_checkpointers()
