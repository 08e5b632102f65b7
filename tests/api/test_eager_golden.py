"""Eager tensors, operators, conversions, devices and modes against TensorFlow 2.21's recorded behaviour.

The snippets and TF's results are in tests/golden/eager/cases.json
(tools/make_golden_eager.py). Each runs here with ``modtensor`` as ``tf``: eagerly the
values, dtypes, shapes, ``repr``/``str`` and devices must equal TF's, errors must have
TF's class and message; in a graph the nodes created (names, op types, inputs) must too.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import modtensor as tf
from modtensor.api.dispatch import apply_op
from modtensor.framework.graph import Graph

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "eager" / "cases.json"
CASES: dict[str, dict[str, Any]] = json.loads(GOLDEN.read_text())["cases"]

# Messages that cannot match in full, with the part that must: the prefix, and a required suffix.
MESSAGE_PREFIX: dict[str, tuple[str, str]] = {
    # TF lists its own kernels (XLA_CPU_JIT and ten CPU ones); the node summary and the layout must match.
    "raw_no_kernel": (
        "Could not find device for node: {{node MatMul}} = MatMul[T=DT_UINT8, grad_a=false, grad_b=false, "
        "transpose_a=false, transpose_b=false]\nAll kernels registered for op MatMul:\n  device='CPU'; T in [",
        "]\n [Op:MatMul] name: ",
    ),
    # modtensor's DeviceSpec adds the accepted forms after TF's text.
    "dev_unknown_type": ("Unknown attribute 'XPU' is encountered while parsing the device spec: '/XPU:0'.", ""),
}


class _RawOps:
    """``tf.raw_ops`` for the snippets: keyword calls straight into ``dispatch.apply_op``."""

    def __getattr__(self, op_type: str) -> Any:
        return lambda **kwargs: apply_op(op_type, **kwargs)


def _split(snippet: str) -> tuple[str, str]:
    lines = snippet.split("\n")
    if lines[-1].startswith(" ") or lines[-1].startswith("pass"):
        return snippet, "None"
    return "\n".join(lines[:-1]), lines[-1]


def _run(snippet: str) -> Any:
    statements, expression = _split(snippet)
    scope: dict[str, Any] = {"tf": tf, "np": np, "raw": _RawOps()}
    exec(statements, scope)  # noqa: S102 - the fixture's own snippets
    return eval(expression, scope)  # noqa: S307


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and "bytes" in value:
        return value["bytes"].encode("latin-1")
    if isinstance(value, dict) and "complex" in value:
        return complex(_decode(value["complex"][0]), _decode(value["complex"][1]))
    if value in ("nan", "inf", "-inf"):
        return float(value)
    return value


def _same_scalar(actual: Any, expected: Any) -> bool:
    expected = _decode(expected)
    if isinstance(expected, float) and isinstance(actual, float):
        if math.isnan(expected):
            return math.isnan(actual)
        return actual == expected or abs(actual - expected) <= 1e-6 * max(1.0, abs(expected))
    return actual == expected


def _check(actual: Any, expected: dict[str, Any], where: str) -> None:
    kind = expected["kind"]
    if kind == "tensor":
        assert isinstance(actual, tf.Tensor), f"{where}: expected a tensor, got {actual!r}"
        assert actual.dtype.name == expected["dtype"], where
        array = np.asarray(actual.numpy())
        assert list(array.shape) == expected["shape"], where
        flat = array.reshape(-1).tolist()
        assert len(flat) == len(expected["values"]), where
        for a, e in zip(flat, expected["values"], strict=True):
            assert _same_scalar(a, e), f"{where}: {flat} != {expected['values']}"
        assert repr(actual) == expected["repr"], where
        assert str(actual) == expected["str"], where
        assert actual.device == expected["device"], where
    elif kind == "list":
        assert isinstance(actual, (list, tuple)), f"{where}: expected a list, got {actual!r}"
        assert len(actual) == len(expected["items"]), where
        for i, (a, e) in enumerate(zip(actual, expected["items"], strict=True)):
            _check(a, e, f"{where}[{i}]")
    elif kind == "ndarray":
        assert isinstance(actual, np.ndarray), where
        assert str(actual.dtype) == expected["dtype"], where
        assert repr(actual) == expected["repr"], where
    else:
        assert repr(actual) == expected["repr"], where


def _check_error(case_id: str, error: BaseException, expected: dict[str, Any]) -> None:
    assert type(error).__name__ == expected["class"], f"{case_id}: {type(error).__name__}: {error}"
    if case_id in MESSAGE_PREFIX:
        prefix, suffix = MESSAGE_PREFIX[case_id]
        assert str(error).startswith(prefix), str(error)
        assert str(error).endswith(suffix), str(error)
        if isinstance(error, tf.errors.OpError):
            assert expected["message"].endswith(suffix)
    else:
        assert str(error) == expected["message"]
    if isinstance(error, tf.errors.OpError):
        assert issubclass(type(error), tf.errors.OpError)


EAGER = sorted(k for k, v in CASES.items() if "eager" in v)
GRAPH = sorted(k for k, v in CASES.items() if "graph" in v)


@pytest.mark.parametrize("case_id", EAGER)
def test_eager_matches_tensorflow(case_id: str) -> None:
    case = CASES[case_id]
    expected = case["eager"]
    if expected["kind"] == "error":
        with pytest.raises(Exception) as info:
            _run(case["code"])
        _check_error(case_id, info.value, expected)
    else:
        _check(_run(case["code"]), expected, case_id)


def _graph_result(actual: Any, expected: dict[str, Any], where: str) -> None:
    if expected["kind"] == "tensor":
        assert actual.name == expected["name"], where
        assert actual.dtype.name == expected["dtype"], where
        assert repr(actual.shape) == expected["shape"], where
        assert actual.device == expected["device"], where
    elif expected["kind"] == "list":
        for i, (a, e) in enumerate(zip(actual, expected["items"], strict=True)):
            _graph_result(a, e, f"{where}[{i}]")
    else:
        assert repr(actual) == expected["repr"], where


@pytest.mark.parametrize("case_id", GRAPH)
def test_graph_matches_tensorflow(case_id: str) -> None:
    case = CASES[case_id]
    expected = case["graph"]
    graph = Graph()
    if expected["kind"] == "error":
        with pytest.raises(Exception) as info, graph.as_default():
            _run(case["code"])
        _check_error(case_id, info.value, expected)
        return
    with graph.as_default():
        result = _run(case["code"])
    nodes = [{"name": op.name, "op": op.type, "inputs": [t.name for t in op.inputs]} for op in graph.get_operations()]
    assert nodes == expected["nodes"]
    _graph_result(result, expected["result"], case_id)
