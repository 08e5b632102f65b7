"""Math ops: elementwise unary/binary arithmetic, comparisons, logic, Select, Cast, MatMul, reductions, Range.

OpDefs equal TensorFlow 2.21's registered ones (names, args, attrs, type sets,
defaults, flags); shape functions follow TF's C++ ones, including their errors.
"""

from __future__ import annotations

import numpy as np

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid, with_context

# --------------------------------------------------------------------------- binary elementwise

_ADD_TYPES = "{bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128, string}"
_ADDV2_TYPES = (
    "{bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, complex64, complex128}"
)
_SUB_TYPES = (
    "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, complex128, uint32, uint64}"
)
_DIV_TYPES = (
    "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, complex128}"
)
_MINMAX_TYPES = "{bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64}"
_FLOORMOD_TYPES = "{int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, float, double}"


def _binary(name: str, types: str, out: str = "T") -> object:
    return (
        register_op(name)
        .input("x: T")
        .input("y: T")
        .output(f"z: {out}")
        .attr(f"T: {types}")
        .set_shape_fn(common_shapes.broadcast_binary_op_shape)
    )


_binary("AddV2", _ADDV2_TYPES).set_is_commutative().set_is_aggregate()
_binary("Add", _ADD_TYPES)
_binary("Sub", _SUB_TYPES)
_binary("Mul", _DIV_TYPES).set_is_commutative()
_binary("RealDiv", _DIV_TYPES)
_binary("Div", _DIV_TYPES)
_binary("FloorDiv", _DIV_TYPES)
_binary("FloorMod", _FLOORMOD_TYPES)
_binary("Maximum", _MINMAX_TYPES)
_binary("Minimum", _MINMAX_TYPES)
_binary("Pow", "{bfloat16, float, half, double, int8, int16, int32, int64, complex64, complex128}")
_binary(
    "SquaredDifference", "{bfloat16, half, float, double, int32, int64, complex64, complex128}"
).set_is_commutative()
# tf.truncatediv / truncatemod (C's division and remainder), tf.math.multiply_no_nan, atan2 and nextafter
_binary("TruncateDiv", _DIV_TYPES)
_binary("TruncateMod", "{int32, int64, bfloat16, half, float, double}")
_binary("MulNoNan", "{bfloat16, half, float, double, complex64, complex128}")
(
    register_op("Atan2")
    .input("y: T")
    .input("x: T")
    .output("z: T")
    .attr("T: {bfloat16, half, float, double}")
    .set_shape_fn(common_shapes.broadcast_binary_op_shape)
)
(
    register_op("NextAfter")
    .input("x1: T")
    .input("x2: T")
    .output("output: T")
    .attr("T: {float64, float32} = DT_FLOAT")
    .set_shape_fn(common_shapes.broadcast_binary_op_shape)
)

for _name in ("Less", "LessEqual", "Greater", "GreaterEqual"):
    _binary(_name, "realnumbertype", out="bool")


def _equality_shape(ctx: InferenceContext) -> None:
    """Equal/NotEqual: broadcast; with incompatible_shape_error=false a mismatch gives a scalar (or unknown)."""
    incompatible_shape_error = bool(ctx.get_attr("incompatible_shape_error"))
    ctx.set_output(0, common_shapes.broadcast_shapes(ctx, ctx.input(0), ctx.input(1), incompatible_shape_error))


for _name in ("Equal", "NotEqual"):
    (
        register_op(_name)
        .input("x: T")
        .input("y: T")
        .output("z: bool")
        .attr("T: type")
        .attr("incompatible_shape_error: bool = true")
        .set_is_commutative()
        .set_shape_fn(_equality_shape)
    )

for _name in ("LogicalAnd", "LogicalOr"):
    (
        register_op(_name)
        .input("x: bool")
        .input("y: bool")
        .output("z: bool")
        .set_is_commutative()
        .set_shape_fn(common_shapes.broadcast_binary_op_shape)
    )

# --------------------------------------------------------------------------- unary elementwise

_FLOAT_COMPLEX = "{bfloat16, half, float, double, complex64, complex128}"
_SIGNED_COMPLEX = "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}"
_FLOATS = "{bfloat16, half, float, double}"


def _unary(name: str, types: str) -> None:
    register_op(name).input("x: T").output("y: T").attr(f"T: {types}").set_shape_fn(common_shapes.unchanged_shape)


