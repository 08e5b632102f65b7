"""The one topological walk of a graph's nodes, shared by the importer, grappler, the partitioner and the executor.

A TensorFlow graph may contain cycles only through while loops: the back edge from a
``NextIteration`` into a ``Merge``. The walk ignores exactly those edges, so a graph
with v1 loops has an order (every node after its other inputs) while any other cycle
leaves nodes unordered, which callers report with their own error text.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

from modtensor.framework import node_def as node_def_lib
from modtensor.framework.protos import node_def_pb2

__all__ = ["MERGE_OPS", "NEXT_ITERATION_OPS", "WalkResult", "is_back_edge", "node_order", "walk"]

# A Merge's input from a NextIteration is a loop's back edge (TF's IsMerge / IsNextIteration).
MERGE_OPS = frozenset({"Merge", "RefMerge", "_XlaMerge"})
NEXT_ITERATION_OPS = frozenset({"NextIteration", "RefNextIteration"})


def is_back_edge(src_op: str, dst_op: str) -> bool:
    """True for the edge from a ``NextIteration`` into a ``Merge``: legal in a cycle, skipped when ordering."""
    return dst_op in MERGE_OPS and src_op in NEXT_ITERATION_OPS


class WalkResult:
    """A walk's outcome: ``order`` (positions, inputs first) and ``stuck`` (positions on or behind a cycle)."""

    __slots__ = ("order", "stuck")

    def __init__(self, order: list[int], stuck: list[int]):
        self.order = order
        self.stuck = stuck

    @property
    def has_cycle(self) -> bool:
        """True when some nodes could not be ordered (a cycle that is not a while loop's back edge)."""
        return bool(self.stuck)


def walk(
    names: Sequence[str],
    inputs: Sequence[Sequence[str]],
    ops: Sequence[str] | None = None,
    *,
    stable: bool = True,
    source: Callable[[str], str] | None = None,
) -> WalkResult:
    """Order nodes ``names[i]`` (op ``ops[i]``) reading ``inputs[i]`` (TF input strings) so inputs come first.

    Data and control edges count; inputs naming no node are ignored (callers validate them);
    ``NextIteration -> Merge`` back edges are skipped when ``ops`` is given. ``stable`` keeps
    the given order wherever it is valid (a heap: the smallest valid order); otherwise
    Kahn's queue, which is faster and just as valid. ``source`` maps an input string to its
    node name (default: ``node_def.parse_tensor_name``; grappler passes its memoized parser).
    """
    index = {name: i for i, name in enumerate(names)}
    pending = [0] * len(names)
    readers: list[list[int] | None] = [None] * len(names)
    get = index.get
    source_of = source if source is not None else _source
    for i, texts in enumerate(inputs):
        count = 0
        merge = ops is not None and ops[i] in MERGE_OPS
        for text in texts:
            j = get(source_of(text))
            if j is None:
                continue
            if merge and ops[j] in NEXT_ITERATION_OPS:  # type: ignore[index]
                continue
            found = readers[j]
            if found is None:
                readers[j] = [i]
            elif found[-1] == i:  # a second edge from the same node: count nodes, not edges
                continue
            else:
                found.append(i)
            count += 1
        pending[i] = count
    if stable:
        ready = [i for i, count in enumerate(pending) if count == 0]  # already a heap: ascending
        order: list[int] = []
        while ready:
            i = heapq.heappop(ready)
            order.append(i)
            found = readers[i]
            if found:
                for k in found:
                    pending[k] -= 1
                    if pending[k] == 0:
                        heapq.heappush(ready, k)
    else:
        order = [i for i, count in enumerate(pending) if count == 0]
        for i in order:  # the list grows while it is walked: it is the queue and the order at once
            found = readers[i]
            if found:
                for k in found:
                    pending[k] -= 1
                    if pending[k] == 0:
                        order.append(k)
    stuck = [i for i, count in enumerate(pending) if count > 0] if len(order) != len(names) else []
    return WalkResult(order, stuck)


def node_order(nodes: Sequence[node_def_pb2.NodeDef], *, stable: bool = True) -> WalkResult:
    """``walk`` over NodeDefs (reads each node's name, op and inputs once)."""
    return walk([n.name for n in nodes], [n.input for n in nodes], [n.op for n in nodes], stable=stable)


def _source(text: str) -> str:
    """The node name of an input string: ``"^x"``, ``"x:1"`` and ``"x"`` all name ``x``."""
    return node_def_lib.parse_tensor_name(text)[0]
