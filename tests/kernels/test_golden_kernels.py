"""Replays TensorFlow's golden kernel cases (tests/golden/kernels, made by tools/make_golden_kernel_cases.py,
and tests/golden/op_breadth/kernels, made by tools/make_golden_op_breadth.py).

Every case runs the op's numpy function with the recorded inputs and attrs and
must give TF's dtype and shape, exactly TF's integer/bool/string values, TF's float
values within tight tolerances, or TF's error class and message. Decompositions
(``check: up_to_sign``: QR, SVD, eigenvectors) may differ from TF's by the sign of
each vector, which LAPACK and Eigen choose differently; the rest must match. Where TF leaves outputs
uninitialized or holding implementation data (``check: values_of_outputs:0,1``: the outputs compared),
only the others' dtype and shape are compared; ``check: message_up_to:<text>`` compares an error message
up to ``<text>`` (RE2's regex parse errors are worded differently from Python's).
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
BREADTH = GOLDEN.parent / "op_breadth" / "kernels"
GRADIENT_OPS = GOLDEN.parent / "gradient_ops" / "kernels"  # the backward ops (tools/make_golden_gradient_ops.py)
CORE_OPS = GOLDEN.parent / "namespace_core" / "ops" / "kernels"  # (tools/make_golden_namespace_core.py)
IMAGE_OPS = GOLDEN.parent / "image_ops" / "ops" / "kernels"  # (tools/make_golden_image_ops.py)
CATEGORICAL_OPS = GOLDEN.parent / "random_categorical" / "ops" / "kernels"  # make_golden_random_categorical.py
STRING_OPS = GOLDEN.parent / "namespace_strings" / "ops" / "kernels"  # (tools/make_golden_namespace_strings.py)
CODEC_OPS = GOLDEN.parent / "image_codecs" / "ops" / "kernels"  # (tools/make_golden_image_codecs.py)
SPECTRAL_OPS = GOLDEN.parent / "spectral_ops" / "ops" / "kernels"  # (tools/make_golden_spectral_ops.py)
MATH_OPS = GOLDEN.parent / "math_ops" / "ops" / "kernels"  # trigonometric, C division (tools/make_golden_math_ops.py)
AUDIO_OPS = GOLDEN.parent / "audio" / "ops" / "kernels"  # DecodeWav, EncodeWav (tools/make_golden_audio.py)
ARRAY_OPS = GOLDEN.parent / "array_ops" / "ops" / "kernels"  # partition, stitch, ... (tools/make_golden_array_ops.py)
CSV_OPS = GOLDEN.parent / "csv" / "ops" / "kernels"  # DecodeCSV (tools/make_golden_csv.py)
NMS_OPS = GOLDEN.parent / "nms" / "ops" / "kernels"  # NonMaxSuppressionV3-V5, CombinedNMS (make_golden_nms.py)
TEXT_OPS = GOLDEN.parent / "text_ops" / "ops" / "kernels"  # strip, n-grams, base64, ... (tools/make_golden_text_ops.py)
SPARSE_OPS = GOLDEN.parent / "sparse_ops" / "ops" / "kernels"  # SparseToDense, ... (make_golden_sparse_ops.py)
UNICODE_OPS = GOLDEN.parent / "unicode" / "ops" / "kernels"  # UnicodeDecode, ... (tools/make_golden_unicode.py)
RAGGED_OPS = GOLDEN.parent / "ragged" / "ops" / "kernels"  # RaggedTensorToTensor, ... (tools/make_golden_ragged.py)
INDEX = [
    case | {"dir": str(folder)}
    for folder in (GOLDEN, BREADTH, GRADIENT_OPS, CORE_OPS, IMAGE_OPS, STRING_OPS, CATEGORICAL_OPS, CODEC_OPS,
                   SPECTRAL_OPS, MATH_OPS, AUDIO_OPS, ARRAY_OPS, CSV_OPS, NMS_OPS, TEXT_OPS,
                   UNICODE_OPS, SPARSE_OPS, RAGGED_OPS)
    for case in json.loads((folder / "index.json").read_text())["cases"]
]

TOLERANCE = {  # (rtol, atol relative to the output's scale) per float dtype
    np.dtype(np.float16): (1e-3, 1e-3),
    np.dtype(np.float32): (1e-5, 1e-6),
    np.dtype(np.float64): (1e-12, 1e-12),
    np.dtype(np.complex64): (1e-5, 1e-6),
    np.dtype(np.complex128): (1e-12, 1e-12),
}


@functools.cache
def arrays(op: str, folder: str = str(GOLDEN)) -> dict[str, np.ndarray]:
    """The op's recorded arrays; fixed-width bytes (how npz holds string tensors) as modtensor's object arrays."""
    with np.load(Path(folder) / f"{op}.npz") as data:
        return {k: data[k].astype(object) if data[k].dtype.kind == "S" else data[k] for k in data.files}


def attr_value(value):
    return np.dtype(value["dtype"]) if isinstance(value, dict) and "dtype" in value else value


def call(case: dict):
    data = arrays(case["op"], case["dir"])
    inputs = [[data[k] for k in spec["list"]] if "list" in spec else data[spec["key"]] for spec in case["inputs"]]
    attrs = {k: attr_value(v) for k, v in case["attrs"].items()}
    return OP_FUNCTIONS[case["op"]](*inputs, **attrs)


def assert_matches(got, want: np.ndarray, where: str) -> None:
    assert isinstance(got, np.ndarray), f"{where}: got {type(got).__name__}, not an ndarray"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != TF's {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape} != TF's {want.shape}"
    if want.dtype in TOLERANCE:
        rtol, atol = TOLERANCE[want.dtype]
        finite = np.abs(want[np.isfinite(want)]).astype(np.float64)
        if want.dtype == np.float16 and finite.size:
            # TF accumulates float16 sums in float16 (order unknown); modtensor in float32.
            atol *= max(1.0, float(finite.max()))
        wide = np.complex128 if want.dtype.kind == "c" else np.float64
        np.testing.assert_allclose(
            got.astype(wide), want.astype(wide), rtol=rtol, atol=atol, equal_nan=True, err_msg=where
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
        want = case["error"]["message"]
        if case.get("check", "").startswith("message_up_to:"):  # e.g. RE2's and Python's parse errors differ
            marker = case["check"].split(":", 1)[1]
            want = want[: want.index(marker) + len(marker)]
            assert str(info.value).startswith(want), where
            return
        assert str(info.value) == want, where
        return
    got = call(case)
    data = arrays(case["op"], case["dir"])
    wants = [data[k] for k in case["outputs"]]
    if "deviation" in case:  # a deliberate difference from a TF bug: dtype and shape must still agree
        assert got.dtype == wants[0].dtype and got.shape == wants[0].shape, where
        pytest.skip(f"known TF deviation: {case['deviation']}")
    if case["multi_output"]:
        assert isinstance(got, tuple) and len(got) == len(wants), where
    else:
        got = (got,)
    if case.get("check") == "up_to_sign":
        got = _signs_like(case["op"], got, wants)
    if case.get("check", "").startswith("values_of_outputs:"):
        compared = {int(i) for i in case["check"].split(":")[1].split(",")}
        for k, (g, w) in enumerate(zip(got, wants, strict=True)):
            assert (g.dtype, g.shape) == (w.dtype, w.shape), f"{where} output {k}"
        got = tuple(g for k, g in enumerate(got) if k in compared)
        wants = [w for k, w in enumerate(wants) if k in compared]
    for k, (g, w) in enumerate(zip(got, wants, strict=True)):
        assert_matches(g, w, f"{where} output {k}")


def _flip(vectors: np.ndarray, want: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """``vectors`` with each vector along ``axis`` (columns: -2, rows: -1) sign-matched to ``want``'s; the signs."""
    dot = np.sum(vectors.astype(np.complex128).conj() * want, axis=axis, keepdims=True).real
    signs = np.where(dot < 0, -1, 1).astype(vectors.dtype)
    return vectors * signs, signs


