"""``tf.random``: seeded ``normal``, ``truncated_normal``, ``uniform`` and TF's seed rules (``set_seed``, op seeds).

The numbers equal TensorFlow's for the same seeds: the CPU kernels draw TF's Philox
stream for the (seed, seed2) attrs, and :func:`get_seed` derives those attrs as TF's
``random_seed.get_seed`` does. With a global seed (``tf.random.set_seed``) and no op
seed, graphs number their random ops 0, 1, 2, ... and eager execution draws op seeds
from a ``random.Random(global_seed)``, so a program gives TF's sequence of tensors.
``__all__`` is empty: TF 2 has no random ops at the top level (``modtensor.random``
exports them).
"""

from __future__ import annotations

import weakref
from typing import Any

from modtensor.api import context
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.graph import Graph, get_default_graph
from modtensor.framework.tensor import Tensor
from modtensor.runtime import context as runtime_context

__all__: list[str] = []

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


_graph_op_counts: weakref.WeakKeyDictionary[Graph, int] = weakref.WeakKeyDictionary()


def set_seed(seed: Any) -> None:
    """Set the global random seed: of eager execution, or of the default graph while building one.

    With it, random ops without an op seed get deterministic seeds (a program reruns
    with the same numbers); the eager op-seed sequence restarts at every call.
    """
    if context.executing_eagerly():
        runtime_context.set_global_seed(seed)
        # Cached stateful kernels keep their stream position; TF clears its kernel cache here too.
        from modtensor.runtime import eager

        clear = getattr(eager, "clear_kernel_cache", None)
        if clear is not None:
            clear()
    else:
        get_default_graph().seed = seed


def _truncate_seed(seed: int) -> int:
    return seed % _MAXINT32


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """TF's ``random_seed.get_seed``: the (seed, seed2) attrs of a random op from the global and op seeds.

    Global seed set: (global, op seed or the next op number / eager draw). Only an op
    seed: (87654321, op seed). Neither: (None, None), i.e. nondeterministic. (0, 0)
    becomes (0, 2**31 - 1), as 0/0 means "nondeterministic" to the kernels.
    """
    eager = context.executing_eagerly()
    graph = None if eager else get_default_graph()
    global_seed = runtime_context.global_seed() if eager else graph.seed  # type: ignore[union-attr]
    if global_seed is not None:
        if op_seed is None:
            if eager:
                op_seed = runtime_context.internal_operation_seed()
            else:
                op_seed = _graph_op_counts.setdefault(graph, 0)  # type: ignore[arg-type]
                _graph_op_counts[graph] = op_seed + 1  # type: ignore[index]
        seeds: tuple[int | None, int | None] = (_truncate_seed(global_seed), _truncate_seed(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, _truncate_seed(op_seed))
    else:
        seeds = (None, None)
    if seeds == (0, 0):
        return (0, _MAXINT32)
    return seeds


def _shape_tensor(shape: Any) -> Tensor:
    """TF's ``shape_util.shape_tensor``: a shape argument as an int32/int64 tensor named ``shape``."""
    dtype = None
    if isinstance(shape, (tuple, list)):
        if not shape:
            dtype = dtypes.int32
        else:
            shape = tuple(tensor_shape.dimension_value(d) for d in shape)
    return convert_to_tensor(shape, dtype=dtype, name="shape")


def normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Samples of N(``mean``, ``stddev``**2) of ``shape`` (``RandomStandardNormal * stddev + mean``)."""
    return _scaled_normal("RandomStandardNormal", "random_normal", shape, mean, stddev, dtype, seed, name)


def truncated_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Samples of N(``mean``, ``stddev``**2) cut at two standard deviations (``TruncatedNormal * stddev + mean``)."""
    return _scaled_normal("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype, seed, name)


def _scaled_normal(op: str, default_name: str, shape: Any, mean: Any, stddev: Any, dtype: Any, seed: int | None,
                   name: str | None) -> Tensor:  # fmt: skip
    """TF's graph for both normals: ``op`` of the shape with the op seeds, ``* stddev`` (mul), ``+ mean``."""
    with op_scope(name, default_name, [shape, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        seed1, seed2 = get_seed(seed)
        rnd = apply_op(op, shape=shape_t, dtype=dtype, seed=seed1 or 0, seed2=seed2 or 0)
        mul = math.multiply(rnd, stddev_t, name="mul")
        return math.add(mul, mean_t, name=scope)


def shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """``value`` randomly permuted along its first dimension (``RandomShuffle``)."""
    seed1, seed2 = get_seed(seed)
    return apply_op("RandomShuffle", value=value, seed=seed1 or 0, seed2=seed2 or 0, name=name)

_UNIFORM_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def uniform(
    shape: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Samples uniform in ``[minval, maxval)`` (default ``[0, 1)``) of ``shape``.

    Floats: ``RandomUniform`` scaled to the range; int32/int64 (``maxval`` required):
    ``RandomUniformInt``.
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES:
        accepted = ", ".join(repr(d) for d in _UNIFORM_DTYPES)
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are ({accepted}).")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with op_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape_t = _shape_tensor(shape)
        minval_is_zero = isinstance(minval, int) and minval == 0
        maxval_is_one = isinstance(maxval, int) and maxval == 1
        if not minval_is_zero or not maxval_is_one or dtype.is_integer:
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        seed1, seed2 = get_seed(seed)
        if dtype.is_integer:
            return apply_op(
                "RandomUniformInt",
                name=scope,
                shape=shape_t,
                minval=minval,
                maxval=maxval,
                seed=seed1 or 0,
                seed2=seed2 or 0,
            )
        result = apply_op("RandomUniform", shape=shape_t, dtype=dtype, seed=seed1 or 0, seed2=seed2 or 0)
        if minval_is_zero:
            if not maxval_is_one:
                result = math.multiply(result, maxval)
        else:
            span = math.subtract(maxval, minval, name="sub")
            result = math.add(math.multiply(result, span, name="mul"), minval, name=scope)
        return result


# Added with tf.random.categorical.
def _categorical_dtype(dtype: Any) -> Any:
    """The output dtype of the categorical samplers: int64 by default, int32 or int64 only (TF's check and text)."""
    dtype = dtypes.as_dtype(dtype) if dtype else dtypes.int64
    accepted = (dtypes.int32, dtypes.int64)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are {accepted!r}.")
    return dtype


def categorical(
    logits: Any, num_samples: Any, dtype: Any = None, seed: int | None = None, name: str | None = None
) -> Tensor:
    """``num_samples`` class indices per row of the 2-D ``logits`` (unnormalized log-probabilities): ``Multinomial``."""
    with op_scope(name, "categorical", [logits]):
        return _multinomial(logits, num_samples, dtype, seed)


def multinomial(
    logits: Any, num_samples: Any, seed: int | None = None, name: str | None = None, output_dtype: Any = None
) -> Tensor:
    """TF 1's ``tf.multinomial`` / ``tf.random.multinomial``: ``categorical`` under another name and scope."""
    with op_scope(name, "multinomial", [logits]):
        return _multinomial(logits, num_samples, output_dtype, seed)


def _multinomial(logits: Any, num_samples: Any, dtype: Any, seed: int | None) -> Tensor:
    logits = convert_to_tensor(logits, name="logits")
    dtype = _categorical_dtype(dtype)
    seed1, seed2 = get_seed(seed)
    return apply_op(
        "Multinomial", logits=logits, num_samples=num_samples, seed=seed1 or 0, seed2=seed2 or 0, output_dtype=dtype
    )
