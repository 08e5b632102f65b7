"""Replays the TensorFlow snippets of tests/golden/frontend_ops with modtensor as ``tf``.

The fixtures (tools/make_golden_frontend_ops.py) hold, per snippet, what TF built in a
graph (outputs, and the nodes they depend on) and what it computed eagerly (values or
error). ``check_graph_case`` / ``check_eager_case`` run the same snippet with modtensor
and compare; each test module (test_math_ops.py, ...) parametrizes over its own cases.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
from google.protobuf import text_format

import modtensor as tf
from modtensor.framework import dtypes, errors, tensor_proto
from modtensor.framework.graph import Graph

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "frontend_ops"
# The op-breadth API of issue 13 (ids "breadth_..."), written by tools/make_golden_frontend_breadth.py.
BREADTH = GOLDEN.parent / "frontend_breadth"
# tf.image's composite functions (ids "image_..."), written by tools/make_golden_image_ops.py (no api_names.json).
IMAGE = GOLDEN.parent / "image_ops"
# tf.math/tf.nn/tf.linalg's everyday compositions (ids "nsmath_..."), by tools/make_golden_namespace_math.py.
NAMESPACE_MATH = GOLDEN.parent / "namespace_math"
# Graph control, tensor utilities, tf.nest and the stateless random functions (ids "core_..."), written by
# tools/make_golden_namespace_core.py (no api_names.json).
NAMESPACE_CORE = GOLDEN.parent / "namespace_core"
# tf.strings.as_string/tf.as_string and tf.strings.reduce_join (ids "nsstr_..."), written by
# tools/make_golden_namespace_strings.py (no api_names.json).
NAMESPACE_STRINGS = GOLDEN.parent / "namespace_strings"
# tf.io / tf.image's image codecs (ids "codec_..."), written by tools/make_golden_image_codecs.py (no api_names.json).
IMAGE_CODECS = GOLDEN.parent / "image_codecs"
# tf.complex, tf.math's complex parts and tf.signal's FFTs (ids "spectral_..."), by tools/make_golden_spectral_ops.py.
SPECTRAL = GOLDEN.parent / "spectral_ops"
# tf.math's trigonometric and hyperbolic functions and C divisions (ids "mathop_..."), by tools/make_golden_math_ops.py.
MATH = GOLDEN.parent / "math_ops"
# tf.io.gfile, tf.io.matching_files, Dataset.list_files (ids "fileio_..."), by tools/make_golden_file_io.py.
FILE_IO = GOLDEN.parent / "file_io"
# tf.audio.decode_wav / encode_wav (ids "audio_..."), by tools/make_golden_audio.py.
AUDIO = GOLDEN.parent / "audio"
# tf.dynamic_partition/stitch, reverse_sequence, unique_with_counts (ids "arrayop_..."), tools/make_golden_array_ops.py.
ARRAY = GOLDEN.parent / "array_ops"
# tf.io.decode_csv (ids "csv_..."), by tools/make_golden_csv.py.
CSV = GOLDEN.parent / "csv"
# tf.image.non_max_suppression(_with_scores), combined_non_max_suppression (ids "nms_..."), by tools/make_golden_nms.py.
NMS = GOLDEN.parent / "nms"
# tf.lookup's tables (ids "lookup_..."), by tools/make_golden_lookup.py.
LOOKUP = GOLDEN.parent / "lookup"
# tf.strings.strip/ngrams/regex_full_match/..., tf.io base64, tf.fingerprint (ids "textop_..."),
# by tools/make_golden_text_ops.py.
TEXT_OPS = GOLDEN.parent / "text_ops"
# tf.strings.unicode_* (ids "unicode_..."), by tools/make_golden_unicode.py.
UNICODE = GOLDEN.parent / "unicode"
# tf.RaggedTensor, tf.ragged.* (ids "ragged_..."), by tools/make_golden_ragged.py.
RAGGED = GOLDEN.parent / "ragged"
# tf.sparse.*, tf.nn.embedding_lookup_sparse (ids "sparse_..."), by tools/make_golden_sparse_ops.py.
SPARSE_OPS = GOLDEN.parent / "sparse_ops"


def _load(name: str, key: str) -> dict:
    cases = {**json.loads((GOLDEN / name).read_text())[key], **json.loads((BREADTH / name).read_text())[key]}
    for extra in (IMAGE, NAMESPACE_MATH, NAMESPACE_CORE, NAMESPACE_STRINGS, IMAGE_CODECS, SPECTRAL, MATH, FILE_IO,
                  AUDIO, ARRAY, CSV, NMS, TEXT_OPS, LOOKUP, UNICODE,
                  SPARSE_OPS, RAGGED):
        if (extra / name).exists():
            cases.update(json.loads((extra / name).read_text())[key])
    return cases


GRAPH_CASES: dict[str, dict] = _load("graph_cases.json", "cases")
EAGER_CASES: dict[str, dict] = _load("eager_cases.json", "cases")
API_NAMES: dict[str, list[str]] = _load("api_names.json", "names")


def run_snippet(code: str) -> Any:
    """Run the statements of ``code`` and return its last line's value (as the generator did with TF)."""
    lines = code.split("\n")
    env = {"tf": tf, "np": np, "ph": tf.compat.v1.placeholder}
    exec("\n".join(lines[:-1]), env)
    return eval(lines[-1], env)


