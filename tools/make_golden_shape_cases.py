"""Record TensorFlow's static shape inference for the standard op set into tests/golden/shape_cases.json.

Run with a Python that has TensorFlow (never imported by modtensor or its tests):
    /work/tfvenv/bin/python tools/make_golden_shape_cases.py

Each case builds one op in a TF v1 graph whose inputs are placeholders (static
shapes with unknown dims or unknown rank) or constants (where the shape function
reads values), through op_def_library with OpDef argument and attr names. TF's
inferred output shapes (a list per output, null for an unknown dim; null for an
unknown rank) or its shape-inference error (the text before " for '{{node") are
recorded with the node's attrs (AttrValue text format).
``tests/ops/test_golden_shapes.py`` replays every case through modtensor's
InferenceContext and the registered shape functions.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow.python.framework import op_def_library, op_def_registry  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden" / "shape_cases.json"
U = None  # an unknown dim
CASES: list[dict] = []


def P(shape, dtype="float32"):  # noqa: N802
    """A placeholder input of static ``shape`` (None: unknown rank)."""
    return {"shape": shape, "dtype": dtype}


def C(value, dtype="int32"):  # noqa: N802
    """A constant input."""
    return {"value": value, "dtype": dtype}


def L(element_shape, element_dtype="float32"):  # noqa: N802
    """A TensorList input whose handle data says ``element_shape`` (None: unknown rank) and ``element_dtype``."""
    return {"list": {"element_shape": element_shape, "element_dtype": element_dtype}, "dtype": "variant"}


def case(op: str, *inputs, **attrs) -> None:
    """One case: inputs positional (a list of inputs for an `N * T` arg), attrs by OpDef name."""
    CASES.append({"op": op, "inputs": list(inputs), "attrs": attrs})


def _tf_input(spec: dict) -> tf.Tensor:
    if "list" in spec:
        from tensorflow.python.ops import gen_list_ops

        shape = spec["list"]["element_shape"]
        shape = -1 if shape is None else [-1 if d is None else d for d in shape]
        return gen_list_ops.empty_tensor_list(
            element_shape=tf.constant(shape, tf.int32),
            max_num_elements=-1,
            element_dtype=tf.as_dtype(spec["list"]["element_dtype"]),
        )
    if "value" in spec:
        return tf.constant(np.asarray(spec["value"], dtype=spec["dtype"]))
    return tf.compat.v1.placeholder(tf.as_dtype(spec["dtype"]), spec["shape"])


FUNC = "<fn>"  # an attr value standing for a function (x: float32 [2, 3]) -> (x * 2, sum(x)) in the graph's library


def _library_function():
    from tensorflow.core.framework import attr_value_pb2

    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])
    def fn(x):
        return x * 2.0, tf.reduce_sum(x)

    concrete = fn.get_concrete_function()
    concrete.add_to_graph(tf.compat.v1.get_default_graph())
    name = concrete.name.decode() if isinstance(concrete.name, bytes) else concrete.name
    return attr_value_pb2.NameAttrList(name=name)


def _build(op: str, inputs: list, attrs: dict, unknown: bool = False):
    op_def = op_def_registry.get(op)
    if FUNC in attrs.values() or any(v == [FUNC] for v in attrs.values()):
        func = _library_function()
        attrs = {k: func if v == FUNC else [func] if v == [FUNC] else v for k, v in attrs.items()}
    kwargs = {}
    for arg, spec in zip(op_def.input_arg, inputs, strict=True):
        if unknown:
            spec = [P(None, s["dtype"]) for s in spec] if isinstance(spec, list) else P(None, spec["dtype"])
        kwargs[arg.name] = [_tf_input(s) for s in spec] if isinstance(spec, list) else _tf_input(spec)
    kwargs.update(attrs)
    for attr in op_def.attr:  # op_def_library wants every non-type attr, as generated wrappers pass them
        if attr.name not in kwargs and attr.type != "type" and attr.HasField("default_value"):
            kwargs[attr.name] = _default(attr.default_value)
    _, _, operation, _ = op_def_library._apply_op_helper(op, name=op.lstrip("_"), **kwargs)  # "_X" is no node name
    return operation


def _handle_data(tensor) -> list | None:
    """A variant/resource output's handle data as [[element shape or null, dtype name], ...], else None."""
    from tensorflow.python.ops import handle_data_util

    if tensor.dtype not in (tf.variant, tf.resource):
        return None
    data = handle_data_util.get_resource_handle_data(tensor)
    if not data.is_set:
        return None
    out = []
    for entry in data.shape_and_type:
        shape = tf.TensorShape(entry.shape)
        out.append([None if shape.rank is None else shape.as_list(), tf.as_dtype(entry.dtype).name])
    return out


def _default(value):
    which = value.WhichOneof("value")
    if which == "list":
        return list(value.list.i) or [s.decode() for s in value.list.s]
    if which == "shape":
        return tf.TensorShape(value.shape)
    return value.s.decode() if which == "s" else getattr(value, which)


def _node_attrs(operation) -> dict:
    # The library function's name carries a process-wide counter: record it as "fn" so reruns give the same file.
    return {
        k: re.sub(r"__inference_fn_\d+", "fn", text_format.MessageToString(v, as_one_line=True))
        for k, v in sorted(operation.node_def.attr.items())
    }


def run_case(c: dict) -> dict | None:
    record = {"op": c["op"], "inputs": c["inputs"]}
    with tf.Graph().as_default():
        try:
            operation = _build(c["op"], c["inputs"], c["attrs"])
        except ValueError as e:
            message = str(e)
            # Shape-fn errors carry the node; the refiner's own (constant shape tensors) do not.
            record["error"] = message.split(" for '{{node ", 1)[0]
            summary = re.search(r"\{\{node [^}]*\}\} = \w+\[(.*)\]\(", message)
        else:
            record["attrs"] = _node_attrs(operation)
            record["outputs"] = [None if t.shape.rank is None else t.shape.as_list() for t in operation.outputs]
            handle_data = [_handle_data(t) for t in operation.outputs]
            if any(h is not None for h in handle_data):
                record["handle_data"] = handle_data
            return record
    with tf.Graph().as_default():
        try:  # attrs of the failing node: the same op over inputs of unknown shape ...
            record["attrs"] = _node_attrs(_build(c["op"], c["inputs"], c["attrs"], unknown=True))
        except ValueError:  # ... or, where the attrs alone fail, as the error's node summary lists them
            if summary is None:
                print(f"skipped (no attrs for error case): {c['op']} {c['attrs']}", file=sys.stderr)
                return None
            record["attrs"] = _attrs_from_summary(summary.group(1))
    return record