_unary("Neg", _SIGNED_COMPLEX)
_unary("Abs", "{bfloat16, half, float, double, int8, int16, int32, int64}")
_unary(
    "Square",
    "{bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, complex128}",
)
for _name in ("Sqrt", "Rsqrt", "Exp", "Log", "Tanh", "Sigmoid"):
    _unary(_name, _FLOAT_COMPLEX)
_unary("Erf", _FLOATS)
_unary("Erfc", _FLOATS)
# Extras (not in the starter set) that TF-exported inference graphs commonly contain.
_unary("Floor", _FLOATS)
_unary("Ceil", _FLOATS)
_unary("Round", _SIGNED_COMPLEX)
_unary("Reciprocal", _SIGNED_COMPLEX)
_unary("Sign", _SIGNED_COMPLEX)
for _name in ("Sin", "Cos", "Expm1", "Log1p"):
    _unary(_name, _FLOAT_COMPLEX)
# the rest of tf.math's trigonometric and hyperbolic functions, and rint
for _name in ("Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh"):
    _unary(_name, _FLOAT_COMPLEX)
_unary("Rint", _FLOATS)

# Added with the losses (tf.math.reduce_logsumexp uses it).
register_op("IsFinite").input("x: T").output("y: bool").attr(f"T: {_FLOATS}").set_shape_fn(
    common_shapes.unchanged_shape
)

# tf.math's NaN/inf tests, special functions and safe divisions (tf.math.is_nan, lgamma, divide_no_nan, xlogy, ...).
for _name in ("IsNan", "IsInf"):
    _test = register_op(_name).input("x: T").output("y: bool").attr(f"T: {_FLOATS}")
    _test.set_shape_fn(common_shapes.unchanged_shape)
for _name in ("Lgamma", "Digamma", "Erfinv", "Ndtri"):
    _unary(_name, _FLOATS)
# The modified Bessel functions tf.math has (and tf.signal's Kaiser windows use).
for _name in ("BesselI0", "BesselI0e", "BesselI1", "BesselI1e"):
    _unary(_name, _FLOATS)
_binary("DivNoNan", "{half, float, bfloat16, double, complex64, complex128}")
for _name in ("Xdivy", "Xlogy", "Xlog1py"):
    _binary(_name, "{half, bfloat16, float, double, complex64, complex128}")

register_op("LogicalNot").input("x: bool").output("y: bool").set_shape_fn(common_shapes.unchanged_shape)

(
    register_op("Cast")
    .input("x: SrcT")
    .output("y: DstT")
    .attr("SrcT: type")
    .attr("DstT: type")
    .attr("Truncate: bool = false")
    .set_shape_fn(common_shapes.unchanged_shape)
)


def _add_n_shape(ctx: InferenceContext) -> None:
    """AddN: all inputs merge into one shape."""
    cur = ctx.input(ctx.num_inputs() - 1)
    for i in range(ctx.num_inputs() - 2, -1, -1):
        cur = with_context(
            lambda i=i, cur=cur: ctx.merge(ctx.input(i), cur), f"From merging shape {i} with other shapes."
        )
    ctx.set_output(0, cur)


# Extra (not in the starter set).
(
    register_op("AddN")
    .input("inputs: N * T")
    .output("sum: T")
    .attr("N: int >= 1")
    .attr("T: {numbertype, variant}")
    .set_is_commutative()
    .set_is_aggregate()
    .set_shape_fn(_add_n_shape)
)

# --------------------------------------------------------------------------- Select


def _select_shape(ctx: InferenceContext) -> None:
    """Select: `t` and `e` merge; `cond` is a scalar, the same shape, or a vector over their first dim."""
    data = ctx.merge(ctx.input(1), ctx.input(2))
    cond = ctx.input(0)
    if cond.rank is None or data.rank is None:
        ctx.set_output(0, data)
        return
    if cond.rank == 0:
        ctx.set_output(0, data)
        return
    if cond.rank != 1 or data.rank == 0:
        ctx.set_output(0, ctx.merge(data, cond))
        return
    ctx.merge(cond, ctx.vector(ctx.dim(data, 0)))
    ctx.set_output(0, data)