def _flat(result: Any) -> list[Any]:
    return list(result) if isinstance(result, (list, tuple)) else [result]


# ---------------------------------------------------------------------------- records like the fixture's


def _float(v: float) -> Any:
    return v if math.isfinite(v) else repr(v)


def array_record(array: np.ndarray) -> dict:
    """dtype name, shape and flat values of an array, encoded as the generator encodes them."""
    array = np.array(array, dtype=object) if isinstance(array, bytes) else np.asarray(array)
    flat = array.reshape(-1)
    if array.dtype.kind == "f":
        values = [_float(float(v)) for v in flat]
    elif array.dtype.kind == "c":  # [real, imag] pairs
        values = [[_float(float(v.real)), _float(float(v.imag))] for v in flat]
    elif array.dtype.kind in "SO":
        values = [v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else str(v) for v in flat]
    else:
        values = [v.item() for v in flat]
    return {"dtype": dtypes.as_dtype(array.dtype).name, "shape": list(array.shape), "values": values}


def _node_record(node: Any) -> dict:
    attrs = {}
    for key in sorted(node.attr):
        value = node.attr[key]
        if key == "value" and node.op == "Const":
            attrs[key] = array_record(tensor_proto.make_ndarray(value.tensor))
        else:
            attrs[key] = text_format.MessageToString(value, as_one_line=True)
    return {"name": node.name, "op": node.op, "inputs": list(node.input), "attrs": attrs}


def graph_record(code: str) -> dict:
    """What modtensor builds for the snippet in a fresh graph, in the fixture's form."""
    g = Graph()
    with g.as_default():
        try:
            outputs = _flat(run_snippet(code))
        except Exception as e:
            return {"error": {"class": type(e).__name__, "message": _message(e)}}
    graph_def = g.as_graph_def()
    by_name = {n.name: n for n in graph_def.node}
    keep: set[str] = set()
    stack = [t.op.name for t in outputs]
    while stack:
        name = stack.pop()
        if name not in keep:
            keep.add(name)
            stack.extend(i.lstrip("^").split(":")[0] for i in by_name[name].input)
    return {
        "outputs": [
            {"name": t.name, "dtype": t.dtype.name, "shape": t.shape.as_list() if t.shape.rank is not None else None}
            for t in outputs
        ],
        "nodes": [_node_record(n) for n in graph_def.node if n.name in keep],
    }


def _message(e: Exception) -> str:
    return e.message if isinstance(e, errors.OpError) else str(e)


_FUNCTION_NUMBER = re.compile(r'(func \{ name: "[^"]*_)\d+(" \})')


def _without_function_numbers(record: Any) -> Any:
    """``record`` with the numbers TF appends to library function names (``cond_true_195``) replaced by N."""
    if isinstance(record, dict):
        return {k: _without_function_numbers(v) for k, v in record.items()}
    if isinstance(record, list):
        return [_without_function_numbers(v) for v in record]
    return _FUNCTION_NUMBER.sub(r"\1N\2", record) if isinstance(record, str) else record


