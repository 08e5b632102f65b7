"""OpDefBuilder and OpRegistry: TF's specs give TF's OpDefs, validation, registry semantics."""

from __future__ import annotations

import pathlib
import threading

import pytest
from google.protobuf import text_format

from modtensor.framework import errors, op_registry
from modtensor.framework.op_def_builder import OpDefBuilder, OpRegistrationData, summarize_op_def, validate_op_def
from modtensor.framework.op_registry import OpRegistry, global_registry, register_op
from modtensor.framework.protos import op_def_pb2

GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "golden" / "op_defs_sample.pbtxt"


def _tf_op_defs() -> dict[str, op_def_pb2.OpDef]:
    op_list = text_format.Parse(GOLDEN.read_text(), op_def_pb2.OpList())
    return {op.name: op for op in op_list.op}


# TensorFlow's own registrations (tensorflow/core/ops/*.cc), spec strings verbatim.
TF_SPECS: dict[str, OpDefBuilder] = {
    "AddV2": OpDefBuilder("AddV2")
    .input("x: T")
    .input("y: T")
    .output("z: T")
    .attr(
        "T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, "
        "complex64, complex128}"
    )
    .set_is_aggregate()
    .set_is_commutative(),
    "AddN": OpDefBuilder("AddN")
    .input("inputs: N * T")
    .output("sum: T")
    .attr("N: int >= 1")
    .attr("T: {numbertype, variant}")
    .set_is_commutative()
    .set_is_aggregate(),
    "ConcatV2": OpDefBuilder("ConcatV2")
    .input("values: N * T")
    .input("axis: Tidx")
    .output("output: T")
    .attr("N: int >= 2")
    .attr("T: type")
    .attr("Tidx: {int32, int64} = DT_INT32"),
    "IdentityN": OpDefBuilder("IdentityN").input("input: T").output("output: T").attr("T: list(type)"),
    "Pack": OpDefBuilder("Pack")
    .input("values: N * T")
    .output("output: T")
    .attr("N: int >= 1")
    .attr("T: type")
    .attr("axis: int = 0"),
    "Unpack": OpDefBuilder("Unpack")
    .input("value: T")
    .output("output: num * T")
    .attr("num: int >= 0")
    .attr("T: type")
    .attr("axis: int = 0"),
    "Conv2D": OpDefBuilder("Conv2D")
    .input("input: T")
    .input("filter: T")
    .output("output: T")
    .attr("T: {half, bfloat16, float, double, int32}")
    .attr("strides: list(int)")
    .attr("use_cudnn_on_gpu: bool = true")
    .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .attr("explicit_paddings: list(int) = []")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .attr("dilations: list(int) = [1, 1, 1, 1]"),
    "MaxPool": OpDefBuilder("MaxPool")
    .attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} = DT_FLOAT")
    .attr("ksize: list(int) >= 4")
    .attr("strides: list(int) >= 4")
    .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .attr("explicit_paddings: list(int) = []")
    .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .input("input: T")
    .output("output: T"),
    "Placeholder": OpDefBuilder("Placeholder")
    .output("output: dtype")
    .attr("dtype: type")
    .attr("shape: shape = { unknown_rank: true }"),
    "Const": OpDefBuilder("Const").output("output: dtype").attr("value: tensor").attr("dtype: type"),
    "RandomUniform": OpDefBuilder("RandomUniform")
    .input("shape: T")
    .set_is_stateful()
    .output("output: dtype")
    .attr("seed: int = 0")
    .attr("seed2: int = 0")
    .attr("dtype: {half,bfloat16,float,double}")
    .attr("T: {int32, int64}"),
    "Relu": OpDefBuilder("Relu").input("features: T").output("activations: T").attr("T: {realnumbertype, qint8}"),
    "Sum": OpDefBuilder("Sum")
    .input("input: T")
    .input("reduction_indices: Tidx")
    .output("output: T")
    .attr("keep_dims: bool = false")
    .attr("T: numbertype")
    .attr("Tidx: {int32, int64} = DT_INT32"),
    "Cast": OpDefBuilder("Cast")
    .input("x: SrcT")
    .output("y: DstT")
    .attr("SrcT: type")
    .attr("DstT: type")
    .attr("Truncate: bool = false"),
    "StridedSlice": OpDefBuilder("StridedSlice")
    .input("input: T")
    .input("begin: Index")
    .input("end: Index")
    .input("strides: Index")
    .output("output: T")
    .attr("T: type")
    .attr("Index: {int16, int32, int64}")
    .attr("begin_mask: int = 0")
    .attr("end_mask: int = 0")
    .attr("ellipsis_mask: int = 0")
    .attr("new_axis_mask: int = 0")
    .attr("shrink_axis_mask: int = 0"),
    "VarHandleOp": OpDefBuilder("VarHandleOp")
    .attr("container: string = ''")
    .attr("shared_name: string = ''")
    .attr("debug_name: string = ''")
    .attr("dtype: type")
    .attr("shape: shape")
    .attr("allowed_devices: list(string) = []")
    .output("resource: resource")
    .set_is_stateful(),
    "AssignVariableOp": OpDefBuilder("AssignVariableOp")
    .input("resource: resource")
    .input("value: dtype")
    .attr("dtype: type")
    .attr("validate_shape: bool = false"),  # stateful because of the resource input
    "Assign": OpDefBuilder("Assign")
    .input("ref: Ref(T)")
    .input("value: T")
    .output("output_ref: Ref(T)")
    .attr("T: type")
    .attr("validate_shape: bool = true")
    .attr("use_locking: bool = true")
    .set_allows_uninitialized_input(),
    "PartitionedCall": OpDefBuilder("PartitionedCall")
    .input("args: Tin")
    .output("output: Tout")
    .attr("Tin: list(type) >= 0")
    .attr("Tout: list(type) >= 0")
    .attr("f: func")
    .attr("config: string = ''")
    .attr("config_proto: string = ''")
    .attr("executor_type: string = ''"),
    "BatchNormWithGlobalNormalization": OpDefBuilder("BatchNormWithGlobalNormalization")
    .input("t: T")
    .input("m: T")
    .input("v: T")
    .input("beta: T")
    .input("gamma: T")
    .output("result: T")
    .attr("T: numbertype")
    .attr("variance_epsilon: float")
    .attr("scale_after_normalization: bool")
    .deprecated(9, "Use tf.nn.batch_normalization()"),
    "NoOp": OpDefBuilder("NoOp"),
}


