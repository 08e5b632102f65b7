"""Image ops: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea, AdjustContrastv2, AdjustHue,
AdjustSaturation, RGBToHSV, HSVToRGB and ExtractImagePatches.

OpDefs equal TensorFlow 2.21's registered ones; the resize shape function is TF's
ResizeShapeFn: ``[batch, size[0], size[1], channels]`` with ``size`` read when constant;
the Adjust* ops keep their input's shape (rank >= 3); the colour-space conversions TF's
ColorspaceShapeFn (rank >= 1, last dim 3); ExtractImagePatches TF's windowed patch shape; the non-max
suppression ops (NonMaxSuppressionV3-V5, CombinedNonMaxSuppression) TF's NMS shape functions.
"""

from __future__ import annotations

from modtensor.framework.common_shapes import _as_str, unchanged_shape_with_rank_at_least
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid

_TYPES = "{int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}"


def resize_shape(ctx: InferenceContext) -> None:
    """``images [b, h, w, c]`` and a 2-vector ``size`` -> ``[b, size[0], size[1], c]``."""
    images = ctx.with_rank(ctx.input(0), 4)
    size = ctx.with_rank(ctx.input(1), 1)
    ctx.with_value(ctx.dim(size, 0), 2)
    value = ctx.input_tensor(1)
    if value is None:
        height, width = ctx.unknown_dim(), ctx.unknown_dim()
    else:
        if value.dtype.name != "int32":
            raise invalid(
                f"Bad size input type for SetOutputToSizedImage: Expected DT_INT32 but got {value.dtype.name}"
            )
        height, width = ctx.make_dim(int(value[0])), ctx.make_dim(int(value[1]))
    ctx.set_output(0, ctx.make_shape([ctx.dim(images, 0), height, width, ctx.dim(images, 3)]))


for _name, _out, _types in (
    ("ResizeBilinear", "float", "{int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double, bfloat16}"),
    ("ResizeNearestNeighbor", "T", _TYPES),
    ("ResizeBicubic", "float", _TYPES),
):
    (
        register_op(_name)
        .input("images: T")
        .input("size: int32")
        .output(f"resized_images: {_out}")
        .attr(f"T: {_types}")
        .attr("align_corners: bool = false")
        .attr("half_pixel_centers: bool = false")
        .set_shape_fn(resize_shape)
    )
(
    register_op("ResizeArea")
    .input("images: T")
    .input("size: int32")
    .output("resized_images: float")
    .attr(f"T: {_TYPES}")
    .attr("align_corners: bool = false")
    .set_shape_fn(resize_shape)
)
(
    register_op("AdjustContrastv2")
    .input("images: T")
    .input("contrast_factor: float")
    .output("output: T")
    .attr("T: {half, float} = DT_FLOAT")
    .set_shape_fn(unchanged_shape_with_rank_at_least(3))
)
for _name, _factor in (("AdjustHue", "delta"), ("AdjustSaturation", "scale")):
    (
        register_op(_name)
        .input("images: T")
        .input(f"{_factor}: float")
        .output("output: T")
        .attr("T: {half, float} = DT_FLOAT")
        .set_shape_fn(unchanged_shape_with_rank_at_least(3))
    )


def colorspace_shape(ctx: InferenceContext) -> None:
    """TF's ColorspaceShapeFn: rank >= 1 and a last dim of 3; the output has the input's shape."""
    images = ctx.with_rank_at_least(ctx.input(0), 1)
    rank = ctx.rank(images)
    if rank is None:
        ctx.set_output(0, images)
        return
    last = ctx.with_value(ctx.dim(images, rank - 1), 3)
    ctx.set_output(0, ctx.replace_dim(images, rank - 1, last))


for _name in ("RGBToHSV", "HSVToRGB"):
    (
        register_op(_name)
        .input("images: T")
        .output("output: T")
        .attr("T: {half, bfloat16, float, double} = DT_FLOAT")
        .set_shape_fn(colorspace_shape)
    )