def check_graph_case(case_id: str, function_numbers_differ: str | None = None) -> None:
    """The snippet builds TF's graph: same outputs and, node for node, the same ancestors (or TF's error).

    ``function_numbers_differ`` (a reason) compares the names of the functions that ``If``/``Case`` nodes call
    without their trailing numbers (TF takes them from a process-wide counter, so they depend on the cases the
    generator ran before).
    """
    want = GRAPH_CASES[case_id]
    got = graph_record(want["code"])
    if function_numbers_differ is not None:
        want, got = _without_function_numbers(want), _without_function_numbers(got)
    if "error" in want:
        assert got.get("error") == want["error"], f"{case_id}: {got}"
        return
    assert "error" not in got, f"{case_id}: {got['error']}"
    assert got["outputs"] == want["outputs"]
    got_nodes = {n["name"]: n for n in got["nodes"]}
    want_nodes = {n["name"]: n for n in want["nodes"]}
    assert sorted(got_nodes) == sorted(want_nodes), f"{case_id}: node names differ"
    for name, node in want_nodes.items():
        assert got_nodes[name] == node, f"{case_id}: node {name}"


# ---------------------------------------------------------------------------- eager

_FUNCTION_NODE = re.compile(r"^\{\{function_node [^}]*\}\}\s*")
_OP_SUFFIX = re.compile(r"\s*\[Op:\w+\]( name:.*)?$", re.S)


def essential_message(message: str) -> str:
    """An eager error's text without TF's ``{{function_node ...}}`` prefix and ``[Op:X] name:`` suffix."""
    return _OP_SUFFIX.sub("", _FUNCTION_NODE.sub("", message.strip()))


def eager_record(code: str) -> dict:
    """What modtensor computes for the snippet eagerly (from a fresh global-seed state), in the fixture's form."""
    tf.random.set_seed(None)
    try:
        outputs = _flat(run_snippet(code))
    except Exception as e:
        return {"error": {"class": type(e).__name__, "message": _message(e)}}
    return {"outputs": [array_record(t.numpy()) for t in outputs]}


def _assert_values_equal(got: dict, want: dict, where: str) -> None:
    assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), where
    if want["dtype"] in ("float16", "bfloat16", "float32", "float64"):
        decode = np.vectorize(lambda v: float(v) if isinstance(v, str) else v, otypes=[np.float64])
        g, w = decode(np.array(got["values"], dtype=object)), decode(np.array(want["values"], dtype=object))
        rtol = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-12}[want["dtype"]]
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True, err_msg=where)
    elif want["dtype"] in ("complex64", "complex128"):  # a transform's error scales with its largest output
        decode = np.vectorize(lambda v: float(v) if isinstance(v, str) else v, otypes=[np.float64])
        g, w = decode(np.array(got["values"], dtype=object)), decode(np.array(want["values"], dtype=object))
        rtol = 1e-5 if want["dtype"] == "complex64" else 1e-12
        scale = float(np.max(np.abs(w[np.isfinite(w)]), initial=1.0))
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale, equal_nan=True, err_msg=where)
    else:
        assert got["values"] == want["values"], where


def check_eager_case(case_id: str, message_differs: str | None = None) -> None:
    """The snippet computes TF's values (floats within a few ulps), or raises TF's error class and message.

    ``message_differs`` (a reason) accepts a different message text for the same error class.
    """
    want = EAGER_CASES[case_id]
    got = eager_record(want["code"])
    if "error" in want:
        assert "error" in got, f"{case_id}: expected {want['error']}, got values"
        assert got["error"]["class"] == want["error"]["class"], f"{case_id}: {got['error']}"
        if message_differs is None:
            assert essential_message(got["error"]["message"]) == essential_message(want["error"]["message"])
        return
    assert "error" not in got, f"{case_id}: {got['error']}"
    assert len(got["outputs"]) == len(want["outputs"]), case_id
    for i, (g, w) in enumerate(zip(got["outputs"], want["outputs"], strict=True)):
        _assert_values_equal(g, w, f"{case_id} output {i}")


def case_ids(cases: dict[str, dict], prefix: str) -> list[str]:
    """The ids of the fixture's cases for one test module."""
    return sorted(k for k in cases if k.startswith(prefix))


def tensorflow_names(module: str) -> set[str]:
    """The public names TF 2.21 has in ``module`` ("tf", "tf.math", "tf.nn", "tf.random", "tf.linalg", "tf.image",
    "tf.strings")."""
    return set(API_NAMES[module])