@pytest.mark.parametrize("name", sorted(TF_SPECS))
def test_tf_specs_give_tf_registered_op_defs(name: str) -> None:
    assert TF_SPECS[name].finalize().op_def == _tf_op_defs()[name]


def test_golden_covers_every_spec() -> None:
    assert sorted(_tf_op_defs()) == sorted(TF_SPECS)


# ----------------------------------------------------------------------------- builder


def test_builder_implied_settings() -> None:
    op = (
        OpDefBuilder("Implied")
        .input("a: N * T")
        .input("b: L")
        .input("h: resource")
        .attr("N: int")
        .attr("T: type")
        .attr("L: list(type)")
        .finalize()
        .op_def
    )
    attrs = {a.name: a for a in op.attr}
    assert (attrs["N"].has_minimum, attrs["N"].minimum) == (True, 1)  # length attrs default to >= 1
    assert (attrs["L"].has_minimum, attrs["L"].minimum) == (True, 1)
    assert not attrs["T"].has_minimum
    assert op.is_stateful  # resource args make the op stateful, as in TF
    ref_only = OpDefBuilder("RefOnly").input("x: Ref(float)").finalize().op_def
    assert not ref_only.is_stateful


def test_builder_flags_control_outputs_deprecation_and_shape_fn() -> None:
    def shape_fn(ctx: object) -> None:
        return None

    data = (
        OpDefBuilder("Flags")
        .output("y: float")
        .control_output("side_effect")
        .set_is_commutative()
        .set_is_aggregate()
        .set_is_stateful()
        .set_allows_uninitialized_input()
        .set_is_distributed_communication()
        .deprecated(12, "Use Other instead.")
        .set_shape_fn(shape_fn)
        .finalize()
    )
    op = data.op_def
    assert (op.is_commutative, op.is_aggregate, op.is_stateful) == (True, True, True)
    assert op.allows_uninitialized_input and op.is_distributed_communication
    assert list(op.control_output) == ["side_effect"]
    assert (op.deprecation.version, op.deprecation.explanation) == (12, "Use Other instead.")
    assert data.shape_fn is shape_fn
    assert data.source.endswith(".py:" + data.source.rsplit(":", 1)[1])
    assert "test_op_registry.py" in data.source


