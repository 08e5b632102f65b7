"""Replays the TensorFlow programs of tests/golden/tensor_list with modtensor as ``tf``.

``tools/make_golden_tensor_list.py`` ran each snippet with TensorFlow 2.21 eagerly and as the
body of a ``tf.function``, recording the outputs (dtype, shape, values), or the error class
and message, and what was printed to stdout and stderr. ``check_case`` runs the snippet the
same way with modtensor and compares; each area's test module parametrizes over its cases.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

import modtensor as tf
from modtensor.api import list_ops
from modtensor.framework import dtypes, errors

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "tensor_list"


def load(area: str) -> dict[str, dict]:
    """The cases of one area (``list_ops``, ``tensor_array``, ...)."""
    return json.loads((GOLDEN / f"{area}.json").read_text())["cases"]


def _env() -> dict[str, Any]:
    return {"tf": tf, "np": np, "lo": list_ops}


def run_eager(code: str) -> Any:
    lines = code.split("\n")
    env = _env()
    exec("\n".join(lines[:-1]), env)
    return eval(lines[-1], env)


def run_function(code: str) -> Any:
    lines = code.split("\n")
    body = "".join(f"    {line}\n" for line in lines[:-1]) + f"    return {lines[-1]}\n"
    env = _env()
    exec("def program():\n" + body, env)
    return tf.function(env["program"])()


def _float(v: float) -> Any:
    return v if math.isfinite(v) else repr(v)


def record(t: Any) -> dict:
    """A tensor as the fixture records it (variants by dtype only)."""
    if t.dtype == dtypes.variant:
        return {"dtype": "variant"}
    array = np.asarray(t.numpy())
    flat = array.reshape(-1)
    if array.dtype.kind == "f":
        values = [_float(float(v)) for v in flat]
    elif array.dtype.kind in "SO":
        values = [v.decode() if isinstance(v, bytes) else str(v) for v in flat]
    else:
        values = [v.item() for v in flat]
    return {"dtype": t.dtype.name, "shape": list(array.shape), "values": values}


def _flat(result: Any) -> list[Any]:
    if isinstance(result, (list, tuple)):
        out: list[Any] = []
        for r in result:
            out.extend(_flat(r))
        return out
    return [] if result is None else [result]


def run_case(code: str, mode: str, capture: bool = False) -> dict:
    """What modtensor computes (or raises) for the snippet in ``mode`` ("eager" or "function")."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if capture:
            stack.enter_context(contextlib.redirect_stdout(out))
            stack.enter_context(contextlib.redirect_stderr(err))
        try:
            result = (run_eager if mode == "eager" else run_function)(code)
            got: dict[str, Any] = {"outputs": [record(t) for t in _flat(result)]}
        except Exception as e:  # noqa: BLE001 - the error is the record
            got = {
                "error": {"class": type(e).__name__, "message": e.message if isinstance(e, errors.OpError) else str(e)}
            }
    if out.getvalue():
        got["stdout"] = out.getvalue()
    if err.getvalue():
        got["stderr"] = err.getvalue()
    return got


_FUNCTION_NODE = re.compile(r"^\{\{function_node [^}]*\}\}\s*")
_OP_SUFFIX = re.compile(r"\s*\[Op:\w+\]( name:.*)?$", re.S)


def essential_message(message: str, mode: str) -> str:
    """The part of an error message both runtimes share.

    Eager: without TF's ``{{function_node ...}}`` prefix and ``[Op:X] name:`` suffix. Inside a
    function: the kernel's message line (the one before ``\\t [[{{node ...}}]]``), or for a
    trace-time error the message itself.
    """
    if mode == "function" and "[[{{node " in message:
        lines = [line for line in message.split("\n") if line.strip()]
        index = next(i for i, line in enumerate(lines) if "[[{{node " in line)
        return _FUNCTION_NODE.sub("", lines[index - 1].strip())
    if mode == "function" and " for '{{node " in message:  # a shape function's error while tracing
        return message.split(" for '{{node ", 1)[0]
    return _OP_SUFFIX.sub("", _FUNCTION_NODE.sub("", message.strip()))


def _values_equal(got: dict, want: dict, where: str) -> None:
    assert got.get("dtype") == want.get("dtype"), where
    if want["dtype"] == "variant":
        return
    assert got["shape"] == want["shape"], where
    if want["dtype"] in ("float16", "bfloat16", "float32", "float64"):
        decode = np.vectorize(lambda v: float(v) if isinstance(v, str) else v, otypes=[np.float64])
        g, w = decode(np.array(got["values"], dtype=object)), decode(np.array(want["values"], dtype=object))
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6, equal_nan=True, err_msg=where)
    else:
        assert got["values"] == want["values"], where


def check_case(cases: dict[str, dict], case_id: str, mode: str, capture: bool = False) -> dict:
    """The snippet gives TF's outputs, or TF's error class and essential message, in ``mode``; returns the record."""
    want = cases[case_id][mode]
    got = run_case(cases[case_id]["code"], mode, capture)
    where = f"{case_id} ({mode})"
    if "error" in want:
        assert "error" in got, f"{where}: expected {want['error']}, got {got}"
        assert got["error"]["class"] == want["error"]["class"], f"{where}: {got['error']}"
        assert essential_message(got["error"]["message"], mode) == essential_message(want["error"]["message"], mode), (
            where
        )
    else:
        assert "error" not in got, f"{where}: {got['error']}"
        assert len(got["outputs"]) == len(want["outputs"]), where
        for i, (g, w) in enumerate(zip(got["outputs"], want["outputs"], strict=True)):
            _values_equal(g, w, f"{where} output {i}")
    return got


def flush() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
