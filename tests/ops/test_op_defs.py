"""modtensor's standard OpDefs equal TensorFlow 2.21's registered OpDefs (docs aside), field by field.

``tests/golden/tf_op_defs.pbtxt`` was written by ``tools/dump_tf_op_defs.py`` from
TensorFlow itself (``tests/golden/op_breadth/op_defs.pbtxt`` by ``tools/make_golden_op_breadth.py``);
a GraphDef exported by TF imports only if names, types,
defaults and flags agree exactly.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import text_format

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import op_def_pb2

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "tf_op_defs.pbtxt"
# More OpDefs recorded with the features that added them (tools/make_golden_variables.py,
# tools/make_golden_op_breadth.py for the op breadth of issue 13).
MORE_GOLDEN = [
    Path(__file__).resolve().parent.parent / "golden" / "variables" / "op_defs.pbtxt",
    Path(__file__).resolve().parent.parent / "golden" / "op_breadth" / "op_defs.pbtxt",
    Path(__file__).resolve().parent.parent / "golden" / "data" / "op_defs.pbtxt",  # tools/make_golden_data.py
    # the backward ops of gradient functions (tools/make_golden_gradient_ops.py)
    Path(__file__).resolve().parent.parent / "golden" / "gradient_ops" / "op_defs.pbtxt",
    # the stateless random ops (tools/make_golden_namespace_core.py)
    Path(__file__).resolve().parent.parent / "golden" / "namespace_core" / "ops" / "op_defs.pbtxt",
    # the image ops of tf.image's HSV, hue, saturation and patch functions (tools/make_golden_image_ops.py)
    Path(__file__).resolve().parent.parent / "golden" / "image_ops" / "ops" / "op_defs.pbtxt",
    # Multinomial and StatelessMultinomial (tools/make_golden_random_categorical.py)
    Path(__file__).resolve().parent.parent / "golden" / "random_categorical" / "ops" / "op_defs.pbtxt",
    # AsString and ReduceJoin (tools/make_golden_namespace_strings.py)
    Path(__file__).resolve().parent.parent / "golden" / "namespace_strings" / "ops" / "op_defs.pbtxt",
    # the image codec ops (tools/make_golden_image_codecs.py)
    Path(__file__).resolve().parent.parent / "golden" / "image_codecs" / "ops" / "op_defs.pbtxt",
    # the complex-number and FFT ops (tools/make_golden_spectral_ops.py)
    Path(__file__).resolve().parent.parent / "golden" / "spectral_ops" / "ops" / "op_defs.pbtxt",
    # the trigonometric, hyperbolic and C-division ops (tools/make_golden_math_ops.py)
    Path(__file__).resolve().parent.parent / "golden" / "math_ops" / "ops" / "op_defs.pbtxt",
    # MatchingFiles (tools/make_golden_file_io.py)
    Path(__file__).resolve().parent.parent / "golden" / "file_io" / "ops" / "op_defs.pbtxt",
    # DecodeWav, EncodeWav (tools/make_golden_audio.py)
    Path(__file__).resolve().parent.parent / "golden" / "audio" / "ops" / "op_defs.pbtxt",
    # partition, stitch, reverse_sequence, unique_with_counts (tools/make_golden_array_ops.py)
    Path(__file__).resolve().parent.parent / "golden" / "array_ops" / "ops" / "op_defs.pbtxt",
    # DecodeCSV (tools/make_golden_csv.py)
    Path(__file__).resolve().parent.parent / "golden" / "csv" / "ops" / "op_defs.pbtxt",
    # NonMaxSuppressionV3-V5, CombinedNonMaxSuppression (tools/make_golden_nms.py)
    Path(__file__).resolve().parent.parent / "golden" / "nms" / "ops" / "op_defs.pbtxt",
    # StringStrip, StringNGrams, base64, hashes, Fingerprint, RegexFullMatch, ... (tools/make_golden_text_ops.py)
    Path(__file__).resolve().parent.parent / "golden" / "text_ops" / "ops" / "op_defs.pbtxt",
    # UnicodeDecode(WithOffsets), UnicodeEncode, UnicodeTranscode, UnicodeScript (tools/make_golden_unicode.py)
    Path(__file__).resolve().parent.parent / "golden" / "unicode" / "ops" / "op_defs.pbtxt",
    # RaggedTensorToTensor, RaggedRange, RaggedGather, RaggedTensorToSparse (tools/make_golden_ragged.py)
    Path(__file__).resolve().parent.parent / "golden" / "ragged" / "ops" / "op_defs.pbtxt",
    # SparseToDense, SparseTensorDenseMatMul, SparseAdd, SparseSegment*, ... (tools/make_golden_sparse_ops.py)
    Path(__file__).resolve().parent.parent / "golden" / "sparse_ops" / "ops" / "op_defs.pbtxt",
    # the hash-table ops (tools/make_golden_lookup.py)
    Path(__file__).resolve().parent.parent / "golden" / "lookup" / "ops" / "op_defs.pbtxt",
]
TF_OP_DEFS = {
    op.name: op
    for path in (GOLDEN, *MORE_GOLDEN)
    for op in text_format.Parse(path.read_text(), op_def_pb2.OpList()).op
}


def _strip_docs(op_def: op_def_pb2.OpDef) -> op_def_pb2.OpDef:
    copy = op_def_pb2.OpDef()
    copy.CopyFrom(op_def)
    copy.ClearField("summary")
    copy.ClearField("description")
    for item in (*copy.input_arg, *copy.output_arg, *copy.attr):
        item.ClearField("description")
    return copy


def _differences(ours: op_def_pb2.OpDef, theirs: op_def_pb2.OpDef) -> list[str]:
    """Human-readable list of differing fields, e.g. "attr 'T'.allowed_values: ... != ..."."""
    diffs = []
    for field in ("name", "is_commutative", "is_aggregate", "is_stateful", "allows_uninitialized_input",
                  "is_distributed_communication", "deprecation", "control_output"):  # fmt: skip
        a, b = getattr(ours, field), getattr(theirs, field)
        if a != b:
            diffs.append(f"{field}: {a!r} != TF's {b!r}")
    for kind in ("input_arg", "output_arg", "attr"):
        a_items, b_items = list(getattr(ours, kind)), list(getattr(theirs, kind))
        if [x.name for x in a_items] != [x.name for x in b_items]:
            diffs.append(f"{kind} names: {[x.name for x in a_items]} != TF's {[x.name for x in b_items]}")
            continue
        for a, b in zip(a_items, b_items, strict=True):
            if a != b:
                diffs.append(
                    f"{kind} '{a.name}': {text_format.MessageToString(a, as_one_line=True)} != TF's "
                    f"{text_format.MessageToString(b, as_one_line=True)}"
                )
    return diffs


def test_golden_covers_the_starter_set_and_everything_is_registered() -> None:
    registry = global_registry()
    missing = sorted(name for name in TF_OP_DEFS if name not in registry)
    assert not missing, f"ops in TF's golden OpDefs that modtensor.ops does not register: {missing}"
    assert len(TF_OP_DEFS) >= 86


@pytest.mark.parametrize("name", sorted(TF_OP_DEFS))
def test_op_def_equals_tensorflow(name: str) -> None:
    ours = _strip_docs(global_registry().get(name).op_def)
    theirs = TF_OP_DEFS[name]
    diffs = _differences(ours, theirs)
    assert not diffs, f"OpDef of {name} differs from TensorFlow 2.21's:\n  " + "\n  ".join(diffs)
    assert ours == theirs  # whole-message equality, in case a field is not listed above


@pytest.mark.parametrize("name", sorted(TF_OP_DEFS))
def test_every_standard_op_has_a_shape_fn(name: str) -> None:
    assert global_registry().get(name).shape_fn is not None, f"{name} has no shape function"
