"""A graph walked without Pregel: the same nodes, routes and reducers, one step after another.

Two walks use it, and both give what the LangGraph graph gives (tests run both side by side):

- **A cold `karaka ask`** with no LLM and no thread walks the query graph
  (``karaka.graphs.direct``). Importing LangGraph, and LangChain's tracers and LangSmith with
  it, costs about 1.2 s, more than a third of a cold CLI question; this module imports none of it.
- **A GSV-Retry loop that no one watches step by step** (``karaka.gsv.run.run_loop``): an
  ingestion run from the CLI, HTTP or the notebook streams only its own progress events, and a
  Pregel child per unit cost about 3 ms of a 10 ms line. Studio, or any caller that streams the
  loop's steps or traces it, still gets the LangGraph child.

A step runs its tasks in order (named nodes, then ``Send`` branches in the order sent; at once in
threads when the model decodes concurrent requests in one batch), applies their updates in that
order with the state's reducers, then follows each task's route. As in Pregel, a node
reached by several tasks of a step runs once in the next. A conditional route reads the state
after the whole step, which is what Pregel's route reads when its node ran alone in the step;
the walk refuses a step where that does not hold.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from karaka.config import Context

END = "__end__"
Route = str | Callable[..., Any]


@dataclass
class DirectRuntime:
    """What the nodes read from LangGraph's ``Runtime``: the context and the custom-event writer."""

    context: Context
    stream_writer: Callable[[dict[str, Any]], None] | None = None
    parallel: bool = False
    """Run a step's ``Send`` branches at once (as Pregel does): for a model that decodes them in one batch."""


@functools.cache
def _takes_runtime(fn: Callable[..., Any]) -> bool:
    return len(inspect.signature(fn).parameters) > 1


def _call(fn: Callable[..., Any], arg: Any, runtime: DirectRuntime) -> Any:
    return fn(arg, runtime) if _takes_runtime(fn) else fn(arg)


def _sent(target: Any) -> bool:
    """A ``Send`` (duck-typed: this module never imports LangGraph)."""
    return hasattr(target, "node") and hasattr(target, "arg")


_pool: ThreadPoolExecutor | None = None


def _updates(steps: dict[str, Callable[..., Any]], tasks: list[tuple[str, Any]], state: dict[str, Any],
             runtime: DirectRuntime) -> list[dict[str, Any]]:
    """Each task's update, in task order; at once in threads when the runtime says so."""
    global _pool
    if not runtime.parallel or len(tasks) < 2:
        return [_call(steps[name], state if arg is None else arg, runtime) or {} for name, arg in tasks]
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="karaka-branch")
    futures = [_pool.submit(_call, steps[name], state if arg is None else arg, runtime) for name, arg in tasks]
    return [f.result() or {} for f in futures]


@dataclass(frozen=True)
class Walk:
    """A graph as plain tables: its nodes, each node's route (a node name or a routing function), its state."""

    steps: dict[str, Callable[..., Any]]
    routes: dict[str, Route]
    first: str
    state: type
    """The state's TypedDict: its ``Annotated[..., reducer]`` fields are reduced, the rest overwritten."""
    output: tuple[str, ...] = ()
    """The keys returned (empty: the whole state)."""
    ends: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Where each routing function may lead (for the drawing); unused by the walk."""

    @cached_property
    def reducers(self) -> dict[str, tuple[Callable[[Any, Any], Any], Callable[[], Any]]]:
        """Each reduced field's reducer and the type whose empty value Pregel's channel starts from."""
        out = {}
        for name, hint in typing.get_type_hints(self.state, include_extras=True).items():
            meta = getattr(hint, "__metadata__", ())
            if meta and callable(meta[-1]):
                kind = typing.get_origin(hint.__origin__) or hint.__origin__
                out[name] = (meta[-1], kind)
        return out

    def run(self, inputs: dict[str, Any], runtime: DirectRuntime, limit: int) -> dict[str, Any]:
        """Walk from ``first`` until every route ends; at most ``limit`` steps."""
        state: dict[str, Any] = {name: kind() for name, (_, kind) in self.reducers.items()}
        self._apply(state, inputs)
        tasks: list[tuple[str, Any]] = [(self.first, None)]
        for _ in range(limit):
            updates = _updates(self.steps, tasks, state, runtime)
            for update in updates:  # as in Pregel, every task of a step reads the state from before it
                self._apply(state, update)
            if len(tasks) > 1 and any(callable(self.routes[name]) for name, _ in tasks):
                raise RuntimeError(f"a routed node shares a step: {[name for name, _ in tasks]}")
            named: list[str] = []
            sends: list[tuple[str, Any]] = []
            for name, _ in tasks:
                route = self.routes[name]
                found = route if isinstance(route, str) else _call(route, state, runtime)
                targets: list[Any] = found if isinstance(found, list) else [found]
                for target in targets:
                    if _sent(target):
                        sends.append((target.node, target.arg))
                    elif target != END and target not in named:
                        named.append(target)
            tasks = [(name, None) for name in named] + sends
            if not tasks:
                return {k: state[k] for k in self.output if k in state} if self.output else state
        raise RuntimeError(f"the walk did not end within {limit} steps")

    def _apply(self, state: dict[str, Any], update: dict[str, Any]) -> None:
        for key, value in update.items():
            reducer = self.reducers.get(key)
            state[key] = reducer[0](state.get(key), value) if reducer else value
