"""Record what TensorFlow's image codecs build and compute, for modtensor's codec tests.

    /work/tfvenv/bin/python tools/make_golden_image_codecs.py

Writes ``tests/golden/image_codecs/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets of ``tf.io`` /
``tf.image``'s decode_*, encode_*, is_jpeg, extract_jpeg_shape, decode_and_crop_jpeg and the JPEG-quality
augmentations, in the format of ``tools/make_golden_frontend_ops.py``, ids ``codec_...``, read by
``tests/api/test_image_codecs_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py`` writes
(OpDefs, CPU kernel constraints, shape and kernel cases) for the codec ops. The kernel cases decode streams TF
encoded (baseline, progressive, grayscale, 4:4:4, optimized, odd sizes), PNGs written here byte by byte (palettes
with and without transparency, 1-, 4- and 16-bit grey, 16-bit colour, Adam7 interlacing, grey with tRNS), GIFs
(single frames and animations with local palettes, transparency, offset, small and interlaced frames, LZW written
here), BMPs (8-, 24- and 32-bit, bottom-up and top-down) and WebPs (stills and animations written by Pillow's
libwebp: ``/work/tfvenv/bin/pip install pillow`` first; TF writes no WebP), at every channel count, ratio, crop
window and dtype TF takes, and TF's errors for bad data. Inputs end in a non-zero byte: npz keeps strings as
fixed-width bytes, which drop trailing NULs. ``opaque_animation.webp`` (a WebP animation without alpha, which TF
2.21 cannot decode safely) is written beside them for tests/api/test_image_codecs.py.
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_breadth  # noqa: E402, F401  (its scalar-bytes encoding of eager values)
import make_golden_frontend_ops as base  # noqa: E402
import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "image_codecs"

OPS = ["DecodeAndCropJpeg", "DecodeBmp", "DecodeGif", "DecodeImage", "DecodeJpeg", "DecodePng", "DecodeWebP",
       "EncodeJpeg", "EncodeJpegVariableQuality", "EncodePng", "ExtractJpegShape"]  # fmt: skip

# Snippet images: a [16, 24, 3] uint8 ramp, a [13, 21, 1] grey one (odd sizes: partial MCUs), a float RGB image.
RGB = "tf.cast(tf.reshape(tf.range(16 * 24 * 3) * 5 % 256, [16, 24, 3]), tf.uint8)"
GREY = "tf.cast(tf.reshape(tf.range(13 * 21) * 3 % 256, [13, 21, 1]), tf.uint8)"
RGB16 = "tf.cast(tf.reshape(tf.range(5 * 6 * 3) * 701 % 65536, [5, 6, 3]), tf.uint16)"
FLOAT = "tf.reshape(tf.range(8 * 8 * 3, dtype=np.float32) / 192.0, [8, 8, 3])"
JPEG = f"tf.io.encode_jpeg({RGB})"
PNG = f"tf.io.encode_png({RGB})"
# A lossless [3, 4, 4] RGBA WebP (Pillow's libwebp): no TF op writes WebP.
WEBP = (
    "tf.constant(b'RIFFV\\x00\\x00\\x00WEBPVP8LJ\\x00\\x00\\x00/\\x03\\x80\\x00\\x10O`\\xa6m\\xdb`"
    '\\x01\\x14\\x9c\\xcf\\x9e\\x9b\\x9aFR\\xe0 \\x02\\x90\\xf6MI\\x89\\x99\\xb6m\\n\\xa0\\xe0|'
    '\\xf6\\x1c\\x8a\\xe1\\x17\\x08$\\xa1m\\xb6z$\\xe2\\xeb\\x83\\xfb\\xb3[\\x00\\xcd\\x0e\\x00'
    "\\x82\\x00\\xd2\\xa8B\\x08!l\\xb1\\xc2\\nG\\xf4?\\x9aq\\x01')"
)

CASES: list[tuple[str, str, str]] = [
    ("codec_encode_decode_jpeg", f"tf.io.decode_jpeg({JPEG})", "ge"),
    ("codec_decode_jpeg_attrs",
     f"tf.io.decode_jpeg({JPEG}, channels=1, ratio=2, fancy_upscaling=False, dct_method='INTEGER_ACCURATE')", "ge"),
    ("codec_decode_jpeg_image_namespace", f"tf.image.decode_jpeg({JPEG}, channels=3, name='dj')", "ge"),
    ("codec_decode_jpeg_ph", "tf.io.decode_jpeg(ph(tf.string, []), channels=3)", "g"),
    ("codec_decode_jpeg_ph_bad_rank", "tf.io.decode_jpeg(ph(tf.string, [2]))", "g"),
    ("codec_decode_jpeg_of_png", f"tf.io.decode_jpeg({PNG})", "e"),
    ("codec_decode_jpeg_bad_data", "tf.io.decode_jpeg(tf.constant(b'\\xff\\xd8\\xff\\xe0 not a jpeg'))", "e"),
    ("codec_decode_jpeg_bad_channels", f"tf.io.decode_jpeg({JPEG}, channels=2)", "e"),
    ("codec_encode_jpeg_grey", f"tf.io.encode_jpeg({GREY}, quality=70)", "g"),
    ("codec_encode_jpeg_grey_length", f"tf.strings.length(tf.io.encode_jpeg({GREY}, quality=70))", "e"),
    ("codec_encode_jpeg_attrs",
     f"tf.io.encode_jpeg({RGB}, format='rgb', quality=80, progressive=True, optimize_size=True, "
     "chroma_downsampling=False, density_unit='cm', x_density=72, y_density=96, xmp_metadata='<x/>')", "g"),
    ("codec_encode_jpeg_attrs_round_trip",
     f"tf.io.decode_jpeg(tf.io.encode_jpeg({RGB}, format='rgb', quality=80, progressive=True, optimize_size=True, "
     "chroma_downsampling=False, density_unit='cm', x_density=72, y_density=96, xmp_metadata='<x/>'))", "e"),
    ("codec_encode_jpeg_image_namespace", f"tf.image.encode_jpeg({RGB}, name='ej')", "g"),
    ("codec_encode_jpeg_bad_channels", "tf.io.encode_jpeg(tf.zeros([4, 4, 2], tf.uint8))", "e"),
    ("codec_encode_jpeg_float", f"tf.io.encode_jpeg({FLOAT})", "ge"),
    ("codec_encode_png", f"tf.io.encode_png({RGB})", "g"),
    ("codec_encode_png_length", f"tf.strings.length(tf.io.encode_png({RGB}))", "e"),
    ("codec_encode_png_16", f"tf.io.encode_png({RGB16}, compression=9)", "g"),
    ("codec_encode_png_16_length", f"tf.strings.length(tf.io.encode_png({RGB16}, compression=9))", "e"),
    ("codec_encode_png_batch", f"tf.image.encode_png(tf.stack([{RGB}, {RGB}]), name='ep')", "g"),
    ("codec_encode_png_batch_length", f"tf.strings.length(tf.image.encode_png(tf.stack([{RGB}, 255 - {RGB}])))",
     "e"),
    ("codec_encode_png_list", "tf.io.decode_png(tf.io.encode_png([[[1, 2, 3]], [[4, 5, 6]]]))", "e"),
    ("codec_encode_png_int32", "tf.io.encode_png(tf.ones([2, 2, 3], tf.int32))", "ge"),
    ("codec_decode_png", f"tf.io.decode_png({PNG})", "ge"),
    ("codec_decode_png_16", f"tf.io.decode_png(tf.io.encode_png({RGB16}), dtype=np.uint16)", "ge"),
    ("codec_decode_png_widened", f"tf.io.decode_png({PNG}, channels=4, dtype=np.uint16)", "e"),
    ("codec_decode_png_grey", f"tf.image.decode_png({PNG}, channels=1)", "ge"),
    ("codec_decode_png_bad", "tf.io.decode_png(tf.constant(b'\\x89PNG\\r\\n\\x1a\\n broken'))", "e"),
    ("codec_decode_png_ph", "tf.io.decode_png(ph(tf.string, None), channels=4, dtype=np.uint16)", "g"),
    ("codec_decode_image_jpeg", f"tf.io.decode_image({JPEG})", "ge"),
    ("codec_decode_image_png_float", f"tf.io.decode_image({PNG}, dtype=np.float32)", "ge"),
    ("codec_decode_image_jpeg_float", f"tf.image.decode_image({JPEG}, channels=3, dtype=np.float32)", "ge"),
    ("codec_decode_image_uint16", f"tf.io.decode_image({JPEG}, dtype=np.uint16)", "e"),
    ("codec_decode_image_half", f"tf.io.decode_image({PNG}, dtype=tf.float16, name='di')", "ge"),
    ("codec_decode_image_int32", f"tf.io.decode_image({JPEG}, dtype=tf.int32)", "ge"),
    ("codec_decode_image_no_expand", f"tf.io.decode_image({PNG}, channels=3, expand_animations=False)", "ge"),
    ("codec_decode_image_ph", "tf.io.decode_image(ph(tf.string, []), channels=1)", "g"),
    ("codec_decode_image_unknown", "tf.io.decode_image(tf.constant(b'hello, image'))", "e"),
    ("codec_decode_image_empty", "tf.io.decode_image(tf.constant(b''))", "e"),
    ("codec_decode_image_not_scalar", f"tf.io.decode_image(tf.stack([{JPEG}, {JPEG}]))", "e"),
    ("codec_decode_gif_of_jpeg", f"tf.io.decode_gif({JPEG})", "ge"),
    ("codec_decode_webp", f"tf.io.decode_webp({WEBP})", "ge"),
    ("codec_decode_webp_image_namespace", f"tf.image.decode_webp({WEBP}, channels=4, name='dw')", "ge"),
    ("codec_decode_webp_ph", "tf.io.decode_webp(ph(tf.string, []), channels=3)", "g"),
    ("codec_decode_webp_channels", f"tf.io.decode_webp({WEBP}, channels=3)", "e"),
    ("codec_decode_image_webp", f"tf.io.decode_image({WEBP}, expand_animations=False)", "ge"),
    ("codec_decode_image_webp_float", f"tf.io.decode_image({WEBP}, dtype=tf.float32)", "e"),
    ("codec_decode_bmp_of_png", f"tf.io.decode_bmp({PNG})", "e"),
    ("codec_is_jpeg", f"tf.io.is_jpeg({JPEG})", "ge"),
    ("codec_is_jpeg_png", f"tf.image.is_jpeg({PNG}, name='isj')", "ge"),
    ("codec_extract_jpeg_shape", f"tf.io.extract_jpeg_shape({JPEG})", "ge"),
    ("codec_extract_jpeg_shape_int64", f"tf.image.extract_jpeg_shape(tf.io.encode_jpeg({GREY}), tf.int64)", "ge"),
    ("codec_extract_jpeg_shape_bad", "tf.io.extract_jpeg_shape(tf.constant(b'no'))", "e"),
    ("codec_decode_and_crop_jpeg", f"tf.io.decode_and_crop_jpeg({JPEG}, [2, 3, 9, 11])", "ge"),
    ("codec_decode_and_crop_jpeg_ph_window",
     f"tf.image.decode_and_crop_jpeg({JPEG}, ph(tf.int32, [4]), channels=1)", "g"),
    ("codec_decode_and_crop_jpeg_bad_window", f"tf.io.decode_and_crop_jpeg({JPEG}, [10, 0, 9, 11])", "e"),
    ("codec_adjust_jpeg_quality", f"tf.image.adjust_jpeg_quality({FLOAT}, 50)", "ge"),
    ("codec_adjust_jpeg_quality_uint8", f"tf.image.adjust_jpeg_quality({RGB}, tf.constant(20))", "ge"),
    ("codec_adjust_jpeg_quality_accurate",
     f"tf.image.adjust_jpeg_quality({RGB}, 35, dct_method='INTEGER_ACCURATE', name='aq')", "e"),
    ("codec_adjust_jpeg_quality_grey", f"tf.image.adjust_jpeg_quality({GREY}, 90)", "e"),
    ("codec_adjust_jpeg_quality_bad_channels", "tf.image.adjust_jpeg_quality(tf.zeros([4, 4, 2]), 50)", "ge"),
    ("codec_random_jpeg_quality", f"tf.image.random_jpeg_quality({FLOAT}, 20, 80, seed=3)", "g"),
    ("codec_random_jpeg_quality_bad_range", f"tf.image.random_jpeg_quality({FLOAT}, 80, 20)", "ge"),
    ("codec_random_jpeg_quality_too_high", f"tf.image.random_jpeg_quality({FLOAT}, 20, 101)", "ge"),
    ("codec_stateless_random_jpeg_quality",
     f"tf.image.stateless_random_jpeg_quality({FLOAT}, 20, 80, seed=(1, 2))", "ge"),
    ("codec_stateless_random_jpeg_quality_seed2",
     f"tf.image.stateless_random_jpeg_quality({RGB}, 5, 95, seed=(7, 3))", "e"),
    ("codec_stateless_random_jpeg_quality_bad",
     f"tf.image.stateless_random_jpeg_quality({FLOAT}, -1, 80, seed=(1, 2))", "ge"),
]  # fmt: skip


# --------------------------------------------------------------------------- test streams written here


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _pack_row(row: np.ndarray, depth: int) -> bytes:
    """One scanline's samples at ``depth`` bits, big-endian, as PNG stores them."""
    if depth == 16:
        return row.astype(">u2").tobytes()
    if depth == 8:
        return row.astype(np.uint8).tobytes()
    bits = np.unpackbits(row.astype(np.uint8).reshape(-1, 1), axis=1)[:, 8 - depth :].reshape(-1)
    return np.packbits(bits).tobytes()


_ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png_bytes(samples: np.ndarray, color_type: int, depth: int, plte: bytes = b"", trns: bytes = b"",
              interlace: bool = False) -> bytes:  # fmt: skip
    """A PNG of ``samples`` ([h, w, samples per pixel]) with filter type 0 rows (Adam7 passes when interlaced)."""
    h, w = samples.shape[:2]
    raw = b""
    passes = _ADAM7 if interlace else [(0, 0, 1, 1)]
    for x0, y0, dx, dy in passes:
        sub = samples[y0::dy, x0::dx]
        if sub.size == 0:
            continue
        for row in sub:
            raw += b"\x00" + _pack_row(row.reshape(-1), depth)
    header = struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 1 if interlace else 0)
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
    if plte:
        out += _chunk(b"PLTE", plte)
    if trns:
        out += _chunk(b"tRNS", trns)
    return out + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")


def bmp_bytes(pixels: np.ndarray, top_down: bool = False) -> bytes:
    """A BMP (BITMAPINFOHEADER, no palette) of [h, w, 1, 3 or 4] uint8 samples, rows padded to 4 bytes."""
    h, w, c = pixels.shape
    row_size = (w * c + 3) // 4 * 4
    rows = pixels if top_down else pixels[::-1]
    body = b"".join(r.tobytes() + b"\x00" * (row_size - w * c) for r in rows)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, 8 * c, 0, len(body), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + len(body), 0, 0, 54) + info + body


