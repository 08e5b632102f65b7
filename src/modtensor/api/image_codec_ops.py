"""``tf.io`` / ``tf.image``'s image codecs: decode_jpeg/png/bmp/gif/image, decode_and_crop_jpeg, encode_jpeg/png,
extract_jpeg_shape, is_jpeg, and the JPEG-quality augmentations adjust_jpeg_quality, random_jpeg_quality and
stateless_random_jpeg_quality.

The op wrappers take TF's arguments and build TF's nodes; decode_image, is_jpeg and the augmentations are composed
as TF 2.21 composes them (decode_image decodes other dtypes as uint16 and converts; the augmentations round-trip
through EncodeJpegVariableQuality and DecodeJpeg as uint8).
"""

from __future__ import annotations

from typing import Any

from modtensor.api import math_ops as math
from modtensor.api import random_ops, stateless_random_ops, string_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.image_color_ops import convert_image_dtype
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = [
    "adjust_jpeg_quality",
    "decode_and_crop_jpeg",
    "decode_bmp",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "decode_webp",
    "encode_jpeg",
    "encode_png",
    "extract_jpeg_shape",
    "is_jpeg",
    "random_jpeg_quality",
    "stateless_random_jpeg_quality",
]


def decode_jpeg(contents: Any, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1, dct_method: str = "",
                name: str | None = None) -> Tensor:  # fmt: skip
    """A JPEG (or PNG, or one-frame GIF) as a ``[height, width, channels]`` uint8 tensor (``DecodeJpeg``).

    ``ratio`` (1, 2, 4, 8) scales the image down while decoding; ``dct_method`` "INTEGER_ACCURATE" trades speed for
    accuracy (the default is TF's "INTEGER_FAST").
    """
    return apply_op("DecodeJpeg", name=name, contents=contents, channels=channels, ratio=ratio,
                    fancy_upscaling=fancy_upscaling, try_recover_truncated=try_recover_truncated,
                    acceptable_fraction=acceptable_fraction, dct_method=dct_method)  # fmt: skip


def decode_and_crop_jpeg(contents: Any, crop_window: Any, channels: int = 0, ratio: int = 1,
                         fancy_upscaling: bool = True, try_recover_truncated: bool = False,
                         acceptable_fraction: float = 1, dct_method: str = "",
                         name: str | None = None) -> Tensor:  # fmt: skip
    """The ``crop_window`` ``[y, x, height, width]`` of a JPEG, decoding only the rows it needs
    (``DecodeAndCropJpeg``)."""
    return apply_op("DecodeAndCropJpeg", name=name, contents=contents, crop_window=crop_window, channels=channels,
                    ratio=ratio, fancy_upscaling=fancy_upscaling, try_recover_truncated=try_recover_truncated,
                    acceptable_fraction=acceptable_fraction, dct_method=dct_method)  # fmt: skip


def decode_png(contents: Any, channels: int = 0, dtype: Any = dtypes.uint8, name: str | None = None) -> Tensor:
    """A PNG (or JPEG, or one-frame GIF) as ``[height, width, channels]`` uint8 or uint16 (``DecodePng``)."""
    return apply_op("DecodePng", name=name, contents=contents, channels=channels, dtype=dtypes.as_dtype(dtype))


def decode_bmp(contents: Any, channels: int = 0, name: str | None = None) -> Tensor:
    """A BMP as ``[height, width, channels]`` uint8 (``DecodeBmp``)."""
    return apply_op("DecodeBmp", name=name, contents=contents, channels=channels)


def decode_gif(contents: Any, name: str | None = None) -> Tensor:
    """A GIF's frames as ``[frames, height, width, 3]`` uint8 (``DecodeGif``; JPEG and PNG data give one frame)."""
    return apply_op("DecodeGif", name=name, contents=contents)


def decode_webp(contents: Any, channels: int = 0, dtype: Any = dtypes.uint8, name: str | None = None) -> Tensor:
    """A WebP image or animation as ``[frames, height, width, channels]`` uint8 (``DecodeWebP``; 3 channels, or 4
    with alpha; animations are RGBA)."""
    return apply_op("DecodeWebP", name=name, contents=contents, channels=channels, dtype=dtypes.as_dtype(dtype))