def _attrs_from_summary(text: str) -> dict:
    """AttrValue texts from a node summary's `T=DT_FLOAT, padding="SAME", strides=[1, 1, 1, 1]`."""
    attrs = {}
    for key, value in re.findall(r'(\w+)=("[^"]*"|\[[^\]]*\]|[^,\]]+)', text):
        if value.startswith('"'):
            attrs[key] = f"s: {value}"
        elif value.startswith("["):
            items = [v.strip() for v in value[1:-1].split(",") if v.strip()]
            field = "type" if items and items[0].startswith("DT_") else "s" if items and items[0][0] == '"' else "i"
            attrs[key] = "list { " + " ".join(f"{field}: {v}" for v in items) + " }"
        elif value.startswith("DT_"):
            attrs[key] = f"type: {value}"
        elif value in ("true", "false"):
            attrs[key] = f"b: {value}"
        else:
            attrs[key] = f"i: {value}"
    return attrs


# =========================================================================== cases

F, I32, I64 = "float32", "int32", "int64"

# --- sources and identities
for shape in ([], [3], [2, 0, 4], [1, 2, 3, 4]):
    case("Const", value=tf.make_tensor_proto(np.zeros(shape, np.float32)), dtype=tf.float32)
for shape in (None, [], [U], [2, U, 3]):
    case("Placeholder", dtype=tf.float32, shape=shape)
for in_shape, shape in (([2, 3], [2, 3]), ([2, 3], [U, 3]), ([U, 3], [2, U]), ([2, 3], [3, 2]), ([2], [U, U]),
                        (None, [2]), ([2, 3], None)):  # fmt: skip
    case("PlaceholderWithDefault", P(in_shape), shape=shape)
for op in ("Identity", "StopGradient", "Snapshot", "ZerosLike", "OnesLike"):
    for shape in (None, [], [U, 3]):
        case(op, P(shape))
case("IdentityN", [P([2, U]), P(None, I32), P([])])
case("NoOp")
case("ControlTrigger")

# --- elementwise binary
BINARY_SHAPES = [
    ([2, 3], [2, 3]), ([2, 3], [3]), ([2, 1], [1, 3]), ([], [4, 5]), ([2, 3], [2, 4]), ([U, 3], [2, 1]),
    ([U, 3], [U, 3]), ([1], [U]), ([U], [5]), (None, [2, 3]), ([0], [U]), ([2, 3, 4], [5, 1, 4]),
    ([3, 1, 2], [4, 1]), ([0, 3], [1, 3]), ([0], [2]), ([7, U, 1], [U, 1, 5]),
]  # fmt: skip
for op in ("AddV2", "Mul", "SquaredDifference", "Less", "LogicalAnd"):
    dtype = "bool" if op == "LogicalAnd" else F
    for x, y in BINARY_SHAPES:
        case(op, P(x, dtype), P(y, dtype))
for op in ("Add", "Sub", "RealDiv", "Div", "FloorDiv", "FloorMod", "Maximum", "Minimum", "Pow", "LessEqual",
           "Greater", "GreaterEqual", "LogicalOr"):  # fmt: skip
    dtype = "bool" if op == "LogicalOr" else F
    for x, y in BINARY_SHAPES[:5]:
        case(op, P(x, dtype), P(y, dtype))
for op in ("Equal", "NotEqual"):
    for x, y in BINARY_SHAPES:
        case(op, P(x), P(y))
        case(op, P(x), P(y), incompatible_shape_error=False)

# --- elementwise unary, Cast
for op in ("Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Tanh", "Sigmoid", "Erf", "Erfc", "Floor", "Ceil",
           "Round", "Reciprocal", "Sin", "Cos", "Sign", "Expm1", "Log1p"):  # fmt: skip
    for shape in (None, [], [U, 3]):
        case(op, P(shape))
for shape in (None, [2, U]):
    case("LogicalNot", P(shape, "bool"))
    case("Cast", P(shape), DstT=tf.int32)
for shapes in ([[2, 3], [2, 3]], [[2, U], [U, 3], [2, 3]], [[2, 3], [3, 2]], [None, [2, U]], [[U], [U, U]]):
    case("AddN", [P(s) for s in shapes])

# --- Select, SelectV2
for cond, t, e in (([], [2, 3], [2, 3]), ([2], [2, 3], [2, 3]), ([3], [2, 3], [2, 3]), ([2, 3], [2, 3], [2, 3]),
                   ([2, 4], [2, 3], [2, 3]), ([2, 3], [2, 3], [2, 4]), (None, [2, 3], [2, U]), ([2], [], []),
                   ([U], [U, 3], [5, U]), ([2, 3, 4], [2, 3], [2, 3]), ([1], [], [])):  # fmt: skip
    case("Select", P(cond, "bool"), P(t), P(e))
for cond, t, e in (([], [2, 3], [2, 3]), ([2, 1], [1, 3], [2, 3]), ([4], [2, 3], [2, 3]), ([2, 3], [], [3]),
                   (None, [2], [2]), ([U, 1], [1, 4], [U, U])):  # fmt: skip
    case("SelectV2", P(cond, "bool"), P(t), P(e))

# --- MatMul, BatchMatMulV2
for a, b, ta, tb in (([2, 3], [3, 4], 0, 0), ([3, 2], [3, 4], 1, 0), ([2, 3], [4, 3], 0, 1), ([2, 3], [4, 5], 0, 0),
                     ([U, 3], [U, U], 0, 0), (None, [3, 4], 0, 0), ([2, 3, 4], [4, 5], 0, 0), ([2], [2, 3], 0, 0),
                     ([3, 2], [4, 3], 1, 1)):  # fmt: skip
    case("MatMul", P(a), P(b), transpose_a=bool(ta), transpose_b=bool(tb))
for a, b, ax, ay in (([2, 3], [3, 4], 0, 0), ([5, 2, 3], [3, 4], 0, 0), ([5, 2, 3], [1, 3, 4], 0, 0),
                     ([5, 1, 2, 3], [7, 3, 4], 0, 0), ([5, 2, 3], [6, 3, 4], 0, 0), ([5, 3, 2], [5, 4, 3], 1, 1),
                     ([U, 2, 3], [3, U], 0, 0), (None, [3, 4], 0, 0), ([2, 3], None, 0, 0), ([3], [3, 4], 0, 0),
                     ([4, 2, 3], [4, 4, 5], 0, 0), ([U, U, 3], [2, U, 3, 4], 0, 0)):  # fmt: skip
    case("BatchMatMulV2", P(a), P(b), adj_x=bool(ax), adj_y=bool(ay))