def _lzw(indices: np.ndarray, min_size: int) -> bytes:
    """GIF's LZW of the colour indices: codes LSB first in 255-byte sub-blocks, a clear code at the start and
    whenever the 4096-entry table fills."""
    clear, end = 1 << min_size, (1 << min_size) + 1
    codes: list[tuple[int, int]] = []
    size, table, nxt = min_size + 1, {(i,): i for i in range(clear)}, clear + 2
    codes.append((clear, size))
    current: tuple[int, ...] = ()
    for value in indices.reshape(-1).tolist():
        candidate = (*current, value)
        if candidate in table:
            current = candidate
            continue
        codes.append((table[current], size))
        if nxt < 4096:
            table[candidate] = nxt
            nxt += 1
            if nxt > (1 << size) and size < 12:
                size += 1
        else:
            codes.append((clear, size))
            size, table, nxt = min_size + 1, {(i,): i for i in range(clear)}, clear + 2
        current = (value,)
    if current:
        codes.append((table[current], size))
    codes.append((end, size))
    bits = nbits = 0
    out = bytearray()
    for code, width in codes:
        bits |= code << nbits
        nbits += width
        while nbits >= 8:
            out.append(bits & 0xFF)
            bits >>= 8
            nbits -= 8
    if nbits:
        out.append(bits & 0xFF)
    blocks = b"".join(bytes([len(out[i : i + 255])]) + out[i : i + 255] for i in range(0, len(out), 255))
    return bytes([min_size]) + blocks + b"\x00"


