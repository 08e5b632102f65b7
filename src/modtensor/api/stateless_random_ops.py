"""``tf.random.stateless_uniform`` and ``stateless_normal`` as TF 2.21 builds them: the seed pair becomes a
Philox key and counter (``StatelessRandomGetKeyCounter``) and ``StatelessRandomUniformV2`` /
``StatelessRandomUniformIntV2`` / ``StatelessRandomNormalV2`` draw from them, so a seed gives TF's numbers
in any program, eagerly or in a graph. Only ``alg="auto_select"`` (Philox on CPU) is built.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.api.random_ops import _shape_tensor
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = ["stateless_categorical", "stateless_normal", "stateless_truncated_normal", "stateless_uniform"]

_AUTO_SELECT = 3


def _key_counter_alg(seed: Any, alg: Any) -> tuple[Tensor, Tensor, int]:
    """TF's ``get_key_counter_alg`` for ``auto_select``: the key and counter of ``seed`` and the algorithm id."""
    if alg is None:
        alg = _AUTO_SELECT
    if isinstance(alg, str) and alg.strip().lower().replace("-", "").replace("_", "") == "autoselect":
        alg = _AUTO_SELECT
    if alg != _AUTO_SELECT:
        raise NotImplementedError(f"modtensor builds stateless random ops for alg='auto_select' only, not {alg!r}")
    key, counter = apply_op("StatelessRandomGetKeyCounter", seed=seed)
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
