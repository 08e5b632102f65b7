"""Array ops: constants and placeholders, identities, shape ops, reshaping, joining/splitting, slicing, gathering.

OpDefs equal TensorFlow 2.21's registered ones; shape functions follow TF's C++
ones, including partially known shapes, unknown ranks and constant inputs
(Reshape's -1, constant axes, paddings, multiples, slice bounds).
"""

from __future__ import annotations

import numpy as np

from modtensor.framework import common_shapes
from modtensor.framework.op_def_builder import OpDefBuilder
from modtensor.framework.op_registry import global_registry, register_op
from modtensor.framework.protos import full_type_pb2, op_def_pb2
from modtensor.framework.shape_inference import DimensionHandle, InferenceContext, ShapeHandle
from modtensor.ops._shape_errors import invalid, with_context
from modtensor.ops.strided_slice import strided_slice_shape

# --------------------------------------------------------------------------- sources


def _const_shape(ctx: InferenceContext) -> None:
    """Const: the shape of its `value` tensor."""
    proto = ctx.get_attr("value").tensor_shape
    if proto.unknown_rank or any(d.size < 0 for d in proto.dim):
        raise invalid(f"Const value has an invalid shape: {ctx.debug_string(ctx.make_shape_from_shape_proto(proto))}")
    ctx.set_output(0, ctx.make_shape_from_shape_proto(proto))


register_op("Const").output("output: dtype").attr("value: tensor").attr("dtype: type").set_shape_fn(_const_shape)


def _placeholder_shape(ctx: InferenceContext) -> None:
    """Placeholder: its `shape` attr (unknown rank by default)."""
    ctx.set_output(0, ctx.make_shape_from_shape_proto(ctx.get_attr("shape")))


(
    register_op("Placeholder")
    .output("output: dtype")
    .attr("dtype: type")
    .attr("shape: shape = { unknown_rank: true }")
    .set_shape_fn(_placeholder_shape)
)


def _placeholder_with_default_shape(ctx: InferenceContext) -> None:
    """PlaceholderWithDefault: the `shape` attr, which the default input's shape must be compatible with."""
    out = ctx.make_shape_from_shape_proto(ctx.get_attr("shape"))
    ctx.merge(ctx.input(0), out)
    ctx.set_output(0, out)


(
    register_op("PlaceholderWithDefault")
    .input("input: dtype")
    .output("output: dtype")
    .attr("dtype: type")
    .attr("shape: shape")
    .set_shape_fn(_placeholder_with_default_shape)
)

# --------------------------------------------------------------------------- identities


def _identity_n_shape(ctx: InferenceContext) -> None:
    """IdentityN: output i has the shape of input i."""
    for i in range(ctx.num_inputs()):
        ctx.set_output(i, ctx.input(i))


for _name in ("Identity", "StopGradient", "Snapshot"):  # Snapshot: extra, not in the starter set
    register_op(_name).input("input: T").output("output: T").attr("T: type").set_shape_fn(common_shapes.unchanged_shape)
(
    register_op("IdentityN")
    .input("input: T")
    .output("output: T")
    .attr("T: list(type) >= 1")
    .set_shape_fn(_identity_n_shape)
)
register_op("ZerosLike").input("x: T").output("y: T").attr("T: type").set_shape_fn(common_shapes.unchanged_shape)
(
    register_op("OnesLike")
    .input("x: T")
    .output("y: T")
    .attr(
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64, "
        "complex64, complex128, bool}"
    )
    .set_shape_fn(common_shapes.unchanged_shape)
)

# --------------------------------------------------------------------------- shape queries


def _shape_n_shape(ctx: InferenceContext) -> None:
    """Shape/ShapeN: a vector as long as each input's rank (unknown length for an unknown rank)."""
    for i in range(ctx.num_outputs()):
        ctx.set_output(i, ctx.vector(ctx.input(i).rank))


def _shape_op_def() -> op_def_pb2.OpDef:
    """Shape's OpDef: TF also gives its output the full type TFT_SHAPE_TENSOR[out_type].

    OpDefBuilder has no type-constructor call (TF's SetTypeConstructor), so the
    full type is set on the finalized OpDef and the op registered whole.
    """
    data = (
        OpDefBuilder("Shape")
        .input("input: T")
        .output("output: out_type")
        .attr("T: type")
        .attr("out_type: {int32, int64} = DT_INT32")
        .finalize()
    )
    op_def = data.op_def
    full_type = op_def.output_arg[0].experimental_full_type
    full_type.type_id = full_type_pb2.TFT_SHAPE_TENSOR
    full_type.args.add(type_id=full_type_pb2.TFT_VAR, s="out_type")
    return op_def


global_registry().register(_shape_op_def(), _shape_n_shape, source=f"{__file__}:Shape")
(
    register_op("ShapeN")
    .input("input: N * T")
    .output("output: N * out_type")
    .attr("N: int >= 1")
    .attr("T: type")
    .attr("out_type: {int32, int64} = DT_INT32")
    .set_shape_fn(_shape_n_shape)
)
(
    register_op("Size")
    .input("input: T")
    .output("output: out_type")
    .attr("T: type")
    .attr("out_type: {int32, int64} = DT_INT32")
    .set_shape_fn(common_shapes.scalar_shape)
)
register_op("Rank").input("input: T").output("output: int32").attr("T: type").set_shape_fn(common_shapes.scalar_shape)

