"""Helpers shared by nodes: the services of a run and custom stream events."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

from karaka.config import Context, context_from
from karaka.services import Services, get_services

if TYPE_CHECKING:
    from langgraph.runtime import Runtime
else:
    _C = TypeVar("_C")

    class Runtime(Generic[_C]):
        """What annotations name at run time: LangGraph hands nodes its own ``Runtime`` by parameter name."""


def services_of(runtime: Runtime[Context] | None) -> Services:
    """The live services for a node's runtime context."""
    ctx = context_from(runtime.context if runtime is not None else None)
    return get_services(ctx)


def emit(runtime: Runtime[Context] | None, event: dict[str, Any]) -> None:
    """Send a custom stream event (progress) when someone is listening."""
    writer = getattr(runtime, "stream_writer", None)
    if writer is not None:
        writer(event)
