"""CPU kernels of the image codec ops, as TensorFlow's DecodeImageV2Op, EncodeJpegOp, EncodePngOp and
ExtractJpegShapeOp behave.

Every decode op looks at the data's magic bytes and decodes JPEG, PNG, GIF, BMP or WebP whatever its name (a PNG
through ``DecodeJpeg`` works, as in TF); only ``DecodeBmp`` and ``DecodeAndCropJpeg`` refuse some other formats. JPEG,
PNG and WebP go through the system's libjpeg(-turbo), libpng and libwebp in ``_image_codecs`` (csrc/image_codecs)
with TF's settings, so pixels and encoded bytes are TF's; GIF through the same module's own reader (giflib's
reading, TF's frame compositing); BMP is read here. Errors carry TF's wording.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework.errors import InternalError, UnimplementedError
from modtensor.kernels.cpu.elementwise import as_numpy_dtype
from modtensor.kernels.cpu.errors import invalid_argument, shape_str

try:
    from modtensor.kernels.cpu import _image_codecs as _codecs
except ImportError:  # built without the libjpeg / libpng headers
    _codecs = None

_JPEG, _PNG, _GIF, _BMP, _WEBP, _JXL, _UNKNOWN = "JPEG", "PNG", "GIF", "BMP", "WebP", "JPEG XL", "UNKNOWN"


def _native() -> Any:
    if _codecs is None:
        raise UnimplementedError(
            None,
            None,
            "modtensor was built without its image codecs (JPEG, PNG, GIF: the libjpeg or libpng headers were missing "
            "at install): install them (Debian: apt-get install libjpeg-dev libpng-dev) and reinstall modtensor",
        )
    return _codecs


def file_format(data: bytes) -> str:
    """The image format its first bytes announce (TF's ClassifyFileFormat)."""
    if data.startswith(b"\xff\xd8\xff"):
        return _JPEG
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return _PNG
    if data.startswith(b"GIF8"):
        return _GIF
    if data.startswith(b"BM"):
        return _BMP
    if data.startswith(b"RIFF") and len(data) > 12 and data[8:12] == b"WEBP":
        return _WEBP
    if data.startswith((b"\xff\x0a", b"\x00\x00\x00\x0cJXL \r\n\x87\n")):  # a JPEG XL codestream or container
        return _JXL
    return _UNKNOWN


def _contents(contents: np.ndarray) -> bytes:
    if contents.ndim != 0:
        raise invalid_argument(f"`contents` must be scalar but got shape{shape_str(contents.shape)}")
    data = contents.item()
    data = data if isinstance(data, bytes) else str(data).encode()
    if not data:
        raise invalid_argument("Input is empty.")
    return data


def _check_channels(channels: int) -> None:
    if channels not in (0, 1, 3, 4):
        raise invalid_argument(f"`channels` must be 0, 1, 3 or 4 but got {channels}")


def _as_dtype(image: np.ndarray, dtype: Any) -> np.ndarray:
    """A uint8 image in the output dtype: uint16 as v * 256 and float32 as v * (1/255), as TF scales."""
    name = np.dtype(as_numpy_dtype(dtype)).name
    if name == "uint16":
        return image.astype(np.uint16) * np.uint16(256)
    if name == "float32":
        return image.astype(np.float32) * np.float32(1.0 / 255)
    return image


def _jpeg_flags(ratio: int, dct_method: Any) -> bool:
    """TF's constructor checks of ``ratio`` and ``dct_method``; True for the accurate (ISLOW) DCT."""
    if ratio not in (1, 2, 4, 8):
        raise invalid_argument(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    method = dct_method.decode() if isinstance(dct_method, bytes) else str(dct_method)
    if method not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
        raise invalid_argument("dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}")
    return method == "INTEGER_ACCURATE"


def _refuse_in_bmp_and_crop_ops(op: str, fmt: str) -> None:
    """TF's errors for a format DecodeBmp or DecodeAndCropJpeg does not take (JPEG is fine for the latter)."""
    if op == "DecodeBmp":
        raise invalid_argument(
            f"Trying to decode {fmt} format using DecodeBmp op. Use `decode_{fmt.lower()}` or `decode_image` instead."
        )
    if op == "DecodeAndCropJpeg" and fmt != _JPEG:
        raise invalid_argument(f"DecodeAndCropJpeg operation can run on JPEG only, but detected {fmt}.")


def _decode_jpeg(data: bytes, op: str, channels: int, dtype: Any, jpeg: dict, window: np.ndarray | None) -> np.ndarray:
    if channels not in (0, 1, 3):
        raise invalid_argument("JPEG does not support 4 channels")
    crop = None
    if op == "DecodeAndCropJpeg":
        if window.ndim != 1:
            raise invalid_argument(f"crop_window must be 1-D, got shape {shape_str(window.shape)}")
        if window.shape[0] != 4:
            raise invalid_argument(f"crop_size must have four elements {shape_str(window.shape)}")
        crop = tuple(int(v) for v in window)
    _refuse_in_bmp_and_crop_ops(op, _JPEG)
    decoded = _native().decode_jpeg(
        data, channels, jpeg["ratio"], jpeg["fancy_upscaling"], jpeg["try_recover_truncated"],
        jpeg["acceptable_fraction"], jpeg["accurate"], crop,
    )  # fmt: skip
    if decoded is None:
        raise invalid_argument("jpeg::Uncompress failed. Invalid JPEG data or crop window.")
    pixels, height, width, got = decoded
    image = np.frombuffer(pixels, np.uint8).reshape(height, width, got)
    if op == "DecodeGif":
        image = image[np.newaxis]
    return _as_dtype(image, dtype)


def _decode_png(data: bytes, op: str, channels: int, dtype: Any) -> np.ndarray:
    name = np.dtype(as_numpy_dtype(dtype)).name
    bits = 8 if name == "uint8" else 16
    result = _native().decode_png(data, channels, bits)
    failed = len(result) == 3  # (error, width, height) rather than (pixels, height, width, channels)
    if failed and result[0] == 1:
        raise invalid_argument("Invalid PNG. Failed to initialize decoder.")
    if failed and result[0] == 2:
        raise invalid_argument(f"PNG size too large for int: {result[1]} by {result[2]}")
    _refuse_in_bmp_and_crop_ops(op, _PNG)
    if failed:
        raise invalid_argument(f"Invalid PNG data, size {len(data)}")
    pixels, height, width, got = result
    image = np.frombuffer(pixels, np.uint8 if bits == 8 else np.uint16).reshape(height, width, got)
    if name == "float32":
        image = image.astype(np.float32) * np.float32(1.0 / 65535)
    return image[np.newaxis] if op == "DecodeGif" else image


_GIF_ALL_FRAMES, _GIF_FIRST_FRAME, _GIF_ONE_FRAME = 0, 1, 2


def _decode_gif(data: bytes, op: str, channels: int, dtype: Any, expand_animations: bool) -> np.ndarray:
    """TF's DecodeGifV2: every frame for DecodeGif and an expanding DecodeImage (4-D), the first for a
    non-expanding DecodeImage, the only one for DecodePng / DecodeJpeg (an animation is an error there)."""
    if channels not in (0, 3):
        raise invalid_argument(f"channels must be 0 or 3 for GIF, got {channels}")
    _refuse_in_bmp_and_crop_ops(op, _GIF)
    frames_4d = op == "DecodeGif" or (op == "DecodeImage" and expand_animations)
    mode = _GIF_ALL_FRAMES if frames_4d else _GIF_FIRST_FRAME if op == "DecodeImage" else _GIF_ONE_FRAME
    result = _native().decode_gif(data, mode)
    if isinstance(result[0], int):
        kind, message = result
        raise invalid_argument(message if kind == 2 else f"Invalid GIF data (size {len(data)}), {message}")
    pixels, frames, height, width = result
    image = np.frombuffer(pixels, np.uint8).reshape(frames, height, width, 3)
    return _as_dtype(image if frames_4d else image[0], dtype)


def _decode_bmp(data: bytes, op: str, channels: int, dtype: Any) -> np.ndarray:
    """TF's DecodeBmpV2: 8-, 24- or 32-bit rows, bottom-up unless the height is negative, BGR(A) to RGB(A)."""
    if channels == 1:
        raise invalid_argument(f"`channels` must be 0, 3 or 4 for BMP, but got {channels}")
    if op not in ("DecodeBmp", "DecodeImage"):
        if op == "DecodeAndCropJpeg":
            raise invalid_argument("DecodeAndCropJpeg operation can run on JPEG only, but detected BMP.")
        raise invalid_argument(
            f"Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` instead. Op used: {op}"
        )
    if len(data) < 32:
        raise invalid_argument(
            "Incomplete bmp content, requires at least 32 bytes to find the header size, width, height, and bpp, "
            f"got {len(data)} bytes"
        )
    header_size = int(np.frombuffer(data, "<i4", 1, 10)[0])
    width = int(np.frombuffer(data, "<i4", 1, 18)[0])
    height = int(np.frombuffer(data, "<i4", 1, 22)[0])
    bpp = int(np.frombuffer(data, "<i2", 1, 28)[0])
    img_channels = int(bpp / 8)  # C++ division truncates toward zero
    if img_channels not in (1, 3, 4):
        raise invalid_argument(f"Number of channels inherent in the image must be 1, 3 or 4, was {img_channels}")
    wanted = channels or img_channels
    if width <= 0:
        raise invalid_argument("Width must be positive")
    if height == 0:
        raise invalid_argument("Height must be nonzero")
    if header_size < 0:
        raise invalid_argument("header size must be nonnegative")
    if width * abs(height) >= (2**31 - 1) // 8:
        raise invalid_argument("Total possible pixel bytes must be less than 2^30")
    rows = abs(height)
    row_size = (img_channels * width + 3) // 4 * 4
    size_diff = len(data) - header_size - row_size * rows
    if size_diff != 0:
        raise invalid_argument(
            f"Input size should match (header_size + row_size * abs_height) but they differ by {size_diff}"
        )
    pixels = np.frombuffer(data, np.uint8, row_size * rows, header_size).reshape(rows, row_size)
    pixels = pixels[:, : width * img_channels].reshape(rows, width, img_channels)
    if height > 0:
        pixels = pixels[::-1]  # stored bottom-up
    out = np.empty((rows, width, wanted), np.uint8)
    if img_channels == 1:
        out[...] = pixels[..., :1]
        if wanted == 4:
            out[..., 3] = 255
    else:
        colour = min(wanted, 3)
        out[..., :colour] = pixels[..., 2::-1][..., :colour]
        if wanted == 4:
            out[..., 3] = pixels[..., 3] if img_channels == 4 else 255
    return _as_dtype(out, dtype)


def _decode_webp(data: bytes, op: str, channels: int, dtype: Any, expand_animations: bool) -> np.ndarray:
    """TF's DecodeWebP (whichever decode op met the data): frames first (``[1, h, w, c]`` for a still) unless
    DecodeImage's ``expand_animations`` is off, uint8 only, the file's own channels (3, or 4 with alpha).

    An animation without alpha comes out as its RGB frames, where TF 2.21 writes RGBA past a 3-channel buffer.
    """
    if channels not in (0, 3, 4):
        raise invalid_argument("WebP only supports 3 or 4 channels")
    if np.dtype(as_numpy_dtype(dtype)) != np.uint8:
        raise invalid_argument("WebP only supports uint8 for dtype")
    codecs = _native()
    if not codecs.webp_available():
        raise UnimplementedError(
            None,
            None,
            f"{op}: modtensor was built without libwebp, so it cannot decode WebP images: install it (Debian: apt-get "
            "install libwebp-dev) and reinstall modtensor",
        )
    info = codecs.webp_info(data)
    if info is None:
        raise invalid_argument("Failed to decode WebP header.")
    height, width, found, animated = info
    if channels not in (0, found):
        raise invalid_argument("Number of channels requested does not match input")
    if not animated:
        pixels = codecs.webp_decode(data, height, width, found)
        if pixels is None:
            raise invalid_argument("Failed to decode WebP image.")
        image = np.frombuffer(pixels, np.uint8).reshape(height, width, found)
        return image[np.newaxis] if expand_animations else image
    if channels not in (0, 4):
        raise invalid_argument("WebP Animation must be 4 channel RGBA")
    result = codecs.webp_decode_animation(data, expand_animations, found)
    if isinstance(result, str):
        raise invalid_argument(f"Failed to decode WebP Animation: {result}")
    pixels, frames, height, width = result
    image = np.frombuffer(pixels, np.uint8).reshape(frames, height, width, found)
    return image if expand_animations else image[0]


def _decode(op: str, contents: np.ndarray, channels: int, dtype: Any, jpeg: dict | None = None,
            window: np.ndarray | None = None, expand_animations: bool = True) -> np.ndarray:  # fmt: skip
    data = _contents(contents)
    fmt = file_format(data)
    if fmt == _JPEG:  # ops without JPEG attrs decode with TF's defaults
        jpeg = jpeg or _jpeg_attrs(1, True, False, 1.0, "")
        return _decode_jpeg(data, op, channels, dtype, jpeg, window)
    if fmt == _PNG:
        return _decode_png(data, op, channels, dtype)
    if fmt == _GIF:
        return _decode_gif(data, op, channels, dtype, expand_animations)
    if fmt == _BMP:
        return _decode_bmp(data, op, channels, dtype)
    if fmt == _WEBP:
        return _decode_webp(data, op, channels, dtype, expand_animations)
    if fmt == _JXL:
        raise UnimplementedError(None, None, f"{op}: modtensor cannot decode JPEG XL images (TF does, with libjxl)")
    raise invalid_argument("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.")


def _jpeg_attrs(ratio: int, fancy_upscaling: bool, try_recover_truncated: bool, acceptable_fraction: float,
                dct_method: Any) -> dict:  # fmt: skip
    accurate = _jpeg_flags(int(ratio), dct_method)
    return {"ratio": int(ratio), "fancy_upscaling": bool(fancy_upscaling),
            "try_recover_truncated": bool(try_recover_truncated),
            "acceptable_fraction": float(acceptable_fraction), "accurate": accurate}  # fmt: skip


def decode_jpeg(contents: np.ndarray, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1.0,
                dct_method: Any = "") -> np.ndarray:  # fmt: skip
    """DecodeJpeg: ``[h, w, c]`` uint8 (also decodes PNG and single-frame GIF data)."""
    _check_channels(int(channels))
    jpeg = _jpeg_attrs(ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method)
    return _decode("DecodeJpeg", contents, int(channels), np.uint8, jpeg)


def decode_and_crop_jpeg(contents: np.ndarray, crop_window: np.ndarray, channels: int = 0, ratio: int = 1,
                         fancy_upscaling: bool = True, try_recover_truncated: bool = False,
                         acceptable_fraction: float = 1.0, dct_method: Any = "") -> np.ndarray:  # fmt: skip
    """DecodeAndCropJpeg: the window ``[y, x, height, width]`` of a JPEG, decoded without the rest of the rows."""
    _check_channels(int(channels))
    jpeg = _jpeg_attrs(ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method)
    return _decode("DecodeAndCropJpeg", contents, int(channels), np.uint8, jpeg, np.asarray(crop_window))


def decode_png(contents: np.ndarray, channels: int = 0, dtype: Any = np.uint8) -> np.ndarray:
    """DecodePng: ``[h, w, c]`` uint8 or uint16 (8-bit samples widened as v * 257, 16-bit cut to the high byte)."""
    _check_channels(int(channels))
    return _decode("DecodePng", contents, int(channels), dtype)


def decode_bmp(contents: np.ndarray, channels: int = 0) -> np.ndarray:
    """DecodeBmp: ``[h, w, c]`` uint8 of a BMP (BMP data only)."""
    _check_channels(int(channels))
    return _decode("DecodeBmp", contents, int(channels), np.uint8)


def decode_gif(contents: np.ndarray) -> np.ndarray:
    """DecodeGif: ``[frames, h, w, 3]`` uint8 (JPEG and PNG data give one RGB frame: the op has no channels)."""
    return _decode("DecodeGif", contents, 3, np.uint8)


def decode_image(contents: np.ndarray, channels: int = 0, dtype: Any = np.uint8,
                 expand_animations: bool = True) -> np.ndarray:  # fmt: skip
    """DecodeImage: any supported format, ``[h, w, c]`` (GIF frames ``[n, h, w, c]`` with ``expand_animations``)."""
    _check_channels(int(channels))
    return _decode("DecodeImage", contents, int(channels), dtype, expand_animations=bool(expand_animations))


def decode_webp(contents: np.ndarray, channels: int = 0, dtype: Any = np.uint8) -> np.ndarray:
    """DecodeWebP: ``[frames, h, w, c]`` uint8 (also decodes JPEG, PNG, GIF and BMP data, as TF's kernel)."""
    _check_channels(int(channels))
    return _decode("DecodeWebP", contents, int(channels), dtype)


def _encode_jpeg_image(image: np.ndarray) -> tuple[int, int, int]:
    if image.ndim != 3:
        raise invalid_argument(f"image must be 3-dimensional{shape_str(image.shape)}")
    if image.size >= 2**31 - 1:
        raise invalid_argument("Cannot encode images with >= max int32 elements")
    return image.shape  # type: ignore[return-value]


def _jpeg_bytes(image: np.ndarray, channels: int, quality: int, progressive: bool = False,
                optimize_size: bool = False, chroma_downsampling: bool = True, density_unit: int = 1,
                x_density: int = 300, y_density: int = 300, xmp: bytes = b"") -> np.ndarray:  # fmt: skip
    height, width, _ = image.shape
    stream = _native().encode_jpeg(
        np.ascontiguousarray(image, np.uint8), height, width, channels, quality, progressive, optimize_size,
        chroma_downsampling, density_unit, x_density, y_density, xmp,
    )  # fmt: skip
    if stream is None:
        raise InternalError(None, None, "JPEG encoding failed")
    out = np.empty((), dtype=object)
    out[()] = stream
    return out


def encode_jpeg(image: np.ndarray, format: Any = "", quality: int = 95, progressive: bool = False,  # noqa: A002
                optimize_size: bool = False, chroma_downsampling: bool = True, density_unit: Any = "in",
                x_density: int = 300, y_density: int = 300, xmp_metadata: Any = "") -> np.ndarray:  # fmt: skip
    """EncodeJpeg: a scalar string, the JPEG stream of a ``[h, w, 1 or 3]`` uint8 image."""
    fmt = format.decode() if isinstance(format, bytes) else str(format)
    if fmt not in ("", "grayscale", "rgb"):
        raise invalid_argument(f"format must be '', grayscale or rgb, got {fmt}")
    if not 0 <= int(quality) <= 100:
        raise invalid_argument(f"quality must be in [0,100], got {int(quality)}")
    unit = density_unit.decode() if isinstance(density_unit, bytes) else str(density_unit)
    if unit not in ("in", "cm"):
        raise invalid_argument(f"density_unit must be 'in' or 'cm'{unit}")
    height, width, depth = _encode_jpeg_image(image)
    if fmt == "":
        if depth not in (1, 3):
            raise invalid_argument(f"image must have 1 or 3 channels, got {shape_str(image.shape)}")
        channels = depth
    else:
        channels = 1 if fmt == "grayscale" else 3
        if channels != depth:
            raise invalid_argument(f"format {fmt} expects {channels} channels, got {shape_str(image.shape)}")
    xmp = xmp_metadata if isinstance(xmp_metadata, bytes) else str(xmp_metadata).encode()
    return _jpeg_bytes(image, channels, int(quality), bool(progressive), bool(optimize_size),
                       bool(chroma_downsampling), 1 if unit == "in" else 2, int(x_density), int(y_density),
                       xmp)  # fmt: skip


def encode_jpeg_variable_quality(images: np.ndarray, quality: np.ndarray) -> np.ndarray:
    """EncodeJpegVariableQuality: EncodeJpeg's defaults with the quality given as a scalar tensor."""
    _, _, depth = _encode_jpeg_image(images)
    quality = np.asarray(quality)
    if quality.ndim != 0:
        raise invalid_argument(f"quality must be scalar: {shape_str(quality.shape)}")
    if not 0 <= int(quality) <= 100:
        raise invalid_argument(f"quality must be in [0,100], got {int(quality)}")
    if depth not in (1, 3):
        raise invalid_argument(f"image must have 1 or 3 channels, got {shape_str(images.shape)}")
    return _jpeg_bytes(images, depth, int(quality))


def extract_jpeg_shape(contents: np.ndarray, output_type: Any = np.int32) -> np.ndarray:
    """ExtractJpegShape: ``[height, width, channels]`` from the JPEG header, without decoding the pixels."""
    if contents.ndim != 0:
        raise invalid_argument(f"contents must be scalar, got shape {shape_str(contents.shape)}")
    data = contents.item()
    data = data if isinstance(data, bytes) else str(data).encode()
    shape = _native().jpeg_shape(data)
    if shape is None:
        raise invalid_argument(f"Invalid JPEG data, size {len(data)}")
    return np.asarray(shape, dtype=as_numpy_dtype(output_type))


def encode_png(image: np.ndarray, compression: int = -1) -> np.ndarray:
    """EncodePng: the PNG streams of ``[..., h, w, c]`` uint8 or uint16 images (one string per leading index)."""
    compression = int(compression)
    if not -1 <= compression <= 9:
        raise invalid_argument(f"compression should be in [-1,9], got {compression}")
    if image.ndim < 3:
        raise invalid_argument(f"images must be at least rank 3{shape_str(image.shape)}")
    if image.size >= 2**31 - 1:
        raise invalid_argument("image cannot have >= int32 max elements")
    height, width, channels = image.shape[-3:]
    if width * channels >= (2**31 - 1) // 2:
        raise invalid_argument("image too wide to encode")
    if not 1 <= channels <= 4:
        raise invalid_argument(f"image must have 1, 2, 3, or 4 channels, got {channels}")
    bits = 8 if image.dtype == np.uint8 else 16
    batch = image.shape[:-3]
    flat = np.ascontiguousarray(image).reshape(-1, height, width, channels)
    codecs = _native()
    streams, bad = [], []
    for i, one in enumerate(flat):
        stream = codecs.encode_png(one, height, width, channels, bits, compression)
        if stream is None:
            bad.append(str(i))
        streams.append(stream)
    if bad:
        indices = ", ".join(bad)
        raise InternalError(None, None, f"PNG encoding failed at the following flattened batch indices: {indices}")
    out = np.empty(len(streams), dtype=object)
    out[:] = streams
    return out.reshape(batch)


OP_FUNCTIONS: dict[str, Any] = {
    "DecodeJpeg": decode_jpeg,
    "DecodeAndCropJpeg": decode_and_crop_jpeg,
    "DecodePng": decode_png,
    "DecodeBmp": decode_bmp,
    "DecodeGif": decode_gif,
    "DecodeImage": decode_image,
    "DecodeWebP": decode_webp,
    "EncodeJpeg": encode_jpeg,
    "EncodeJpegVariableQuality": encode_jpeg_variable_quality,
    "ExtractJpegShape": extract_jpeg_shape,
    "EncodePng": encode_png,
}
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {"ExtractJpegShape": {"output_type": "int32 int64"}}