def _patch_output_size(size: int, ksize_eff: int, stride: int, padding: str) -> int:
    """TF's GetWindowedOutputSizeVerbose for one spatial axis (no dilation: ``ksize_eff`` already has it)."""
    if stride <= 0:
        raise invalid(f"Stride must be > 0, but got {stride}")
    out = (size - ksize_eff + stride) // stride if padding == "VALID" else (size + stride - 1) // stride
    if out < 0:
        raise invalid(
            f"Computed output size would be negative: {out} [input_size: {size}, "
            f"effective_filter_size: {ksize_eff}, stride: {stride}]"
        )
    return out


def extract_image_patches_shape(ctx: InferenceContext) -> None:
    """``[batch, out_rows, out_cols, ksize_rows * ksize_cols * depth]`` (spatial dims unknown when the input's are)."""
    images = ctx.with_rank(ctx.input(0), 4)
    lists = {}
    for attr, word in (("ksizes", "ksizes"), ("strides", "stride"), ("rates", "rates")):
        lists[attr] = [int(v) for v in ctx.get_attr(attr)]
        if len(lists[attr]) != 4:
            raise invalid(
                f"ExtractImagePatches requires the {word} attribute to contain 4 values, but got: {len(lists[attr])}"
            )
    ksizes, strides, rates = lists["ksizes"], lists["strides"], lists["rates"]
    rows_eff = ksizes[1] + (ksizes[1] - 1) * (rates[1] - 1)
    cols_eff = ksizes[2] + (ksizes[2] - 1) * (rates[2] - 1)
    depth = ctx.multiply(ctx.dim(images, 3), ksizes[1] * ksizes[2])
    in_rows, in_cols = ctx.value(ctx.dim(images, 1)), ctx.value(ctx.dim(images, 2))
    if in_rows is None or in_cols is None:
        ctx.set_output(0, ctx.make_shape([ctx.dim(images, 0), ctx.unknown_dim(), ctx.unknown_dim(), depth]))
        return
    padding = _as_str(ctx.get_attr("padding"))
    out_rows = _patch_output_size(in_rows, rows_eff, strides[1], padding)
    out_cols = _patch_output_size(in_cols, cols_eff, strides[2], padding)
    ctx.set_output(0, ctx.make_shape([ctx.dim(images, 0), out_rows, out_cols, depth]))


(
    register_op("ExtractImagePatches")
    .input("images: T")
    .output("patches: T")
    .attr("ksizes: list(int) >= 4")
    .attr("strides: list(int) >= 4")
    .attr("rates: list(int) >= 4")
    .attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, "
        "complex128, bool}"
    )
    .attr("padding: {'SAME', 'VALID'}")
    .set_shape_fn(extract_image_patches_shape)
)


# --------------------------------------------------------------------------- non-max suppression


def _nms_shape(ctx: InferenceContext, soft: bool) -> None:
    """TF's NMSShapeFn / SoftNMSShapeFn: ``boxes`` [n, 4], ``scores`` [n], scalar size and thresholds; the selected
    indices (and scores) a vector, ``max_output_size`` long when padded to it."""
    boxes = ctx.with_rank(ctx.input(0), 2)
    scores = ctx.with_rank(ctx.input(1), 1)
    for i in range(2, 6 if soft else 5):
        ctx.with_rank(ctx.input(i), 0)
    ctx.merge_dim(ctx.dim(boxes, 0), ctx.dim(scores, 0))
    ctx.with_value(ctx.dim(boxes, 1), 4)
    pad = ctx.num_outputs() > 1 and bool(ctx.get_attr("pad_to_max_output_size"))  # V4 and V5 have the attr
    size = ctx.unknown_dim()
    if pad:
        given = ctx.input_tensor(2)
        size = ctx.make_dim(int(given)) if given is not None else ctx.unknown_dim()
    ctx.set_output(0, ctx.vector(size))
    if soft:
        ctx.set_output(1, ctx.vector(size))
        ctx.set_output(2, ctx.scalar())
    elif ctx.num_outputs() == 2:
        ctx.set_output(1, ctx.scalar())


def _nms_hard_shape(ctx: InferenceContext) -> None:
    _nms_shape(ctx, soft=False)


def _nms_soft_shape(ctx: InferenceContext) -> None:
    _nms_shape(ctx, soft=True)