def test_builder_doc() -> None:
    op = (
        OpDefBuilder("Documented")
        .input("x: T")
        .output("y: T")
        .attr("T: type")
        .doc(
            """
Adds one.

Works elementwise.
Really.

x: The input.
y: The output,
  one larger.
T: Its type.
"""
        )
        .finalize()
        .op_def
    )
    assert op.summary == "Adds one."
    assert op.description == "Works elementwise.\nReally."
    assert op.input_arg[0].description == "The input."
    assert op.output_arg[0].description == "The output, one larger."
    assert op.attr[0].description == "Its type."


def invalid(builder: OpDefBuilder) -> str:
    with pytest.raises(errors.InvalidArgumentError) as info:
        builder.finalize()
    return info.value.message


@pytest.mark.parametrize(
    "builder, fragment",
    [
        (OpDefBuilder("myOp"), "Invalid op name: 'myOp' (Did you use CamelCase?"),
        (OpDefBuilder("My-Op"), "Invalid op name: 'My-Op'"),
        (OpDefBuilder("My>op"), "Invalid op name: 'My>op'"),
        (OpDefBuilder("D").attr("T: type").attr("T: int"), "Duplicate name: 'T' is used by attr 'T' and by attr 'T'"),
        (OpDefBuilder("D").input("x: float").output("x: float"), "used by input 'x' and by output 'x'"),
        (OpDefBuilder("D").input("x: float").attr("x: int"), "used by attr 'x' and by input 'x'"),
        (OpDefBuilder("D").attr("a: int >= 2 = 1"), "Value for attr 'a' of 1 must be at least minimum 2\n\t in Op 'D'"),
        (OpDefBuilder("D").attr("a: list(int) >= 2 = [1]"), "Length for attr 'a' of 1 must be at least minimum 2"),
        (OpDefBuilder("D").attr("a: list(type) >= 1 = []"), "Length for attr 'a' of 0 must be at least minimum 1"),
        (
            OpDefBuilder("D").attr("a: {'A','B'} = 'C'"),
            """Value for attr 'a' of "C" is not in the list of allowed values: "A", "B\"""",
        ),
        (
            OpDefBuilder("D").attr("a: {float, int32} = DT_BOOL"),
            "Value for attr 'a' of bool is not in the list of allowed values: float, int32",
        ),
        (OpDefBuilder("D").attr("a: type = DT_INVALID"), "AttrValue has invalid DataType\n\t for attr 'a'"),
        (OpDefBuilder("D").control_output("c").control_output("c"), "Duplicate control output name: 'c'"),
        (OpDefBuilder("D").control_output("1c"), "Invalid control output name: '1c'"),
        (OpDefBuilder("D").deprecated(1, "a").deprecated(2, "b"), "Deprecated called twice for Op D"),
    ],
)
def test_builder_validation_errors(builder: OpDefBuilder, fragment: str) -> None:
    assert fragment in invalid(builder)


def test_builder_reports_every_bad_spec_once() -> None:
    message = invalid(OpDefBuilder("MyOp").input("x: T").output("y: U").attr("T: {flot, double}").attr("N: int >= x"))
    lines = [line for line in message.splitlines() if " for Op MyOp" in line]
    assert lines == [
        "Unrecognized type string 'flot' from Attr(\"T: {flot, double}\") for Op MyOp",
        "Could not parse integer lower limit after '>=', found 'x' instead from Attr(\"N: int >= x\") for Op MyOp",
        "Reference to unknown attr 'U' from Output(\"y: U\") for Op MyOp",
    ]  # no cascade error for input x, whose attr T was already reported


