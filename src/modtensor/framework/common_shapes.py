"""Shape functions that many ops share, with TensorFlow's semantics and error messages.

Each ``*_shape`` function is a shape function: ``fn(ctx: InferenceContext) -> None``
that sets the node's output shapes, ready for ``OpDefBuilder.set_shape_fn``.
``unchanged_shape_with_rank*`` build one for a given rank. ``broadcast_shapes`` and
``get_windowed_output_size`` are the building blocks op-specific functions reuse.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from modtensor.framework import errors
from modtensor.framework.shape_inference import DimensionHandle, InferenceContext, ShapeHandle

__all__ = [
    "broadcast_gradient_axes",
    "avg_pool_shape",
    "bias_add_shape",
    "broadcast_binary_op_shape",
    "broadcast_shapes",
    "conv2d_shape",
    "get_windowed_output_size",
    "matmul_shape",
    "max_pool_shape",
    "no_outputs",
    "reduction_shape",
    "scalar_shape",
    "unchanged_shape",
    "unchanged_shape_with_rank",
    "unchanged_shape_with_rank_at_least",
    "unchanged_shape_with_rank_at_most",
    "unknown_shape",
]

ShapeFn = Callable[[InferenceContext], None]


def _error(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


# ------------------------------------------------------------------ trivial ones


def unchanged_shape(ctx: InferenceContext) -> None:
    """Output 0 has the shape (and the handle data, for resources and variants) of input 0 (Identity, ...)."""
    ctx.set_output(0, ctx.input(0))
    handle_data = ctx.input_handle_shapes_and_types(0)
    if handle_data is not None:
        ctx.set_output_handle_shapes_and_types(0, handle_data)


def unchanged_shape_with_rank(rank: int) -> ShapeFn:
    """A shape fn: input 0 must have rank ``rank``; output 0 is that shape."""

    def shape_fn(ctx: InferenceContext) -> None:
        ctx.set_output(0, ctx.with_rank(ctx.input(0), rank))

    return shape_fn


def unchanged_shape_with_rank_at_least(rank: int) -> ShapeFn:
    """A shape fn: input 0 must have rank >= ``rank``; output 0 is that shape."""

    def shape_fn(ctx: InferenceContext) -> None:
        ctx.set_output(0, ctx.with_rank_at_least(ctx.input(0), rank))

    return shape_fn


def unchanged_shape_with_rank_at_most(rank: int) -> ShapeFn:
    """A shape fn: input 0 must have rank <= ``rank``; output 0 is that shape."""

    def shape_fn(ctx: InferenceContext) -> None:
        ctx.set_output(0, ctx.with_rank_at_most(ctx.input(0), rank))

    return shape_fn


def scalar_shape(ctx: InferenceContext) -> None:
    """Output 0 is a scalar."""
    ctx.set_output(0, ctx.scalar())


def unknown_shape(ctx: InferenceContext) -> None:
    """Every output has an unknown shape."""
    for i in range(ctx.num_outputs()):
        ctx.set_output(i, ctx.unknown_shape())


def no_outputs(ctx: InferenceContext) -> None:
    """For ops without outputs (NoOp): nothing to infer."""


# -------------------------------------------------------------------- broadcast


def broadcast_shapes(
    ctx: InferenceContext, shape_x: ShapeHandle, shape_y: ShapeHandle, incompatible_shape_error: bool = True
) -> ShapeHandle:
    """The numpy-broadcast shape of two shapes, with TF's rules for unknown dims.

    A known dim > 1 wins over an unknown one; 1 against unknown gives the unknown
    handle; two unknown dims give that handle if they are the same one, else a new
    unknown dim. Known dims other than 1 must be equal ("Dimensions must be equal,
    but are 3 and 4"); with ``incompatible_shape_error=False`` a mismatch gives a
    scalar shape and a doubtful unknown dim an unknown shape instead, as TF's
    ``Equal``/``NotEqual`` do.
    """
    if shape_x.dims is None or shape_y.dims is None:
        return ctx.unknown_shape()
    rank_x, rank_y = len(shape_x.dims), len(shape_y.dims)
    rank_out = max(rank_x, rank_y)
    dim_one = ctx.make_dim(1) if rank_x != rank_y else None
    dims: list[DimensionHandle] = []
    for i in range(rank_out):
        dim_x = dim_one if i < rank_out - rank_x else shape_x.dims[i - (rank_out - rank_x)]
        dim_y_is_one = i < rank_out - rank_y
        dim_y = dim_one if dim_y_is_one else shape_y.dims[i - (rank_out - rank_y)]
        vx, vy = dim_x.value, dim_y.value
        if vx is None or vy is None:
            if vx is not None and vx > 1 or vy is not None and vy > 1:
                # Assume the program is right and the unknown dim broadcasts to the known one.
                if not incompatible_shape_error:
                    return ctx.unknown_shape()
                dims.append(dim_x if vx is not None and vx > 1 else dim_y)
            elif vx == 1:
                dims.append(dim_y)
            elif vy == 1 or dim_x is dim_y:
                dims.append(dim_x)
            elif vx is None and vy is None:
                dims.append(ctx.unknown_dim())
            else:  # a known 0 against an unknown dim
                if not incompatible_shape_error:
                    return ctx.unknown_shape()
                dims.append(ctx.unknown_dim())
        elif vx == 1 or vy == 1:
            dims.append(dim_y if vx == 1 and not dim_y_is_one else dim_x)
        else:
            try:
                dims.append(ctx.merge_dim(dim_x, dim_y))
            except errors.InvalidArgumentError:
                if not incompatible_shape_error:
                    return ctx.scalar()
                raise
    return ShapeHandle(dims)


def broadcast_gradient_axes(s0: Sequence[int], s1: Sequence[int]) -> tuple[list[int], list[int]]:
    """Per operand, the axes of a broadcast result to sum its gradient over (TF's BCast reduction indices).

    Equal shapes reduce nothing; otherwise, with the shorter shape padded by leading 1s, an
    operand reduces every axis where it is 1 (also where the result is 1), as TF's BCast does.
    Incompatible shapes raise ValueError ``Incompatible shapes: [2] vs. [3]``.
    """
    a, b = [int(d) for d in s0], [int(d) for d in s1]
    r0: list[int] = []
    r1: list[int] = []
    if a == b:
        return r0, r1
    n = max(len(a), len(b))
    pa, pb = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    for j, (x, y) in enumerate(zip(pa, pb, strict=True)):
        if x == y:
            if x == 1:
                r0.append(j)
                r1.append(j)
        elif x == 1:
            r0.append(j)
        elif y == 1:
            r1.append(j)
        else:
            raise ValueError(f"Incompatible shapes: [{','.join(map(str, a))}] vs. [{','.join(map(str, b))}]")
    return r0, r1


def broadcast_binary_op_shape(ctx: InferenceContext) -> None:
    """Output 0 is the broadcast of inputs 0 and 1 (Add, Mul, Less, ...)."""
    ctx.set_output(0, broadcast_shapes(ctx, ctx.input(0), ctx.input(1)))


# -------------------------------------------------------------------- reductions


def reduction_shape(ctx: InferenceContext) -> None:
    """Sum/Mean/Max/...: input 0 reduced over the axes of input 1, keeping them as 1 if ``keep_dims``.

    Without constant axes the output is unknown (of the input's rank if ``keep_dims``).
    """
    shape = ctx.input(0)
    ctx.with_rank_at_most(ctx.input(1), 1)
    keep_dims = bool(ctx.get_attr("keep_dims"))
    axes = ctx.input_tensor(1)
    if axes is None or shape.dims is None:
        if keep_dims and shape.dims is not None:
            ctx.set_output(0, ctx.unknown_shape_of_rank(len(shape.dims)))
        else:
            ctx.set_output(0, ctx.unknown_shape())
        return
    if axes.dtype.name not in ("int32", "int64"):
        raise _error("reduction_indices can only be int32 or int64")
    rank = len(shape.dims)
    reduced = set()
    for axis in axes.reshape(-1).tolist():
        if axis < -rank or axis >= rank:
            raise _error(f"Invalid reduction dimension {axis} for input with {rank} dimensions.")
        reduced.add(axis + rank if axis < 0 else axis)
    dims: list[DimensionHandle] = []
    for i, d in enumerate(shape.dims):
        if i not in reduced:
            dims.append(d)
        elif keep_dims:
            dims.append(ctx.make_dim(1))
    ctx.set_output(0, ShapeHandle(dims))


# ------------------------------------------------------------- matmul, bias add


def matmul_shape(ctx: InferenceContext) -> None:
    """MatMul: ``[m, k] x [k, n] -> [m, n]`` honouring ``transpose_a``/``transpose_b``."""
    a = ctx.with_rank(ctx.input(0), 2)
    b = ctx.with_rank(ctx.input(1), 2)
    transpose_a = bool(ctx.get_attr("transpose_a"))
    transpose_b = bool(ctx.get_attr("transpose_b"))
    rows = ctx.dim(a, 1 if transpose_a else 0)
    cols = ctx.dim(b, 0 if transpose_b else 1)
    ctx.merge_dim(ctx.dim(a, 0 if transpose_a else 1), ctx.dim(b, 1 if transpose_b else 0))
    ctx.set_output(0, ctx.matrix(rows, cols))


def _optional_attr(ctx: InferenceContext, name: str, default: object) -> object:
    try:
        return ctx.get_attr(name)
    except errors.InvalidArgumentError:
        return default


def _as_str(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def bias_add_shape(ctx: InferenceContext) -> None:
    """BiasAdd: the input's shape, its channel dim (last, or 1 for NCHW) merged with the bias length."""
    nchw = _as_str(_optional_attr(ctx, "data_format", "NHWC")) == "NCHW"
    shape = ctx.with_rank_at_least(ctx.input(0), 3 if nchw else 2)
    bias = ctx.with_rank(ctx.input(1), 1)
    if shape.dims is None:
        ctx.set_output(0, ctx.unknown_shape())
        return
    channel = 1 if nchw else len(shape.dims) - 1
    merged = ctx.merge_dim(ctx.dim(shape, channel), ctx.dim(bias, 0))
    ctx.set_output(0, ctx.replace_dim(shape, channel, merged))


# ------------------------------------------------------------ windowed ops (conv, pool)

_PADDINGS = ("VALID", "SAME", "EXPLICIT")


def get_windowed_output_size(
    input_size: DimensionHandle | int | None,
    filter_size: DimensionHandle | int | None,
    dilation: int,
    stride: int,
    padding: str | bytes,
    padding_before: int = 0,
    padding_after: int = 0,
) -> DimensionHandle:
    """Output length of a sliding window over one spatial dim, as TF computes it.

    VALID: ``(in - (filter - 1) * dilation - 1 + stride) // stride`` (an error if the
    window does not fit); EXPLICIT: the same after adding the paddings; SAME:
    ``ceil(in / stride)``. Unknown sizes give an unknown dim.
    """
    padding = _as_str(padding)
    if padding not in _PADDINGS:
        raise _error(f"Invalid padding {padding!r}; expected one of 'VALID', 'SAME', 'EXPLICIT'")
    if stride <= 0:
        raise _error(f"Stride must be > 0, but got {stride}")
    if dilation < 1:
        raise _error(f"Dilation rate must be >= 1, but got {dilation}")
    ic = InferenceContext
    size = ic.make_dim(input_size)
    if padding == "SAME":
        return ic.divide(ic.add(size, stride - 1), stride, evenly_divisible=False)
    if padding == "VALID":
        padding_before = padding_after = 0
    size = ic.add(size, padding_before + padding_after)
    if dilation > 1:
        window = ic.add(ic.multiply(ic.subtract(ic.make_dim(filter_size), 1), dilation), 1)
        out = ic.subtract(size, window)
    else:
        out = ic.subtract(size, filter_size)
    return ic.divide(ic.add(out, stride), stride, evenly_divisible=False)


# Index of N, H, W, C in a 4-D tensor (and in 4-element strides/ksize/dilations lists).
_FORMAT_INDEX = {"NHWC": {"N": 0, "H": 1, "W": 2, "C": 3}, "NCHW": {"N": 0, "C": 1, "H": 2, "W": 3}}


def _data_format(ctx: InferenceContext) -> str:
    data_format = _as_str(_optional_attr(ctx, "data_format", "NHWC"))
    if data_format not in _FORMAT_INDEX:
        raise _error(f"Invalid data format string: {data_format}")
    return data_format


def _check_valid_padding(padding: str, explicit_paddings: Sequence[int], data_format: str) -> None:
    if padding == "EXPLICIT":
        if len(explicit_paddings) != 8:
            raise _error(f"explicit_paddings attribute must contain 8 values, but got: {len(explicit_paddings)}")
        if any(p < 0 for p in explicit_paddings):
            raise _error("All elements of explicit_paddings must be nonnegative")
        index = _FORMAT_INDEX[data_format]
        for axis in ("N", "C"):
            if explicit_paddings[2 * index[axis]] or explicit_paddings[2 * index[axis] + 1]:
                raise _error("Nonzero explicit padding in the batch or depth dimensions is not supported")
    elif explicit_paddings:
        raise _error("explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT")


def _padding_and_explicit(ctx: InferenceContext, data_format: str) -> tuple[str, list[int]]:
    padding = _as_str(ctx.get_attr("padding"))
    explicit = [int(p) for p in _optional_attr(ctx, "explicit_paddings", [])]  # type: ignore[union-attr]
    _check_valid_padding(padding, explicit, data_format)
    return padding, explicit


def _explicit_for(explicit: Sequence[int], index: int) -> tuple[int, int]:
    return (explicit[2 * index], explicit[2 * index + 1]) if explicit else (0, 0)


def _make_from_format(
    data_format: str, batch: DimensionHandle, rows: DimensionHandle, cols: DimensionHandle, depth: DimensionHandle
) -> ShapeHandle:
    if data_format == "NCHW":
        return ShapeHandle([batch, depth, rows, cols])
    return ShapeHandle([batch, rows, cols, depth])


def conv2d_shape(ctx: InferenceContext) -> None:
    """Conv2D (HWIO filter; NHWC or NCHW; strides, dilations, SAME/VALID/EXPLICIT padding, groups)."""
    data_format = _data_format(ctx)
    index = _FORMAT_INDEX[data_format]
    x = ctx.with_rank(ctx.input(0), 4)
    w = ctx.with_rank(ctx.input(1), 4)
    dilations = list(ctx.get_attr("dilations"))
    if len(dilations) != 4:
        raise _error(f"Conv2D requires the dilation attribute to contain 4 values, but got: {len(dilations)}")
    strides = list(ctx.get_attr("strides"))
    if len(strides) != 4:
        raise _error(
            f"Conv2D on data format {data_format} requires the stride attribute to contain 4 values, "
            f"but got: {len(strides)}"
        )
    batch, in_rows, in_cols, in_depth = (ctx.dim(x, index[a]) for a in "NHWC")
    filter_rows, filter_cols, filter_in_depth, out_depth = (ctx.dim(w, i) for i in range(4))
    if in_depth.value is not None and filter_in_depth.value is not None:
        if filter_in_depth.value == 0:
            raise _error("Depth of filter must not be 0")
        if in_depth.value % filter_in_depth.value:
            raise _error(
                f"Depth of input ({in_depth.value}) is not a multiple of input depth of filter "
                f"({filter_in_depth.value})"
            )
        groups = in_depth.value // filter_in_depth.value
        if groups != 1 and out_depth.value is not None and out_depth.value % groups:
            raise _error(f"Depth of output ({out_depth.value}) is not a multiple of the number of groups ({groups})")
    padding, explicit = _padding_and_explicit(ctx, data_format)
    rows = get_windowed_output_size(
        in_rows, filter_rows, dilations[index["H"]], strides[index["H"]], padding, *_explicit_for(explicit, index["H"])
    )
    cols = get_windowed_output_size(
        in_cols, filter_cols, dilations[index["W"]], strides[index["W"]], padding, *_explicit_for(explicit, index["W"])
    )
    ctx.set_output(0, _make_from_format(data_format, batch, rows, cols, out_depth))


def _pool_shape(ctx: InferenceContext, op_name: str, pool_depth: bool) -> None:
    data_format = _data_format(ctx)
    index = _FORMAT_INDEX[data_format]
    x = ctx.with_rank(ctx.input(0), 4)
    strides = list(ctx.get_attr("strides"))
    if len(strides) != 4:
        raise _error(f"{op_name} requires the stride attribute to contain 4 values, but got: {len(strides)}")
    ksize = list(ctx.get_attr("ksize"))
    if len(ksize) != 4:
        raise _error(f"{op_name} requires the ksize attribute to contain 4 values, but got: {len(ksize)}")
    batch, in_rows, in_cols, depth = (ctx.dim(x, index[a]) for a in "NHWC")
    if pool_depth:
        padding, explicit = _padding_and_explicit(ctx, data_format)
    else:
        padding, explicit = _as_str(ctx.get_attr("padding")), []
    h, w, c = index["H"], index["W"], index["C"]
    rows = get_windowed_output_size(in_rows, ksize[h], 1, strides[h], padding, *_explicit_for(explicit, h))
    cols = get_windowed_output_size(in_cols, ksize[w], 1, strides[w], padding, *_explicit_for(explicit, w))
    if pool_depth:
        depth = get_windowed_output_size(depth, ksize[c], 1, strides[c], padding)
    ctx.set_output(0, _make_from_format(data_format, batch, rows, cols, depth))


def max_pool_shape(ctx: InferenceContext) -> None:
    """MaxPool: windows over rows, cols and (if ksize says so) depth; EXPLICIT padding allowed."""
    _pool_shape(ctx, "MaxPool", pool_depth=True)


def avg_pool_shape(ctx: InferenceContext) -> None:
    """AvgPool: windows over rows and cols; depth unchanged."""
    _pool_shape(ctx, "AvgPool", pool_depth=False)