def _signs_like(op: str, got: tuple, wants: list[np.ndarray]) -> tuple:
    """The decomposition with each vector's sign chosen like TF's (the products it represents are unchanged)."""
    if op == "Qr":  # column j of q and row j of r change sign together
        q, r = got
        k = min(q.shape[-1], r.shape[-2])
        q_k, signs = _flip(q[..., :k], wants[0][..., :k], axis=-2)
        q = np.concatenate([q_k, q[..., k:]], axis=-1)
        r = np.concatenate([r[..., :k, :] * np.swapaxes(signs, -1, -2), r[..., k:, :]], axis=-2)
        return q, r
    if op == "Svd":  # column j of u and of v change sign together
        s, u, v = got
        if u.size == 0:
            return got
        k = s.shape[-1]
        u_k, signs = _flip(u[..., :k], wants[1][..., :k], axis=-2)
        u = np.concatenate([u_k, _flip(u[..., k:], wants[1][..., k:], axis=-2)[0]], axis=-1)
        v = np.concatenate([v[..., :k] * signs, _flip(v[..., k:], wants[2][..., k:], axis=-2)[0]], axis=-1)
        return s, u, v
    if op == "SelfAdjointEigV2":
        e, v = got
        return e, _flip(v, wants[1], axis=-2)[0]
    raise AssertionError(f"no up_to_sign comparison for {op}")


def test_every_op_function_has_golden_cases() -> None:  # in tests/golden/kernels or tests/golden/op_breadth
    assert sorted(set(OP_FUNCTIONS) - {c["op"] for c in INDEX}) == []
