"""CPU kernels of TF's stateless random ops on TF's Philox streams (the sampling of kernels/cpu/random.py).

StatelessRandomGetKeyCounter scrambles the seed pair as TF's ``GenerateKey``: one Philox block for the
counter (seed0, seed1) under the fixed key (0x3ec8f720, 0x02461e29) gives the new key (words 0-1) and the
high counter words (2-3). The V2 sampling ops draw the distribution of the stateful op from that key and
counter, so their bits equal TF's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.kernels.cpu import random
from modtensor.kernels.cpu.errors import invalid_argument, shape_str

_SCRAMBLE_KEY = (0x02461E29 << 32) | 0x3EC8F720
_PHILOX, _AUTO_SELECT = 1, 3


def stateless_random_get_key_counter(seed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """StatelessRandomGetKeyCounter: the Philox key [1] and counter [2] (uint64) of a seed pair."""
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise invalid_argument(f"seed must have shape [2], not {shape_str(seed.shape)}")
    seed0, seed1 = (int(v) & (2**64 - 1) for v in seed.astype(np.int64))
    mix = [int(w) for w in random.philox_blocks(_SCRAMBLE_KEY, seed1, 1, skip=seed0)[0]]
    key = np.array([mix[0] | (mix[1] << 32)], dtype=np.uint64)
    return key, np.array([0, mix[2] | (mix[3] << 32)], dtype=np.uint64)


def _philox_state(key: np.ndarray, counter: np.ndarray, alg: np.ndarray) -> tuple[int, int, int]:
    """(Philox key, high counter, low counter) from the op's inputs; only Philox runs on CPU, as in TF.

    TF 2.21's checks in its order: the key's shape, then the counter's length against the algorithm (auto_select
    counts as Philox; TF asks at least as many counter words as the algorithm's id: 2 for ThreeFry), then the
    algorithm."""
    algorithm = int(np.asarray(alg))
    effective = _PHILOX if algorithm == _AUTO_SELECT else algorithm
    key, counter = np.asarray(key), np.asarray(counter)
    if key.shape != (1,):
        raise invalid_argument(
            f"key must have shape [1], not {shape_str(key.shape)}. (Note that batched keys are not supported yet.)"
        )
    if counter.ndim != 1 or counter.shape[0] < effective:
        raise invalid_argument(
            f"counter must be a vector with length at least {effective}; got shape: {shape_str(counter.shape)}. "
            "(Note that batched counters are not supported yet.)"
        )
    if effective != _PHILOX:
        raise invalid_argument(f"Unsupported algorithm id: {algorithm}")
    if counter.size < 2:
        raise invalid_argument(f"For the Philox algorithm, the size of state must be at least 2; got {counter.size}")
    return int(key[0]), int(counter[1]), int(counter[0])


def stateless_random_uniform_v2(
    shape: np.ndarray, key: np.ndarray, counter: np.ndarray, alg: np.ndarray, dtype: Any = np.float32
) -> np.ndarray:
    """StatelessRandomUniformV2: floats in [0, 1) of ``shape`` from the key and counter."""
    k, high, low = _philox_state(key, counter, alg)
    return random.random_uniform(shape, dtype, seed=k, seed2=high, skip=low)


def stateless_random_normal_v2(
    shape: np.ndarray, key: np.ndarray, counter: np.ndarray, alg: np.ndarray, dtype: Any = np.float32
) -> np.ndarray:
    """StatelessRandomNormalV2: N(0, 1) samples of ``shape`` (Box-Muller) from the key and counter."""
    k, high, low = _philox_state(key, counter, alg)
    return random.random_standard_normal(shape, dtype, seed=k, seed2=high, skip=low)


def stateless_truncated_normal_v2(
    shape: np.ndarray, key: np.ndarray, counter: np.ndarray, alg: np.ndarray, dtype: Any = np.float32
) -> np.ndarray:
    """StatelessTruncatedNormalV2: N(0, 1) samples with |x| < 2 of ``shape`` (TruncatedNormal's rejection and
    output groups) from the key and counter."""
    k, high, low = _philox_state(key, counter, alg)
    return random.truncated_normal(shape, dtype, seed=k, seed2=high, skip=low)


def stateless_random_uniform_int_v2(
    shape: np.ndarray, key: np.ndarray, counter: np.ndarray, alg: np.ndarray, minval: np.ndarray, maxval: np.ndarray
) -> np.ndarray:
    """StatelessRandomUniformIntV2: integers in [minval, maxval) of ``shape`` from the key and counter."""
    k, high, low = _philox_state(key, counter, alg)
    return random.random_uniform_int(shape, minval, maxval, seed=k, seed2=high, skip=low)


def stateless_random_uniform_full_int_v2(
    shape: np.ndarray, key: np.ndarray, counter: np.ndarray, alg: np.ndarray, dtype: Any = np.uint64
) -> np.ndarray:
    """StatelessRandomUniformFullIntV2: integers over the whole range of ``dtype`` from the key and counter."""
    k, high, low = _philox_state(key, counter, alg)
    return random.random_full_int(shape, dtype, seed=k, seed2=high, skip=low)


# Added with tf.random.stateless_categorical.
def stateless_multinomial(logits: np.ndarray, num_samples: np.ndarray, seed: np.ndarray,
                          output_dtype: Any = np.int64) -> np.ndarray:  # fmt: skip
    """StatelessMultinomial: Multinomial's draws from the Philox key and counter of ``seed`` (TF's GenerateKey)."""
    key, counter = stateless_random_get_key_counter(seed)
    return random.multinomial(logits, num_samples, output_dtype, seed=int(key[0]), seed2=int(counter[1]), skip=0)


OP_FUNCTIONS: dict[str, Any] = {
    "StatelessRandomGetKeyCounter": stateless_random_get_key_counter,
    "StatelessRandomUniformV2": stateless_random_uniform_v2,
    "StatelessRandomNormalV2": stateless_random_normal_v2,
    "StatelessTruncatedNormalV2": stateless_truncated_normal_v2,
    "StatelessRandomUniformIntV2": stateless_random_uniform_int_v2,
    "StatelessRandomUniformFullIntV2": stateless_random_uniform_full_int_v2,
    "StatelessMultinomial": stateless_multinomial,
}
CPU_TYPE_CONSTRAINTS = {
    "StatelessRandomUniformV2": {"dtype": "FLOATS"},
    "StatelessRandomNormalV2": {"dtype": "FLOATS"},
    "StatelessTruncatedNormalV2": {"dtype": "FLOATS"},
    "StatelessRandomUniformIntV2": {"dtype": "int32 int64"},
    "StatelessRandomUniformFullIntV2": {"dtype": "int32 int64 uint32 uint64"},
    "StatelessMultinomial": {"T": "FLOATS", "output_dtype": "int32 int64"},
}
