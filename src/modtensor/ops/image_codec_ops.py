"""Image codec ops: DecodeJpeg, DecodeAndCropJpeg, EncodeJpeg, EncodeJpegVariableQuality, ExtractJpegShape,
DecodePng, EncodePng, DecodeBmp, DecodeGif, DecodeWebP and DecodeImage.

OpDefs equal TensorFlow 2.21's registered ones; the shape functions are TF's: a decoder's ``contents`` is a
scalar and its output ``[?, ?, channels]`` (``channels`` unknown when 0; DecodeGif ``[?, ?, ?, 3]``, DecodeWebP
``[?, ?, ?, channels]``; DecodeImage
unknown with ``expand_animations``, since a GIF gives frames); DecodeAndCropJpeg takes height and width from a
constant ``crop_window``; encoders take a rank-3 image to a scalar, EncodePng any ``[..., h, w, c]`` to its batch
dims; ExtractJpegShape gives a 3-vector.
"""

from __future__ import annotations

from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import DimensionHandle, InferenceContext
from modtensor.ops._shape_errors import invalid


def _channels_dim(ctx: InferenceContext) -> DimensionHandle:
    channels = int(ctx.get_attr("channels"))
    if channels == 0:
        return ctx.unknown_dim()
    if channels < 0:
        raise invalid(f"channels must be non-negative, got {channels}")
    return ctx.make_dim(channels)


def decode_image_shape(ctx: InferenceContext) -> None:
    """TF's DecodeImageShapeFn: scalar ``contents`` -> ``[?, ?, channels]``."""
    ctx.with_rank(ctx.input(0), 0)
    ctx.set_output(0, ctx.make_shape([ctx.unknown_dim(), ctx.unknown_dim(), _channels_dim(ctx)]))


def decode_image_v2_shape(ctx: InferenceContext) -> None:
    """TF's DecodeImageV2ShapeFn: unknown with ``expand_animations`` (a GIF gives 4-D frames), else 3-D."""
    ctx.with_rank(ctx.input(0), 0)
    channels = _channels_dim(ctx)
    if ctx.get_attr("expand_animations"):
        ctx.set_output(0, ctx.unknown_shape())
    else:
        ctx.set_output(0, ctx.make_shape([ctx.unknown_dim(), ctx.unknown_dim(), channels]))


def decode_and_crop_jpeg_shape(ctx: InferenceContext) -> None:
    """``[crop_window[2], crop_window[3], channels]``, the window's dims known when it is constant."""
    ctx.with_rank(ctx.input(0), 0)
    channels = _channels_dim(ctx)
    window = ctx.with_rank(ctx.input(1), 1)
    ctx.with_value(ctx.dim(window, 0), 4)
    value = ctx.input_tensor(1)
    if value is None:
        height, width = ctx.unknown_dim(), ctx.unknown_dim()
    else:
        height, width = ctx.make_dim(int(value[2])), ctx.make_dim(int(value[3]))
    ctx.set_output(0, ctx.make_shape([height, width, channels]))


def encode_image_shape(ctx: InferenceContext) -> None:
    """TF's EncodeImageShapeFn: a rank-3 image -> a scalar string."""
    ctx.with_rank(ctx.input(0), 3)
    ctx.set_output(0, ctx.scalar())


def batched_encode_image_shape(ctx: InferenceContext) -> None:
    """TF's BatchedEncodeImageShapeFn: ``[..., h, w, c]`` -> ``[...]``."""
    image = ctx.with_rank_at_least(ctx.input(0), 3)
    ctx.set_output(0, ctx.subshape(image, 0, -3))


def _scalar_to_vector3(ctx: InferenceContext) -> None:
    ctx.with_rank(ctx.input(0), 0)
    ctx.set_output(0, ctx.vector(3))


def _decode_webp_shape(ctx: InferenceContext) -> None:
    """TF's DecodeWebP shape: scalar ``contents`` -> ``[?, ?, ?, channels]`` (frames first, even for a still)."""
    ctx.with_rank(ctx.input(0), 0)
    ctx.set_output(0, ctx.make_shape([ctx.unknown_dim(), ctx.unknown_dim(), ctx.unknown_dim(), _channels_dim(ctx)]))


def _scalar_to_gif_frames(ctx: InferenceContext) -> None:
    ctx.with_rank(ctx.input(0), 0)
    ctx.set_output(0, ctx.make_shape([ctx.unknown_dim(), ctx.unknown_dim(), ctx.unknown_dim(), 3]))


_JPEG_ATTRS = (
    "channels: int = 0",
    "ratio: int = 1",
    "fancy_upscaling: bool = true",
    "try_recover_truncated: bool = false",
    "acceptable_fraction: float = 1",
    "dct_method: string = ''",
)

_op = register_op("DecodeJpeg").input("contents: string")
for _attr in _JPEG_ATTRS:
    _op = _op.attr(_attr)
_op.output("image: uint8").set_shape_fn(decode_image_shape)

_op = register_op("DecodeAndCropJpeg").input("contents: string").input("crop_window: int32")
for _attr in _JPEG_ATTRS:
    _op = _op.attr(_attr)
_op.output("image: uint8").set_shape_fn(decode_and_crop_jpeg_shape)

(
    register_op("EncodeJpeg")
    .input("image: uint8")
    .attr("format: {'', 'grayscale', 'rgb'} = ''")
    .attr("quality: int = 95")
    .attr("progressive: bool = false")
    .attr("optimize_size: bool = false")
    .attr("chroma_downsampling: bool = true")
    .attr("density_unit: {'in', 'cm'} = 'in'")
    .attr("x_density: int = 300")
    .attr("y_density: int = 300")
    .attr("xmp_metadata: string = ''")
    .output("contents: string")
    .set_shape_fn(encode_image_shape)
)
(
    register_op("EncodeJpegVariableQuality")
    .input("images: uint8")
    .input("quality: int32")
    .output("contents: string")
    .set_shape_fn(encode_image_shape)
)
(
    register_op("ExtractJpegShape")
    .input("contents: string")
    .output("image_shape: output_type")
    .attr("output_type: {int32, int64} = DT_INT32")
    .set_shape_fn(_scalar_to_vector3)
)
(
    register_op("DecodePng")
    .input("contents: string")
    .attr("channels: int = 0")
    .attr("dtype: {uint8, uint16} = DT_UINT8")
    .output("image: dtype")
    .set_shape_fn(decode_image_shape)
)
(
    register_op("EncodePng")
    .attr("compression: int = -1")
    .attr("T: {uint8, uint16} = DT_UINT8")
    .input("image: T")
    .output("contents: string")
    .set_shape_fn(batched_encode_image_shape)
)
(
    register_op("DecodeBmp")
    .input("contents: string")
    .output("image: uint8")
    .attr("channels: int = 0")
    .set_shape_fn(decode_image_shape)
)
register_op("DecodeGif").input("contents: string").output("image: uint8").set_shape_fn(_scalar_to_gif_frames)
(
    register_op("DecodeImage")
    .input("contents: string")
    .attr("channels: int = 0")
    .attr("dtype: {uint8, uint16, float32} = DT_UINT8")
    .output("image: dtype")
    .attr("expand_animations: bool = true")
    .set_shape_fn(decode_image_v2_shape)
)
(
    register_op("DecodeWebP")
    .input("contents: string")
    .output("image: dtype")
    .attr("channels: int = 0")
    .attr("dtype: {uint8} = DT_UINT8")
    .set_shape_fn(_decode_webp_shape)
)