# --- reductions, ArgMax/ArgMin
for op in ("Sum", "Mean", "Max", "Min", "Prod", "All", "Any"):
    dtype = "bool" if op in ("All", "Any") else F
    for shape, axes, keep in (([2, 3, 4], C([1]), False), ([2, 3, 4], C([0, -1]), True), ([2, 3, 4], C(1), False),
                              ([2, 3, 4], C([3]), False), ([2, U, 4], P([1], I32), True), (None, C([0]), False),
                              ([2, 3], C([], I32), False), ([2, 3], C([[0]]), False), ([2, 3], C([-3]), True),
                              ([2, 3], C([1, 1], I64), False), (None, P([U], I32), True)):  # fmt: skip
        if op in ("Sum", "All") or shape == [2, 3, 4]:
            case(op, P(shape, dtype), axes, keep_dims=keep)
for op in ("ArgMax", "ArgMin"):
    for shape, dim in (([2, 3, 4], C(1)), ([2, 3, 4], C(-1)), ([2, 3, 4], C(3)), ([2, 3, 4], C(-4)),
                       ([5], C(0)), ([], C(0)), ([2, U], P([], I32)), (None, C(0)), ([2, 3], C([1])),
                       ([2, 3], C(0, I64))):  # fmt: skip
        case(op, P(shape), dim)
case("ArgMax", P([2, 3]), C(1), output_type=tf.int32)

# --- Reshape
for shape, new in (([2, 3], [3, 2]), ([2, 3], [-1]), ([2, 3], [-1, 2]), ([2, 3], [4, -1]), ([2, 3], [5]),
                   ([U, 3], [-1]), ([U, 3], [-1, 6]), ([U, 3], [2, 9]), ([U, 3], [2, 3, 5]), ([U, 6], [-1, 3, 2]),
                   ([U, U], [-1, 2]), (None, [2, -1]), ([2, 3], [-1, -1]), ([0, 3], [-1, 5]), ([2, 0], [0, -1]),
                   ([U, 4], [2, 2, -1]), ([], [1, 1]), ([2, 3], [-2, 3]), ([4], [])):  # fmt: skip
    case("Reshape", P(shape), C(new, I32))
for shape, new in (([2, 3], P([2], I32)), ([2, 3], P([U], I32)), ([2, 3], P(None, I32)), ([2, 3], C([[6]]))):
    case("Reshape", P(shape), new)
case("Reshape", P([2, 3]), C(-1))
case("Reshape", P([2, 3]), C([6], I64))

# --- Transpose
for shape, perm in (([2, 3, 4], C([2, 0, 1])), ([2, 3, 4], C([0, 1])), ([2, 3], C([1, 3])), ([2, 3], C([-1, 0])),
                    ([2, U, 4], P([3], I32)), (None, C([1, 0, 2])), (None, P([2], I32)), (None, P([U], I32)),
                    (None, C([0])), ([], C([], I32)), ([2, 3], P([U], I32)), (None, P(None, I32)),
                    ([2, 3], C([1, 0], I64))):  # fmt: skip
    case("Transpose", P(shape), perm)

# --- ConcatV2
for shapes, axis in (([[2, 3], [2, 4]], C(1)), ([[2, 3], [5, 3]], C(0)), ([[2, 3], [5, 3]], C(-2)),
                     ([[2, 3], [2, 4]], C(-1)), ([[2, 3], [3, 4]], C(1)), ([[2, U], [U, 4], [2, 1]], C(1)),
                     ([None, [2, 3]], C(0)), ([None, None], C(1)), ([[2, 3], [2, 3]], P([], I32)),
                     ([None, [2, 3]], P([], I32)), ([None, None], P([], I32)), ([[], []], P([], I32)),
                     ([[2, 3], [2, 3, 4]], P([], I32)), ([[2, 3], [2, 3]], C(2)), ([[2, 3], [2, 3]], C(-3)),
                     ([[2, 3], [2, 3, 4]], C(0)), ([[], []], C(0)), ([[2, 3], [2, 4]], C(1, I64)),
                     ([[2, 3], [2, 4]], C([1])), ([[U, 3], [U, 3]], C(0))):  # fmt: skip
    case("ConcatV2", [P(s) for s in shapes], axis)

# --- Pack, Unpack
for shapes, axis in (([[2, 3], [2, 3]], 0), ([[2, 3], [2, 3]], 1), ([[2, 3], [2, 3]], 2), ([[2, 3], [2, 3]], -1),
                     ([[2, 3], [2, 3]], 3), ([[2, 3], [2, 3]], -4), ([[2, U], [U, 3], [2, 3]], 1),
                     ([[2, 3], [3, 2]], 0),
                     ([None, [2]], 0), ([None, None], 5), ([[], []], 0), ([[2], [2, 3]], 0)):  # fmt: skip
    case("Pack", [P(s) for s in shapes], axis=axis)
for shape, num, axis in (([3, 2], 3, 0), ([3, 2], 2, 1), ([3, 2], 2, -1), ([3, 2], 2, 0), ([U, 2], 4, 0),
                         (None, 2, 0), ([3, 2], 3, 2), ([3, 2], 3, -3), ([], 1, 0)):  # fmt: skip
    case("Unpack", P(shape), num=num, axis=axis)

# --- Squeeze, ExpandDims
for shape, dims in (([1, 2, 1, 3], []), ([1, 2, 1, 3], [0]), ([1, 2, 1, 3], [-2]), ([1, 2, 1, 3], [1]),
                    ([1, 2, 1, 3], [4]), ([1, 2, 1, 3], [-5]), ([1, U, 2], []), ([1, U, 2], [1]), ([U, 1], [0, 1]),
                    (None, []), (None, [0]), ([], []), ([1, 1], [0, 0])):  # fmt: skip
    case("Squeeze", P(shape), squeeze_dims=dims)
for shape, dim in (([2, 3], C(0)), ([2, 3], C(2)), ([2, 3], C(-1)), ([2, 3], C(-3)), ([2, 3], C(3)), ([2, 3], C(-4)),
                   ([], C(0)), (None, C(0)), ([2, 3], P([], I32)), ([2, 3], C([1])), ([2, 3], C([1, 2])),
                   ([2, 3], C(1, I64))):  # fmt: skip
    case("ExpandDims", P(shape), dim)

# --- Shape, ShapeN, Size, Rank
for op in ("Shape", "Size", "Rank"):
    for shape in (None, [], [2, U, 3]):
        case(op, P(shape))
case("Shape", P([2, 3]), out_type=tf.int64)
case("ShapeN", [P([2, 3]), P(None), P([])])