def test_underscore_op_names_are_not_checked() -> None:
    assert OpDefBuilder("_internalOp").finalize().op_def.name == "_internalOp"
    assert OpDefBuilder("Ns>MyOp").finalize().op_def.name == "Ns>MyOp"


def test_validate_op_def_on_protos() -> None:
    op = text_format.Parse(
        'name: "Bad" input_arg { name: "x" type_attr: "T" number_attr: "N" } '
        'attr { name: "T" type: "type" } attr { name: "N" type: "int" }',
        op_def_pb2.OpDef(),
    )
    with pytest.raises(errors.InvalidArgumentError, match="Length attr 'N' for input 'x' must have minimum >= 0"):
        validate_op_def(op)
    op = text_format.Parse('name: "Bad" input_arg { name: "x" type: DT_FLOAT type_attr: "T" }', op_def_pb2.OpDef())
    with pytest.raises(errors.InvalidArgumentError, match="exactly one of type, type_attr or type_list_attr"):
        validate_op_def(op)
    op = text_format.Parse('name: "Bad" attr { name: "a" type: "lst(int)" }', op_def_pb2.OpDef())
    with pytest.raises(errors.InvalidArgumentError, match="Unrecognized type 'lst\\(int\\)' for attr 'a'"):
        validate_op_def(op)


def test_summarize_op_def_matches_tf() -> None:
    ops = _tf_op_defs()
    assert summarize_op_def(ops["ConcatV2"]) == (
        "Op<name=ConcatV2; signature=values:N*T, axis:Tidx -> output:T; attr=N:int,min=2; attr=T:type; "
        "attr=Tidx:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]>"
    )
    assert summarize_op_def(ops["Conv2D"]) == (
        "Op<name=Conv2D; signature=input:T, filter:T -> output:T; "
        "attr=T:type,allowed=[DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32]; attr=strides:list(int); "
        'attr=use_cudnn_on_gpu:bool,default=true; attr=padding:string,allowed=["SAME", "VALID", "EXPLICIT"]; '
        'attr=explicit_paddings:list(int),default=[]; attr=data_format:string,default="NHWC",allowed=["NHWC", '
        '"NCHW"]; attr=dilations:list(int),default=[1, 1, 1, 1]>'
    )
    assert (
        summarize_op_def(ops["IdentityN"]) == "Op<name=IdentityN; signature=input: -> output:; attr=T:list(type),min=1>"
    )
    assert summarize_op_def(ops["Assign"]).startswith(
        "Op<name=Assign; signature=ref:Ref(T), value:T -> output_ref:Ref(T);"
    )
    assert summarize_op_def(ops["AddV2"]).endswith("; is_commutative=true; is_aggregate=true>")


# ----------------------------------------------------------------------------- registry


def test_register_lookup_get_remove() -> None:
    reg = OpRegistry()
    data = reg.register(OpDefBuilder("MyAdd").input("x: T").input("y: T").output("z: T").attr("T: {float, int32}"))
    assert isinstance(data, OpRegistrationData)
    assert reg.lookup("MyAdd") is data and reg.get("MyAdd") is data
    assert "MyAdd" in reg and "Other" not in reg and 3 not in reg
    assert reg.names() == ["MyAdd"] and list(reg) == ["MyAdd"] and len(reg) == 1
    assert [op.name for op in reg.op_list().op] == ["MyAdd"]
    assert reg.lookup("Other") is None
    assert reg.remove("MyAdd") is data
    assert reg.lookup("MyAdd") is None
    with pytest.raises(errors.NotFoundError, match="Cannot remove op 'MyAdd'"):
        reg.remove("MyAdd")


def test_op_list_is_a_copy() -> None:
    reg = OpRegistry()
    reg.register(OpDefBuilder("Copied"))
    reg.op_list().op[0].name = "Changed"
    assert reg.get("Copied").op_def.name == "Copied"