# --------------------------------------------------------------------------- Reshape


def _count_known(ctx: InferenceContext, s: ShapeHandle) -> tuple[DimensionHandle, int, bool]:
    """(product of the known dims, index of the one unknown dim or -1, whether there are several unknown)."""
    total = ctx.num_elements(s)
    if total.value is not None:
        return total, -1, False
    total = ctx.make_dim(1)
    unknown_index = -1
    for i, d in enumerate(s.dims):
        if d.value is None:
            if unknown_index >= 0:
                return total, unknown_index, True
            unknown_index = i
        else:
            total = ctx.multiply(total, d)
    return total, unknown_index, False


def _reshape_shape(ctx: InferenceContext) -> None:
    """Reshape: the `shape` input's value, its one -1 inferred from the element count where possible."""
    shape_in = ctx.input(0)
    out = ctx.make_shape_from_shape_tensor(1)
    if out.dims is None or shape_in.dims is None:
        ctx.set_output(0, out)
        return
    out_elems, out_unknown, too_many_out = _count_known(ctx, out)
    in_elems, in_unknown, too_many_in = _count_known(ctx, shape_in)
    if too_many_out or too_many_in:
        ctx.set_output(0, out)
        return
    if in_unknown < 0 and out_unknown < 0:
        if in_elems.value != out_elems.value:
            raise invalid(
                f"Cannot reshape a tensor with {in_elems.value} elements to shape {ctx.debug_string(out)} "
                f"({out_elems.value} elements)"
            )
    elif in_unknown < 0 and out_unknown >= 0 and out_elems.value > 0:
        inferred = ctx.divide(in_elems, out_elems.value, evenly_divisible=True)
        out = ctx.replace_dim(out, out_unknown, inferred)
    elif in_unknown >= 0 and out_unknown < 0 and in_elems.value != 0:
        inferred = ctx.divide(out_elems, in_elems.value, evenly_divisible=True)
        ctx.merge_dim(ctx.dim(shape_in, in_unknown), inferred)
    elif in_unknown >= 0 and out_unknown >= 0 and in_elems.value == out_elems.value:
        out = ctx.replace_dim(out, out_unknown, ctx.dim(shape_in, in_unknown))
    ctx.set_output(0, out)


(
    register_op("Reshape")
    .input("tensor: T")
    .input("shape: Tshape")
    .output("output: T")
    .attr("T: type")
    .attr("Tshape: {int32, int64} = DT_INT32")
    .set_shape_fn(_reshape_shape)
)

# --------------------------------------------------------------------------- Transpose


def _transpose_shape(ctx: InferenceContext) -> None:
    """Transpose: input dims permuted by the constant `perm`; the rank alone if `perm` is unknown."""
    shape_in = ctx.input(0)
    perm_shape = ctx.input(1)
    perm = ctx.input_tensor(1)
    perm_elems = ctx.num_elements(perm_shape)
    if shape_in.dims is None and perm_elems.value is None and perm is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    if shape_in.dims is not None:
        rank = len(shape_in.dims)
    elif perm_elems.value is not None:
        rank = perm_elems.value
    else:
        rank = perm.size
    if shape_in.dims is None and rank < 2:
        ctx.set_output(0, shape_in)
        return
    shape_in = ctx.with_rank(shape_in, rank)
    ctx.with_rank(perm_shape, 1)
    ctx.with_value(perm_elems, rank)
    if perm is None:
        ctx.set_output(0, ctx.unknown_shape_of_rank(rank))
        return
    dims = []
    for in_idx in perm.reshape(-1)[:rank].tolist():
        if in_idx >= rank or in_idx < -rank:
            raise invalid(f"perm dim {in_idx} is out of range of input rank {rank}")
        dims.append(ctx.dim(shape_in, in_idx))
    ctx.set_output(0, ctx.make_shape(dims))


(
    register_op("Transpose")
    .input("x: T")
    .input("perm: Tperm")
    .output("y: T")
    .attr("T: type")
    .attr("Tperm: {int32, int64} = DT_INT32")
    .set_shape_fn(_transpose_shape)
)

# --------------------------------------------------------------------------- ConcatV2, Pack, Unpack


