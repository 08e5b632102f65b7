"""Record TensorFlow 2.21's gradients of the cases in tests/api/gradient_cases/ under tests/golden/gradients/.

Run with the TensorFlow scratch venv (modtensor and its tests never import TensorFlow):

    /work/tfvenv/bin/python tools/make_golden_gradients.py            # every family
    /work/tfvenv/bin/python tools/make_golden_gradients.py math nn    # some families

For each case (see tests/api/gradient_cases/__init__.py for the format) this draws the
inputs (seeded by the case name), runs ``fn`` under a ``tf.GradientTape``, weights the
outputs with random upstream gradients and records inputs, upstream gradients, outputs and
the gradients with respect to ``wrt`` (IndexedSlices made dense), and, for ``second_order``
cases, the gradient of ``sum(grad * v)``. A case TF rejects records the error's type and
text. Writes ``<family>.json`` per family. (The backward ops themselves are recorded by
``tools/make_golden_gradient_ops.py``.)
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import zlib
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = ROOT / "tests" / "api" / "gradient_cases"
OUT = ROOT / "tests" / "golden" / "gradients"

def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _families() -> tuple[str, ...]:
    return _load(CASES_DIR / "__init__.py").FAMILIES


def make_inputs(name: str, case: dict[str, Any]) -> list[np.ndarray]:
    """The case's inputs, drawn from a generator seeded by the case name (the tests read them back)."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    positive = set(case.get("positive", ()))
    unit = set(case.get("unit", ()))
    values = []
    for i, spec in enumerate(case["inputs"]):
        if spec[0] == "const":
            values.append(np.asarray(spec[1], dtype=spec[2]))
            continue
        dtype, shape = np.dtype(spec[0]), spec[1]
        if dtype.kind in "iu":
            value = rng.integers(0, 5, size=shape).astype(dtype)
        elif dtype.kind == "b":
            value = rng.integers(0, 2, size=shape).astype(bool)
        else:
            value = rng.standard_normal(shape)
            if i in positive:
                value = np.abs(value) + 0.5
            if i in unit:
                value = np.tanh(value) * 0.9
            value = value.astype(dtype)
        values.append(value)
    return values


def wrt_indices(case: dict[str, Any], inputs: list[np.ndarray]) -> list[int]:
    """The inputs to differentiate: ``wrt``, else every floating input."""
    if "wrt" in case:
        return list(case["wrt"])
    return [i for i, v in enumerate(inputs) if v.dtype.kind in "fc"]


def _encode(value: Any) -> Any:
    if value is None:
        return None
    array = np.asarray(value)
    if array.dtype.kind == "c":
        return {"dtype": array.dtype.name, "shape": list(array.shape), "real": array.real.ravel().tolist(),
                "imag": array.imag.ravel().tolist()}  # fmt: skip
    return {"dtype": array.dtype.name, "shape": list(array.shape), "values": array.ravel().tolist()}


def _dense(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, tf.IndexedSlices):
        value = tf.convert_to_tensor(value)
    return value.numpy()


def _flat(result: Any) -> list[Any]:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def record_case(name: str, case: dict[str, Any]) -> dict[str, Any]:
    """TF's outputs and gradients of one case (or its error)."""
    fn = eval(case.get("tf_fn", case["fn"]))  # noqa: S307 - the case files are this repository's own data
    inputs = make_inputs(name, case)
    wrt = wrt_indices(case, inputs)
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 1)
    record: dict[str, Any] = {"inputs": [_encode(v) for v in inputs], "wrt": wrt}
    try:
        tensors = [tf.constant(v) for v in inputs]
        with tf.GradientTape(persistent=True) as outer:
            for i in wrt:
                outer.watch(tensors[i])
            with tf.GradientTape() as tape:
                for i in wrt:
                    tape.watch(tensors[i])
                outputs = _flat(fn(tf, *tensors))
            upstream = [
                tf.constant(rng.standard_normal(o.shape.as_list()).astype(o.dtype.as_numpy_dtype))
                if o.dtype.is_floating or o.dtype.is_complex
                else None
                for o in outputs
            ]
            grads = tape.gradient(outputs, [tensors[i] for i in wrt], output_gradients=upstream)
            second = None
            if case.get("second_order"):
                vs = [None if g is None else tf.constant(rng.standard_normal(g.shape.as_list()).astype(
                    g.dtype.as_numpy_dtype)) for g in grads]  # fmt: skip
                total = tf.add_n(
                    [
                        tf.reduce_sum(tf.convert_to_tensor(g) * v)
                        for g, v in zip(grads, vs, strict=True)
                        if g is not None
                    ]
                )
        if case.get("second_order"):
            second = outer.gradient(total, [tensors[i] for i in wrt])
            record["second_v"] = [_encode(None if v is None else v.numpy()) for v in vs]
            record["second"] = [_encode(_dense(g)) for g in second]
        record["upstream"] = [_encode(None if u is None else u.numpy()) for u in upstream]
        record["outputs"] = [_encode(o.numpy()) for o in outputs]
        record["grads"] = [_encode(_dense(g)) for g in grads]
    except Exception as e:  # noqa: BLE001 - TF's rejection is the recorded result
        record["error"] = {"type": type(e).__name__, "message": str(e).split("\n")[0]}
    return record


def main(argv: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    families = argv or list(_families())
    for family in families:
        cases = _load(CASES_DIR / f"{family}.py").CASES
        records = {name: record_case(name, case) for name, case in cases.items()}
        (OUT / f"{family}.json").write_text(
            json.dumps({"tensorflow": tf.__version__, "cases": records}, indent=1, sort_keys=True) + "\n"
        )
        errors = sum("error" in r for r in records.values())
        print(f"{family}: {len(records)} cases ({errors} TF errors)")


if __name__ == "__main__":
    main(sys.argv[1:])