def gif_bytes(width: int, height: int, frames: list[dict], palette: np.ndarray | None = None) -> bytes:
    """A GIF89a: a global palette (or none), then per frame an optional graphics control block (``transparent``),
    its descriptor (``left``, ``top``, a local ``palette``, ``interlace``) and LZW data of ``indices``."""
    flags = 0 if palette is None else 0x80 | (int(np.log2(len(palette))) - 1)
    out = b"GIF89a" + struct.pack("<HHBBB", width, height, flags, 0, 0)
    if palette is not None:
        out += palette.astype(np.uint8).tobytes()
    for frame in frames:
        indices = frame["indices"]
        if "transparent" in frame:
            out += b"\x21\xf9\x04" + struct.pack("<BHB", 1, 10, frame["transparent"]) + b"\x00"
        local = frame.get("palette")
        image_flags = 0 if local is None else 0x80 | (int(np.log2(len(local))) - 1)
        rows = indices
        if frame.get("interlace"):
            image_flags |= 0x40
            rows = np.concatenate([indices[0::8], indices[4::8], indices[2::4], indices[1::2]])
        out += b"\x2c" + struct.pack("<HHHHB", frame.get("left", 0), frame.get("top", 0), indices.shape[1],
                                      indices.shape[0], image_flags)  # fmt: skip
        if local is not None:
            out += local.astype(np.uint8).tobytes()
        colours = local if local is not None else palette
        min_size = max(2, int(np.log2(len(colours)))) if colours is not None else 2
        out += _lzw(rows, frame.get("min_size", min_size))
    return out + b"\x3b"


def _ramp(height: int, width: int, channels: int, step: int) -> np.ndarray:
    return (np.arange(height * width * channels).reshape(height, width, channels) * step % 256).astype(np.uint8)