def _select_v2_shape(ctx: InferenceContext) -> None:
    """SelectV2: the broadcast of all three inputs."""
    other = common_shapes.broadcast_shapes(ctx, ctx.input(1), ctx.input(2))
    ctx.set_output(0, common_shapes.broadcast_shapes(ctx, ctx.input(0), other))


(
    register_op("Select")
    .input("condition: bool")
    .input("t: T")
    .input("e: T")
    .output("output: T")
    .attr("T: type")
    .set_shape_fn(_select_shape)
)
(
    register_op("SelectV2")
    .input("condition: bool")
    .input("t: T")
    .input("e: T")
    .output("output: T")
    .attr("T: type")
    .set_shape_fn(_select_v2_shape)
)

# --------------------------------------------------------------------------- matrix products

(
    register_op("MatMul")
    .input("a: T")
    .input("b: T")
    .output("product: T")
    .attr("transpose_a: bool = false")
    .attr("transpose_b: bool = false")
    .attr("T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, complex64, complex128}")
    .attr("grad_a: bool = false")
    .attr("grad_b: bool = false")
    .set_shape_fn(common_shapes.matmul_shape)
)


def _batch_matmul_v2_shape(ctx: InferenceContext) -> None:
    """BatchMatMulV2: matrices in the last two dims (adj_x/adj_y), batch dims broadcast."""
    a = ctx.with_rank_at_least(ctx.input(0), 2)
    b = ctx.with_rank_at_least(ctx.input(1), 2)
    adj_x = bool(ctx.get_attr("adj_x"))
    adj_y = bool(ctx.get_attr("adj_y"))
    rows = ctx.dim(a, -1 if adj_x else -2)
    cols = ctx.dim(b, -2 if adj_y else -1)
    ctx.merge_dim(ctx.dim(a, -2 if adj_x else -1), ctx.dim(b, -1 if adj_y else -2))
    batch = common_shapes.broadcast_shapes(ctx, ctx.subshape(a, 0, -2), ctx.subshape(b, 0, -2))
    ctx.set_output(0, ctx.concatenate(batch, ctx.matrix(rows, cols)))


(
    register_op("BatchMatMulV2")
    .input("x: T")
    .input("y: T")
    .output("output: T")
    .attr(
        "T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, complex128}"
    )
    .attr("adj_x: bool = false")
    .attr("adj_y: bool = false")
    .attr("grad_x: bool = false")
    .attr("grad_y: bool = false")
    .set_shape_fn(_batch_matmul_v2_shape)
)

# --------------------------------------------------------------------------- reductions


def _reduction(name: str, types: str | None) -> None:
    builder = register_op(name).input("input: bool" if types is None else "input: T")
    builder.input("reduction_indices: Tidx").output("output: bool" if types is None else "output: T")
    builder.attr("keep_dims: bool = false")
    if types is not None:
        builder.attr(f"T: {types}")
    builder.attr("Tidx: {int32, int64} = DT_INT32").set_shape_fn(common_shapes.reduction_shape)


_reduction("Sum", "numbertype")
_reduction("EuclideanNorm", "numbertype")  # tf.math.reduce_euclidean_norm
_reduction("Mean", "numbertype")
_reduction("Prod", "numbertype")
_reduction("Max", "{realnumbertype, quantizedtype}")
_reduction("Min", "{realnumbertype, quantizedtype}")
_reduction("All", None)
_reduction("Any", None)


def _arg_op_shape(ctx: InferenceContext) -> None:
    """ArgMax/ArgMin: the input without the (constant) reduced dimension; rank - 1 unknown dims otherwise."""
    ctx.with_rank(ctx.input(1), 0)
    shape = ctx.input(0)
    if shape.dims is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    rank = len(shape.dims)
    if rank <= 1:
        ctx.set_output(0, ctx.scalar())
        return
    dim_t = ctx.input_tensor(1)
    if dim_t is None:
        ctx.set_output(0, ctx.unknown_shape_of_rank(rank - 1))
        return
    value = int(dim_t.reshape(-1)[0])
    axis = value + rank if value < 0 else value
    if not 0 <= axis < rank:
        raise invalid(
            f"Dimension ({value}) must be in the range [{-rank}, {rank}), where {rank} is the number of "
            "dimensions in the input."
        )
    ctx.set_output(0, ctx.make_shape([d for i, d in enumerate(shape.dims) if i != axis]))


