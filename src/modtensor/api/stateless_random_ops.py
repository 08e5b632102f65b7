"""``tf.random.stateless_uniform`` and ``stateless_normal`` as TF 2.21 builds them: the seed pair becomes a
Philox key and counter (``StatelessRandomGetKeyCounter``) and ``StatelessRandomUniformV2`` /
``StatelessRandomUniformIntV2`` / ``StatelessRandomNormalV2`` draw from them, so a seed gives TF's numbers
in any program, eagerly or in a graph. ``alg`` takes TF's values (``"auto_select"``, ``"philox"``,
``"threefry"``, their ids 3, 1, 2, or ``tf.random.Algorithm``) and builds TF's key and counter for each:
``"philox"`` scrambles the seed with ``StatelessRandomUniformFullIntV2`` as TF's Python does (the same numbers
as ``auto_select`` on CPU), ``"threefry"`` passes the seed through and fails in the kernel as on TF's CPU.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from modtensor.api import array_ops
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant, convert_to_tensor, op_scope
from modtensor.api.random_ops import _shape_tensor
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = ["Algorithm", "stateless_categorical", "stateless_normal", "stateless_truncated_normal", "stateless_uniform"]


class Algorithm(enum.Enum):
    """A random-number algorithm of the stateless ops (``tf.random.Algorithm``; TF's ids)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_AUTO_SELECT = Algorithm.AUTO_SELECT.value
_PHILOX_SCRAMBLE_KEY = 0x02461E293EC8F720  # TF's key for turning a seed into a Philox key and counter


def _unsupported_alg(alg: Any) -> str:
    """TF's message for an ``alg`` it does not know, its choices spelled as ``alg`` was."""
    if isinstance(alg, int):
        names: tuple[Any, ...] = tuple(a.value for a in Algorithm)
    elif isinstance(alg, str):
        names = ("philox", "threefry", "auto_select")
    else:
        names = tuple(Algorithm)
    return (
        f"Argument `alg` got unsupported value {alg}. Supported values are {names[0]} for the Philox algorithm, "
        f"{names[1]} for the ThreeFry algorithm, and {names[2]} for auto-selection."
    )


def _alg_id(alg: Any) -> int:
    """TF's ``convert_alg_to_int``: an int as it is, an ``Algorithm``'s value, a name (any case, ``-``/``_``)."""
    if alg is None:
        return _AUTO_SELECT
    if isinstance(alg, int):
        return alg
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, Tensor) and hasattr(alg, "numpy"):
        return int(alg.numpy())
    if isinstance(alg, str):
        canon = alg.strip().lower().replace("-", "").replace("_", "")
        ids = {"philox": Algorithm.PHILOX.value, "threefry": Algorithm.THREEFRY.value, "autoselect": _AUTO_SELECT}
        if canon not in ids:
            raise ValueError(_unsupported_alg(alg))
        return ids[canon]
    raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int.")


def _uint32s_to_uint64(x: Tensor) -> Tensor:
    """Two uint32 words (low, high) as one uint64."""
    low = math.cast(x[0], dtypes.uint64)
    high = math.cast(x[1], dtypes.uint64)
    return apply_op("BitwiseOr", x=low, y=apply_op("LeftShift", x=high, y=constant(32, dtypes.uint64)))


def _key_counter_alg(seed: Any, alg: Any) -> tuple[Tensor, Tensor, int]:
    """TF's ``get_key_counter_alg``: the key and counter the V2 ops take for ``seed``, and the algorithm id."""
    alg = _alg_id(alg)
    if alg == _AUTO_SELECT:
        key, counter = apply_op("StatelessRandomGetKeyCounter", seed=seed)
    elif alg == Algorithm.PHILOX.value:  # the scrambling StatelessRandomGetKeyCounter does, in ops
        scramble_key = constant([_PHILOX_SCRAMBLE_KEY], dtypes.uint64)
        mix = apply_op("StatelessRandomUniformFullIntV2", shape=np.array([4], np.int32), key=scramble_key,
                       counter=math.cast(seed, dtypes.uint64), alg=np.int32(Algorithm.PHILOX.value),
                       dtype=dtypes.uint32)  # fmt: skip
        key = array_ops.reshape(_uint32s_to_uint64(mix[:2]), [1])
        counter = array_ops.stack([np.uint64(0), _uint32s_to_uint64(mix[2:])], axis=0)
    elif alg == Algorithm.THREEFRY.value:
        key = array_ops.reshape(_uint32s_to_uint64(math.cast(seed, dtypes.uint32)), [1])
        counter = array_ops.zeros([1], dtypes.uint64)
    else:
        raise ValueError(_unsupported_alg(alg))
    return key, counter, alg


