"""Gradient tapes: the tensors being watched and the operations run on them, per thread.

TensorFlow's tape, as ``tf.GradientTape`` uses it: a tape watches tensors (``watch``,
variables read while it records), and every operation whose inputs include a watched
tensor, or an output of an operation already recorded, is recorded with a *backward
function* mapping output gradients to input gradients. Recording happens in the one
eager dispatch path (``runtime/eager.py``), when graph ops are created
(``framework/graph.py``: a tape inside ``tf.function`` records graph ops) and for
captures (an outside tensor and the placeholder standing for it are linked by an
identity record, as TF's ``captured_value``). ``api/backprop.py`` runs the backward pass.

Tapes belong to a thread; :data:`ACTIVE` counts the tapes recording in the whole process so
that dispatch pays one integer test while no tape exists. The tape keeps every tensor it
tracks alive, so ``id()`` identifies a tensor for the tape's lifetime. Only tensors of a
trainable dtype (floating, complex, resource, variant) are tracked, as in TensorFlow.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from modtensor.framework import dtypes, gradient_registry
from modtensor.framework.attr_value import from_attr_value

__all__ = [
    "ACTIVE",
    "EagerOp",
    "Tape",
    "TapeOp",
    "VariableWatcher",
    "could_record",
    "is_trainable_dtype",
    "pop_tape",
    "push_tape",
    "record_op",
    "record_operation",
    "should_record",
    "stop_recording",
    "variable_accessed",
]

# Number of tapes pushed and not popped, all threads together: the dispatch fast paths test only this.
ACTIVE = 0

_TRAINABLE = frozenset(
    [
        dtypes.float16,
        dtypes.bfloat16,
        dtypes.float32,
        dtypes.float64,
        dtypes.complex64,
        dtypes.complex128,
        dtypes.resource,
        dtypes.variant,
    ]
)


def is_trainable_dtype(dtype: Any) -> bool:
    """Whether gradients flow through tensors of ``dtype`` (TF's IsDtypeTrainable)."""
    return getattr(dtype, "base_dtype", dtype) in _TRAINABLE


BackwardFunction = Callable[[list[Any]], Sequence[Any]]


class TapeOp:
    """One recorded operation: its type, input and output tensors, and its backward function.

    ``backward(output_grads)`` gets one gradient (or None) per output and returns one per input.
    ``accepts_none`` lists the output indices whose missing gradient the backward function takes
    as None (others get zeros), as TF's FunctionsAcceptingNoneForIndicesMap.
    """

    __slots__ = ("accepts_none", "backward", "inputs", "op_type", "outputs")

    def __init__(
        self,
        op_type: str,
        inputs: Sequence[Any],
        outputs: Sequence[Any],
        backward: BackwardFunction,
        accepts_none: frozenset[int] = frozenset(),
    ):
        self.op_type = op_type
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.backward = backward
        self.accepts_none = accepts_none

    def __repr__(self) -> str:
        return f"<TapeOp {self.op_type}: {len(self.inputs)} inputs, {len(self.outputs)} outputs>"


class Tape:
    """The record of one ``GradientTape``: tracked tensors (watched, or produced by recorded ops) and ops."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.tensors: dict[int, Any] = {}  # id -> tensor: watched tensors and outputs of recorded ops
        self.producer: dict[int, TapeOp] = {}  # id of an output -> the op that produced it
        self.ops: list[TapeOp] = []
        self.watched_variables: dict[int, Any] = {}  # id(variable) -> variable, in watch order

    def watch(self, tensor: Any) -> None:
        """Track ``tensor`` (gradients flow to it)."""
        self.tensors.setdefault(id(tensor), tensor)

    def watch_variable(self, variable: Any) -> None:
        """Track the handle of ``variable`` (gradients of its reads reach it) and list it as watched."""
        handle = variable.handle
        self.watched_variables.setdefault(id(handle), variable)  # by handle: an assign's result is the same variable
        self.watch(handle)

    def tracks(self, tensor: Any) -> bool:
        """Whether gradients would flow to ``tensor``."""
        return id(tensor) in self.tensors

    def record(self, op: TapeOp) -> None:
        """Add ``op``, tracking its outputs of trainable dtype."""
        self.ops.append(op)
        for t in op.outputs:
            if t is not None and is_trainable_dtype(t.dtype):
                self.tensors[id(t)] = t
                self.producer[id(t)] = op


class _ThreadTapes(threading.local):
    def __init__(self) -> None:
        self.tapes: list[Tape] = []
        self.stopped = 0
        self.watchers: list[VariableWatcher] = []


_thread = _ThreadTapes()
_count_lock = threading.Lock()


def push_tape(tape: Tape) -> None:
    """Start recording on ``tape`` in this thread."""
    global ACTIVE
    _thread.tapes.append(tape)
    with _count_lock:
        ACTIVE += 1


def pop_tape(tape: Tape) -> None:
    """Stop recording on ``tape`` in this thread (a tape not on this thread's stack is an error)."""
    global ACTIVE
    tapes = _thread.tapes
    for i in range(len(tapes) - 1, -1, -1):
        if tapes[i] is tape:
            del tapes[i]
            break
    else:
        raise ValueError("This tape is not recording in this thread.")
    with _count_lock:
        ACTIVE -= 1


def recording_tapes() -> list[Tape]:
    """The tapes recording in this thread, outermost first (empty while recording is stopped)."""
    return [] if _thread.stopped else list(_thread.tapes)


def could_record() -> bool:
    """Whether any tape records in this thread now (cheap test before gathering inputs)."""
    return bool(ACTIVE) and bool(_thread.tapes) and not _thread.stopped


def should_record(inputs: Sequence[Any]) -> bool:
    """Whether an op on ``inputs`` must be recorded: some tape of this thread tracks one of them."""
    if not ACTIVE or _thread.stopped:
        return False
    for tape in _thread.tapes:
        tensors = tape.tensors
        for t in inputs:
            if id(t) in tensors:
                return True
    return False


def record_operation(
    op_type: str,
    inputs: Sequence[Any],
    outputs: Sequence[Any],
    backward: BackwardFunction,
    accepts_none: frozenset[int] = frozenset(),
) -> None:
    """Record an op on every tape of this thread that tracks one of its inputs."""
    if not ACTIVE or _thread.stopped:
        return
    op = None
    for tape in _thread.tapes:
        tensors = tape.tensors
        if any(id(t) in tensors for t in inputs):
            if op is None:
                op = TapeOp(op_type, inputs, outputs, backward, accepts_none)
            tape.record(op)


def variable_accessed(variable: Any) -> None:
    """A trainable variable was read: tapes of this thread watching accessed variables watch it, and
    variable watchers (``tf.custom_gradient``) list it."""
    if not ACTIVE:
        return
    for watcher in _thread.watchers:
        watcher.add(variable)
    if _thread.stopped:
        return
    for tape in _thread.tapes:
        if tape.watch_accessed_variables:
            tape.watch_variable(variable)


class VariableWatcher:
    """Lists the trainable variables read inside the block (TF's ``VariableWatcher``; custom_gradient uses it)."""

    def __init__(self) -> None:
        self._variables: dict[int, Any] = {}

    def add(self, variable: Any) -> None:
        """Note that ``variable`` was read (once per variable handle)."""
        self._variables.setdefault(id(variable.handle), variable)

    def watched_variables(self) -> list[Any]:
        """The variables read, in first-read order."""
        return list(self._variables.values())

    def __enter__(self) -> VariableWatcher:
        global ACTIVE
        _thread.watchers.append(self)
        with _count_lock:
            ACTIVE += 1  # variable reads report to the tape module while a watcher exists
        return self

    def __exit__(self, *exc: object) -> None:
        global ACTIVE
        _thread.watchers.remove(self)
        with _count_lock:
            ACTIVE -= 1


@contextlib.contextmanager
def stop_recording() -> Iterator[None]:
    """No tape of this thread records inside the block (TF's tape.stop_recording)."""
    _thread.stopped += 1
    try:
        yield
    finally:
        _thread.stopped -= 1


# ============================================================================ recording ops


# Output indices whose missing gradient these ops' gradient functions take as None (TF's
# FunctionsAcceptingNoneForIndicesMap); other missing output gradients are zeros.
_ACCEPTS_NONE: dict[str, frozenset[int]] = {
    "SoftmaxCrossEntropyWithLogits": frozenset([1]),
    "SparseSoftmaxCrossEntropyWithLogits": frozenset([1]),
    "FusedBatchNorm": frozenset([1, 2, 3, 4]),
    "FusedBatchNormV2": frozenset([1, 2, 3, 4]),
    "FusedBatchNormV3": frozenset([1, 2, 3, 4, 5]),
}


class EagerOp:
    """An op that ran eagerly, as gradient functions see it: TF's ``_MockOp`` (type, inputs, outputs, attrs).

    ``skip_input_indices`` lists the inputs no tape tracks, whose gradients a gradient
    function may skip computing.
    """

    __slots__ = ("_attrs", "inputs", "outputs", "skip_input_indices", "type")

    def __init__(self, op_type: str, attrs: Any, inputs: Sequence[Any], outputs: Sequence[Any]):
        self.type = op_type
        self._attrs = attrs
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.skip_input_indices: tuple[int, ...] | None = None

    @property
    def name(self) -> str:
        """Eager ops have no node name; their type stands in (error messages)."""
        return self.type

    def get_attr(self, name: str) -> Any:
        """The python value of attr ``name``, as ``Operation.get_attr`` gives it."""
        value = self._attrs.get(name) if self._attrs is not None else None
        if value is None:
            raise ValueError(f"Operation '{self.type}' has no attr named '{name}'.")
        return from_attr_value(value)

    def _get_attr_value(self, name: str) -> Any:
        return self._attrs.get(name) if self._attrs is not None else None

    def __repr__(self) -> str:
        return f"<eager op {self.type}>"


def _scope_for(op: Any) -> str:
    """The name scope the gradient ops of graph op ``op`` are made in: ``gradient_tape/<forward scope>/``."""
    name = op.name
    scope = name.rsplit("/", 1)[0] if "/" in name else ""
    return f"gradient_tape/{scope}/" if scope else "gradient_tape/"


def op_backward(op: Any) -> BackwardFunction:
    """The backward function of ``op`` (a graph Operation or an :class:`EagerOp`): its registered gradient."""

    def backward(output_grads: list[Any]) -> Sequence[Any]:
        override = None if isinstance(op, EagerOp) else op._get_attr_value("_gradient_op_type")
        fn = gradient_registry.gradient_function_for(
            op.name, op.type, override.s.decode() if override is not None and override.s else None
        )
        n = len(op.inputs)
        if fn is None:
            return [None] * n
        if isinstance(op, EagerOp):
            result = fn(op, *output_grads)
        else:
            from modtensor.framework.graph import get_default_graph

            with get_default_graph().name_scope(_scope_for(op)):
                result = fn(op, *output_grads)
        return normalize_gradients(result, n, op)

    return backward


def normalize_gradients(result: Any, n: int, op: Any) -> list[Any]:
    """A gradient function's result as a list of ``n`` gradients (a lone gradient for a one-input op)."""
    if n == 1 and not isinstance(result, (list, tuple)):
        return [result]
    if not isinstance(result, (list, tuple)):
        raise ValueError(
            f"The gradient function of op '{op.name}' ({op.type}) returned {result!r}; it must return a list of "
            f"{n} gradients (None for inputs without one)."
        )
    return list(result)


def record_op(op: Any, inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
    """Record ``op`` (graph Operation or :class:`EagerOp`) on the tapes tracking one of ``inputs``."""
    if isinstance(op, EagerOp):
        op.skip_input_indices = tuple(
            i for i, t in enumerate(inputs) if not any(id(t) in tape.tensors for tape in _thread.tapes)
        )
    record_operation(op.type, inputs, outputs, op_backward(op), _ACCEPTS_NONE.get(op.type, frozenset()))