def _concat_v2_shape(ctx: InferenceContext) -> None:
    """ConcatV2: non-axis dims merge, the axis dim sums; rank only if `axis` is not constant."""
    n = ctx.num_inputs() - 1
    ctx.with_rank(ctx.input(n), 0)
    axis_t = ctx.input_tensor(n)
    # TF 2.21 checks the inputs' ranks whether or not the axis is known.
    rank = next((s.rank for s in (ctx.input(i) for i in range(n)) if s.rank is not None), None)
    if rank == 0:
        raise invalid("Can't concatenate scalars (use tf.stack instead)")
    if rank is not None:
        for i in range(n):
            ctx.with_rank(ctx.input(i), rank)
    if axis_t is None:
        ctx.set_output(0, ctx.unknown_shape_of_rank(rank))
        return
    axis = int(axis_t.reshape(-1)[0])
    min_rank = -axis if axis < 0 else axis + 1

    def parts(s: ShapeHandle) -> tuple[ShapeHandle, DimensionHandle, ShapeHandle]:
        s = ctx.with_rank_at_least(s, min_rank)
        before = ctx.subshape(s, 0, axis)
        after = ctx.scalar() if axis == -1 else ctx.subshape(s, axis + 1)
        return before, ctx.dim(s, axis), after

    out_before, out_middle, out_after = parts(ctx.input(n - 1))
    for i in range(n - 2, -1, -1):
        before, middle, after = parts(ctx.input(i))
        out_before = ctx.merge(before, out_before)
        out_middle = ctx.add(out_middle, middle)
        out_after = ctx.merge(after, out_after)
    ctx.set_output(0, ctx.concatenate(ctx.concatenate(out_before, ctx.vector(out_middle)), out_after))


(
    register_op("ConcatV2")
    .input("values: N * T")
    .input("axis: Tidx")
    .output("output: T")
    .attr("N: int >= 2")
    .attr("T: type")
    .attr("Tidx: {int32, int64} = DT_INT32")
    .set_shape_fn(_concat_v2_shape)
)


def _pack_unpack_axis(ctx: InferenceContext, rank_after_op: int) -> int:
    axis = int(ctx.get_attr("axis"))
    if axis < -rank_after_op or axis >= rank_after_op:
        raise invalid(f"Invalid axis: {axis}; must be in [{-rank_after_op},{rank_after_op})")
    return axis + rank_after_op if axis < 0 else axis


def _pack_shape(ctx: InferenceContext) -> None:
    """Pack: the inputs' merged shape with a new dim of size N at `axis`."""
    cur = ctx.input(ctx.num_inputs() - 1)
    for i in range(ctx.num_inputs() - 2, -1, -1):
        cur = with_context(
            lambda i=i, cur=cur: ctx.merge(ctx.input(i), cur), f"From merging shape {i} with other shapes."
        )
    if cur.dims is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    axis = _pack_unpack_axis(ctx, len(cur.dims) + 1)
    dims = list(cur.dims)
    dims.insert(axis, ctx.make_dim(ctx.num_inputs()))
    ctx.set_output(0, ctx.make_shape(dims))


def _unpack_shape(ctx: InferenceContext) -> None:
    """Unpack: every output is the input without dim `axis`, whose size must equal `num`."""
    s = ctx.input(0)
    if s.dims is None:
        out = ctx.unknown_shape()
    else:
        axis = _pack_unpack_axis(ctx, len(s.dims))
        ctx.with_value(ctx.dim(s, axis), ctx.num_outputs())
        out = ctx.make_shape([d for i, d in enumerate(s.dims) if i != axis])
    for i in range(ctx.num_outputs()):
        ctx.set_output(i, out)


(
    register_op("Pack")
    .input("values: N * T")
    .output("output: T")
    .attr("N: int >= 1")
    .attr("T: type")
    .attr("axis: int = 0")
    .set_shape_fn(_pack_shape)
)
(
    register_op("Unpack")
    .input("value: T")
    .output("output: num * T")
    .attr("num: int >= 0")
    .attr("T: type")
    .attr("axis: int = 0")
    .set_shape_fn(_unpack_shape)
)

# --------------------------------------------------------------------------- Split, SplitV (extras)


def _split_axis(ctx: InferenceContext, i: int, input_rank: int | None) -> DimensionHandle:
    """TF's MakeDimForScalarInputWithNegativeIndexing: constant scalar input ``i`` as an axis of the input."""
    t = ctx.input_tensor(i)
    if t is None:
        return ctx.unknown_dim()
    if t.ndim != 0:
        raise invalid(f"Input must be scalar but has rank {t.ndim}")
    if t.dtype.name not in ("int32", "int64"):
        raise invalid("Scalar input for dim size must be int32 or int64")
    val = int(t)
    rank = -1 if input_rank is None else input_rank
    if val < 0:
        if rank < 0:
            return ctx.unknown_dim()
        if val + rank < 0:
            raise invalid(f"Dimension size, given by scalar input {val} must be in range [-{rank}, {rank})")
        val += rank
    elif rank > 0 and val >= rank:
        raise invalid(f"Dimension size, given by scalar input {val} must be in range [-{rank}, {rank})")
    return ctx.make_dim(val)


