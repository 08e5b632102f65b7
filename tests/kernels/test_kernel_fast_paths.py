"""The CPU kernels' fast paths give the same answers as their general paths.

Small inputs take shortcuts (Philox rounds on python ints, libm's erf per element,
cached strided-slice plans, pooling and convolution tap by tap); these tests pin
each shortcut to the general computation it replaces.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from modtensor.framework import errors
from modtensor.kernels.cpu import erf as erf_lib
from modtensor.kernels.cpu import random, strided_slice
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors, quiet_off, quiet_on


@pytest.mark.parametrize("skip", [0, 7, 2**32 - 3, 2**40 + 11])
@pytest.mark.parametrize("seeds", [(3, 4), (2**40 + 5, 2**50 + 9), (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF)])
def test_philox_on_python_ints_matches_the_vectorized_rounds(seeds: tuple[int, int], skip: int) -> None:
    many = random._SCALAR_BLOCKS + 8  # above the limit: the vectorized rounds
    vectorized = random.philox_blocks(seeds[0], seeds[1], many, skip)
    for count in (1, 5, random._SCALAR_BLOCKS):
        np.testing.assert_array_equal(random.philox_blocks(seeds[0], seeds[1], count, skip), vectorized[:count])


def test_philox_known_answer() -> None:
    # Philox4x32-10 known-answer vector (Random123): counter 0, key 0.
    np.testing.assert_array_equal(random.philox_blocks(0, 0, 1), [[0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]])


def test_small_erf_uses_libm_and_agrees_with_the_polynomials() -> None:
    x = np.concatenate([np.linspace(-7, 7, 1500), [0.0, -0.0, 27.0, 30.0, np.inf, -np.inf, np.nan]])
    assert x.size <= erf_lib._SCALAR_LIMIT
    big = np.tile(x, erf_lib._SCALAR_LIMIT // x.size + 1)
    np.testing.assert_allclose(erf_lib.erf(x), erf_lib.erf(big)[: x.size], rtol=1e-15, atol=1e-300)
    np.testing.assert_allclose(erf_lib.erfc(x), erf_lib.erfc(big)[: x.size], rtol=2e-15, atol=1e-300)
    assert erf_lib.erf(np.float32(0.5).reshape(())).dtype == np.float32


def test_strided_slice_plans_are_per_shape_and_errors_repeat() -> None:
    spec = (np.array([1], np.int32), np.array([3], np.int32), np.array([1], np.int32))
    np.testing.assert_array_equal(strided_slice.strided_slice(np.arange(10), *spec), [1, 2])
    np.testing.assert_array_equal(strided_slice.strided_slice(np.arange(2), *spec), [1])
    out = strided_slice.strided_slice(np.arange(12).reshape(4, 3), *spec)
    np.testing.assert_array_equal(out, [[3, 4, 5], [6, 7, 8]])
    assert out.flags.c_contiguous
    shrink = (np.array([5], np.int32), np.array([6], np.int32), np.array([1], np.int32))
    for _ in range(2):  # a failing spec is never cached: the error comes every time
        with pytest.raises(errors.InvalidArgumentError, match="out of bounds"):
            strided_slice.strided_slice(np.arange(3), *shrink, shrink_axis_mask=1)


def test_strided_slice_result_is_contiguous_for_steps() -> None:
    x = np.arange(20).reshape(4, 5)
    out = strided_slice.strided_slice(
        x, np.array([0, 4], np.int32), np.array([4, 0], np.int32), np.array([2, -2], np.int32)
    )
    np.testing.assert_array_equal(out, x[0:4:2, 4:0:-2])
    assert out.flags.c_contiguous


def test_quiet_state_is_scoped() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        token = quiet_on()
        try:
            np.float32(1e38) * np.float32(10)  # overflow: silent inside
        finally:
            quiet_off(token)
        with pytest.raises(RuntimeWarning):
            np.array([1e38], np.float32) * np.float32(10)  # the caller's state is back
        assert ignoring_fp_errors(lambda a: a * np.float32(10))(np.array([1e38], np.float32))[0] == np.inf


@pytest.mark.parametrize("tail", [(), (1,), (3,), (2, 0), (2, 3), (5, 7)])
@pytest.mark.parametrize("ufunc", [np.add, np.maximum, np.multiply])
def test_at_rows_equals_ufunc_at_bit_for_bit(tail: tuple[int, ...], ufunc: np.ufunc) -> None:
    """The 1-D fast path combines each output element's inputs in data order, as ufunc.at over rows does."""
    from modtensor.kernels.cpu.row_updates import at_rows

    rng = np.random.default_rng(len(tail))
    rows = rng.integers(0, 4, 50)  # duplicates: every output row is hit many times
    values = rng.standard_normal((50, *tail)).astype(np.float32)
    want = np.ones((4, *tail), np.float32)
    ufunc.at(want, rows, values)
    got = np.ones((4, *tail), np.float32)
    at_rows(ufunc, got, rows, values)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("kind", ["float32", "int32", "signed_zeros", "nan", "infinities", "int64_lowest"])
def test_top_k_by_argmax_passes_matches_the_full_sort(kind: str) -> None:
    """TopKV2 with a small k takes k argmax passes instead of sorting each row: the same values (bit for bit)
    and indices, ties by ascending index, and the sort again wherever NaN or the dtype's lowest value is picked."""
    from modtensor.kernels.cpu import sort

    rng = np.random.default_rng(7)
    pools = {
        "int32": lambda s: rng.integers(-3, 3, size=s).astype(np.int32),
        "signed_zeros": lambda s: rng.choice([0.0, -0.0, 1.0, -1.0], size=s).astype(np.float64),
        "infinities": lambda s: rng.choice([-np.inf, 0.0, np.inf, -np.inf], size=s).astype(np.float32),
        "int64_lowest": lambda s: rng.choice([np.iinfo(np.int64).min, 0, 5], size=s).astype(np.int64),
    }
    for _ in range(300):
        shape = (*rng.integers(1, 5, size=rng.integers(0, 3)), int(rng.integers(4, 60)))
        x = pools[kind](shape) if kind in pools else rng.standard_normal(shape).astype(np.float32)
        if kind == "nan":
            x.flat[rng.integers(0, x.size)] = np.nan
        k = int(rng.integers(0, min(shape[-1] // 4, sort._FEW) + 1))
        values, indices = sort.top_k_v2(x, np.int32(k))
        order = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1][..., :k]
        want_indices = (shape[-1] - 1) - order
        np.testing.assert_array_equal(indices, want_indices)
        assert values.tobytes() == np.take_along_axis(x, want_indices, axis=-1).tobytes()