def decode_image(contents: Any, channels: int | None = None, dtype: Any = dtypes.uint8, name: str | None = None,
                 expand_animations: bool = True) -> Tensor:  # fmt: skip
    """Any supported image (``DecodeImage``): ``[height, width, channels]``, a GIF's frames ``[n, h, w, c]`` with
    ``expand_animations``. A ``dtype`` other than uint8, uint16 and float32 is decoded as uint16 and converted
    with :func:`convert_image_dtype`."""
    with op_scope(name, "decode_image"):
        channels = 0 if channels is None else channels
        wanted = dtypes.as_dtype(dtype)
        decoded_as = wanted if wanted in (dtypes.float32, dtypes.uint8, dtypes.uint16) else dtypes.uint16
        image = apply_op("DecodeImage", contents=contents, channels=channels, expand_animations=expand_animations,
                         dtype=decoded_as)  # fmt: skip
        if decoded_as != wanted:
            image = convert_image_dtype(image, wanted)
        if not expand_animations:
            image.set_shape([None, None, channels if channels != 0 else None])
        return image


def encode_jpeg(image: Any, format: str = "", quality: int = 95, progressive: bool = False,  # noqa: A002
                optimize_size: bool = False, chroma_downsampling: bool = True, density_unit: str = "in",
                x_density: int = 300, y_density: int = 300, xmp_metadata: str = "",
                name: str | None = None) -> Tensor:  # fmt: skip
    """A ``[height, width, 1 or 3]`` uint8 image as a JPEG string (``EncodeJpeg``), the bytes TF writes."""
    return apply_op("EncodeJpeg", name=name, image=image, format=format, quality=quality, progressive=progressive,
                    optimize_size=optimize_size, chroma_downsampling=chroma_downsampling,
                    density_unit=density_unit, x_density=x_density, y_density=y_density,
                    xmp_metadata=xmp_metadata)  # fmt: skip


def encode_png(image: Any, compression: int = -1, name: str | None = None) -> Tensor:
    """``[..., height, width, channels]`` uint8 or uint16 images as PNG strings (``EncodePng``), the bytes TF
    writes; ``compression`` is zlib's level (-1: its default)."""
    return apply_op("EncodePng", name=name, image=convert_to_tensor(image), compression=compression)


def extract_jpeg_shape(contents: Any, output_type: Any = dtypes.int32, name: str | None = None) -> Tensor:
    """``[height, width, channels]`` of a JPEG from its header alone (``ExtractJpegShape``)."""
    return apply_op("ExtractJpegShape", name=name, contents=contents, output_type=dtypes.as_dtype(output_type))


def is_jpeg(contents: Any, name: str | None = None) -> Tensor:
    """Whether ``contents`` starts as a JPEG does (``\\xff\\xd8\\xff``); other data may start so too."""
    with op_scope(name, "is_jpeg"):
        substr = string_ops.substr(contents, 0, 3)
        return math.equal(substr, b"\xff\xd8\xff", name=name)


def adjust_jpeg_quality(image: Any, jpeg_quality: Any, dct_method: str = "", name: str | None = None) -> Tensor:
    """``image`` (3-D, 1 or 3 channels) encoded as a JPEG at ``jpeg_quality`` and decoded again, in its dtype."""
    with op_scope(name, "adjust_jpeg_quality", [image]):
        image = convert_to_tensor(image, name="image")
        channels = image.shape.as_list()[-1] if image.shape.rank else None
        original = image.dtype
        image = convert_image_dtype(image, dtypes.uint8, saturate=True)
        from modtensor.api.variables import Variable  # here: variables load on first use (modtensor._LAZY)

        if not isinstance(jpeg_quality, (Tensor, Variable)):
            jpeg_quality = convert_to_tensor(jpeg_quality, dtype=dtypes.int32)
        image = apply_op("EncodeJpegVariableQuality", images=image, quality=jpeg_quality)
        image = apply_op("DecodeJpeg", contents=image, channels=channels or 0, dct_method=dct_method)
        return convert_image_dtype(image, original, saturate=True)


def _check_quality_range(min_jpeg_quality: int, max_jpeg_quality: int) -> None:
    if min(min_jpeg_quality, max_jpeg_quality) < 0 or max(min_jpeg_quality, max_jpeg_quality) > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


def random_jpeg_quality(image: Any, min_jpeg_quality: int, max_jpeg_quality: int, seed: int | None = None) -> Tensor:
    """:func:`adjust_jpeg_quality` at a quality drawn uniformly from ``[min_jpeg_quality, max_jpeg_quality)``."""
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    quality = random_ops.uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=dtypes.int32)
    return adjust_jpeg_quality(image, quality)


def stateless_random_jpeg_quality(image: Any, min_jpeg_quality: int, max_jpeg_quality: int, seed: Any) -> Tensor:
    """:func:`adjust_jpeg_quality` at a quality drawn from ``[min_jpeg_quality, max_jpeg_quality)`` with the
    stateless ``seed`` (a shape-[2] int32/int64 tensor)."""
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    quality = stateless_random_ops.stateless_uniform(
        shape=[], minval=min_jpeg_quality, maxval=max_jpeg_quality, seed=seed, dtype=dtypes.int32
    )
    return adjust_jpeg_quality(image, quality)
