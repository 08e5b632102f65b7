"""Encoding of what a tf.data program returns, shared by the TF golden generator and modtensor's test."""

from __future__ import annotations

from typing import Any

import numpy as np


def encode(value: Any) -> Any:
    """A JSON-able record of ``value``: datasets with spec, repr, cardinality and elements; arrays with dtype."""
    if hasattr(value, "element_spec") and hasattr(value, "_variant_tensor"):
        return {
            "dataset": {
                "spec": repr(value.element_spec),
                "repr": repr(value),
                "cardinality": int(value.cardinality().numpy()),
                "elements": [encode(e) for e in value.as_numpy_iterator()],
            }
        }
    if hasattr(value, "numpy") and callable(value.numpy):
        return encode(value.numpy())
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype == object:
            items = [x.decode("latin-1") if isinstance(x, bytes) else x for x in array.reshape(-1).tolist()]
            return {"dtype": "string", "shape": list(array.shape), "value": items}
        if array.dtype.kind == "c":  # complex values as [real, imag] pairs (JSON has no complex numbers)
            pairs = [[v.real, v.imag] for v in array.reshape(-1).tolist()]
            return {"dtype": str(array.dtype), "shape": list(array.shape), "value": pairs}
        return {"dtype": str(array.dtype), "shape": list(array.shape), "value": array.reshape(-1).tolist()}
    if isinstance(value, bytes):
        return {"bytes": value.decode("latin-1")}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"list": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {str(k): encode(v) for k, v in sorted(value.items())}}
    return value


def run(program: Any, framework: Any) -> Any:
    """Run ``program`` and record its result or its error (class name and message)."""
    try:
        return {"result": encode(program(framework))}
    except Exception as e:  # noqa: BLE001 - the error is what is recorded
        return {"error": type(e).__name__, "message": str(e)}