def _split_shape(ctx: InferenceContext) -> None:
    """Split: the input with the split dim divided evenly by num_split."""
    shape_in = ctx.input(1)
    split_dim = _split_axis(ctx, 0, shape_in.rank)
    num_split = ctx.num_outputs()
    if split_dim.value is None:
        out = ctx.unknown_shape_of_rank(shape_in.rank)
    else:
        shape_in = ctx.with_rank_at_least(shape_in, split_dim.value + 1)
        size = with_context(
            lambda: ctx.divide(ctx.dim(shape_in, split_dim.value), num_split, evenly_divisible=True),
            "Number of ways to split should evenly divide the split dimension",
        )
        out = ctx.replace_dim(shape_in, split_dim.value, size)
    for i in range(num_split):
        ctx.set_output(i, out)


def _split_v_shape(ctx: InferenceContext) -> None:
    """SplitV: the input with the split dim replaced by each constant size (one -1 takes the rest)."""
    shape_in = ctx.input(0)
    split_dim = _split_axis(ctx, 2, shape_in.rank)
    num_outputs = ctx.num_outputs()
    size_splits = ctx.input_tensor(1)
    if shape_in.dims is None:
        for i in range(num_outputs):
            ctx.set_output(i, ctx.unknown_shape())
        return
    if shape_in.rank == 0:
        raise invalid("Can't split scalars")
    if size_splits is None:
        for i in range(num_outputs):
            if split_dim.value is None:
                ctx.set_output(i, ctx.unknown_shape_of_rank(shape_in.rank))
            else:
                ctx.set_output(i, ctx.replace_dim(shape_in, split_dim.value, ctx.unknown_dim()))
        return
    axis = split_dim.value
    shape_in = ctx.with_rank_at_least(shape_in, axis + 1)
    data = [int(v) for v in size_splits.reshape(-1).tolist()]
    if num_outputs != len(data):
        raise invalid("Length of size_splits should be equal to num_outputs")
    total, has_neg_one = 0, False
    for size in data:
        if size == -1:
            if has_neg_one:
                raise invalid("size_splits can only have one -1")
            has_neg_one = True
        else:
            total += size
    dim_size = ctx.dim(shape_in, axis).value
    for i, size in enumerate(data):
        if size == -1 and dim_size is not None:
            size = dim_size - total
        if size < -1 or (size == -1 and dim_size is not None):
            raise invalid(f"Split size at index {i} must be >= 0. Got: {size}")
        ctx.set_output(i, ctx.replace_dim(shape_in, axis, ctx.make_dim(size)))
    if dim_size is not None and (total > dim_size if has_neg_one else total != dim_size):
        raise invalid(f"can't split axis of size {dim_size} into pieces of size [{','.join(map(str, data))}]")


(
    register_op("Split")
    .input("split_dim: int32")
    .input("value: T")
    .output("output: num_split * T")
    .attr("num_split: int >= 1")
    .attr("T: type")
    .set_shape_fn(_split_shape)
)
(
    register_op("SplitV")
    .input("value: T")
    .input("size_splits: Tlen")
    .input("split_dim: int32")
    .output("output: num_split * T")
    .attr("num_split: int >= 1")
    .attr("T: type")
    .attr("Tlen: {int8, int32, int64} = DT_INT64")
    .set_shape_fn(_split_v_shape)
)

# --------------------------------------------------------------------------- Squeeze, ExpandDims


def _squeeze_shape(ctx: InferenceContext) -> None:
    """Squeeze: drops the listed dims (which must be 1), or every dim of size 1 when none are listed."""
    shape_in = ctx.input(0)
    if shape_in.dims is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    rank = len(shape_in.dims)
    squeeze_dims = [int(d) for d in ctx.get_attr("squeeze_dims")]
    for i, d in enumerate(squeeze_dims):
        if d < -rank or d >= rank:
            raise invalid(f"squeeze_dims[{i}] not in [{-rank},{rank}).")
        if d < 0:
            squeeze_dims[i] = d + rank
    result = []
    for i, dim in enumerate(shape_in.dims):
        explicit = i in squeeze_dims
        if dim.value is None:
            if explicit:
                continue
            if not squeeze_dims:
                ctx.set_output(0, ctx.unknown_shape())
                return
        elif dim.value == 1:
            if explicit or not squeeze_dims:
                continue
        elif explicit:
            raise invalid(f"Can not squeeze dim[{i}], expected a dimension of 1, got {dim.value}")
        result.append(dim)
    ctx.set_output(0, ctx.make_shape(result))


(
    register_op("Squeeze")
    .input("input: T")
    .output("output: T")
    .attr("T: type")
    .attr("squeeze_dims: list(int) >= 0 = []")
    .set_shape_fn(_squeeze_shape)
)


def _expand_dims_shape(ctx: InferenceContext) -> None:
    """ExpandDims: a dim of size 1 inserted at the constant `dim` (negative counts from the end)."""
    shape_in = ctx.input(0)
    dim_t = ctx.input_tensor(1)
    if dim_t is not None and dim_t.size != 1:
        raise invalid("'dim' input must be a tensor with a single value")
    if dim_t is None or shape_in.dims is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    dim = int(dim_t.reshape(-1)[0])
    rank = len(shape_in.dims)
    min_dim = -rank - 1
    if dim < min_dim or dim > rank:
        raise invalid(f"dim {dim} not in the interval [{min_dim}, {rank}].")
    if dim < 0:
        dim += rank + 1
    dims = list(shape_in.dims)
    dims.insert(dim, ctx.make_dim(1))
    ctx.set_output(0, ctx.make_shape(dims))