def test_register_op_def_proto_and_shape_fn_override() -> None:
    reg = OpRegistry()

    def fn(ctx: object) -> None:
        return None

    op = _tf_op_defs()["Pack"]
    data = reg.register(op, fn, source="/plugins/libpack.so")
    assert data.op_def == op and data.op_def is not op
    assert data.shape_fn is fn and data.source == "/plugins/libpack.so"
    bad = op_def_pb2.OpDef(name="lowercase")
    with pytest.raises(errors.InvalidArgumentError, match="Invalid op name"):
        reg.register(bad)
    assert "lowercase" not in reg
    with pytest.raises(TypeError, match="OpDefBuilder or an OpDef"):
        reg.register("Pack")  # type: ignore[arg-type]


def test_get_unknown_op_message() -> None:
    with pytest.raises(errors.NotFoundError) as info:
        OpRegistry().get("Foo")
    message = info.value.message
    assert message.startswith("Op type not registered 'Foo' in binary running on ")
    assert "Make sure the Op and Kernel are registered in the binary running in this process." in message
    assert "modtensor.load_library" in message


def test_duplicate_registration_names_both_sources() -> None:
    reg = OpRegistry()
    reg.register(OpDefBuilder("Twice"), source="ops/first.py:10")
    with pytest.raises(errors.AlreadyExistsError) as info:
        reg.register(OpDefBuilder("Twice"), source="/plugins/libtwice.so")
    assert "Op 'Twice' is already registered" in info.value.message
    assert "ops/first.py:10" in info.value.message and "/plugins/libtwice.so" in info.value.message


def test_default_source_is_where_the_builder_was_made() -> None:
    reg = OpRegistry()
    data = reg.register(OpDefBuilder("Here"))
    path, line = data.source.rsplit(":", 1)
    assert path == __file__ and int(line) > 0


def test_deferred_registration_is_finalized_on_first_query() -> None:
    reg = OpRegistry()
    builder = reg.register_deferred(OpDefBuilder("Later", source="ops/later.py:3"))
    builder.input("x: T").output("y: T").attr("T: type")  # still configurable until the first query
    assert reg.get("Later").op_def.attr[0].name == "T"
    assert reg.get("Later").source == "ops/later.py:3"


def test_deferred_duplicate_fails_at_registration_time() -> None:
    reg = OpRegistry()
    reg.register_deferred(OpDefBuilder("Dup", source="a.py:1"))
    with pytest.raises(errors.AlreadyExistsError, match="first defined at a.py:1, defined again at b.py:2"):
        reg.register_deferred(OpDefBuilder("Dup", source="b.py:2"))


def test_bad_deferred_spec_raises_at_first_query_naming_op_and_source() -> None:
    reg = OpRegistry()
    reg.register_deferred(OpDefBuilder("Good", source="ops/good.py:1"))
    reg.register_deferred(OpDefBuilder("Broken", source="ops/broken.py:7").attr("T: {flot}"))
    with pytest.raises(errors.InvalidArgumentError) as info:
        reg.names()
    assert "Invalid definition of op 'Broken' at ops/broken.py:7" in info.value.message
    assert "Unrecognized type string 'flot'" in info.value.message
    assert reg.names() == ["Good"]  # the good ones were registered; later queries work


def test_global_register_op_is_deferred() -> None:
    reg = global_registry()
    assert reg is op_registry.global_registry()
    builder = register_op("TestOnlyGlobalDeferredOp")
    assert builder.source.startswith(__file__ + ":")
    builder.output("y: float")
    try:
        assert reg.get("TestOnlyGlobalDeferredOp").op_def.output_arg[0].name == "y"
    finally:
        reg.remove("TestOnlyGlobalDeferredOp")


def test_describe_and_registrations() -> None:
    reg = OpRegistry()
    reg.register(OpDefBuilder("B").output("y: float"), source="b.py:1")
    reg.register(OpDefBuilder("A"), source="a.py:1")
    assert [r.op_def.name for r in reg.registrations()] == ["A", "B"]
    assert reg.describe("B") == "Op<name=B; signature= -> y:float> (defined at b.py:1)"


def test_concurrent_registration() -> None:
    reg = OpRegistry()
    failures: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            for j in range(20):
                reg.register(OpDefBuilder(f"Op{i}x{j}").output("y: float"))
                assert f"Op{i}x{j}" in reg
        except BaseException as e:
            failures.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures and len(reg) == 80