_UNIFORM_DTYPES = (
    dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.uint32,
    dtypes.uint64,
)  # fmt: skip


def stateless_uniform(
    shape: Any,
    seed: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = dtypes.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Uniform samples in ``[minval, maxval)`` (default ``[0, 1)``) of ``shape``, a function of the 2-element
    ``seed`` only."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are {_UNIFORM_DTYPES}.")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(
                f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must be both None or not "
                f"None. Got `minval`={minval} and `maxval`={maxval}."
            )
        if minval is None:  # the whole range of the dtype
            with op_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as scope:
                shape_t = _shape_tensor(shape)
                key, counter, alg = _key_counter_alg(seed, alg)
                return apply_op(
                    "StatelessRandomUniformFullIntV2", name=scope, shape=shape_t, key=key, counter=counter,
                    dtype=dtype, alg=alg,
                )  # fmt: skip
        if dtype in (dtypes.uint32, dtypes.uint64):
            raise ValueError(
                f"Argument `dtype` got invalid value {dtype} when argument `minval` is not None. Please don't use "
                "unsigned integers in this case."
            )
    elif maxval is None:
        maxval = 1
    with op_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as scope:
        shape_t = _shape_tensor(shape)
        minval = convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        key, counter, alg = _key_counter_alg(seed, alg)
        if dtype.is_integer:
            return apply_op(
                "StatelessRandomUniformIntV2", name=scope, shape=shape_t, key=key, counter=counter, alg=alg,
                minval=minval, maxval=maxval,
            )  # fmt: skip
        rnd = apply_op("StatelessRandomUniformV2", shape=shape_t, key=key, counter=counter, alg=alg, dtype=dtype)
        return math.add(rnd * (maxval - minval), minval, name=scope)


def _scaled_normal(op: str, default_name: str, shape: Any, seed: Any, mean: Any, stddev: Any, dtype: Any,
                   name: str | None, alg: Any) -> Tensor:  # fmt: skip
    """``op``'s N(0, 1) samples of ``shape`` from ``seed``, times ``stddev`` plus ``mean`` (TF's wrappers' graph)."""
    with op_scope(name, default_name, [shape, seed, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        key, counter, alg = _key_counter_alg(seed, alg)
        rnd = apply_op(op, shape=shape_t, key=key, counter=counter, alg=alg, dtype=dtype)
        return math.add(rnd * stddev_t, mean_t, name=scope)


def stateless_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Samples of N(``mean``, ``stddev``**2) of ``shape``, a function of the 2-element ``seed`` only."""
    return _scaled_normal(
        "StatelessRandomNormalV2", "stateless_random_normal", shape, seed, mean, stddev, dtype, name, alg
    )


def stateless_truncated_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Samples of N(``mean``, ``stddev``**2) truncated to within 2 ``stddev`` of ``mean``, of ``shape``, a function
    of the 2-element ``seed`` only (TF's StatelessTruncatedNormalV2: rejection of |x| >= 2, then scale and shift)."""
    return _scaled_normal(
        "StatelessTruncatedNormalV2", "stateless_truncated_normal", shape, seed, mean, stddev, dtype, name, alg
    )


# Added with tf.random.stateless_categorical.
def stateless_categorical(
    logits: Any, num_samples: Any, seed: Any, dtype: Any = dtypes.int64, name: str | None = None
) -> Tensor:
    """``num_samples`` class indices per row of ``logits``, a function of ``seed`` only (``StatelessMultinomial``)."""
    from modtensor.api.random_ops import _categorical_dtype

    with op_scope(name, "stateless_categorical", [logits, seed]):
        logits = convert_to_tensor(logits, name="logits")
        dtype = _categorical_dtype(dtype)
        return apply_op("StatelessMultinomial", logits=logits, num_samples=num_samples, seed=seed, output_dtype=dtype)