_ARG_TYPES = "{realnumbertype, quantizedtype, bool}"
(
    register_op("ArgMax")
    .input("input: T")
    .input("dimension: Tidx")
    .output("output: output_type")
    .attr(f"T: {_ARG_TYPES}")
    .attr("Tidx: {int16, int32, int64} = DT_INT32")
    .attr("output_type: {int16, uint16, int32, int64} = DT_INT64")
    .set_shape_fn(_arg_op_shape)
)
(
    register_op("ArgMin")
    .input("input: T")
    .input("dimension: Tidx")
    .output("output: output_type")
    .attr(f"T: {_ARG_TYPES}")
    .attr("Tidx: {int32, int64} = DT_INT32")
    .attr("output_type: {int32, int64} = DT_INT64")
    .set_shape_fn(_arg_op_shape)
)

# --------------------------------------------------------------------------- Range


def _format_number(value: np.generic) -> str:
    """A number as TF's StrCat prints it: ints plainly, floats with 6 (float) or 15 (double) significant digits."""
    if np.issubdtype(value.dtype, np.integer):
        return str(int(value))
    short, long, ftype = (15, 17, np.float64) if value.dtype == np.float64 else (6, 9, np.float32)
    text = f"{float(value):.{short}g}"
    if np.isfinite(float(value)) and ftype(float(text)) != ftype(value):
        text = f"{float(value):.{long}g}"
    return text


def _range_shape(ctx: InferenceContext) -> None:
    """Range: a vector whose length is computed from constant start/limit/delta, else unknown."""
    for i, arg in enumerate(("start", "limit", "delta")):
        with_context(lambda i=i: ctx.with_rank(ctx.input(i), 0), f" for '{arg}'")
    start_t, limit_t, delta_t = (ctx.input_tensor(i) for i in range(3))
    if start_t is None or limit_t is None or delta_t is None:
        ctx.set_output(0, ctx.vector(None))
        return
    dtype = ctx.get_attr("Tidx").as_numpy_dtype
    start, limit, delta = (np.asarray(t).reshape(-1)[0].astype(dtype) for t in (start_t, limit_t, delta_t))
    if start > limit and delta > 0:
        raise invalid(f"Requires start <= limit when delta > 0: {_format_number(start)}/{_format_number(limit)}")
    if start < limit and delta < 0:
        raise invalid(f"Requires start >= limit when delta < 0: {_format_number(start)}/{_format_number(limit)}")
    if delta == 0:
        raise invalid("Requires delta != 0")
    if np.issubdtype(np.dtype(dtype), np.integer):
        span, step = abs(int(limit) - int(start)), abs(int(delta))
        size = (span + step - 1) // step
    else:
        with np.errstate(all="ignore"):
            size_f = np.ceil(np.abs((limit - start) / delta))
        if not np.isfinite(size_f) or float(size_f) > 2**63 - 1:
            raise invalid(f"Requires ((limit - start) / delta) <= {2**63 - 1}")
        size = int(size_f)
    ctx.set_output(0, ctx.vector(size))


(
    register_op("Range")
    .input("start: Tidx")
    .input("limit: Tidx")
    .input("delta: Tidx")
    .output("output: Tidx")
    .attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32, uint64} = DT_INT32")
    .set_shape_fn(_range_shape)
)


# --------------------------------------------------------------------------- LinSpace, histograms, bincounts


def _scalar_input_value(ctx: InferenceContext, i: int) -> int | None:
    """The value of constant scalar input ``i``, or None when it is not known."""
    t = ctx.input_tensor(i)
    return None if t is None else int(np.asarray(t).reshape(-1)[0])


def _lin_space_shape(ctx: InferenceContext) -> None:
    """LinSpace: scalar start/stop/num; a vector of ``num`` elements (unknown unless num is constant)."""
    for i, arg in enumerate(("start", "stop", "num")):
        with_context(lambda i=i: ctx.with_rank(ctx.input(i), 0), f" for '{arg}'")
    num = _scalar_input_value(ctx, 2)
    if num is not None and num <= 0:
        raise invalid(f"Requires num > 0: {num}")
    ctx.set_output(0, ctx.vector(num))


