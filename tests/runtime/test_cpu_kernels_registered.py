"""Every built-in CPU kernel is registered with TF's CPU type constraints and computes TF's numbers.

Each op of OP_FUNCTIONS is built as a node from a TF golden case (tests/golden/kernels,
preferring a float32 case), its kernel made by the registry for the CPU device and run,
and the result compared with TensorFlow's recorded output.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from modtensor.framework import dtypes, errors
from modtensor.framework.protos import node_def_pb2, tensor_shape_pb2
from modtensor.framework.tensor_proto import make_tensor_proto
from modtensor.kernels.cpu import OP_FUNCTIONS, register_cpu_kernels
from modtensor.kernels.cpu import bitwise as cpu_bitwise
from modtensor.kernels.cpu import losses as cpu_losses
from modtensor.kernels.cpu.io_kernels import IO_KERNELS
from modtensor.kernels.cpu.list_kernels import LIST_KERNELS
from modtensor.kernels.cpu.lookup import LOOKUP_KERNELS
from modtensor.kernels.cpu.registrations import NATIVE_FALLBACK_OPS, SOURCE
from modtensor.kernels.cpu.resource_variable_ops import VARIABLE_OPS
from modtensor.kernels.cpu.training_ops import TRAINING_OPS
from modtensor.runtime import device_factory
from modtensor.runtime.kernel_registry import KernelRegistry, global_kernel_registry
from modtensor.runtime.op_kernel import OpKernelContext, create_kernel
from modtensor.runtime.resource_variable import DEVICE_AGNOSTIC_OPS

from .support import make_node, op_def

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
BREADTH = GOLDEN / "op_breadth"  # the op-breadth ops of issue 13 (tools/make_golden_op_breadth.py)
GRADIENT_OPS = GOLDEN / "gradient_ops"  # the backward ops of gradients (tools/make_golden_gradient_ops.py)
CORE_OPS = GOLDEN / "namespace_core" / "ops"  # the stateless random ops (tools/make_golden_namespace_core.py)
IMAGE_OPS = GOLDEN / "image_ops" / "ops"  # HSV, hue/saturation, patches (tools/make_golden_image_ops.py)
CATEGORICAL_OPS = GOLDEN / "random_categorical" / "ops"  # tools/make_golden_random_categorical.py
STRING_OPS = GOLDEN / "namespace_strings" / "ops"  # AsString, ReduceJoin (tools/make_golden_namespace_strings.py)
CODEC_OPS = GOLDEN / "image_codecs" / "ops"  # JPEG, PNG, BMP, GIF (tools/make_golden_image_codecs.py)
SPECTRAL_OPS = GOLDEN / "spectral_ops" / "ops"  # complex parts, FFTs (tools/make_golden_spectral_ops.py)
MATH_OPS = GOLDEN / "math_ops" / "ops"  # trigonometric, C division (tools/make_golden_math_ops.py)
FILE_OPS = GOLDEN / "file_io" / "ops"  # MatchingFiles (tools/make_golden_file_io.py)
AUDIO_OPS = GOLDEN / "audio" / "ops"  # DecodeWav, EncodeWav (tools/make_golden_audio.py)
ARRAY_OPS = GOLDEN / "array_ops" / "ops"  # partition, stitch, reverse_sequence (tools/make_golden_array_ops.py)
CSV_OPS = GOLDEN / "csv" / "ops"  # DecodeCSV (tools/make_golden_csv.py)
NMS_OPS = GOLDEN / "nms" / "ops"  # NonMaxSuppressionV3-V5, CombinedNonMaxSuppression (tools/make_golden_nms.py)
TEXT_OPS = GOLDEN / "text_ops" / "ops"  # strip, n-grams, base64, hashes, ... (tools/make_golden_text_ops.py)
SPARSE_OPS = GOLDEN / "sparse_ops" / "ops"  # SparseToDense, SparseAdd, ... (tools/make_golden_sparse_ops.py)
UNICODE_OPS = GOLDEN / "unicode" / "ops"  # UnicodeDecode, ..., UnicodeScript (tools/make_golden_unicode.py)
RAGGED_OPS = GOLDEN / "ragged" / "ops"  # RaggedTensorToTensor, RaggedRange, ... (tools/make_golden_ragged.py)
TF_CPU = {
    **json.loads((GOLDEN / "tf_cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((BREADTH / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((GRADIENT_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((CORE_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((IMAGE_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((CATEGORICAL_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((STRING_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((CODEC_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((SPECTRAL_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((MATH_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((FILE_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((AUDIO_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((ARRAY_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((CSV_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((NMS_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((TEXT_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((UNICODE_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((RAGGED_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
    **json.loads((SPARSE_OPS / "cpu_kernel_constraints.json").read_text())["kernels"],
}
CASES = [
    case | {"dir": folder}
    for folder in (
        GOLDEN / "kernels",
        BREADTH / "kernels",
        GRADIENT_OPS / "kernels",
        CORE_OPS / "kernels",
        IMAGE_OPS / "kernels",
        CATEGORICAL_OPS / "kernels",
        STRING_OPS / "kernels",
        CODEC_OPS / "kernels",
        SPECTRAL_OPS / "kernels",
        MATH_OPS / "kernels",
        AUDIO_OPS / "kernels",
        ARRAY_OPS / "kernels",
        CSV_OPS / "kernels",
        NMS_OPS / "kernels",
        TEXT_OPS / "kernels",
        UNICODE_OPS / "kernels",
        RAGGED_OPS / "kernels",
        SPARSE_OPS / "kernels",
    )
    for case in json.loads((folder / "index.json").read_text())["cases"]
]
CHECKED = ("DT_FLOAT", "DT_DOUBLE", "DT_INT32", "DT_INT64", "DT_BOOL", "DT_HALF")
PLUMBING = (
    "Const",
    "Placeholder",
    "PlaceholderWithDefault",
    "Identity",
    "StopGradient",
    "Snapshot",
)  # IdentityN and NoOp: DEFAULT kernels only, as TF (tests/runtime/test_default_kernels.py)


def cpu():
    return device_factory.get_device("/CPU:0")


def run(node, inputs):
    kernel = create_kernel(node, op_def(node.op), cpu())
    return kernel.run(OpKernelContext(kernel, list(inputs)))


def _numpy_cpu_kernels(op: str) -> list:
    """The op's CPU kernels registered by the numpy kernels (the native library's sit beside them)."""
    registry = global_kernel_registry()
    return [k for k in registry.kernels_for_op(op) if k.kernel_def.device_type == "CPU" and k.source == SOURCE]


def test_every_op_function_and_plumbing_op_has_a_cpu_kernel() -> None:
    for op in [*OP_FUNCTIONS, *PLUMBING]:
        kernels = _numpy_cpu_kernels(op)
        assert len(kernels) == 1, op
        # the ops the native library also implements are the fallback (priority -1) there
        assert kernels[0].kernel_def.priority == (-1 if op in NATIVE_FALLBACK_OPS else 0), op


def test_native_kernels_win_for_float32_and_numpy_serves_the_rest() -> None:
    from modtensor.framework import node_def as node_def_lib
    from modtensor.plugin.native.kernels import NativeKernelSpec

    registry = global_kernel_registry()
    # (_MklLayerNorm's OpDef allows no float64: TF's; its numpy kernel serves half types, checked elsewhere)
    fused = {"_FusedConv2D", "_FusedDepthwiseConv2dNative", "_FusedMatMul", "_MklLayerNorm"}
    random = {"RandomStandardNormal", "RandomUniform", "TruncatedNormal"}  # type attr dtype; float64 is native too
    indexing = {"GatherNd", "ScatterNd", "TensorScatterAdd", "TensorScatterUpdate", "TopKV2", "UnsortedSegmentSum"}
    for op in sorted(NATIVE_FALLBACK_OPS - fused - indexing - {"Cast"}):
        attr = "dtype" if op in random else "T"
        node = node_def_pb2.NodeDef(name="n", op=op)
        node.attr[attr].type = dtypes.float32.as_datatype_enum
        node_def_lib.add_default_attrs(node, op_def(op))
        assert isinstance(registry.find_kernel(node, op_def(op), "CPU").factory, NativeKernelSpec), op
        node.attr[attr].type = (dtypes.float16 if op in random else dtypes.float64).as_datatype_enum
        assert registry.find_kernel(node, op_def(op), "CPU").source == SOURCE, op
    # Gathers and updates: native for every fixed-size dtype; adds, segment sums, top-k for float32/64 and int32/64
    for op, attrs, native in (
        ("GatherNd", {"Tparams": dtypes.float16, "Tindices": dtypes.int16}, True),
        ("GatherNd", {"Tparams": dtypes.string, "Tindices": dtypes.int32}, False),
        ("TensorScatterUpdate", {"T": dtypes.bool, "Tindices": dtypes.int64}, True),
        ("TensorScatterUpdate", {"T": dtypes.complex64, "Tindices": dtypes.int32}, False),
        ("ScatterNd", {"T": dtypes.int64, "Tindices": dtypes.int32}, True),
        ("ScatterNd", {"T": dtypes.float16, "Tindices": dtypes.int32}, False),
        ("TensorScatterAdd", {"T": dtypes.float64, "Tindices": dtypes.int64}, True),
        ("TensorScatterAdd", {"T": dtypes.uint8, "Tindices": dtypes.int64}, False),
        ("UnsortedSegmentSum", {"T": dtypes.float32, "Tindices": dtypes.int16, "Tnumsegments": dtypes.int64}, True),
        ("UnsortedSegmentSum", {"T": dtypes.complex64, "Tindices": dtypes.int32}, False),
        ("TopKV2", {"T": dtypes.int32, "index_type": dtypes.int64}, True),
        ("TopKV2", {"T": dtypes.bfloat16}, False),
    ):
        node = node_def_pb2.NodeDef(name="n", op=op)
        for name, dtype in attrs.items():
            node.attr[name].type = dtype.as_datatype_enum
        node_def_lib.add_default_attrs(node, op_def(op))
        found = registry.find_kernel(node, op_def(op), "CPU")
        assert isinstance(found.factory, NativeKernelSpec) == native and (native or found.source == SOURCE), attrs
    # Cast: native from the integer and bool types to float32, numpy's for every other pair
    for src, dst, native in ((dtypes.uint8, dtypes.float32, True), (dtypes.int64, dtypes.float32, True),
                             (dtypes.bool, dtypes.float32, True), (dtypes.float64, dtypes.float32, False),
                             (dtypes.int32, dtypes.float64, False), (dtypes.float32, dtypes.int32, False)):  # fmt: skip
        node = node_def_pb2.NodeDef(name="n", op="Cast")
        node.attr["SrcT"].type = src.as_datatype_enum
        node.attr["DstT"].type = dst.as_datatype_enum
        node_def_lib.add_default_attrs(node, op_def("Cast"))
        found = registry.find_kernel(node, op_def("Cast"), "CPU")
        assert isinstance(found.factory, NativeKernelSpec) == native and (native or found.source == SOURCE), (src, dst)


def test_registration_is_idempotent_per_registry() -> None:
    reg = KernelRegistry()
    first = register_cpu_kernels(reg)
    assert register_cpu_kernels(reg) == first
    bitwise_ops = set(cpu_bitwise.OP_FUNCTIONS)  # registered beside OP_FUNCTIONS (tests/kernels/test_bitwise.py)
    state = {*DEVICE_AGNOSTIC_OPS, *VARIABLE_OPS, *TRAINING_OPS, *cpu_losses.OP_FUNCTIONS}  # variables, training
    list_ops = set(LIST_KERNELS)  # TensorList ops, for CPU and DEFAULT (tests/api/test_list_ops_golden.py)
    logging_ops = {"Assert", "PrintV2", "StringFormat"}  # tests/api/test_print_golden.py, test_asserts_golden.py
    io_ops = set(IO_KERNELS)  # tf.io's byte and file ops (tests/api/test_io_golden.py)
    lookup_ops = set(LOOKUP_KERNELS)  # hash tables (tests/api/test_lookup_golden.py)
    from modtensor.kernels.cpu.data import register_data_kernels

    data_ops = {r.kernel_def.op for r in register_data_kernels(KernelRegistry())}  # tests/api/test_data_*.py
    fused = {"_FusedMatMul", "_FusedConv2D", "_FusedDepthwiseConv2dNative", "_MklLayerNorm"}
    tables = set(OP_FUNCTIONS) | set(PLUMBING) | bitwise_ops | fused | state | list_ops | logging_ops | data_ops
    assert len(reg.ops()) == len(tables | io_ops | lookup_ops)


@pytest.mark.parametrize("op", sorted(set(OP_FUNCTIONS) | {"Snapshot"}))
def test_constraints_cover_tensorflows_cpu_kernels(op: str) -> None:
    (kernel,) = _numpy_cpu_kernels(op)
    ours = {name: {dtypes.as_dtype(t).as_datatype_enum for t in types} for name, types in kernel.kernel_def.constraints}
    for tf_kernel in TF_CPU[op]:
        for attr, tf_types in tf_kernel["constraints"].items():
            for name in tf_types:
                if name in CHECKED:
                    assert attr in ours, f"{op}: TF constrains {attr}, we do not"
                    enum = dtypes.as_dtype(_tf_name(name)).as_datatype_enum
                    assert enum in ours[attr], f"{op}: TF's CPU kernel takes {attr}={name}, ours does not"
    for attr, allowed in ours.items():  # and we claim nothing TF's CPU lacks
        tf_allowed = {dtypes.as_dtype(_tf_name(n)).as_datatype_enum for k in TF_CPU[op] for n in k["constraints"][attr]}
        assert allowed <= tf_allowed, op


def _tf_name(enum_name: str) -> str:
    return {"DT_HALF": "float16", "DT_FLOAT": "float32", "DT_DOUBLE": "float64"}.get(
        enum_name, enum_name.removeprefix("DT_").lower()
    )


def _case_for(op: str) -> dict:
    usable = [c for c in CASES if c["op"] == op and "error" not in c and "deviation" not in c]
    usable.sort(key=lambda c: "check" in c)  # cases compared specially (see test_golden_kernels.py) last
    with np.load(usable[0]["dir"] / f"{op}.npz") as data:
        arrays = {k: data[k].astype(object) if data[k].dtype.kind == "S" else data[k] for k in data.files}
    for case in usable:
        first = case["inputs"][0]
        key = first["list"][0] if "list" in first else first["key"]
        if arrays[key].dtype == np.float32:
            return case | {"arrays": arrays}
    return usable[0] | {"arrays": arrays}


def _node_for(case: dict, inputs: list) -> object:
    od = op_def(case["op"])
    attrs = {
        k: (dtypes.as_dtype(v["dtype"]) if isinstance(v, dict) and "dtype" in v else v)
        for k, v in case["attrs"].items()
    }
    for arg, value in zip(od.input_arg, inputs, strict=True):
        if arg.number_attr:
            attrs.setdefault(arg.number_attr, len(value))
        if arg.type_list_attr:
            attrs.setdefault(arg.type_list_attr, [dtypes.as_dtype(v.dtype) for v in value])
        elif arg.type_attr:
            attrs.setdefault(arg.type_attr, dtypes.as_dtype((value[0] if isinstance(value, list) else value).dtype))
    names = [f"in{i}" for i in range(sum(len(v) if isinstance(v, list) else 1 for v in inputs))]
    return make_node(case["op"], "n", tuple(names), **attrs)


@pytest.mark.parametrize("op", sorted(OP_FUNCTIONS))
def test_kernel_computes_tensorflows_result(op: str) -> None:
    case = _case_for(op)
    data = case["arrays"]
    inputs = [[data[k] for k in spec["list"]] if "list" in spec else data[spec["key"]] for spec in case["inputs"]]
    node = _node_for(case, inputs)
    flat = [v for item in inputs for v in (item if isinstance(item, list) else [item])]
    outputs = run(node, flat)
    wants = [data[k] for k in case["outputs"]]
    assert len(outputs) == len(wants)
    if case.get("check") == "up_to_sign":  # decomposition vectors: LAPACK and Eigen may sign them differently
        outputs, wants = [np.abs(o) for o in outputs], [np.abs(w) for w in wants]
    elif case.get("check", "").startswith("values_of_outputs:"):  # TF leaves the others uninitialized
        assert [(o.dtype, o.shape) for o in outputs] == [(w.dtype, w.shape) for w in wants], op
        compared = {int(i) for i in case["check"].split(":")[1].split(",")}
        outputs = [o for k, o in enumerate(outputs) if k in compared]
        wants = [w for k, w in enumerate(wants) if k in compared]
    for got, want in zip(outputs, wants, strict=True):
        assert (got.dtype == want.dtype or want.dtype.kind == "S") and got.shape == want.shape, op
        if want.dtype.kind == "S":
            assert got.dtype == object and got.astype(bytes).tolist() == want.tolist(), op
        elif want.dtype.kind in "fc":  # floating point (transforms round like any float computation)
            wide = np.complex128 if want.dtype.kind == "c" else np.float64
            np.testing.assert_allclose(got.astype(wide), want.astype(wide), rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(got, want)


def test_kernel_errors_keep_tensorflows_message() -> None:
    node = make_node("MatMul", "mm", ("a", "b"), T=dtypes.float32)
    with pytest.raises(errors.InvalidArgumentError, match=r"Matrix size-incompatible"):
        run(node, [np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)])


def test_no_cpu_kernel_for_a_dtype_tensorflow_lacks() -> None:
    node = make_node("MatMul", "mm", ("a", "b"), T=dtypes.uint8)
    with pytest.raises(errors.NotFoundError, match="No registered 'MatMul' OpKernel for 'CPU' devices"):
        run(node, [np.ones((1, 1), np.uint8)] * 2)


def test_const_decodes_once_and_outputs_read_only() -> None:
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    node = make_node("Const", "c", value=make_tensor_proto(value), dtype=dtypes.float32)
    kernel = create_kernel(node, op_def("Const"), cpu())
    (a,) = kernel.run(OpKernelContext(kernel, []))
    (b,) = kernel.run(OpKernelContext(kernel, []))
    assert a is b and not a.flags.writeable
    np.testing.assert_array_equal(a, value)
    bad = make_node("Const", "c", value=make_tensor_proto(value), dtype=dtypes.int32)
    with pytest.raises(errors.InvalidArgumentError) as info:
        create_kernel(bad, op_def("Const"), cpu())
    assert str(info.value) == "Type mismatch between value (float) and dtype (int32)\n\t [[{{node c}}]]"


def _shape(*dims):
    proto = tensor_shape_pb2.TensorShapeProto()
    for d in dims:
        proto.dim.add(size=d)
    return proto


@pytest.mark.parametrize(
    ("dtype", "shape", "message"),
    [
        (dtypes.float32, _shape(-1, 3), "with dtype float and shape [?,3]"),  # TF 2.21's texts
        (dtypes.int32, tensor_shape_pb2.TensorShapeProto(unknown_rank=True), "with dtype int32"),
        (dtypes.float32, _shape(), "with dtype float"),
    ],
)
def test_unfed_placeholder_fails_like_tensorflow(dtype, shape, message) -> None:
    node = make_node("Placeholder", "x", dtype=dtype, shape=shape)
    with pytest.raises(errors.InvalidArgumentError) as info:
        run(node, [])
    assert str(info.value) == f"You must feed a value for placeholder tensor 'x' {message}"


def test_identity_family_pass_values_through() -> None:
    x = np.arange(3, dtype=np.float32)
    for op in ("Identity", "StopGradient", "PlaceholderWithDefault"):
        attrs = (
            {"dtype": dtypes.float32, "shape": _shape(3)} if op == "PlaceholderWithDefault" else {"T": dtypes.float32}
        )
        assert run(make_node(op, "i", ("x",), **attrs), [x])[0] is x
    y = np.array([1, 2], np.int64)
    assert run(make_node("IdentityN", "n", ("x", "y"), T=[dtypes.float32, dtypes.int64]), [x, y]) == [x, y]
    assert run(make_node("NoOp", "noop"), []) == []
    snap = run(make_node("Snapshot", "s", ("x",), T=dtypes.float32), [x])[0]
    assert snap is not x and snap.tolist() == x.tolist()


def test_random_kernel_advances_its_stream_per_call() -> None:
    node = make_node("RandomUniform", "r", ("shape",), dtype=dtypes.float32, T=dtypes.int32, seed=7, seed2=3)
    kernel = create_kernel(node, op_def("RandomUniform"), cpu())
    shape = np.array([2, 3], np.int32)
    first = kernel.run(OpKernelContext(kernel, [shape]))[0]
    second = kernel.run(OpKernelContext(kernel, [shape]))[0]
    fn = OP_FUNCTIONS["RandomUniform"]
    np.testing.assert_array_equal(first, fn(shape, np.float32, seed=7, seed2=3))
    np.testing.assert_array_equal(second, fn(shape, np.float32, seed=7, seed2=3, skip=256 * 6))
