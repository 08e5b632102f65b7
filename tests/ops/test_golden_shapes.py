"""Shape functions of the standard ops agree with TensorFlow 2.21's, case by case.

``tests/golden/shape_cases.json`` holds what TensorFlow inferred (or the error it
raised) for each op over placeholders with partial shapes and constant inputs; it
was written by ``tools/make_golden_shape_cases.py``. Each case is replayed here
through modtensor's InferenceContext and the registered shape function: the
output shapes must be identical, or the error an InvalidArgumentError whose
message contains TensorFlow's (the part before the node context).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.framework import dtypes, errors
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import node_def_pb2
from modtensor.framework.shape_inference import InferenceContext, ShapeAndType, run_shape_fn

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "shape_cases.json"
# The op-breadth ops (issue 13) have their own cases, written by tools/make_golden_op_breadth.py.
BREADTH = GOLDEN.parent / "op_breadth"
GRADIENT_OPS = GOLDEN.parent / "gradient_ops"  # the backward ops (tools/make_golden_gradient_ops.py)
CORE_OPS = GOLDEN.parent / "namespace_core" / "ops"  # stateless random ops (tools/make_golden_namespace_core.py)
IMAGE_OPS = GOLDEN.parent / "image_ops" / "ops"  # HSV, hue/saturation, patches (tools/make_golden_image_ops.py)
CATEGORICAL_OPS = GOLDEN.parent / "random_categorical" / "ops"  # tools/make_golden_random_categorical.py
STRING_OPS = GOLDEN.parent / "namespace_strings" / "ops"  # AsString, ReduceJoin (make_golden_namespace_strings.py)
CODEC_OPS = GOLDEN.parent / "image_codecs" / "ops"  # JPEG, PNG, BMP, GIF (tools/make_golden_image_codecs.py)
SPECTRAL_OPS = GOLDEN.parent / "spectral_ops" / "ops"  # complex parts, FFTs (tools/make_golden_spectral_ops.py)
MATH_OPS = GOLDEN.parent / "math_ops" / "ops"  # trigonometric, C division (tools/make_golden_math_ops.py)
FILE_OPS = GOLDEN.parent / "file_io" / "ops"  # MatchingFiles (tools/make_golden_file_io.py)
AUDIO_OPS = GOLDEN.parent / "audio" / "ops"  # DecodeWav, EncodeWav (tools/make_golden_audio.py)
ARRAY_OPS = GOLDEN.parent / "array_ops" / "ops"  # partition, stitch, reverse_sequence (tools/make_golden_array_ops.py)
CSV_OPS = GOLDEN.parent / "csv" / "ops"  # DecodeCSV (tools/make_golden_csv.py)
NMS_OPS = GOLDEN.parent / "nms" / "ops"  # NonMaxSuppressionV3-V5, CombinedNonMaxSuppression (tools/make_golden_nms.py)
TEXT_OPS = GOLDEN.parent / "text_ops" / "ops"  # strip, n-grams, base64, hashes, ... (tools/make_golden_text_ops.py)
SPARSE_OPS = GOLDEN.parent / "sparse_ops" / "ops"  # SparseToDense, SparseAdd, ... (tools/make_golden_sparse_ops.py)
UNICODE_OPS = GOLDEN.parent / "unicode" / "ops"  # UnicodeDecode, ..., UnicodeScript (tools/make_golden_unicode.py)
RAGGED_OPS = GOLDEN.parent / "ragged" / "ops"  # RaggedTensorToTensor, RaggedRange, ... (tools/make_golden_ragged.py)
LOOKUP_OPS = GOLDEN.parent / "lookup" / "ops"  # hash tables (tools/make_golden_lookup.py)
CASES = [
    *json.loads(GOLDEN.read_text())["cases"],
    *json.loads((BREADTH / "shape_cases.json").read_text())["cases"],
    *json.loads((GRADIENT_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((CORE_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((IMAGE_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((CATEGORICAL_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((STRING_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((CODEC_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((SPECTRAL_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((MATH_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((FILE_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((AUDIO_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((ARRAY_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((CSV_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((NMS_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((TEXT_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((UNICODE_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((RAGGED_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((SPARSE_OPS / "shape_cases.json").read_text())["cases"],
    *json.loads((LOOKUP_OPS / "shape_cases.json").read_text())["cases"],
]
OP_DEFS = (
    GOLDEN.parent / "tf_op_defs.pbtxt",
    BREADTH / "op_defs.pbtxt",
    GRADIENT_OPS / "op_defs.pbtxt",
    CORE_OPS / "op_defs.pbtxt",
    IMAGE_OPS / "op_defs.pbtxt",
    CATEGORICAL_OPS / "op_defs.pbtxt",
    STRING_OPS / "op_defs.pbtxt",
    CODEC_OPS / "op_defs.pbtxt",
    SPECTRAL_OPS / "op_defs.pbtxt",
    MATH_OPS / "op_defs.pbtxt",
    FILE_OPS / "op_defs.pbtxt",
    AUDIO_OPS / "op_defs.pbtxt",
    ARRAY_OPS / "op_defs.pbtxt",
    CSV_OPS / "op_defs.pbtxt",
    NMS_OPS / "op_defs.pbtxt",
    TEXT_OPS / "op_defs.pbtxt",
    UNICODE_OPS / "op_defs.pbtxt",
    RAGGED_OPS / "op_defs.pbtxt",
    SPARSE_OPS / "op_defs.pbtxt",
    LOOKUP_OPS / "op_defs.pbtxt",
)


def _case_ids() -> list[str]:
    seen: Counter[str] = Counter()
    ids = []
    for c in CASES:
        ids.append(f"{c['op']}-{seen[c['op']]}")
        seen[c["op"]] += 1
    return ids


def _flat_inputs(case: dict) -> list[dict]:
    flat: list[dict] = []
    for spec in case["inputs"]:
        flat.extend(spec if isinstance(spec, list) else [spec])
    return flat


def _run(case: dict) -> InferenceContext:
    registration = global_registry().get(case["op"])
    node = node_def_pb2.NodeDef(name=case["op"], op=case["op"])
    for key, text in case["attrs"].items():
        text_format.Parse(text, node.attr[key])
    shapes, tensors, handle_data = [], [], []
    for spec in _flat_inputs(case):
        if "list" in spec:  # a TensorList whose handle data knows its element shape and dtype
            element = spec["list"]
            shapes.append([])
            tensors.append(None)
            handle = InferenceContext.make_shape_from_tensor_shape(_tensor_shape(element["element_shape"]))
            handle_data.append([ShapeAndType(handle, dtypes.as_dtype(element["element_dtype"]).as_datatype_enum)])
            continue
        handle_data.append(None)
        if "value" in spec:
            value = np.asarray(spec["value"], dtype=spec["dtype"])
            shapes.append(list(value.shape))
            tensors.append(value)
        else:
            shapes.append(spec["shape"])
            tensors.append(None)
    ctx = InferenceContext(node, registration.op_def, shapes, tensors, (), handle_data)
    run_shape_fn(registration, ctx)
    return ctx


def _tensor_shape(dims: list[int | None] | None) -> object:
    from modtensor.framework.tensor_shape import TensorShape

    return TensorShape(dims)


def replay(case: dict) -> list[list[int | None] | None]:
    """Run the case's op through modtensor's shape function; returns the outputs as TF records them."""
    outputs = _run(case).outputs()
    return [None if s.dims is None else [d.value for d in s.dims] for s in outputs]


def replay_handle_data(case: dict) -> list[list[list[object]] | None]:
    """The outputs' handle data as TF records it: [[element shape or None, dtype name], ...] or None."""
    ctx = _run(case)
    out: list[list[list[object]] | None] = []
    for i in range(ctx.num_outputs()):
        data = ctx.output_handle_shapes_and_types(i)
        out.append(
            None
            if data is None
            else [
                [None if e.shape.dims is None else [d.value for d in e.shape.dims], dtypes.as_dtype(e.dtype).name]
                for e in data
            ]
        )
    return out