(
    register_op("LinSpace")
    .input("start: T")
    .input("stop: T")
    .input("num: Tidx")
    .output("output: T")
    .attr("T: {bfloat16, half, float, double}")
    .attr("Tidx: {int32, int64} = DT_INT32")
    .set_shape_fn(_lin_space_shape)
)


def _histogram_fixed_width_shape(ctx: InferenceContext) -> None:
    """HistogramFixedWidth: value_range a 2-vector, nbins a scalar; a vector of nbins counts."""
    value_range = ctx.with_rank(ctx.input(1), 1)
    ctx.with_value(ctx.dim(value_range, 0), 2)
    ctx.with_rank(ctx.input(2), 0)
    nbins = _scalar_input_value(ctx, 2)
    if nbins is not None and nbins <= 0:
        raise invalid(f"Requires nbins > 0: {nbins}")
    ctx.set_output(0, ctx.vector(nbins))


(
    register_op("HistogramFixedWidth")
    .input("values: T")
    .input("value_range: T")
    .input("nbins: int32")
    .output("out: dtype")
    .attr("T: {int32, int64, float32, float64}")
    .attr("dtype: {int32, int64} = DT_INT32")
    .set_shape_fn(_histogram_fixed_width_shape)
)


# Bucketize: each value's bucket index over the sorted ``boundaries`` (TF's shape function: UnchangedShape).
(
    register_op("Bucketize")
    .input("input: T")
    .output("output: int32")
    .attr("T: {int32, int64, float, double}")
    .attr("boundaries: list(float)")
    .set_shape_fn(common_shapes.unchanged_shape)
)


def _bincount_shape(ctx: InferenceContext) -> None:
    """Bincount: a scalar size; a vector of ``size`` bins (unknown unless size is constant)."""
    ctx.with_rank(ctx.input(1), 0)
    size = _scalar_input_value(ctx, 1)
    if size is not None and size < 0:
        raise invalid(f"size ({size}) must be non-negative")
    ctx.set_output(0, ctx.vector(size))


def _dense_bincount_shape(ctx: InferenceContext) -> None:
    """DenseBincount: input of rank at most 2, a scalar size; ``[size]`` or ``[batch, size]``."""
    ctx.with_rank_at_most(ctx.input(0), 2)
    ctx.with_rank(ctx.input(1), 0)
    size = _scalar_input_value(ctx, 1)
    if size is not None and size < 0:
        raise invalid(f"size ({size}) must be non-negative")
    data = ctx.input(0)
    if data.rank is None:
        ctx.set_output(0, ctx.unknown_shape())
    elif data.rank <= 1:
        ctx.set_output(0, ctx.vector(size))
    else:
        ctx.set_output(0, ctx.matrix(ctx.dim(data, 0), size))


(
    register_op("Bincount")
    .input("arr: int32")
    .input("size: int32")
    .input("weights: T")
    .output("bins: T")
    .attr("T: {int32, int64, float32, float64}")
    .set_shape_fn(_bincount_shape)
)
(
    register_op("DenseBincount")
    .input("input: Tidx")
    .input("size: Tidx")
    .input("weights: T")
    .output("output: T")
    .attr("Tidx: {int32, int64}")
    .attr("T: {int32, int64, float32, float64}")
    .attr("binary_output: bool = false")
    .set_shape_fn(_dense_bincount_shape)
)


def _cross_shape(ctx: InferenceContext) -> None:
    """Cross: both inputs of one shape, rank >= 1, with an innermost dim of 3."""
    a = ctx.with_rank_at_least(ctx.input(0), 1)
    b = ctx.with_rank_at_least(ctx.input(1), 1)
    a = ctx.merge(a, b)
    if a.rank is not None:
        ctx.with_value(ctx.dim(a, a.rank - 1), 3)
    ctx.set_output(0, a)


(
    register_op("Cross")
    .input("a: T")
    .input("b: T")
    .output("product: T")
    .attr("T: realnumbertype")
    .set_shape_fn(_cross_shape)
)
(
    register_op("CumulativeLogsumexp")
    .input("x: T")
    .input("axis: Tidx")
    .output("out: T")
    .attr("exclusive: bool = false")
    .attr("reverse: bool = false")
    .attr("T: {bfloat16, half, float, double}")
    .attr("Tidx: {int32, int64} = DT_INT32")
    .set_shape_fn(common_shapes.unchanged_shape)
)
