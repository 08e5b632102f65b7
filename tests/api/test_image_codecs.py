"""Image codecs as a user meets them beyond the TF replays: files on disk, tf.data pipelines, tf.function,
threads, damaged data, and what happens where a format or the codec build is missing.

TF's own pixels, bytes and errors are replayed by test_image_codecs_golden.py and the codec kernel goldens.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import errors
from modtensor.kernels.cpu import image_codecs

IMAGE = np.clip(np.add.outer(np.arange(20) * 9, np.arange(30) * 5)[..., None] + np.array([0, 40, 90]), 0, 255)
IMAGE = IMAGE.astype(np.uint8)


def test_png_file_round_trip_is_lossless(tmp_path: Path) -> None:
    path = str(tmp_path / "image.png")
    tf.io.write_file(path, tf.io.encode_png(IMAGE))
    decoded = tf.io.decode_png(tf.io.read_file(path))
    np.testing.assert_array_equal(decoded.numpy(), IMAGE)
    # a 16-bit image keeps all 16 bits
    deep = IMAGE.astype(np.uint16) * 257 + 3
    np.testing.assert_array_equal(tf.io.decode_png(tf.io.encode_png(deep), dtype=tf.uint16).numpy(), deep)


def test_jpeg_round_trip_is_close_and_decode_image_scales_to_float() -> None:
    stream = tf.io.encode_jpeg(IMAGE, quality=95)
    decoded = tf.io.decode_jpeg(stream).numpy()
    assert decoded.shape == IMAGE.shape and decoded.dtype == np.uint8
    assert np.abs(decoded.astype(int) - IMAGE).mean() < 3
    as_float = tf.io.decode_image(stream, dtype=tf.float32).numpy()
    np.testing.assert_array_equal(as_float, decoded.astype(np.float32) * np.float32(1 / 255))
    assert tf.io.extract_jpeg_shape(stream).numpy().tolist() == [20, 30, 3]
    assert bool(tf.io.is_jpeg(stream)) and not bool(tf.io.is_jpeg(tf.io.encode_png(IMAGE)))


def test_decode_in_a_dataset_map_and_in_a_function() -> None:
    streams = [tf.io.encode_png(np.roll(IMAGE, k, axis=1)).numpy() for k in range(6)]
    dataset = tf.data.Dataset.from_tensor_slices(streams).map(
        lambda s: tf.image.convert_image_dtype(tf.io.decode_png(s, channels=3), tf.float32),
        num_parallel_calls=tf.data.AUTOTUNE,
    )
    batches = [b.numpy() for b in dataset.batch(4)]
    assert [b.shape for b in batches] == [(4, 20, 30, 3), (2, 20, 30, 3)]
    want = np.stack([np.roll(IMAGE, k, axis=1) for k in range(6)]).astype(np.float32) / 255
    np.testing.assert_allclose(np.concatenate(batches), want, rtol=1e-6)

    @tf.function
    def decode_and_flip(stream: tf.Tensor) -> tf.Tensor:
        return tf.image.flip_left_right(tf.io.decode_png(stream))

    np.testing.assert_array_equal(decode_and_flip(streams[0]).numpy(), IMAGE[:, ::-1])


def test_decoding_from_several_threads_gives_the_same_images() -> None:
    stream = tf.io.encode_jpeg(IMAGE, quality=70)
    want = tf.io.decode_jpeg(stream).numpy()
    results: list[np.ndarray] = []

    def work() -> None:
        for _ in range(20):
            results.append(tf.io.decode_jpeg(stream).numpy())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 80 and all(np.array_equal(r, want) for r in results)


def test_every_cut_of_a_jpeg_header_fails_or_decodes_and_never_hangs() -> None:
    # TF 2.21 loops forever on some of these with try_recover_truncated (libjpeg asks for more at the same byte):
    # run them in a child process with a deadline.
    code = textwrap.dedent(
        """
        import numpy as np, modtensor as tf
        image = np.arange(20 * 30 * 3, dtype=np.uint8).reshape(20, 30, 3)
        data = tf.io.encode_jpeg(image).numpy()
        outcomes = {"decoded": 0, "failed": 0}
        for cut in range(3, 700):
            for recover in (False, True):
                try:
                    tf.io.decode_jpeg(data[:cut], try_recover_truncated=recover, acceptable_fraction=0.1)
                    outcomes["decoded"] += 1
                except tf.errors.InvalidArgumentError as e:
                    assert "Invalid JPEG data" in e.message, e.message
                    outcomes["failed"] += 1
        print(outcomes["decoded"], outcomes["failed"])
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    decoded, failed = map(int, done.stdout.split())
    assert failed > 0 and decoded > 0 and decoded + failed == 2 * 697