(
    register_op("ExpandDims")
    .input("input: T")
    .input("dim: Tdim")
    .output("output: T")
    .attr("T: type")
    .attr("Tdim: {int32, int64} = DT_INT32")
    .set_shape_fn(_expand_dims_shape)
)

# --------------------------------------------------------------------------- Fill, Tile, Pad


def _fill_shape(ctx: InferenceContext) -> None:
    """Fill: the shape given by `dims` (entries must be >= 0); `value` must be a scalar."""
    ctx.with_rank(ctx.input(0), 1)
    ctx.with_rank(ctx.input(1), 0)
    t = ctx.input_tensor(0)
    if t is not None and np.any(t < 0):
        raise invalid("Fill dimensions must be >= 0")
    ctx.set_output(0, ctx.make_shape_from_shape_tensor(0))


(
    register_op("Fill")
    .input("dims: index_type")
    .input("value: T")
    .output("output: T")
    .attr("T: type")
    .attr("index_type: {int32, int64} = DT_INT32")
    .set_shape_fn(_fill_shape)
)


def _tile_shape(ctx: InferenceContext) -> None:
    """Tile: each input dim multiplied by the matching entry of `multiples`."""
    shape_in = ctx.input(0)
    multiples = ctx.make_shape_from_shape_tensor(1)
    if shape_in.dims is not None:
        multiples = ctx.with_rank(multiples, len(shape_in.dims))
        ctx.merge(ctx.input(1), ctx.vector(len(shape_in.dims)))
    if multiples.dims is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    rank = len(multiples.dims)
    shape_in = ctx.with_rank(shape_in, rank)
    ctx.set_output(0, ctx.make_shape([ctx.multiply(ctx.dim(shape_in, i), ctx.dim(multiples, i)) for i in range(rank)]))


(
    register_op("Tile")
    .input("input: T")
    .input("multiples: Tmultiples")
    .output("output: T")
    .attr("T: type")
    .attr("Tmultiples: {int32, int64} = DT_INT32")
    .set_shape_fn(_tile_shape)
)


def _pad_shape(ctx: InferenceContext) -> None:
    """Pad: each input dim grown by its two constant paddings; the rank alone if paddings are unknown."""
    paddings = ctx.with_rank(ctx.input(1), 2)
    ctx.with_value(ctx.dim(paddings, 1), 2)
    shape_in = ctx.input(0)
    n_dim = ctx.dim(paddings, 0)
    if n_dim.value is not None:
        shape_in = ctx.with_rank(shape_in, n_dim.value)
    elif shape_in.dims is not None:
        n_dim = ctx.with_value(n_dim, len(shape_in.dims))
    paddings_t = ctx.input_tensor(1)
    if paddings_t is None:
        ctx.set_output(0, ctx.unknown_shape_of_rank(n_dim.value))
        return
    num_dims = paddings_t.shape[0]
    shape_in = ctx.with_rank(shape_in, num_dims)
    ctx.with_value(n_dim, num_dims)
    dims = []
    for i in range(num_dims):
        pad0, pad1 = int(paddings_t[i, 0]), int(paddings_t[i, 1])
        if pad0 < 0 or pad1 < 0:
            raise invalid("Paddings must be non-negative")
        dims.append(ctx.add(ctx.dim(shape_in, i), pad0 + pad1))
    ctx.set_output(0, ctx.make_shape(dims))


(
    register_op("Pad")
    .input("input: T")
    .input("paddings: Tpaddings")
    .output("output: T")
    .attr("T: type")
    .attr("Tpaddings: {int32, int64} = DT_INT32")
    .set_shape_fn(_pad_shape)
)

# --------------------------------------------------------------------------- Slice, StridedSlice


def _slice_shape(ctx: InferenceContext) -> None:
    """Slice: `size` where known (-1: to the end of the dim from `begin`), else the input's rank."""
    shape_in = ctx.input(0)
    begin_shape = ctx.with_rank(ctx.input(1), 1)
    sizes_shape = ctx.with_rank(ctx.input(2), 1)
    begin_shape = ctx.merge(begin_shape, sizes_shape)
    ndims = ctx.dim(begin_shape, 0)
    if ndims.value is not None:
        shape_in = ctx.with_rank(shape_in, ndims.value)
    begin_value = ctx.make_shape_from_shape_tensor(1)
    sizes_t = ctx.input_tensor(2)
    if sizes_t is not None:
        # TF's shape refiner first reads `size` as a partial shape, which rejects values < -1.
        for size in sizes_t.reshape(-1).tolist():
            if size < -1:
                raise invalid(f"Invalid value in tensor used for shape: {size}")
        begin_value = ctx.with_rank(begin_value, sizes_t.size)
        dims = []
        for i, size in enumerate(sizes_t.reshape(-1).tolist()):
            if size != -1:
                dims.append(ctx.make_dim(size))
            else:
                dims.append(ctx.subtract(ctx.dim(ctx.input(0), i), ctx.dim(begin_value, i)))
        ctx.set_output(0, ctx.make_shape(dims))
        return
    sizes_value = ctx.make_shape_from_shape_tensor(2)
    if sizes_value.dims is not None:
        ctx.with_rank(begin_value, len(sizes_value.dims))
        ctx.set_output(0, ctx.make_shape(sizes_value.dims))
        return
    ctx.set_output(0, ctx.unknown_shape_of_rank(shape_in.rank))