def webp_streams() -> dict[str, bytes]:
    """WebP files written by Pillow (libwebp's encoder; TF writes none): stills and animations. The opaque animation
    holds OPAQUE_FRAMES (lossless), for tests/api/test_image_codecs.py."""
    import io

    from PIL import Image

    def save(frames: list[np.ndarray], **options) -> bytes:
        out = io.BytesIO()
        images = [Image.fromarray(f) for f in frames]
        extra = {"save_all": True, "append_images": images[1:], "duration": 40} if len(images) > 1 else {}
        images[0].save(out, "WEBP", **extra, **options)
        return out.getvalue()

    rgb, rgba = _ramp(12, 17, 3, 7), _ramp(9, 11, 4, 5)
    moving = [np.zeros((10, 14, 4), np.uint8) for _ in range(4)]
    for i, frame in enumerate(moving):  # a square moving over a transparent canvas: sub-rectangle frames
        frame[2 + i : 6 + i, 3 + 2 * i : 7 + 2 * i] = (40 * i, 200 - 30 * i, 90, 255)
    def npz_safe(stream: bytes) -> bytes:
        """A stream ending in NUL (a RIFF chunk's padding) with a byte after the RIFF payload, which libwebp does not
        read: npz's fixed-width bytes would drop the NUL."""
        return stream + b"\x01" if stream.endswith(b"\x00") else stream

    streams = {
        "lossy_rgb": save([rgb], quality=80),
        "lossless_rgb": save([rgb], lossless=True),
        "lossless_rgba": save([rgba], lossless=True),
        "lossy_rgba": save([rgba], quality=60),
        "animation": save([rgba, 255 - rgba, rgba // 2], lossless=True),
        "moving": save(moving, lossless=True),
        "opaque_animation": save(OPAQUE_FRAMES, lossless=True),
    }
    return {key: npz_safe(stream) for key, stream in streams.items()}


# The opaque animation's frames: [2, 12, 17, 3] (see webp_streams).
OPAQUE_FRAMES = [_ramp(12, 17, 3, 7), 255 - _ramp(12, 17, 3, 7)]


scalar = breadth.bytes_scalar


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape and kernel cases) of the codec ops."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    breadth.begin(OUT / "ops", "tools/make_golden_image_codecs.py", OPS)
    rng = np.random.default_rng(20261206)

    # Smooth images with some texture, as photographs are: what JPEG's DCT and upsampling paths see.
    yy, xx = np.mgrid[0:37, 0:45]
    smooth = np.stack([xx * 5, yy * 6, (xx + yy) * 3], -1) + rng.integers(0, 24, (37, 45, 3))
    rgb = np.clip(smooth, 1, 255).astype(np.uint8)
    grey = rgb[:29, :31, 1:2].copy()
    jpegs = {
        "default": tf.io.encode_jpeg(rgb).numpy(),
        "q40_444": tf.io.encode_jpeg(rgb, quality=40, chroma_downsampling=False).numpy(),
        "progressive": tf.io.encode_jpeg(rgb[:20, :33], progressive=True, optimize_size=True).numpy(),
        "grey": tf.io.encode_jpeg(grey, quality=85).numpy(),
    }
    for key, stream in jpegs.items():
        for channels in (0, 1, 3):
            kernel_case("DecodeJpeg", scalar(stream), channels=channels)
        for ratio in (2, 4, 8):
            kernel_case("DecodeJpeg", scalar(stream), ratio=ratio, channels=3 if key == "grey" else 0)
        kernel_case("DecodeJpeg", scalar(stream), fancy_upscaling=False)
        kernel_case("DecodeJpeg", scalar(stream), dct_method="INTEGER_ACCURATE")
        kernel_case("DecodeJpeg", scalar(stream), dct_method="INTEGER_FAST", ratio=2, fancy_upscaling=False)
        kernel_case("DecodeImage", scalar(stream))
        kernel_case("DecodeImage", scalar(stream), dtype=np.float32, channels=1)
        kernel_case("DecodeImage", scalar(stream), dtype=np.uint16, expand_animations=False)
        kernel_case("DecodeGif", scalar(stream))
        kernel_case("ExtractJpegShape", scalar(stream))
        kernel_case("ExtractJpegShape", scalar(stream), output_type=np.int64)
        for window in ([0, 0, 8, 8], [3, 5, 7, 9], [1, 17, 20, 11]):
            kernel_case("DecodeAndCropJpeg", scalar(stream), np.array(window, np.int32))
        kernel_case("DecodeAndCropJpeg", scalar(stream), np.array([2, 9, 5, 6], np.int32), ratio=2, channels=1)
    whole = jpegs["default"]
    kernel_case("DecodeAndCropJpeg", scalar(whole), np.array([0, 0, 37, 45], np.int32), channels=3)
    cut = len(whole) * 2 // 3
    while whole[cut - 1] == 0:
        cut -= 1
    truncated = whole[:cut]
    kernel_case("DecodeJpeg", scalar(truncated))
    kernel_case("DecodeJpeg", scalar(truncated), try_recover_truncated=True)
    kernel_case("DecodeJpeg", scalar(truncated), try_recover_truncated=True, acceptable_fraction=0.25)
    kernel_case("DecodeJpeg", scalar(b"\xff\xd8\xff\xe0 truncated header"))
    kernel_case("DecodeJpeg", scalar(whole), channels=4)
    kernel_case("DecodeJpeg", scalar(whole), channels=2)
    kernel_case("DecodeJpeg", scalar(whole), ratio=3)
    kernel_case("DecodeJpeg", scalar(whole), dct_method="FLOAT")
    kernel_case("DecodeJpeg", np.array([whole, whole], dtype=object))
    kernel_case("DecodeJpeg", np.array(b"", dtype=object))
    for window in ([30, 0, 8, 8], [0, 40, 8, 8], [0, 0, 0, 5], [-1, 0, 4, 4]):
        kernel_case("DecodeAndCropJpeg", scalar(whole), np.array(window, np.int32))
    kernel_case("DecodeAndCropJpeg", scalar(whole), np.array([0, 0, 4], np.int32))
    kernel_case("DecodeAndCropJpeg", scalar(whole), np.array([[0, 0], [4, 4]], np.int32))
    kernel_case("ExtractJpegShape", scalar(b"not a jpeg at all"))
    kernel_case("ExtractJpegShape", np.array([whole], dtype=object))
    kernel_case("DecodeBmp", scalar(whole))

    # PNG: TF's own streams, then every colour type and depth libpng reads, written here.
    pngs = {
        "rgb": tf.io.encode_png(rgb).numpy(),
        "grey": tf.io.encode_png(grey).numpy(),
        "grey_alpha": tf.io.encode_png(np.concatenate([grey, 255 - grey], -1)).numpy(),
        "rgba": tf.io.encode_png(np.concatenate([rgb, rgb[..., :1]], -1)).numpy(),
        "rgb16": tf.io.encode_png((rgb.astype(np.uint16) * 251 + 7)[:9, :11]).numpy(),
    }
    palette = rng.integers(1, 255, (16, 3)).astype(np.uint8)
    index = rng.integers(0, 16, (7, 10, 1)).astype(np.uint8)
    pngs["palette4"] = png_bytes(index, 3, 4, plte=palette.tobytes())
    pngs["palette8_trns"] = png_bytes(index * 3 % 16, 3, 8, plte=palette.tobytes(), trns=bytes(range(0, 160, 10)))
    pngs["grey1"] = png_bytes(rng.integers(0, 2, (9, 13, 1)), 0, 1)
    pngs["grey16"] = png_bytes(rng.integers(0, 65536, (6, 5, 1)), 0, 16)
    pngs["grey8_trns"] = png_bytes(rng.integers(0, 4, (5, 6, 1)) * 60, 0, 8, trns=struct.pack(">H", 120))
    pngs["rgb_trns"] = png_bytes(rng.integers(0, 2, (4, 5, 3)) * 200, 2, 8, trns=struct.pack(">HHH", 200, 0, 200))
    pngs["rgba16"] = png_bytes(rng.integers(0, 65536, (3, 4, 4)), 6, 16)
    pngs["interlaced"] = png_bytes(rgb[:11, :13], 2, 8, interlace=True)
    pngs["interlaced_grey2"] = png_bytes(rng.integers(0, 4, (10, 9, 1)), 0, 2, interlace=True)
    for stream in pngs.values():
        for channels in (0, 1, 3, 4):
            kernel_case("DecodePng", scalar(stream), channels=channels)
        kernel_case("DecodePng", scalar(stream), dtype=np.uint16)
        kernel_case("DecodePng", scalar(stream), dtype=np.uint16, channels=3)
        kernel_case("DecodeImage", scalar(stream), dtype=np.float32)
        kernel_case("DecodeImage", scalar(stream), dtype=np.uint16, channels=1)
        kernel_case("DecodeJpeg", scalar(stream), channels=3)
        kernel_case("DecodeGif", scalar(stream))
    broken = bytearray(pngs["rgb"])
    broken[60] ^= 0x55  # inside IDAT: the chunk's CRC no longer matches
    kernel_case("DecodePng", scalar(bytes(broken)))
    kernel_case("DecodePng", scalar(b"\x89PNG\r\n\x1a\n but no header"))
    huge = struct.pack(">IIBBBBB", 1 << 27, 3, 8, 0, 0, 0, 0)  # a header whose size TF refuses before decoding
    kernel_case("DecodePng", scalar(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", huge) + _chunk(b"IEND", b"")))
    kernel_case("DecodePng", scalar(pngs["rgb"]), channels=2)
    kernel_case("DecodeBmp", scalar(pngs["rgb"]))
    kernel_case("DecodeAndCropJpeg", scalar(pngs["rgb"]), np.array([0, 0, 2, 2], np.int32))
    # GIF: single frames and animations (local palettes, transparency, offsets, interlacing), written here.
    pal16 = rng.integers(1, 256, (16, 3))
    pal4 = rng.integers(1, 256, (4, 3))
    a = rng.integers(0, 16, (9, 13))
    b = rng.integers(0, 16, (9, 13))
    gifs = {
        "single": gif_bytes(13, 9, [{"indices": a}], pal16),
        "animated": gif_bytes(13, 9, [{"indices": a}, {"indices": b, "palette": rng.integers(1, 256, (16, 3))},
                                      {"indices": (a + b) % 16, "transparent": 3}], pal16),  # fmt: skip
        "offset": gif_bytes(13, 9, [{"indices": a}, {"indices": b[:4, :5] % 4, "left": 3, "top": 2,
                                                     "transparent": 1}], pal16),  # fmt: skip
        "small_first": gif_bytes(13, 9, [{"indices": a[:5, :6], "left": 4, "top": 1}, {"indices": b}], pal16),
        "interlaced": gif_bytes(13, 19, [{"indices": rng.integers(0, 16, (19, 13)), "interlace": True}], pal16),
        "big": gif_bytes(70, 60, [{"indices": rng.integers(0, 3, (60, 70)) + (np.arange(70) % 5 == 0)}], pal16),
        "transparent_first": gif_bytes(5, 4, [{"indices": np.arange(20).reshape(4, 5) % 4, "transparent": 2}], pal4),
    }
    for stream in gifs.values():
        kernel_case("DecodeGif", scalar(stream))
        kernel_case("DecodeImage", scalar(stream))
        kernel_case("DecodeImage", scalar(stream), expand_animations=False, dtype=np.float32)
        kernel_case("DecodeImage", scalar(stream), channels=3, dtype=np.uint16)
        kernel_case("DecodePng", scalar(stream))
        kernel_case("DecodeJpeg", scalar(stream), channels=3)
    kernel_case("DecodeGif", scalar(gif_bytes(4, 3, [{"indices": np.full((3, 4), 5), "min_size": 3}], pal4)))
    kernel_case("DecodeGif", scalar(gif_bytes(4, 3, [{"indices": np.ones((3, 4), int)}])))
    animated = gifs["animated"]
    cut = len(animated) - 40  # inside the last frame's data
    while animated[cut - 1] == 0:
        cut -= 1
    kernel_case("DecodeGif", scalar(animated[:cut]))
    after_frames = gifs["single"][:-1] + b"\x21"  # an extension record cut short after a whole frame
    kernel_case("DecodeGif", scalar(after_frames))
    kernel_case("DecodeGif", scalar(b"GIF89a\x01\x02"))
    kernel_case("DecodeGif", scalar(gifs["single"][:-1] + b"\x99"))
    kernel_case("DecodeImage", scalar(b"GIF89a"), channels=1)
    kernel_case("DecodeBmp", scalar(b"GIF89a"))
    kernel_case("DecodeAndCropJpeg", scalar(b"GIF89a"), np.array([0, 0, 2, 2], np.int32))
    kernel_case("DecodeImage", scalar(b"plain text, no image"))

    # BMP: 8-, 24- and 32-bit pixels; width * channels a multiple of 4, so no row ends in padding NULs.
    bmps = {
        "bgr": bmp_bytes(rgb[:6, :8, ::-1].copy()),
        "bgr_top_down": bmp_bytes(rgb[:5, :4, ::-1].copy(), top_down=True),
        "bgra": bmp_bytes(np.concatenate([rgb[:4, :5, ::-1], rgb[:4, :5, :1] | 1], -1)),
        "grey": bmp_bytes(grey[:3, :8] | 1),
    }
    for key, stream in bmps.items():
        for channels in (0, 3, 4):
            kernel_case("DecodeBmp", scalar(stream), channels=channels)
        if key != "bgr_top_down":  # TF 2.21 crashes there (its uint8 buffer is sized with the negative height)
            kernel_case("DecodeImage", scalar(stream), dtype=np.float32)
            kernel_case("DecodeImage", scalar(stream), dtype=np.uint16, channels=4)
    kernel_case("DecodeBmp", scalar(bmps["bgr"]), channels=1)
    kernel_case("DecodeBmp", scalar(bmps["bgr"][:-3]))
    kernel_case("DecodeBmp", scalar(b"BM" + b"\x01" * 20))
    kernel_case("DecodePng", scalar(bmps["bgr"]))
    kernel_case("DecodeAndCropJpeg", scalar(bmps["bgr"]), np.array([0, 0, 2, 2], np.int32))

    # Encoders: TF's bytes for every attr, then its errors.
    kernel_case("EncodeJpeg", rgb)
    kernel_case("EncodeJpeg", grey, quality=30)
    kernel_case("EncodeJpeg", rgb[:9, :14], format="rgb", quality=100, progressive=True)
    kernel_case("EncodeJpeg", rgb, optimize_size=True, chroma_downsampling=False, quality=5)
    kernel_case("EncodeJpeg", grey, format="grayscale", density_unit="cm", x_density=10, y_density=20)
    kernel_case("EncodeJpeg", rgb[:3, :5], xmp_metadata="<x:xmpmeta>modtensor</x:xmpmeta>", quality=0)
    kernel_case("EncodeJpeg", rgb, format="grayscale")
    kernel_case("EncodeJpeg", rgb[..., :2])
    kernel_case("EncodeJpeg", rgb[0])
    kernel_case("EncodeJpeg", rgb, quality=101)
    for quality in (1, 50, 99):
        kernel_case("EncodeJpegVariableQuality", rgb[:12, :20], np.int32(quality))
    kernel_case("EncodeJpegVariableQuality", grey, np.int32(60))
    kernel_case("EncodeJpegVariableQuality", rgb, np.int32(-3))
    kernel_case("EncodeJpegVariableQuality", rgb, np.array([50], np.int32))
    kernel_case("EncodeJpegVariableQuality", rgb[..., :2], np.int32(50))
    for channels in (1, 2, 3, 4):
        kernel_case("EncodePng", rgb[:7, :9, :channels].copy() if channels < 4 else
                    np.concatenate([rgb[:7, :9], rgb[:7, :9, :1]], -1))  # fmt: skip
    kernel_case("EncodePng", (rgb[:6, :7].astype(np.uint16) * 257 + 3))
    for compression in (0, 1, 9):
        kernel_case("EncodePng", rgb, compression=compression)
    kernel_case("EncodePng", np.stack([rgb[:4, :6], 255 - rgb[:4, :6]]).reshape(2, 1, 4, 6, 3))
    kernel_case("EncodePng", rgb[0])
    kernel_case("EncodePng", np.zeros((2, 2, 5), np.uint8))
    kernel_case("EncodePng", rgb, compression=10)

    # WebP (streams written by Pillow's libwebp): stills with and without alpha, lossy and lossless, animations
    # composed from sub-rectangles, through every decode op; damaged streams. (An animation without alpha is left
    # out: TF 2.21 writes RGBA frames into a 3-channel buffer there and corrupts its heap.)
    webps = webp_streams()
    for key, stream in webps.items():
        if key == "opaque_animation":
            continue
        for channels in (0, 3, 4):
            kernel_case("DecodeWebP", scalar(stream), channels=channels)
        kernel_case("DecodeImage", scalar(stream))
        kernel_case("DecodeImage", scalar(stream), expand_animations=False)
        for op in ("DecodeJpeg", "DecodePng", "DecodeGif", "DecodeBmp"):
            kernel_case(op, scalar(stream))
        kernel_case("DecodeAndCropJpeg", scalar(stream), np.array([0, 0, 2, 2], np.int32))
    still = webps["lossy_rgb"]
    kernel_case("DecodeWebP", scalar(still), channels=1)
    kernel_case("DecodeWebP", scalar(still), channels=2)
    kernel_case("DecodeImage", scalar(still), dtype=np.float32)
    kernel_case("DecodePng", scalar(still), dtype=np.uint16)
    def cut(stream: bytes, end: int) -> bytes:  # the stream up to `end`, shortened past NULs (npz drops them)
        stream = stream[:end]
        return stream.rstrip(b"\x00")

    anim = webps["animation"]
    for damaged in (cut(still, 20), cut(still, 40), cut(still, -9), still[:30] + b"x" * 10 + still[40:],
                    b"RIFF\x00\x00\x00\x00WEBPVP8 ", cut(anim, -40), cut(anim, 90)):  # fmt: skip
        kernel_case("DecodeWebP", scalar(damaged))
    (OUT / "opaque_animation.webp").write_bytes(webps["opaque_animation"])

    # Shape functions.
    for op in ("DecodeWebP",):
        for channels in (0, 1, 3, 4):
            shape_case(op, P([], "string"), channels=channels)
        shape_case(op, P([2], "string"))
        shape_case(op, P(None, "string"))
    for op in ("DecodeJpeg", "DecodePng", "DecodeBmp", "DecodeImage", "DecodeGif", "ExtractJpegShape"):
        shape_case(op, P([], "string"))
        shape_case(op, P([2], "string"))
        shape_case(op, P(None, "string"))
    for op in ("DecodeJpeg", "DecodePng", "DecodeBmp", "DecodeImage"):
        shape_case(op, P([], "string"), channels=3)
        shape_case(op, P([], "string"), channels=-1)
    shape_case("DecodeImage", P([], "string"), channels=1, expand_animations=False)
    shape_case("DecodeAndCropJpeg", P([], "string"), C([1, 2, 5, 6], "int32"), channels=3)
    shape_case("DecodeAndCropJpeg", P([], "string"), P([4], "int32"))
    shape_case("DecodeAndCropJpeg", P([], "string"), P([3], "int32"))
    shape_case("DecodeAndCropJpeg", P([], "string"), P([U], "int32"), channels=1)
    for op in ("EncodeJpeg", "EncodePng"):
        shape_case(op, P([4, 5, 3], "uint8"))
        shape_case(op, P([U, U, U], "uint8"))
        shape_case(op, P([4, 5], "uint8"))
        shape_case(op, P(None, "uint8"))
    shape_case("EncodePng", P([2, 3, 4, 5, 3], "uint8"))
    shape_case("EncodePng", P([U, 4, 5, 1], "uint16"))
    shape_case("EncodeJpegVariableQuality", P([4, 5, 3], "uint8"), P([], "int32"))
    shape_case("EncodeJpegVariableQuality", P([2, 4, 5, 3], "uint8"), P([], "int32"))
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_image_codecs.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