def test_golden_covers_every_standard_op() -> None:
    standard_ops = {name for path in OP_DEFS for name in re.findall(r'^  name: "(\w+)"$', path.read_text(), re.M)}
    assert len(standard_ops) >= 86
    # TF infers the outputs of a call from the called function's body (tests/framework/test_function_def_lib.py).
    calls = {"PartitionedCall", "StatefulPartitionedCall"}
    missing = sorted(standard_ops - calls - {c["op"] for c in CASES})
    assert not missing, f"ops without golden shape cases: {missing}"
    assert len(CASES) >= 500


@pytest.mark.parametrize("case", CASES, ids=_case_ids())
def test_shape_fn_matches_tensorflow(case: dict) -> None:
    if "error" in case:
        with pytest.raises(errors.InvalidArgumentError) as info:
            replay(case)
        assert case["error"] in info.value.message, (
            f"TF's error: {case['error']!r}\nmodtensor's: {info.value.message!r}"
        )
    else:
        assert replay(case) == case["outputs"]
        expected_handle_data = case.get("handle_data", [None] * len(case["outputs"]))
        assert replay_handle_data(case) == expected_handle_data


def test_errors_carry_the_node_and_input_shapes() -> None:
    case = next(c for c in CASES if c["op"] == "AddV2" and "error" in c)
    with pytest.raises(errors.InvalidArgumentError) as info:
        replay(case)
    assert "for '{{node AddV2}} = AddV2[T=DT_FLOAT]()' with input shapes: [2,3], [2,4]." in info.value.message