(
    register_op("Slice")
    .input("input: T")
    .input("begin: Index")
    .input("size: Index")
    .output("output: T")
    .attr("T: type")
    .attr("Index: {int32, int64}")
    .set_shape_fn(_slice_shape)
)


def _strided_slice_op_shape(ctx: InferenceContext) -> None:
    """StridedSlice: exact where `strides` (and, for exact dims, `begin`/`end`) are constant and the rank known."""
    shape_in = ctx.input(0)
    begin_shape = ctx.with_rank(ctx.input(1), 1)
    end_shape = ctx.with_rank(ctx.input(2), 1)
    strides_shape = ctx.with_rank(ctx.input(3), 1)
    begin_shape = ctx.merge(begin_shape, end_shape)
    begin_shape = ctx.merge(begin_shape, strides_shape)
    sparse_dims = ctx.dim(begin_shape, 0)
    strides_t = ctx.input_tensor(3)
    if shape_in.dims is None or sparse_dims.value is None or strides_t is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    input_shape = [-1 if d.value is None else d.value for d in shape_in.dims]
    final = strided_slice_shape(
        input_shape,
        ctx.input_tensor(1),
        ctx.input_tensor(2),
        strides_t,
        int(ctx.get_attr("begin_mask")),
        int(ctx.get_attr("end_mask")),
        int(ctx.get_attr("ellipsis_mask")),
        int(ctx.get_attr("new_axis_mask")),
        int(ctx.get_attr("shrink_axis_mask")),
    )
    ctx.set_output(0, ctx.make_shape(final))


(
    register_op("StridedSlice")
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
    .attr("shrink_axis_mask: int = 0")
    .set_shape_fn(_strided_slice_op_shape)
)

# --------------------------------------------------------------------------- GatherV2, OneHot


def _gather_v2_shape(ctx: InferenceContext) -> None:
    """GatherV2: params[:axis] + indices[batch_dims:] + params[axis + 1:]."""
    params = ctx.with_rank_at_least(ctx.input(0), 1)
    indices = ctx.input(1)
    ctx.with_rank(ctx.input(2), 0)
    axis_t = ctx.input_tensor(2)
    batch_dims = int(ctx.get_attr("batch_dims"))
    if axis_t is None:
        if params.dims is not None and indices.dims is not None:
            ctx.set_output(0, ctx.unknown_shape_of_rank(params.rank + indices.rank - 1 - batch_dims))
        else:
            ctx.set_output(0, ctx.unknown_shape())
        return
    axis = int(axis_t.reshape(-1)[0])
    ctx.with_rank_at_least(params, -axis if axis < 0 else axis + 1)
    ctx.with_rank_at_least(indices, abs(batch_dims))
    if batch_dims < 0:
        batch_dims += -1 if indices.rank is None else indices.rank
    ctx.with_rank_at_least(params, batch_dims + 1)
    out = ctx.concatenate(ctx.subshape(params, 0, axis), ctx.subshape(indices, batch_dims))
    if axis != -1:
        out = ctx.concatenate(out, ctx.subshape(params, axis + 1))
    ctx.set_output(0, out)


(
    register_op("GatherV2")
    .input("params: Tparams")
    .input("indices: Tindices")
    .input("axis: Taxis")
    .output("output: Tparams")
    .attr("batch_dims: int = 0")
    .attr("Tparams: type")
    .attr("Tindices: {int16, int32, int64}")
    .attr("Taxis: {int32, int64}")
    .set_shape_fn(_gather_v2_shape)
)


def _one_hot_shape(ctx: InferenceContext) -> None:
    """OneHot: the indices' shape with a dim of size `depth` inserted at `axis` (-1: last)."""
    axis = int(ctx.get_attr("axis"))
    if axis < -1:
        raise invalid("axis must be >= -1")
    depth = ctx.make_dim_for_scalar_input(1)
    indices = ctx.input(0)
    if indices.dims is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    new_rank = len(indices.dims) + 1
    depth_index = (axis + new_rank) % new_rank
    dims = list(indices.dims)
    dims.insert(depth_index, depth)
    ctx.set_output(0, ctx.make_shape(dims))


(
    register_op("OneHot")
    .input("indices: TI")
    .input("depth: int32")
    .input("on_value: T")
    .input("off_value: T")
    .output("output: T")
    .attr("axis: int = -1")
    .attr("T: type")
    .attr("TI: {uint8, int8, int32, int64} = DT_INT64")
    .set_shape_fn(_one_hot_shape)
)


