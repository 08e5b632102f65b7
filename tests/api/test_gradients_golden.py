"""Gradients equal TensorFlow 2.21's, eagerly (GradientTape), inside tf.function and in v1 graphs (tf.gradients).

Cases: tests/api/gradient_cases/<family>.py; TF's numbers: tests/golden/gradients/<family>.json
(tools/make_golden_gradients.py). Float64 cases are also checked against central differences of
modtensor's own forward computation, so a gradient function is right on its own terms, not only
equal to TF's.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import modtensor as tf
from tests.api.gradient_cases import FAMILIES

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "gradients"


def _decode(record: Any) -> np.ndarray | None:
    if record is None:
        return None
    if "real" in record:
        values = np.array(record["real"]) + 1j * np.array(record["imag"])
    else:
        values = np.array(record["values"])
    return values.astype(record["dtype"]).reshape(record["shape"])


def _load() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    cases: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for family in FAMILIES:
        module = importlib.import_module(f"tests.api.gradient_cases.{family}")
        golden = json.loads((GOLDEN / f"{family}.json").read_text())["cases"]
        for name, case in module.CASES.items():
            assert name in golden, f"{family}/{name}: no TF golden; run tools/make_golden_gradients.py {family}"
            cases[f"{family}/{name}"] = (case, golden[name])
    return cases


CASES = _load()
MODES = ("eager", "function", "graph")


def _flat(result: Any) -> list[Any]:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _dense(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, tf.IndexedSlices):
        value = tf.convert_to_tensor(value)
    return value


def _grads_eager(fn: Any, inputs: list[np.ndarray], wrt: list[int], upstream: list[Any]) -> list[Any]:
    tensors = [tf.constant(v) for v in inputs]
    with tf.GradientTape() as tape:
        for i in wrt:
            tape.watch(tensors[i])
        outputs = _flat(fn(tf, *tensors))
    grads = tape.gradient(outputs, [tensors[i] for i in wrt], output_gradients=upstream)
    return [None if g is None else np.asarray(_dense(g).numpy()) for g in grads]


def _grads_function(fn: Any, inputs: list[np.ndarray], wrt: list[int], upstream: list[Any]) -> list[Any]:
    @tf.function(autograph=False)
    def run(*tensors: Any) -> Any:
        with tf.GradientTape() as tape:
            for i in wrt:
                tape.watch(tensors[i])
            outputs = _flat(fn(tf, *tensors))
        grads = tape.gradient(outputs, [tensors[i] for i in wrt], output_gradients=upstream)
        return [tf.zeros([0]) if g is None else _dense(g) for g in grads], [g is None for g in grads]

    values, missing = run(*[tf.constant(v) for v in inputs])
    return [None if m else np.asarray(v.numpy()) for v, m in zip(values, missing, strict=True)]


def _grads_graph(fn: Any, inputs: list[np.ndarray], wrt: list[int], upstream: list[Any]) -> list[Any]:
    graph = tf.Graph()
    with graph.as_default():
        tensors = [tf.constant(v) for v in inputs]
        outputs = _flat(fn(tf, *tensors))
        grad_ys = [None if u is None else u.numpy() for u in upstream]
        grads = tf.compat.v1.gradients(outputs, [tensors[i] for i in wrt], grad_ys=grad_ys)
        fetch = [_dense(g) for g in grads if g is not None]
        with tf.compat.v1.Session(graph=graph) as sess:
            values = iter(sess.run(fetch))
    return [None if g is None else np.asarray(next(values)) for g in grads]


RUNNERS = {"eager": _grads_eager, "function": _grads_function, "graph": _grads_graph}


def _tolerances(case: dict[str, Any], dtype: np.dtype) -> tuple[float, float]:
    if "rtol" in case or "atol" in case:
        return case.get("rtol", 1e-5), case.get("atol", 1e-6)
    if dtype == np.float64:
        return 1e-10, 1e-12
    if dtype in (np.float16,) or dtype.name == "bfloat16":
        return 1e-2, 1e-2
    return 1e-5, 1e-6


def _compare(actual: list[Any], expected: list[Any], case: dict[str, Any], where: str) -> None:
    assert len(actual) == len(expected), where
    for k, (a, e) in enumerate(zip(actual, expected, strict=True)):
        if e is None:
            assert a is None, f"{where}: gradient {k} should be None (as TF's), got {a}"
            continue
        assert a is not None, f"{where}: gradient {k} is None, TF's is {e}"
        assert a.shape == e.shape, f"{where}: gradient {k} has shape {a.shape}, TF's {e.shape}"
        assert a.dtype == e.dtype, f"{where}: gradient {k} has dtype {a.dtype}, TF's {e.dtype}"
        rtol, atol = _tolerances(case, e.dtype)
        np.testing.assert_allclose(
            a.astype(np.float64) if a.dtype.kind == "f" else a,
            e.astype(np.float64) if e.dtype.kind == "f" else e,
            rtol=rtol,
            atol=atol,
            err_msg=f"{where}: gradient {k}",
        )


def _params() -> list[Any]:
    params = []
    for key, (case, _) in CASES.items():
        for mode in case.get("modes", MODES):
            params.append(pytest.param(key, mode, id=f"{key}-{mode}"))
    return params


@pytest.mark.parametrize("key, mode", _params())
def test_gradient_matches_tensorflow(key: str, mode: str) -> None:
    case, golden = CASES[key]
    fn = eval(case["fn"])  # noqa: S307 - the repository's own case data
    inputs = [_decode(r) for r in golden["inputs"]]
    wrt = golden["wrt"]
    if "error" in golden:
        with pytest.raises(Exception) as info:
            RUNNERS[mode](fn, inputs, wrt, [None])
        assert type(info.value).__name__ == golden["error"]["type"], info.value
        return
    upstream = [None if u is None else tf.constant(_decode(u)) for u in golden["upstream"]]
    expected = [_decode(g) for g in golden["grads"]]
    actual = RUNNERS[mode](fn, inputs, wrt, upstream)
    _compare(actual, expected, case, f"{key} ({mode})")


def _second_params() -> list[Any]:
    return [pytest.param(key, id=key) for key, (case, _) in CASES.items() if case.get("second_order")]


@pytest.mark.parametrize("key", _second_params())
def test_second_order_gradient_matches_tensorflow(key: str) -> None:
    case, golden = CASES[key]
    fn = eval(case["fn"])  # noqa: S307
    inputs = [tf.constant(_decode(r)) for r in golden["inputs"]]
    wrt = golden["wrt"]
    upstream = [None if u is None else tf.constant(_decode(u)) for u in golden["upstream"]]
    vs = [None if v is None else tf.constant(_decode(v)) for v in golden["second_v"]]
    with tf.GradientTape(persistent=True) as outer:
        for i in wrt:
            outer.watch(inputs[i])
        with tf.GradientTape() as tape:
            for i in wrt:
                tape.watch(inputs[i])
            outputs = _flat(fn(tf, *inputs))
        grads = tape.gradient(outputs, [inputs[i] for i in wrt], output_gradients=upstream)
        total = tf.add_n(
            [tf.reduce_sum(tf.convert_to_tensor(g) * v) for g, v in zip(grads, vs, strict=True) if g is not None]
        )
    second = outer.gradient(total, [inputs[i] for i in wrt])
    actual = [None if g is None else np.asarray(_dense(g).numpy()) for g in second]
    _compare(actual, [_decode(g) for g in golden["second"]], case, f"{key} (second order)")


def _numeric_params() -> list[Any]:
    params = []
    for key, (case, golden) in CASES.items():
        if not case.get("numeric", True) or "error" in golden:
            continue
        inputs = [_decode(r) for r in golden["inputs"]]
        if all(inputs[i].dtype == np.float64 for i in golden["wrt"]) and golden["wrt"]:
            params.append(pytest.param(key, id=key))
    return params


@pytest.mark.parametrize("key", _numeric_params())
def test_gradient_matches_central_differences(key: str) -> None:
    case, golden = CASES[key]
    fn = eval(case["fn"])  # noqa: S307
    inputs = [_decode(r) for r in golden["inputs"]]
    wrt = golden["wrt"]
    upstream = [None if u is None else _decode(u) for u in golden["upstream"]]

    def objective(values: list[np.ndarray]) -> float:
        outputs = _flat(fn(tf, *[tf.constant(v) for v in values]))
        return float(sum(np.sum(o.numpy() * u) for o, u in zip(outputs, upstream, strict=True) if u is not None))

    analytic = _grads_eager(fn, inputs, wrt, [None if u is None else tf.constant(u) for u in upstream])
    eps = 1e-6
    for k, i in enumerate(wrt):
        numeric = np.zeros_like(inputs[i])
        for index in np.ndindex(inputs[i].shape):
            plus = [v.copy() for v in inputs]
            minus = [v.copy() for v in inputs]
            plus[i][index] += eps
            minus[i][index] -= eps
            numeric[index] = (objective(plus) - objective(minus)) / (2 * eps)
        got = np.zeros_like(inputs[i]) if analytic[k] is None else analytic[k]
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6, err_msg=f"{key}: input {i}")