# --- Fill
for dims, value in ((C([2, 3]), P([])), (C([2, -1]), P([])), (C([], I32), P([])), (P([3], I32), P([])),
                    (P([U], I32), P([])), (P(None, I32), P([])), (C([[2]]), P([])), (C([2, 3]), P([1])),
                    (C([2, 0], I64), P([])), (C(2), P([]))):  # fmt: skip
    case("Fill", dims, value)

# --- Range
for start, limit, delta in ((C(0), C(10), C(1)), (C(0), C(10), C(3)), (C(10), C(0), C(-3)), (C(5), C(1), C(1)),
                            (C(1), C(5), C(-1)), (C(0), C(4), C(0)), (C(0), P([], I32), C(1)), (C([0]), C(1), C(1)),
                            (C(0.0, F), C(1.0, F), C(0.3, F)), (C(0.5, F), C(0.1, F), C(0.1, F)),
                            (C(1, I64), C(9, I64), C(2, I64)), (C(3), C(3), C(1)), (C(0.0, "float64"),
                            C(2.5, "float64"), C(0.5, "float64")), (C(2.5, F), C(-1.25, F), C(0.5, F))):  # fmt: skip
    case("Range", start, limit, delta)

# --- Tile
for shape, mult in (([2, 3], C([2, 2])), ([2, U], C([1, 3])), ([2, 3], C([2])), ([2, 3], P([2], I32)),
                    ([2, 3], P([U], I32)), (None, C([2, 3])), (None, P([3], I32)), (None, P([U], I32)),
                    ([2, 3], C([0, 1])), ([2, 3], C([[2, 2]])), ([2, 3], C([2, -2])), ([], C([], I32)),
                    ([2, 3], C([2, 2], I64))):  # fmt: skip
    case("Tile", P(shape), mult)

# --- Pad
for shape, pads in (([2, 3], C([[1, 1], [2, 0]])), ([2, U], C([[1, 1], [2, 0]])), ([2, 3], C([[1, 1]])),
                    ([2, 3], C([[1, 1, 1], [0, 0, 0]])), ([2, 3], C([[1, -1], [0, 0]])), ([2, 3], P([2, 2], I32)),
                    ([2, 3], P([U, 2], I32)), (None, P([3, 2], I32)), (None, P([U, 2], I32)),
                    (None, C([[0, 1], [2, 3]])), ([2, 3], P([3, 2], I32)), ([2, 3], C([1, 1])),
                    ([], C(np.zeros((0, 2), np.int32).tolist(), I32)), ([2, 3], C([[1, 1], [2, 0]], I64))):  # fmt: skip
    case("Pad", P(shape), pads)

# --- Slice
for shape, begin, size in (([4, 5], C([1, 2]), C([2, 3])), ([4, 5], C([1, 2]), C([-1, 2])),
                           ([4, U], C([1, 2]), C([-1, -1])), ([4, 5], C([1]), C([2])), ([4, 5], C([1, 2]), C([2])),
                           ([4, 5], C([1, 2]), C([-2, 1])), ([4, 5], P([2], I32), C([2, 3])),
                           ([4, 5], P([2], I32), C([-1, 3])), ([4, 5], C([1, 2]), P([2], I32)),
                           ([4, 5], P([U], I32), P([U], I32)), (None, C([0, 1]), C([2, 2])),
                           (None, P([U], I32), P([U], I32)), ([4, 5], P([U], I32), P([U], I32)),
                           ([4, 5], C([3, 0]), C([-1, -1])), ([4, 5], C([5, 0]), C([-1, -1])),
                           ([4, 5], C([1, 2], I64), C([2, -1], I64)), (None, P([3], I32), P([3], I32)),
                           ([4, 5], C([-3, 0]), C([1, 1])), ([4, 5], C([1, 1]), C([10, 1]))):  # fmt: skip
    case("Slice", P(shape), begin, size)

# --- StridedSlice
SS = [
    ([10, 20], [1, 2], [5, 10], [1, 1], {}), ([10, 20], [1], [5], [1], {}), ([10, 20], [1, 2], [5, 10], [2, 3], {}),
    ([10, 20], [8, 0], [2, 20], [-2, 1], {}), ([10, 20], [0, 0], [0, 0], [1, 1], {"begin_mask": 3, "end_mask": 3}),
    ([10, 20], [3, 0], [4, 0], [1, 1], {"shrink_axis_mask": 1, "end_mask": 2}),
    ([10, 20], [-1, 0], [0, 0], [1, 1], {"shrink_axis_mask": 1, "end_mask": 2}),
    ([10, 20], [10, 0], [11, 0], [1, 1], {"shrink_axis_mask": 1}),
    ([10, 20], [0, 0], [1, 1], [-1, 1], {"shrink_axis_mask": 1}),
    ([10, 20, 30], [0, 1], [0, 2], [1, 1], {"ellipsis_mask": 1}),
    ([10, 20, 30], [0, 1], [0, 2], [1, 1], {"ellipsis_mask": 1, "shrink_axis_mask": 2}),
    ([10, 20], [0, 0, 0], [0, 0, 0], [1, 1, 1], {"new_axis_mask": 2, "begin_mask": 5, "end_mask": 5}),
    ([10, 20], [0, 0], [0, 0], [1, 1], {"new_axis_mask": 1, "ellipsis_mask": 2}),
    ([10, 20, 30], [0, 0, 0], [0, 0, 0], [1, 1, 1], {"ellipsis_mask": 5}),
    ([10, 20], [0, 0, 0], [1, 1, 1], [1, 1, 1], {}), ([10, 20], [0, 0], [1, 1], [1, 0], {}),
    ([U, 20], [1, 2], [5, 10], [1, 1], {}), ([U, 20], [1, 2], [5, 10], [1, 1], {"shrink_axis_mask": 1}),
    ([10, U], [0, 0], [0, 0], [1, 1], {"begin_mask": 3, "end_mask": 3}),
    ([10, 20], [-100, -3], [100, -1], [1, 1], {}), ([10, 20], [7, 0], [2, 20], [1, 1], {}),
    ([10, 20], [0, 0], [0, 0], [-3, 1], {"begin_mask": 1, "end_mask": 1}),
    ([0, 5], [0, 0], [0, 0], [1, 1], {"begin_mask": 3, "end_mask": 3}),
    ([10], [0, 0], [0, 0], [1, 1], {"new_axis_mask": 3}),
    ([3, 4, 5], [1, 0, 2], [2, 0, 3], [1, 1, 1], {"shrink_axis_mask": 5, "new_axis_mask": 2}),
    ([3, 4, 5, 6], [0, 1, 0, 2], [0, 3, 0, 3], [1, 1, 1, 1], {"ellipsis_mask": 4, "new_axis_mask": 1}),
]  # fmt: skip
for shape, b, e, s, masks in SS:
    case("StridedSlice", P(shape), C(b), C(e), C(s), **masks)