# Extra (added for tf.where with one argument; not in the starter set).
def _where_shape(ctx: InferenceContext) -> None:
    """Where: a matrix [number of true elements (unknown), rank of the input]."""
    rank = ctx.rank(ctx.input(0))
    ctx.set_output(0, ctx.matrix(ctx.unknown_dim(), rank))


(
    register_op("Where")
    .input("input: T")
    .attr("T: {numbertype, bool} = DT_BOOL")
    .output("index: int64")
    .set_shape_fn(_where_shape)
)


# Extras (added for tf.pad with constant_values or REFLECT/SYMMETRIC modes; not in the starter set).
(
    register_op("PadV2")
    .input("input: T")
    .input("paddings: Tpaddings")
    .input("constant_values: T")
    .output("output: T")
    .attr("T: type")
    .attr("Tpaddings: {int32, int64} = DT_INT32")
    .set_shape_fn(_pad_shape)
)


(
    register_op("MirrorPad")
    .input("input: T")
    .input("paddings: Tpaddings")
    .output("output: T")
    .attr("T: type")
    .attr("Tpaddings: {int32, int64} = DT_INT32")
    .attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .set_shape_fn(_pad_shape)
)

(
    register_op("CheckNumerics")
    .input("tensor: T")
    .output("output: T")
    .attr("T: {bfloat16, half, float, double}")
    .attr("message: string")
    .set_is_stateful()
    .set_shape_fn(common_shapes.unchanged_shape)
)


# --------------------------------------------------------------------------- Roll, LowerBound/UpperBound, UnravelIndex


def _roll_shape(ctx: InferenceContext) -> None:
    """Roll: input of rank >= 1, shift and axis scalars or vectors of one length; the input's shape."""
    ctx.with_rank_at_least(ctx.input(0), 1)
    ctx.with_rank_at_most(ctx.input(1), 1)
    ctx.with_rank_at_most(ctx.input(2), 1)
    ctx.merge(ctx.input(1), ctx.input(2))
    ctx.set_output(0, ctx.input(0))


(
    register_op("Roll")
    .input("input: T")
    .input("shift: Tshift")
    .input("axis: Taxis")
    .output("output: T")
    .attr("T: type")
    .attr("Tshift: {int32, int64}")
    .attr("Taxis: {int32, int64}")
    .set_shape_fn(_roll_shape)
)


def _bound_shape(ctx: InferenceContext) -> None:
    """LowerBound/UpperBound: both inputs matrices; the values' shape."""
    ctx.with_rank(ctx.input(0), 2)
    ctx.with_rank(ctx.input(1), 2)
    ctx.set_output(0, ctx.input(1))


for _name in ("LowerBound", "UpperBound"):
    (
        register_op(_name)
        .input("sorted_inputs: T")
        .input("values: T")
        .output("output: out_type")
        .attr("T: type")
        .attr("out_type: {int32, int64} = DT_INT32")
        .set_shape_fn(_bound_shape)
    )


def _unravel_index_shape(ctx: InferenceContext) -> None:
    """UnravelIndex: ``[len(dims)]`` for a scalar index, ``[len(dims), num_indices]`` otherwise."""
    indices = ctx.input(0)
    dims = ctx.with_rank(ctx.input(1), 1)
    if indices.rank == 0:
        ctx.set_output(0, ctx.vector(ctx.dim(dims, 0)))
    elif indices.rank is not None:
        ctx.set_output(0, ctx.matrix(ctx.dim(dims, 0), ctx.num_elements(indices)))
    else:
        ctx.set_output(0, ctx.unknown_shape())


(
    register_op("UnravelIndex")
    .input("indices: Tidx")
    .input("dims: Tidx")
    .output("output: Tidx")
    .attr("Tidx: {int32, int64} = DT_INT32")
    .set_shape_fn(_unravel_index_shape)
)


def _broadcast_args_shape(ctx: InferenceContext) -> None:
    """BroadcastArgs: two shape vectors; a vector as long as the longer one."""
    s0 = ctx.with_rank(ctx.input(0), 1)
    s1 = ctx.with_rank(ctx.input(1), 1)
    n0, n1 = ctx.value(ctx.dim(s0, 0)), ctx.value(ctx.dim(s1, 0))
    ctx.set_output(0, ctx.vector(None if n0 is None or n1 is None else max(n0, n1)))


(
    register_op("BroadcastArgs")
    .input("s0: T")
    .input("s1: T")
    .output("r0: T")
    .attr("T: {int32, int64} = DT_INT32")
    .set_shape_fn(_broadcast_args_shape)
)


# --------------------------------------------------------------------------- SpaceToDepth / DepthToSpace