def test_damaged_png_is_a_clear_error() -> None:
    data = bytearray(tf.io.encode_png(IMAGE).numpy())
    data[len(data) // 2] ^= 0xFF
    with pytest.raises(errors.InvalidArgumentError, match=f"Invalid PNG data, size {len(data)}"):
        tf.io.decode_png(bytes(data))


def test_an_animated_gif_gives_its_frames() -> None:
    golden = Path(__file__).resolve().parent.parent / "golden" / "image_codecs" / "ops" / "kernels" / "DecodeGif.npz"
    with np.load(golden) as data:  # the first GIF TF decoded into three frames or more
        case = next(k[: -len("_out0")] for k in data.files if k.endswith("_out0") and data[k].shape[0] >= 3)
        animated, want = bytes(data[f"{case}_in0"].item()), data[f"{case}_out0"]
    frames = tf.io.decode_gif(animated)
    np.testing.assert_array_equal(frames.numpy(), want)
    np.testing.assert_array_equal(tf.io.decode_image(animated, expand_animations=False).numpy(), frames.numpy()[0])
    with pytest.raises(errors.InvalidArgumentError, match="animated gifs can only be decoded by tf.io.decode_gif"):
        tf.io.decode_png(animated)


def test_an_animation_without_alpha_gives_its_rgb_frames() -> None:
    # TF 2.21 writes such an animation's RGBA canvases into a 3-channel buffer (heap corruption); here the frames'
    # colour comes out, as written (lossless) by tools/make_golden_image_codecs.py
    stream = (Path(__file__).resolve().parent.parent / "golden" / "image_codecs" / "opaque_animation.webp").read_bytes()
    ramp = (np.arange(12 * 17 * 3).reshape(12, 17, 3) * 7 % 256).astype(np.uint8)
    frames = tf.io.decode_webp(stream)
    assert frames.shape == (2, 12, 17, 3) and frames.dtype == tf.uint8
    np.testing.assert_array_equal(frames.numpy(), np.stack([ramp, 255 - ramp]))
    np.testing.assert_array_equal(tf.io.decode_image(stream, expand_animations=False).numpy(), ramp)
    with pytest.raises(errors.InvalidArgumentError, match="WebP Animation must be 4 channel RGBA"):
        tf.io.decode_gif(stream)  # DecodeGif asks for 3 channels
    with pytest.raises(errors.InvalidArgumentError, match="Number of channels requested does not match input"):
        tf.io.decode_webp(stream, channels=4)


def test_webp_without_libwebp_broken_webp_and_jpeg_xl_say_what_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    header_only = b"RIFF\x1a\x00\x00\x00WEBPVP8 \x0e\x00\x00\x00"
    with pytest.raises(errors.InvalidArgumentError, match="Failed to decode WebP header"):
        tf.io.decode_image(header_only)
    with pytest.raises(errors.UnimplementedError, match="DecodeImage: modtensor cannot decode JPEG XL images"):
        tf.io.decode_image(b"\xff\x0a" + bytes(30))  # a JPEG XL codestream's signature
    monkeypatch.setattr(image_codecs._codecs, "webp_available", lambda: False)
    with pytest.raises(errors.UnimplementedError, match="DecodeImage: .* without libwebp.*libwebp-dev"):
        tf.io.decode_image(header_only)


def test_a_build_without_the_codec_libraries_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(image_codecs, "_codecs", None)
    with pytest.raises(errors.UnimplementedError, match="apt-get install libjpeg-dev libpng-dev"):
        tf.io.decode_png(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(errors.UnimplementedError, match="reinstall modtensor"):
        tf.io.encode_jpeg(IMAGE)
    # BMP is read without the libraries
    bmp = tf.io.decode_bmp(_bmp(IMAGE[:4, :4])).numpy()
    np.testing.assert_array_equal(bmp, IMAGE[:4, :4])


def _bmp(pixels: np.ndarray) -> bytes:
    """A bottom-up 24-bit BMP (rows padded to 4 bytes)."""
    import struct

    h, w, _ = pixels.shape
    row = (3 * w + 3) // 4 * 4
    body = b"".join(r[:, ::-1].tobytes() + b"\0" * (row - 3 * w) for r in pixels[::-1])
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(body), 0, 0, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + len(body), 0, 0, 54) + info + body