for shape, b, e, s, masks in (
    ([10, 20], P([2], I32), P([2], I32), C([1, 1]), {}),
    ([10, 20], P([2], I32), P([2], I32), C([1, 1]), {"begin_mask": 3, "end_mask": 3}),
    ([10, 20], P([2], I32), C([5, 5]), C([1, 1]), {"shrink_axis_mask": 1}),
    ([10, 20], C([1, 1]), C([5, 5]), P([2], I32), {}),
    ([10, 20], P([U], I32), P([U], I32), C([1, 1]), {}),
    (None, C([1, 1]), C([5, 5]), C([1, 1]), {}),
    ([10, 20], C([1, 1]), C([5, 5, 5]), C([1, 1]), {}),
    ([10, 20], C([[1, 1]]), C([5, 5]), C([1, 1]), {}),
    ([10, 20], C([1, 1], I64), C([5, 5], I64), C([1, 2], I64), {}),
    ([10, U, 30], P([3], I32), C([5, 5, 5]), C([1, 1, -1]), {"begin_mask": 4, "end_mask": 4}),
    ([2, 2], C([-4, 0]), C([0, 0]), C([1, -1]), {"shrink_axis_mask": 3}),
    ([2, 2], C([5, 0]), C([0, 0]), C([1, 0]), {"shrink_axis_mask": 1}),
    ([2, 2], C([5, 5]), C([0, 0]), C([1, 1]), {"shrink_axis_mask": 3}),
    ([2, 2], C([0, 0]), C([0, 0]), C([0, -1]), {"shrink_axis_mask": 2}),
):  # fmt: skip
    case("StridedSlice", P(shape), b, e, s, **masks)