def _depth_space_shape(to_depth: bool):  # noqa: ANN202
    """SpaceToDepth (to_depth) / DepthToSpace: 4-D (5-D for NCHW_VECT_C) input; H, W and C scaled by block_size."""

    def shape_fn(ctx: InferenceContext) -> None:
        data_format = ctx.get_attr("data_format")
        data_format = data_format.decode() if isinstance(data_format, bytes) else data_format
        dims = 5 if data_format == "NCHW_VECT_C" else 4
        x = ctx.with_rank(ctx.input(0), dims)
        block = int(ctx.get_attr("block_size"))
        n_i, h_i, w_i, c_i = (0, 1, 2, 3) if data_format == "NHWC" else (0, 2, 3, 1)
        n, h, w, c = (ctx.dim(x, i) for i in (n_i, h_i, w_i, c_i))
        if to_depth:
            h, w = ctx.divide(h, block, True), ctx.divide(w, block, True)
            c = ctx.multiply(c, block * block)
        else:
            h, w = ctx.multiply(h, block), ctx.multiply(w, block)
            c = ctx.divide(c, block * block, True)
        out = [n, h, w, c] if data_format == "NHWC" else [n, c, h, w]
        if dims == 5:
            out.append(ctx.dim(x, 4))
        ctx.set_output(0, ctx.make_shape(out))

    return shape_fn


for _name, _to_depth in (("SpaceToDepth", True), ("DepthToSpace", False)):
    (
        register_op(_name)
        .input("input: T")
        .output("output: T")
        .attr("T: type")
        .attr("block_size: int >= 2")
        .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
        .set_shape_fn(_depth_space_shape(_to_depth))
    )


# --------------------------------------------------------------------------- SpaceToBatchND / BatchToSpaceND


def _space_batch_shape(to_batch: bool):  # noqa: ANN202
    """SpaceToBatchND (to_batch) / BatchToSpaceND: TF's SpaceToBatchShapeHelper / BatchToSpaceShapeHelper."""
    amounts = "paddings" if to_batch else "crops"

    def shape_fn(ctx: InferenceContext) -> None:
        block_shape_shape = ctx.input(1)
        if block_shape_shape.rank != 1:
            raise invalid("block_shape must have rank 1.")
        m = ctx.value(ctx.dim(block_shape_shape, 0))
        if m is None:
            raise invalid("block_shape must have known size.")
        x = ctx.with_rank_at_least(ctx.input(0), m + 1)
        ctx.merge(ctx.input(2), ctx.matrix(m, 2))
        block_t, amounts_t = ctx.input_tensor(1), ctx.input_tensor(2)
        block = None if block_t is None else [int(v) for v in np.asarray(block_t).reshape(-1)]
        batch = ctx.dim(x, 0)
        if block is not None and (not to_batch or block):
            for value in block:
                if value < 1:
                    raise invalid("block_shape must be positive")
                if ctx.value_known(batch):
                    batch = ctx.multiply(batch, value) if to_batch else ctx.divide(batch, value, True)
                else:
                    batch = ctx.unknown_dim()
        elif m > 0:
            batch = ctx.unknown_dim()
        dims = [batch] + [ctx.unknown_dim() for _ in range(m)]
        if amounts_t is not None and (not to_batch or np.asarray(amounts_t).size):
            flat = [int(v) for v in np.asarray(amounts_t).reshape(-1)]
            for d in range(m):
                start, end = flat[2 * d], flat[2 * d + 1]
                if start < 0 or end < 0:
                    raise invalid(f"{amounts} cannot be negative")
                if block is not None:
                    size = ctx.dim(x, d + 1)
                    if to_batch:
                        dims[d + 1] = ctx.divide(ctx.add(ctx.add(size, start), end), block[d], True)
                    else:
                        dims[d + 1] = ctx.subtract(ctx.subtract(ctx.multiply(size, block[d]), start), end)
        ctx.set_output(0, ctx.concatenate(ctx.make_shape(dims), ctx.subshape(x, m + 1)))

    return shape_fn


for _name, _amounts, _to_batch in (("SpaceToBatchND", "paddings", True), ("BatchToSpaceND", "crops", False)):
    (
        register_op(_name)
        .input("input: T")
        .input("block_shape: Tblock_shape")
        .input(f"{_amounts}: T{_amounts}")
        .output("output: T")
        .attr("T: type")
        .attr("Tblock_shape: {int32, int64} = DT_INT32")
        .attr(f"T{_amounts}: {{int32, int64}} = DT_INT32")
        .set_shape_fn(_space_batch_shape(_to_batch))
    )


# Added with tf.ensure_shape.
def _ensure_shape_shape(ctx: InferenceContext) -> None:
    """EnsureShape: the input, of the `shape` attr's rank, merged with the attr (TF's order: attr first)."""
    desired = ctx.make_shape_from_shape_proto(ctx.get_attr("shape"))
    rank = ctx.rank(desired)
    given = ctx.input(0)
    if rank is None:
        if ctx.rank(given) is not None:  # TF's WithRank(input, -1): only an unknown-rank input passes
            raise invalid(f"Shape must be rank -1 but is rank {ctx.rank(given)}")
    else:
        given = ctx.with_rank(given, rank)
    ctx.set_output(0, ctx.merge(desired, given))


(
    register_op("EnsureShape")
    .input("input: T")
    .output("output: T")
    .attr("shape: shape")
    .attr("T: type")
    .set_shape_fn(_ensure_shape_shape)
)