(
    register_op("NonMaxSuppressionV3")
    .input("boxes: T")
    .input("scores: T")
    .input("max_output_size: int32")
    .input("iou_threshold: T_threshold")
    .input("score_threshold: T_threshold")
    .output("selected_indices: int32")
    .attr("T: {half, float} = DT_FLOAT")
    .attr("T_threshold: {half, float} = DT_FLOAT")
    .set_shape_fn(_nms_hard_shape)
)
(
    register_op("NonMaxSuppressionV4")
    .input("boxes: T")
    .input("scores: T")
    .input("max_output_size: int32")
    .input("iou_threshold: T_threshold")
    .input("score_threshold: T_threshold")
    .output("selected_indices: int32")
    .output("valid_outputs: int32")
    .attr("T: {half, float} = DT_FLOAT")
    .attr("T_threshold: {half, float} = DT_FLOAT")
    .attr("pad_to_max_output_size: bool = false")
    .set_shape_fn(_nms_hard_shape)
)
(
    register_op("NonMaxSuppressionV5")
    .input("boxes: T")
    .input("scores: T")
    .input("max_output_size: int32")
    .input("iou_threshold: T")
    .input("score_threshold: T")
    .input("soft_nms_sigma: T")
    .output("selected_indices: int32")
    .output("selected_scores: T")
    .output("valid_outputs: int32")
    .attr("T: {half, float} = DT_FLOAT")
    .attr("pad_to_max_output_size: bool = false")
    .set_shape_fn(_nms_soft_shape)
)


def _combined_nms_shape(ctx: InferenceContext) -> None:
    """TF's CombinedNMSShapeFn: ``boxes [batch, n, q, 4]``, ``scores [batch, n, classes]`` and scalars; outputs
    ``[batch, size, 4]``, ``[batch, size]`` twice and ``[batch]``, ``size`` the constant ``max_total_size`` (with
    ``pad_per_class`` at most ``max_output_size_per_class * classes``)."""
    boxes = ctx.with_rank(ctx.input(0), 4)
    scores = ctx.with_rank(ctx.input(1), 3)
    for i in range(2, 6):
        ctx.with_rank(ctx.input(i), 0)
    ctx.merge_dim(ctx.dim(boxes, 0), ctx.dim(scores, 0))
    ctx.merge_dim(ctx.dim(boxes, 1), ctx.dim(scores, 1))
    ctx.with_value(ctx.dim(boxes, 3), 4)
    q, classes = ctx.value(ctx.dim(boxes, 2)), ctx.value(ctx.dim(scores, 2))
    if q is not None and classes is not None and q not in (1, classes):
        raise invalid("third dimension of boxes must be either 1 or equal to the third dimension of scores")
    # TF's refiner runs the function first without constants, then again with the two it asked for: its errors
    # below name both
    ctx.input_tensor(2)
    ctx.input_tensor(3)
    total = ctx.value(ctx.make_dim_for_scalar_input(3))
    if total is not None and total <= 0:
        raise invalid("max_total_size should be > 0 ")
    per_class = ctx.value(ctx.make_dim_for_scalar_input(2))
    size = total
    if ctx.get_attr("pad_per_class"):
        if per_class is not None and per_class <= 0:
            raise invalid("max_output_size_per_class must be > 0 if pad_per_class is set to true ")
        # TF takes min(-1 for an unknown total, ...): unknown unless both sizes and the class count are known
        size = None
        if per_class is not None and classes is not None:
            size = None if total is None else min(total, per_class * classes)
    batch = ctx.dim(boxes, 0)
    ctx.set_output(0, ctx.make_shape([batch, size, 4]))
    ctx.set_output(1, ctx.make_shape([batch, size]))
    ctx.set_output(2, ctx.make_shape([batch, size]))
    ctx.set_output(3, ctx.vector(batch))


(
    register_op("CombinedNonMaxSuppression")
    .input("boxes: float")
    .input("scores: float")
    .input("max_output_size_per_class: int32")
    .input("max_total_size: int32")
    .input("iou_threshold: float")
    .input("score_threshold: float")
    .output("nmsed_boxes: float")
    .output("nmsed_scores: float")
    .output("nmsed_classes: float")
    .output("valid_detections: int32")
    .attr("pad_per_class: bool = false")
    .attr("clip_boxes: bool = true")
    .set_shape_fn(_combined_nms_shape)
)