# Randomized StridedSlice specs (fixed seed): masks, negative strides, out-of-range bounds, unknown dims.
_rng = np.random.default_rng(7)
for _ in range(80):
    rank = int(_rng.integers(1, 4))
    shape = [int(d) for d in _rng.integers(0, 6, size=rank)]
    if _rng.random() < 0.3:
        shape[int(_rng.integers(0, rank))] = U
    n = int(_rng.integers(1, rank + 2))
    b, e = (_rng.integers(-7, 7, size=n).tolist() for _ in range(2))
    s = [int(v) if v else 1 for v in _rng.choice([-2, -1, 1, 1, 2, 3], size=n)]
    masks = {k: int(_rng.integers(0, 1 << n)) if _rng.random() < 0.4 else 0
             for k in ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask")}  # fmt: skip
    if _rng.random() < 0.3:
        masks["ellipsis_mask"] = 1 << int(_rng.integers(0, n))
    case("StridedSlice", P(shape), C(b), C(e), C(s), **masks)

# Randomized Reshape over partially known shapes (fixed seed).
for _ in range(40):
    shape = [int(d) if _rng.random() < 0.75 else U for d in _rng.integers(0, 5, size=int(_rng.integers(0, 4)))]
    new = [int(d) for d in _rng.integers(-1, 7, size=int(_rng.integers(0, 4)))]
    case("Reshape", P(shape), C(new, I32))

# --- GatherV2
for params, indices, axis, batch_dims in (([5, 6, 7], [2, 3], C(0), 0), ([5, 6, 7], [2, 3], C(1), 0),
                                          ([5, 6, 7], [2, 3], C(-1), 0), ([5, 6, 7], [2], C(3), 0),
                                          ([5, 6, 7], [2], C(-4), 0), ([5, 6, 7], [5, 3], C(1), 1),
                                          ([5, 6, 7], [5, 3], C(1), -1), ([5, 6, 7], [5, 3], C(0), 2),
                                          ([5, 6, 7], [2, 3], P([], I32), 0), ([5, 6, 7], [2, 3], P([], I32), 1),
                                          (None, [2, 3], C(1), 0), ([5, 6, 7], None, C(1), 0),
                                          (None, [2], P([], I32), 0), ([], [2], C(0), 0),
                                          ([5, U, 7], [U], C(1), 0), ([5, 6, 7], [2, 3], C([1]), 0),
                                          ([5, 6, 7], [5], C(1), 3), ([5, 6, 7], [2, 3], C(1, I64), 0)):  # fmt: skip
    case("GatherV2", P(params), P(indices, I32), axis, batch_dims=batch_dims)

# --- OneHot
for indices, depth, axis in (([2, 3], C(5), -1), ([2, 3], C(5), 0), ([2, 3], C(5), 1), ([2, 3], C(5), 2),
                             ([2, 3], P([], I32), -1), (None, C(5), -1), ([2, 3], C(-1), -1), ([2, 3], C(5), -2),
                             ([2, 3], C(5), 5), ([2, 3], C([5]), -1), ([], C(4), -1)):  # fmt: skip
    case("OneHot", P(indices, I64), depth, P([]), P([]), axis=axis)

# --- Random
for op in ("RandomStandardNormal", "RandomUniform"):
    for shape in (C([2, 3]), C([], I32), P([3], I32), P(None, I32), C([2, -1]), C([[2]]), C([4], I64)):
        case(op, shape, dtype=tf.float32)

# --- Split, SplitV
for dim, shape, num in ((C(0), [4, 6], 2), (C(1), [4, 6], 3), (C(-1), [4, 6], 2), (C(1), [4, 6], 4), (C(2), [4, 6], 2),
                        (C(-3), [4, 6], 2), (P([], I32), [4, 6], 2), (C(0), None, 2), (C(-1), None, 2),
                        (C(1), [4, U], 2), (C([0]), [4, 6], 2)):  # fmt: skip
    case("Split", dim, P(shape), num_split=num)
for shape, sizes, dim, num in (([4, 6], C([1, 5]), C(1), 2), ([4, 6], C([1, -1]), C(1), 2),
                               ([4, 6], C([1, 2]), C(1), 2),
                               ([4, 6], C([-1, -1]), C(1), 2), ([4, 6], C([1, 2, 3]), C(1), 2),
                               ([4, 6], C([1, 7, -1]), C(1), 3), ([4, U], C([1, -1]), C(1), 2),
                               ([4, 6], P([2], I32), C(1), 2), ([4, 6], P([2], I32), P([], I32), 2),
                               (None, C([1, 5]), C(1), 2), ([], C([1]), C(0), 1), ([4, 6], C([2, 2]), C(-2), 2),
                               ([4, 6], C([2, 2], I64), C(0), 2), ([4, 6], C([1, -2, 7]), C(1), 3)):  # fmt: skip
    case("SplitV", P(shape), sizes, dim, num_split=num)

# --- v1 control flow (issue 10)
for shape, pred in (([2, U], []), (None, []), ([3], [1]), ([], None)):
    case("Switch", P(shape), P(pred, "bool"))
for shapes in (([2, 3], [2, 3]), ([2, 3], [2, 4]), ([2, 3], [2]), ([2, U], None), (None, [2, 3]), ([U, 3], [4, 3])):
    case("Merge", [P(s) for s in shapes])
for shape, constant in (([2, 3], False), ([2, 3], True), (None, True)):
    case("Enter", P(shape), frame_name="loop", is_constant=constant)
for op in ("Exit", "NextIteration"):
    case(op, P([2, U]))
for shape in ([], None, [2]):
    case("LoopCond", P(shape, "bool"))
case("CheckNumerics", P([2, U]), message="m")
for shape, index, n in (([2, U], [], 3), (None, [], 1), ([3], [2], 2)):
    case("_SwitchN", P(shape), P(index, I32), num_outs=n)

# --- functional control flow (issue 10): output_shapes when set, else unknown (If/Case) or the inputs (While).
# (TF infers the outputs of PartitionedCall/StatefulPartitionedCall from the called function's body: see
# tests/framework/test_function_def_lib.py.)
B = "bool"
for out_shapes in ([], [[2, 3], [U]], [None, []]):
    for op in ("If", "StatelessIf"):
        case(op, P([], B), [P([2, U])], Tout=["float32", "float32"], then_branch=FUNC, else_branch=FUNC,
             output_shapes=out_shapes)
    for op in ("Case", "StatelessCase"):
        case(op, P([], I32), [P([2, U])], Tout=["float32", "float32"], branches=[FUNC], output_shapes=out_shapes)
for out_shapes in ([], [[U, 5], []]):
    for op in ("While", "StatelessWhile"):
        case(op, [P([2, U]), P([], B)], cond=FUNC, body=FUNC, output_shapes=out_shapes)

# --- nn: BiasAdd, activations, softmax
for value, bias, fmt in (([2, 3], [3], "NHWC"), ([2, 3, 4, 5], [5], "NHWC"), ([2, 3, 4, 5], [3], "NCHW"),
                         ([2, 3], [4], "NHWC"), ([2, 3], [3], "NCHW"), ([2, U, 4], [U], "NCHW"), (None, [3], "NHWC"),
                         ([3], [3], "NHWC"), ([2, 3], [3, 1], "NHWC"), ([2, 3, U], [7], "NHWC")):  # fmt: skip
    case("BiasAdd", P(value), P(bias), data_format=fmt)
for op in ("Relu", "Relu6", "Elu", "Softplus", "LeakyRelu", "Softmax", "LogSoftmax"):
    for shape in (None, [], [2, U]):
        case(op, P(shape))

# --- Conv2D
CONV = [
    ([1, 5, 5, 3], [3, 3, 3, 8], [1, 1, 1, 1], "VALID", {}), ([1, 5, 5, 3], [3, 3, 3, 8], [1, 1, 1, 1], "SAME", {}),
    ([2, 7, 9, 3], [3, 2, 3, 8], [1, 2, 3, 1], "VALID", {}), ([2, 7, 9, 3], [3, 2, 3, 8], [1, 2, 3, 1], "SAME", {}),
    ([2, 7, 9, 3], [3, 3, 3, 4], [1, 1, 1, 1], "VALID", {"dilations": [1, 2, 2, 1]}),
    ([2, 3, 7, 9], [3, 3, 3, 4], [1, 1, 2, 2], "SAME", {"data_format": "NCHW"}),
    ([2, 3, 7, 9], [3, 3, 3, 4], [1, 1, 1, 1], "VALID", {"data_format": "NCHW", "dilations": [1, 1, 3, 1]}),
    ([2, 7, 9, 3], [3, 3, 3, 4], [1, 1, 1, 1], "EXPLICIT", {"explicit_paddings": [0, 0, 1, 2, 3, 0, 0, 0]}),
    ([2, 3, 7, 9], [3, 3, 3, 4], [1, 1, 2, 1], "EXPLICIT",
     {"data_format": "NCHW", "explicit_paddings": [0, 0, 0, 0, 1, 1, 2, 2]}),
    ([2, 7, 9, 3], [3, 3, 3, 4], [1, 1, 1, 1], "EXPLICIT", {"explicit_paddings": [0, 0, 1, 1]}),
    ([2, 7, 9, 3], [3, 3, 3, 4], [1, 1, 1, 1], "EXPLICIT", {"explicit_paddings": [1, 0, 1, 1, 0, 0, 0, 0]}),
    ([2, 7, 9, 3], [3, 3, 3, 4], [1, 1, 1, 1], "EXPLICIT", {"explicit_paddings": [0, 0, -1, 1, 0, 0, 0, 0]}),
    ([2, 7, 9, 3], [3, 3, 3, 4], [1, 1, 1, 1], "VALID", {"explicit_paddings": [0, 0, 1, 1, 0, 0, 0, 0]}),
    ([2, 7, 9, 6], [3, 3, 3, 4], [1, 1, 1, 1], "VALID", {}), ([2, 7, 9, 6], [3, 3, 3, 5], [1, 1, 1, 1], "VALID", {}),
    ([2, 7, 9, 5], [3, 3, 3, 4], [1, 1, 1, 1], "VALID", {}), ([2, 7, 9, 3], [3, 3, 0, 4], [1, 1, 1, 1], "VALID", {}),
    ([2, 2, 2, 3], [3, 3, 3, 4], [1, 1, 1, 1], "VALID", {}), ([U, U, 9, 3], [3, U, 3, 4], [1, 2, 2, 1], "VALID", {}),
    ([U, U, 9, 3], [3, U, 3, 4], [1, 2, 2, 1], "SAME", {}), (None, [3, 3, 3, 4], [1, 1, 1, 1], "SAME", {}),
    ([2, 7, 9], [3, 3, 3, 4], [1, 1, 1, 1], "SAME", {}), ([2, 7, 9, 3], [3, 3, 3, 4], [1, 1, 1], "SAME", {}),
    ([2, 7, 9, 3], [3, 3, 3, 4], [1, 1, 1, 1], "SAME", {"dilations": [1, 1, 1]}),
    ([2, 7, 9, 3], [3, 3, 3, 4], [1, 0, 1, 1], "SAME", {}),
    ([2, 7, 9, U], [3, 3, 3, 4], [1, 1, 1, 1], "VALID", {"dilations": [1, 3, 1, 1]}),
]  # fmt: skip
for x, w, strides, padding, extra in CONV:
    case("Conv2D", P(x), P(w), strides=strides, padding=padding, **extra)

# --- DepthwiseConv2dNative
DW = [
    ([1, 5, 5, 3], [3, 3, 3, 2], [1, 1, 1, 1], "VALID", {}), ([1, 5, 5, 3], [3, 3, 3, 2], [1, 2, 2, 1], "SAME", {}),
    ([1, 3, 5, 5], [3, 3, 3, 2], [1, 1, 2, 2], "SAME", {"data_format": "NCHW"}),
    ([1, 9, 9, 3], [3, 3, 3, 1], [1, 1, 1, 1], "VALID", {"dilations": [1, 2, 2, 1]}),
    ([1, 9, 9, 3], [3, 3, 3, 1], [1, 1, 1, 1], "EXPLICIT", {"explicit_paddings": [0, 0, 1, 1, 2, 2, 0, 0]}),
    ([1, 9, 9, 3], [3, 3, 4, 1], [1, 1, 1, 1], "VALID", {}), ([1, 9, 9, U], [3, 3, U, 2], [1, 1, 1, 1], "VALID", {}),
    ([1, 9, 9, U], [3, 3, 3, U], [1, 1, 1, 1], "VALID", {}), (None, [3, 3, 3, 2], [1, 1, 1, 1], "SAME", {}),
    ([1, 9, 9, 3], [3, 3, 3, 2], [1, 1, 1], "SAME", {}), ([1, 2, 2, 3], [3, 3, 3, 2], [1, 1, 1, 1], "VALID", {}),
    ([1, 9, 9, 3], [3, 3, 3, 1], [1, 1, 1, 1], "SAME", {"dilations": [1, 2, 1]}),
    ([1, 9, 9, 3], [3, 3, 3, 1], [1, 1, 1, 1], "EXPLICIT", {"explicit_paddings": [0, 0, 1, 1]}),
]  # fmt: skip
for x, w, strides, padding, extra in DW:
    case("DepthwiseConv2dNative", P(x), P(w), strides=strides, padding=padding, **extra)

# --- MaxPool, AvgPool
POOL = [
    ([1, 5, 5, 3], [1, 2, 2, 1], [1, 2, 2, 1], "VALID", {}), ([1, 5, 5, 3], [1, 2, 2, 1], [1, 2, 2, 1], "SAME", {}),
    ([1, 5, 7, 3], [1, 3, 2, 1], [1, 1, 3, 1], "VALID", {}), ([1, 3, 5, 7], [1, 1, 2, 2], [1, 1, 2, 2], "SAME",
                                                             {"data_format": "NCHW"}),
    ([U, 5, U, 3], [1, 2, 2, 1], [1, 2, 2, 1], "VALID", {}), (None, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", {}),
    ([1, 1, 5, 3], [1, 2, 2, 1], [1, 1, 1, 1], "VALID", {}), ([5, 5, 3], [1, 2, 2, 1], [1, 2, 2, 1], "VALID", {}),
    ([1, 6, 6, 4], [1, 1, 1, 2], [1, 1, 1, 2], "VALID", {}),
]  # fmt: skip
for x, ksize, strides, padding, extra in POOL:
    case("MaxPool", P(x), ksize=ksize, strides=strides, padding=padding, **extra)
    if ksize[3] == 1 or x is None:
        case("AvgPool", P(x), ksize=ksize, strides=strides, padding=padding, **extra)
case("MaxPool", P([1, 5, 5, 3]), ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="EXPLICIT",
     explicit_paddings=[0, 0, 1, 1, 0, 2, 0, 0])  # fmt: skip
case("MaxPool", P([1, 5, 5, 3]), ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="EXPLICIT",
     explicit_paddings=[0, 0, 1, 1])  # fmt: skip
case("MaxPool", P([1, 5, 5, 3]), ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1, 1], padding="VALID")
case("AvgPool", P([1, 5, 5, 3]), ksize=[1, 2, 2, 1, 1], strides=[1, 1, 1, 1], padding="VALID")

# --- Where (added with the front end's one-argument tf.where)
for x, dtype in (([2, 3], "bool"), ([U, 4, 2], "float32"), (None, "int32"), ([5], "bool")):
    case("Where", P(x, dtype))

# --- RandomUniformInt (added with the front end's integer tf.random.uniform)
for shape, lo, hi in ((C([2, 3]), C(0), C(9)), (P([2], I32), C(0), C(9)), (C([4], I64), P([], I32), C(9)),
                      (C([3]), C([0, 1]), C(9)), (C([3]), C(0), P([2], I32)), (P(None, I32), C(1), C(9))):  # fmt: skip
    case("RandomUniformInt", shape, lo, hi)

# --- PadV2, MirrorPad (added with tf.pad's constant_values and REFLECT/SYMMETRIC modes)
for shape, pads in (([2, 3], C([[1, 1], [2, 0]])), ([2, U], C([[1, 1], [2, 0]])), ([2, 3], C([[1, 1]])),
                    ([2, 3], C([[1, -1], [0, 0]])), ([2, 3], P([2, 2], I32)), ([2, 3], P([U, 2], I32)),
                    (None, P([3, 2], I32)), (None, C([[0, 1], [2, 3]])), ([2, 3], C([1, 1]))):  # fmt: skip
    case("PadV2", P(shape), pads, P([]))
    case("MirrorPad", P(shape), pads, mode="REFLECT")
case("PadV2", P([2, 3]), C([[1, 1], [2, 0]]), P([2]))
case("MirrorPad", P([2, 3]), C([[1, 1], [2, 0]], I64), mode="SYMMETRIC")

# --- TensorList ops (issue 10); L(...) inputs carry handle data (element shape and dtype)
LV = P([], "variant")  # a list without handle data
for shape in (C([-1, 3]), C(-1), C([2, 3], I64), P([2], I32), P([], I32), P(None, I32), C([[1]])):
    case("EmptyTensorList", shape, C(-1), element_dtype=tf.float32)
    case("TensorListReserve", shape, C(4), element_dtype=tf.int32)
case("EmptyTensorList", C([2]), P([], I32), element_dtype=tf.variant)
for handle, item in ((L([U, 3]), P([2, 3])), (L(None), P([2])), (L([U, 3], "int32"), P([2, 3])), (LV, P([4])),
                     (L([2]), P([3]))):  # fmt: skip
    case("TensorListPushBack", handle, item)
for handles, item in ((P([U], "variant"), P([3, 2])), (P([2], "variant"), P([3, 2])), (LV, P([3, 2])),
                      (P([3], "variant"), P([]))):  # fmt: skip
    case("TensorListPushBackBatch", handles, item)
for handle in (L([2]), LV):
    case("TensorListLength", handle)
for handle, shape, dtype in ((L([U, 3]), C([-1, 3]), tf.float32), (LV, C(-1), tf.float32),
                             (L([2], "int32"), C(-1), tf.float32), (L(None), C([4]), tf.float32)):  # fmt: skip
    case("TensorListPopBack", handle, shape, element_dtype=dtype)
for handle, shape, extra in ((L([U, 3]), C([-1, 3]), {}), (L([U, 3]), C([2, -1]), {}), (L([U, 3]), C([4, 4]), {}),
                             (LV, C(-1), {}), (L([U, 3]), C(-1), {"num_elements": 5}), (L(None), P([2], I32), {}),
                             (L([2], "int32"), C(-1), {}), (LV, P([], I32), {})):  # fmt: skip
    case("TensorListStack", handle, shape, element_dtype=tf.float32, **extra)
for handle, shape in ((L([U, 3]), None), (L(None), [2, 3]), (LV, [U, 4]), (L([2, 3]), [2, 4]), (LV, None)):
    case("TensorListConcat", handle, element_dtype=tf.float32, element_shape=shape)
for handle, shape in ((L([U, 3]), C([-1, 3])), (L(None), C(-1)), (LV, C([2, 4], I64)), (L([2, 3]), C([2, 4])),
                      (L([U, 3], "int32"), C(-1))):  # fmt: skip
    case("TensorListConcatV2", handle, shape, C([], I64), element_dtype=tf.float32)
for tensor, shape, lengths in ((P([6, 3]), C([-1, 3]), C([2, 4], I64)), (P([]), C(-1), C([1], I64)),
                               (P([6, 3]), C(-1), P([2, 2], I64)), (P([6, 3]), C([-1, 4]), C([6], I64)),
                               (P(None), C([-1, 2], I64), P([U], I64))):  # fmt: skip
    case("TensorListSplit", tensor, shape, lengths)
for tensor, shape in ((P([4, 3]), C([-1, 3])), (P([4, 3]), C([2, 2])), (P(None), C(-1)), (P([4, 3]), C(-1)),
                      (P([4, U]), C([-1, 5], I64)), (P([]), C(-1)), (P([4, 3]), C([3])), (P([4, 3]), C([-1])),
                      (P([4, U]), C([5], I64)), (P([U, 2, 3]), P([2], I32))):  # fmt: skip
    case("TensorListFromTensor", tensor, shape)
for handle, shape_type in ((L([U, 3]), tf.int32), (L(None), tf.int32), (LV, tf.int64), (L([]), tf.int64)):
    case("TensorListElementShape", handle, shape_type=shape_type)
for handle, index, shape, dtype in ((L([U, 3]), C(0), C([-1, 3]), tf.float32), (L([U, 3]), P([], I32), C([2, -1]),
                                    tf.float32), (L([2], "int32"), C(0), C(-1), tf.float32),
                                    (LV, C(0), C(-1), tf.float32), (L([U, 3]), C(0), C([-1, 3], I64), tf.float32),
                                    (L([U, 3]), C(0), C([2, 2]), tf.float32)):  # fmt: skip
    case("TensorListGetItem", handle, index, shape, element_dtype=dtype)
for handle, size in ((L([U, 3]), C(2)), (L([U, 3]), P([2], I32)), (LV, P([], I32))):
    case("TensorListResize", handle, size)
for handle, item, extra in ((L([U, 3]), P([2, 3]), {}), (L([U, 3]), P([2, 4]), {}), (LV, P([2]), {}),
                            (L(None), P([2]), {"resize_if_index_out_of_bounds": True})):  # fmt: skip
    case("TensorListSetItem", handle, C(0), item, **extra)
for handle, indices, shape in ((L([U, 3]), P([5], I32), C([-1, 3])), (L([U, 3]), P([U, 2], I32), C(-1)),
                               (L([2], "int32"), P([2], I32), C(-1)), (LV, P(None, I32), C([4]))):  # fmt: skip
    case("TensorListGather", handle, indices, shape, element_dtype=tf.float32)
for tensor, indices, shape in ((P([4, 3]), P([4], I32), C([-1, 3])), (P([4, 3]), P([4], I32), C(-1, I64)),
                               (P(None), P(None, I32), P([2], I32))):  # fmt: skip
    case("TensorListScatter", tensor, indices, shape)
    case("TensorListScatterV2", tensor, indices, shape, C(5))
for handle, tensor, indices in ((L([U, 3]), P([4, 3]), P([4], I32)), (L([U, 3]), P([]), P([4], I32)),
                                (L([3], "int32"), P([4, 3]), P([4], I32)), (LV, P([4, 3]), P([4, 1], I32)),
                                (LV, P([4, 3]), P([4], I32))):  # fmt: skip
    case("TensorListScatterIntoExistingList", handle, tensor, indices)
for a, b in ((L([U, 3]), L([2, U])), (L([3], "int32"), L([3])), (LV, L([3])), (LV, LV),
             (P([2], "variant"), P([U], "variant")), (L([2]), L([3]))):  # fmt: skip
    case("TensorListConcatLists", a, b, element_dtype=tf.float32)

# --- logging ops (issue 10): Assert, PrintV2, StringFormat
for cond, data in ((P([], "bool"), [P([2]), P([], I32)]), (P([2], "bool"), [P([2])]), (P(None, "bool"), [P([])])):
    case("Assert", cond, data, summarize=3)
for shape in ([], [2], None):
    case("PrintV2", P(shape, "string"), output_stream="stderr", end="\n")
for template, inputs in (("{} and {}", [P([2]), P([], I32)]), ("{}", [P([2]), P([3])]), ("no placeholders", []),
                         ("%s", [P(None)])):  # fmt: skip
    placeholder = "%s" if template == "%s" else "{}"
    case("StringFormat", inputs, template=template, placeholder=placeholder, summarize=3)


def main() -> None:
    records = [r for r in (run_case(c) for c in CASES) if r is not None]
    # One case per line, so fixtures regenerated on different branches merge line by line.
    lines = ",\n".join(json.dumps(r, separators=(",", ":")) for r in records)
    OUT.write_text(f'{{"tensorflow":{json.dumps(tf.__version__)},"cases":[\n{lines}\n]}}\n')
    ops = sorted({r["op"] for r in records})
    errors_count = sum("error" in r for r in records)
    print(f"wrote {len(records)} cases ({errors_count} errors) for {len(ops)} ops to {OUT}")


if __name__ == "__main__":
    main()
