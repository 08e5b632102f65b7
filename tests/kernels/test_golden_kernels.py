"""Replays TensorFlow's golden kernel cases (tests/golden/kernels, made by tools/make_golden_kernel_cases.py).

Every case runs the op's numpy function with the recorded inputs and attrs and
must give TF's dtype and shape, exactly TF's integer/bool values, TF's float
values within tight tolerances, or TF's error class and message.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest

from modtensor.framework import errors
from modtensor.kernels.cpu import OP_FUNCTIONS

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "kernels"
INDEX = json.loads((GOLDEN / "index.json").read_text())["cases"]

TOLERANCE = {  # (rtol, atol relative to the output's scale) per float dtype
    np.dtype(np.float16): (1e-3, 1e-3),
    np.dtype(np.float32): (1e-5, 1e-6),
    np.dtype(np.float64): (1e-12, 1e-12),
}


@functools.cache
def arrays(op: str) -> dict[str, np.ndarray]:
    with np.load(GOLDEN / f"{op}.npz") as data:
        return {k: data[k] for k in data.files}


def attr_value(value):
    return np.dtype(value["dtype"]) if isinstance(value, dict) and "dtype" in value else value


def call(case: dict):
    data = arrays(case["op"])
    inputs = [[data[k] for k in spec["list"]] if "list" in spec else data[spec["key"]] for spec in case["inputs"]]
    attrs = {k: attr_value(v) for k, v in case["attrs"].items()}
    return OP_FUNCTIONS[case["op"]](*inputs, **attrs)


def assert_matches(got, want: np.ndarray, where: str) -> None:
    assert isinstance(got, np.ndarray), f"{where}: got {type(got).__name__}, not an ndarray"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != TF's {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape} != TF's {want.shape}"
    if want.dtype in TOLERANCE:
        rtol, atol = TOLERANCE[want.dtype]
        finite = np.abs(want[np.isfinite(want)].astype(np.float64))
        if want.dtype == np.float16 and finite.size:
            # TF accumulates float16 sums in float16 (order unknown); modtensor in float32.
            atol *= max(1.0, float(finite.max()))
        np.testing.assert_allclose(
            got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True, err_msg=where
        )
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


@pytest.mark.parametrize("case", INDEX, ids=[f"{c['op']}-{c['id']}" for c in INDEX])
def test_matches_tensorflow(case: dict) -> None:
    where = f"{case['op']} {case['id']} attrs={case['attrs']}"
    if "error" in case:
        cls = getattr(errors, case["error"]["class"])
        with pytest.raises(cls) as info:
            call(case)
        assert str(info.value) == case["error"]["message"], where
        return
    got = call(case)
    data = arrays(case["op"])
    wants = [data[k] for k in case["outputs"]]
    if "deviation" in case:  # a deliberate difference from a TF bug: dtype and shape must still agree
        assert got.dtype == wants[0].dtype and got.shape == wants[0].shape, where
        pytest.skip(f"known TF deviation: {case['deviation']}")
    if case["multi_output"]:
        assert isinstance(got, tuple) and len(got) == len(wants), where
    else:
        got = (got,)
    for k, (g, w) in enumerate(zip(got, wants, strict=True)):
        assert_matches(g, w, f"{where} output {k}")


def test_every_op_function_has_golden_cases() -> None:
    assert sorted(set(OP_FUNCTIONS) - {c["op"] for c in INDEX}) == []
