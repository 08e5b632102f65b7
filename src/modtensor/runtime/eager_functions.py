"""The eager context's function library: traced functions by name, for ops with ``func`` attrs run eagerly.

TensorFlow's eager context keeps a FunctionLibraryDefinition; ``tf.data`` adds the traced
user functions to it (``context.add_function``) and the dataset ops executed eagerly name
them in their ``f`` attrs. Here a :class:`LibraryFunction` is a traced graph with its
argument, result and must-run nodes; it is compiled on first use (``graph_execution``) and
run with host values. Names are unique per trace (``__inference_Dataset_map_fn_12``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from modtensor.framework import errors
from modtensor.framework.protos import graph_pb2

__all__ = ["LibraryFunction", "add_function", "lookup_function", "remove_function"]


class LibraryFunction:
    """A traced function: its GraphDef, argument placeholders, results and stateful nodes; compiled once."""

    def __init__(
        self,
        name: str,
        graph_def: graph_pb2.GraphDef,
        inputs: Sequence[str],
        outputs: Sequence[str],
        targets: Sequence[str] = (),
    ):
        self.name = name
        self.graph_def = graph_def
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.targets = list(targets)
        # Arguments no node reads are not fed (the graph optimizer prunes their placeholders).
        used = {name.split(":")[0].lstrip("^") for node in graph_def.node for name in node.input}
        used |= {name.split(":")[0] for name in self.outputs}
        self._fed = [i for i, name in enumerate(self.inputs) if name.split(":")[0] in used]
        self._compiled: Any = None
        self._lock = threading.Lock()

    @property
    def num_args(self) -> int:
        """How many values ``run`` takes (the element's components, then the captured values)."""
        return len(self.inputs)

    def _plan(self) -> Any:
        plan = self._compiled
        if plan is None:
            with self._lock:
                plan = self._compiled
                if plan is None:
                    from modtensor.runtime import graph_execution

                    options = graph_execution.ExecutionOptions(allow_soft_placement=True, inter_op_threads=1)
                    plan = self._compiled = graph_execution.compile_graph(
                        self.graph_def, [self.inputs[i] for i in self._fed], self.outputs, self.targets, options
                    )
        return plan

    def run(self, args: Sequence[Any]) -> list[Any]:
        """Run on host values (one per input); returns the results as host values."""
        if len(args) != len(self.inputs):
            raise errors.InvalidArgumentError(
                None, None, f"Function '{self.name}' takes {len(self.inputs)} arguments, got {len(args)}"
            )
        plan = self._plan()
        return plan.run([args[i] for i in self._fed])

    def close(self) -> None:
        """Release the compiled plan's kernels."""
        with self._lock:
            plan, self._compiled = self._compiled, None
        if plan is not None:
            plan.close()


_FUNCTIONS: dict[str, LibraryFunction] = {}
_LOCK = threading.Lock()


def add_function(function: LibraryFunction) -> None:
    """Add ``function`` under its name (replacing nothing: names are unique per trace)."""
    with _LOCK:
        _FUNCTIONS[function.name] = function


def lookup_function(name: str) -> LibraryFunction | None:
    """The function called ``name``, or None."""
    return _FUNCTIONS.get(name)


def remove_function(name: str) -> None:
    """Forget ``name`` (kernels that already resolved it keep their reference)."""
    with _LOCK:
        _FUNCTIONS.pop(name, None)
