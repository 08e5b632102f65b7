"""``tf.GradientTape``: records operations on watched tensors and differentiates them in reverse mode.

As in TensorFlow: inside ``with tf.GradientTape() as tape`` every op whose inputs include
a watched tensor (``tape.watch``, a trainable variable read while recording, or an output
of an op already recorded) is recorded, eagerly and inside ``tf.function`` alike;
``tape.gradient(target, sources)`` runs the recorded ops' gradient functions
(``framework.gradient_registry``) backwards. A non-persistent tape gives one set of
gradients; tapes nest for higher-order derivatives; ``stop_recording`` pauses one.
``jacobian`` and ``batch_jacobian`` run one backward pass per target element (TF
vectorizes them with pfor; the numbers are the same).
"""

from __future__ import annotations

import contextlib
import enum
import logging
from collections.abc import Iterator, Sequence
from typing import Any

from modtensor.api import gradient_engine
from modtensor.framework import tape as tape_lib
from modtensor.framework.func_graph import flatten_structure, pack_structure
from modtensor.framework.tensor import Tensor

__all__ = ["GradientTape", "UnconnectedGradients"]

_log = logging.getLogger("modtensor")
_warned_persistent_inside = False


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on: None, or zeros of its shape."""

    NONE = "none"
    ZERO = "zero"


def _is_variable(value: Any) -> bool:
    from modtensor.api.variables import Variable

    return isinstance(value, Variable)


def _handle_or_self(value: Any) -> Any:
    return value.handle if _is_variable(value) else value


def _unconnected_mode(value: Any) -> UnconnectedGradients:
    try:
        return UnconnectedGradients(value.value if isinstance(value, UnconnectedGradients) else value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


def _zeros_for_source(source: Any) -> Any:
    from modtensor.api import array_ops

    if _is_variable(source):
        return array_ops.zeros(array_ops.shape(source), dtype=source.dtype)
    return array_ops.zeros_like(source)


def _producer_in(tape: tape_lib.Tape) -> Any:
    producers = tape.producer

    def producer(t: Any) -> Any:
        return producers.get(id(t))

    return producer


def _describe(node: Any) -> str:
    return f"op {node.op_type}"


def _convert_output_gradient(value: Any, target: Any) -> Any:
    if value is None:
        return None
    from modtensor.api.op_scope import convert_to_tensor

    return convert_to_tensor(value, dtype=target.dtype)


def tape_gradients(
    tape: tape_lib.Tape,
    targets: Sequence[Any],
    sources: Sequence[Any],
    output_gradients: Sequence[Any] | None,
    unconnected: UnconnectedGradients,
    raw_sources: Sequence[Any] | None = None,
) -> list[Any]:
    """The backward pass over ``tape``'s ops: one gradient per source (TF's imperative_grad)."""
    from modtensor.api import array_ops

    seeds: list[Any] = []
    for i, t in enumerate(targets):
        given = output_gradients[i] if output_gradients is not None else None
        if given is not None:
            seeds.append(_convert_output_gradient(given, t))
        elif tape_lib.is_trainable_dtype(t.dtype) and tape.tracks(t):
            seeds.append(array_ops.ones_like(t))
        else:
            seeds.append(None)
    grads = gradient_engine.backward(targets, seeds, sources, _producer_in(tape), describe=_describe)
    if unconnected is UnconnectedGradients.ZERO:
        raw = raw_sources if raw_sources is not None else sources
        grads = [_zeros_for_source(raw[i]) if g is None else g for i, g in enumerate(grads)]
    return grads


class GradientTape:
    """Records operations for automatic differentiation (TensorFlow's ``tf.GradientTape``)."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._tape: tape_lib.Tape | None = None
        self._recording = False
        self._watched_variables: tuple[Any, ...] = ()

    # ------------------------------------------------------------------ recording

    def __enter__(self) -> GradientTape:
        self._push_tape()
        return self

    def __exit__(self, typ: Any, value: Any, traceback: Any) -> None:
        if self._recording:
            self._pop_tape()

    def _push_tape(self) -> None:
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active tape.")
        if self._tape is None:
            self._tape = tape_lib.Tape(self._persistent, self._watch_accessed_variables)
        tape_lib.push_tape(self._tape)
        self._recording = True

    def _pop_tape(self) -> None:
        if not self._recording:
            raise ValueError("Tape is not recording.")
        tape_lib.pop_tape(self._tape)
        self._recording = False

    @contextlib.contextmanager
    def _ensure_recording(self) -> Iterator[None]:
        if not self._recording:
            try:
                self._push_tape()
                yield
            finally:
                self._pop_tape()
        else:
            yield

    def watch(self, tensor: Any) -> None:
        """Track ``tensor`` (a tensor, variable, or nested structure of them): gradients flow to it."""
        if self._tape is None:
            raise AttributeError(  # TF's class (its tape object is gone after gradient())
                "GradientTape.watch needs a tape that records: call it inside the `with` block, before gradient() "
                "(a non-persistent tape stops recording when gradient() is called)."
            )
        for t in flatten_structure(tensor):
            if _is_variable(t):
                if not tape_lib.is_trainable_dtype(t.dtype):
                    _log.warning("The dtype of the watched tensor must be floating (e.g. tf.float32), got %r", t.dtype)
                self._tape.watch_variable(t)
                continue
            if not isinstance(t, Tensor):
                raise ValueError(
                    f"Passed in object {t} of type {type(t).__name__!r}, not tf.Tensor or tf.Variable or ExtensionType."
                )
            if not tape_lib.is_trainable_dtype(t.dtype):
                _log.warning("The dtype of the watched tensor must be floating (e.g. tf.float32), got %r", t.dtype)
            self._tape.watch(t)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stop recording on this tape (ops in the block are not differentiated)."""
        if self._tape is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop_tape()
        try:
            yield
        finally:
            self._push_tape()

    def reset(self) -> None:
        """Forget everything recorded so far (the tape keeps recording if it was)."""
        recording = self._recording
        if recording:
            self._pop_tape()
        self._tape = None
        if recording:
            self._push_tape()

    def watched_variables(self) -> tuple[Any, ...]:
        """The variables watched by this tape, in the order they were first watched."""
        if self._tape is not None:
            return tuple(self._tape.watched_variables.values())
        return self._watched_variables

    # ------------------------------------------------------------------ differentiation

    def _before_gradient(self) -> tape_lib.Tape:
        global _warned_persistent_inside
        if self._tape is None:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
            )
        if self._recording:
            if not self._persistent:
                self._pop_tape()
            elif not _warned_persistent_inside:
                _warned_persistent_inside = True
                _log.warning(
                    "Calling GradientTape.gradient on a persistent tape inside its context is significantly less "
                    "efficient than calling it outside the context (it causes the gradient ops to be recorded on the "
                    "tape, leading to increased CPU and memory usage). Only call GradientTape.gradient inside the "
                    "context if you actually want to trace the gradient in order to compute higher order derivatives."
                )
        return self._tape

    def _after_gradient(self) -> None:
        if not self._persistent and self._tape is not None:
            self._watched_variables = tuple(self._tape.watched_variables.values())
            self._tape = None

    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
    ) -> Any:
        """The gradient of ``target`` (summed over its elements) with respect to each of ``sources``.

        ``sources`` may be a nested structure of tensors and variables; the result has its
        structure, None where ``target`` does not depend on a source (or zeros with
        ``unconnected_gradients="zero"``). ``output_gradients`` weights each target element.
        """
        tape = self._before_gradient()
        if target is None:
            raise TypeError(
                "Argument `target` should be a list or nested structure of Tensors, Variables or CompositeTensors to "
                "be differentiated, but received None."
            )
        mode = _unconnected_mode(unconnected_gradients)
        flat_targets = [_handle_or_self(t) for t in flatten_structure(target)]
        for t in flat_targets:
            if not isinstance(t, Tensor):
                raise TypeError(f"Target {t!r} is not a tensor or variable; gradient() differentiates tensors.")
        raw_sources = flatten_structure(sources)
        flat_sources = [_handle_or_self(s) for s in raw_sources]
        for s in flat_sources:
            if not isinstance(s, Tensor):
                raise TypeError(f"Source {s!r} of gradient() is not a tensor or variable; sources must be tensors.")
        grads_given = None
        if output_gradients is not None:
            grads_given = flatten_structure(output_gradients)
            if len(grads_given) != len(flat_targets):
                raise ValueError(
                    f"output_gradients has {len(grads_given)} elements for {len(flat_targets)} target tensors."
                )
        try:
            grads = tape_gradients(tape, flat_targets, flat_sources, grads_given, mode, raw_sources)
        finally:
            self._after_gradient()
        return pack_structure(sources, grads)

    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """d target[i...] / d source[j...] for each source: shape ``target.shape + source.shape``."""
        del parallel_iterations
        from modtensor.api.context import executing_eagerly

        if not experimental_use_pfor and executing_eagerly() and not self._persistent:
            raise RuntimeError(
                "GradientTape must be created with persistent=True to compute the jacobian with eager execution "
                "enabled and with  experimental_use_pfor set to False."
            )
        tape = self._before_gradient()
        try:
            flat_sources_raw = flatten_structure(sources)
            flat_sources = [_handle_or_self(s) for s in flat_sources_raw]
            result = _jacobian_rows(
                tape, _handle_or_self(target), flat_sources, _unconnected_mode(unconnected_gradients)
            )
        finally:
            self._after_gradient()
        return pack_structure(sources, result)

    def batch_jacobian(
        self,
        target: Any,
        source: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """Per example b: d target[b, i...] / d source[b, j...]: ``[batch] + target.shape[1:] + source.shape[1:]``.

        Assumes, as TensorFlow does, that example b of the target depends only on example b of the source.
        """
        del parallel_iterations, experimental_use_pfor
        tape = self._before_gradient()
        try:
            result = _batch_jacobian(tape, target, _handle_or_self(source), _unconnected_mode(unconnected_gradients))
        finally:
            self._after_gradient()
        return result


def _static_size(tensor: Any, what: str) -> int:
    shape = tensor.shape
    if not shape.is_fully_defined():
        raise ValueError(
            f"The {what} of a jacobian must have a fully known shape in modtensor (got {shape}); "
            "set_shape() it or compute the jacobian eagerly."
        )
    return int(shape.num_elements())


def _jacobian_rows(tape: tape_lib.Tape, target: Any, sources: list[Any], mode: UnconnectedGradients) -> list[Any]:
    """The jacobian by one backward pass per target element, seeded with that element's one-hot gradient."""
    import numpy as np

    from modtensor.api import array_ops
    from modtensor.api.op_scope import convert_to_tensor

    size = _static_size(target, "target")
    dims = list(target.shape.as_list())
    rows: list[list[Any]] = [[] for _ in sources]
    connected = [False] * len(sources)
    np_dtype = target.dtype.as_numpy_dtype
    for i in range(size):
        seed = np.zeros(size, dtype=np_dtype)
        seed[i] = 1
        seed_tensor = convert_to_tensor(seed.reshape(dims), dtype=target.dtype)
        grads = gradient_engine.backward([target], [seed_tensor], sources, _producer_in(tape), describe=_describe)
        for k, g in enumerate(grads):
            if g is not None:
                connected[k] = True
                g = convert_to_tensor(g)
            rows[k].append(g)
    out: list[Any] = []
    for k, source in enumerate(sources):
        source_dims = list(source.shape.as_list()) if source.shape.rank is not None else None
        if not connected[k]:
            if mode is UnconnectedGradients.ZERO:
                out.append(array_ops.zeros(dims + _static_dims(source), dtype=source.dtype))
            else:
                out.append(None)
            continue
        filled = [array_ops.zeros_like(source) if g is None else g for g in rows[k]]
        stacked = array_ops.stack(filled, axis=0)
        shape = dims + (source_dims if source_dims is not None and None not in source_dims else [-1])
        out.append(array_ops.reshape(stacked, shape))
    return out


def _static_dims(tensor: Any) -> list[int]:
    shape = tensor.shape
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot make zeros for an unconnected jacobian of a source of unknown shape {shape}.")
    return list(shape.as_list())


def _batch_jacobian(tape: tape_lib.Tape, target: Any, source: Any, mode: UnconnectedGradients) -> Any:
    import numpy as np

    from modtensor.api import array_ops
    from modtensor.api.op_scope import convert_to_tensor

    target_shape = target.shape
    if target_shape.rank is None or target_shape.rank < 1:
        raise ValueError(f"Need first dimension of target shape ({target_shape}) and source shape to match.")
    if not target_shape.is_fully_defined():
        raise ValueError(
            f"The target of a batch_jacobian must have a fully known shape in modtensor (got {target_shape})."
        )
    dims = target_shape.as_list()
    batch, inner = dims[0], int(np.prod(dims[1:], dtype=np.int64))
    source_dims = source.shape.as_list() if source.shape.rank is not None else None
    if source_dims is not None and source_dims[0] is not None and source_dims[0] != batch:
        raise ValueError(
            f"Need first dimension of target shape ({target_shape}) and source shape ({source.shape}) to match."
        )
    columns: list[Any] = []
    connected = False
    np_dtype = target.dtype.as_numpy_dtype
    for j in range(inner):
        seed = np.zeros((batch, inner), dtype=np_dtype)
        seed[:, j] = 1
        seed_tensor = convert_to_tensor(seed.reshape(dims), dtype=target.dtype)
        (g,) = gradient_engine.backward([target], [seed_tensor], [source], _producer_in(tape), describe=_describe)
        if g is not None:
            connected = True
            g = convert_to_tensor(g)
        columns.append(g)
    if not connected:
        if mode is UnconnectedGradients.ZERO:
            return array_ops.zeros(dims + _static_dims(source)[1:], dtype=source.dtype)
        return None
    filled = [array_ops.zeros_like(source) if g is None else g for g in columns]
    stacked = array_ops.stack(filled, axis=1)  # [batch, inner, source dims...]
    rest = source_dims[1:] if source_dims is not None and None not in source_dims[1:] else [-1]
    return array_ops.reshape(stacked, [batch, *dims[1:], *rest])
