"""Record what TensorFlow's WAV functions build and compute: ``tf.audio.decode_wav`` / ``encode_wav``.

    /work/tfvenv/bin/python tools/make_golden_audio.py

Writes ``tests/golden/audio/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets, ids ``audio_...``, read by
``tests/api/test_audio_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py`` writes (OpDefs,
CPU kernel constraints, shape and kernel cases) for DecodeWav and EncodeWav: files TF wrote (mono, stereo, six
channels, empty), files written here with a JUNK / bext chunk before the format, an 18-byte format chunk, chunks
after the data, every requested channel and sample count, and every header TF refuses (8-bit, float, bad rates and
sizes, two data chunks, cut short). Inputs end in a non-zero byte: npz keeps strings as fixed-width bytes, which drop
trailing NULs.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_breadth  # noqa: E402, F401  (its scalar-bytes encoding of eager values)
import make_golden_frontend_ops as base  # noqa: E402
import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "audio"
OPS = ["DecodeWav", "EncodeWav"]

TONE = "tf.reshape(tf.sin(tf.range(40.0) * 0.7) * 0.8 - 0.05, [20, 2])"

CASES: list[tuple[str, str, str]] = [
    ("audio_encode_wav", f"tf.audio.encode_wav({TONE}, 8000)", "g"),
    ("audio_encode_wav_bytes", f"tf.audio.encode_wav({TONE}, 8000)", "e"),
    ("audio_round_trip", f"tf.audio.decode_wav(tf.audio.encode_wav({TONE}, 22050))", "ge"),
    ("audio_decode_desired",
     f"tf.audio.decode_wav(tf.audio.encode_wav({TONE}, 16000), desired_channels=3, desired_samples=25, name='dw')",
     "ge"),
    ("audio_decode_fields",
     f"r = tf.audio.decode_wav(tf.audio.encode_wav({TONE}, 16000), desired_channels=1)\n[r.sample_rate, r.audio[:3]]",
     "e"),
    ("audio_decode_ph", "tf.audio.decode_wav(ph(tf.string, []), desired_samples=16000)", "g"),
    ("audio_encode_ph", "tf.audio.encode_wav(ph(tf.float32, [None, 2]), ph(tf.int32, []))", "g"),
    ("audio_encode_clipped", "tf.audio.decode_wav(tf.audio.encode_wav([[1.5], [-2.0], [0.99999]], 100)).audio", "e"),
    ("audio_encode_1d", "tf.audio.encode_wav(tf.zeros([4]), 8000)", "ge"),
    ("audio_encode_empty", "w = tf.audio.encode_wav(tf.zeros([0, 2]), 8000)\n[w, tf.audio.decode_wav(w).audio]", "e"),
    ("audio_decode_not_wav", "tf.audio.decode_wav(tf.constant(b'not a wav file at all'))", "e"),
    ("audio_decode_bad_channels",
     f"tf.audio.decode_wav(tf.audio.encode_wav({TONE}, 8000), desired_channels=-2)", "ge"),
]  # fmt: skip


def wav(samples: np.ndarray, channels: int, rate: int = 8000, *, bits: int = 16, audio_format: int = 1,
        format_size: int = 16, before: bytes = b"", after: bytes = b"", frame_bytes: int | None = None,
        byte_rate: int | None = None, data_size: int | None = None) -> bytes:  # fmt: skip
    """A WAV file written field by field (the fields TF checks can be set wrong)."""
    pcm = np.asarray(samples, "<i2").tobytes()
    frame = frame_bytes if frame_bytes is not None else (bits * channels + 7) // 8
    fmt = struct.pack("<HHIIHH", audio_format, channels, rate, byte_rate if byte_rate is not None else frame * rate,
                      frame, bits) + (b"\x00\x00" if format_size == 18 else b"")  # fmt: skip
    body = (b"WAVE" + before + b"fmt " + struct.pack("<I", format_size) + fmt + b"data"
            + struct.pack("<I", len(pcm) if data_size is None else data_size) + pcm + after)  # fmt: skip
    return b"RIFF" + struct.pack("<I", len(body)) + body


scalar = breadth.bytes_scalar


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape and kernel cases) of DecodeWav and EncodeWav."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    breadth.begin(OUT / "ops", "tools/make_golden_audio.py", OPS)
    rng = np.random.default_rng(20261206)

    def audio(frames: int, channels: int) -> np.ndarray:  # ends negative: the file's last byte is not NUL
        out = rng.uniform(-1.1, 1.1, (frames, channels)).astype(np.float32)
        out[-1, -1] = -0.5
        return out

    for frames, channels, rate in ((50, 1, 16000), (33, 2, 44100), (7, 6, 8000), (1, 1, 1)):
        clip = audio(frames, channels)
        kernel_case("EncodeWav", clip, np.int32(rate))
        stream = tf.audio.encode_wav(clip, rate).numpy()
        for desired_channels, desired_samples in ((-1, -1), (1, -1), (4, -1), (-1, 10), (-1, 80), (3, 0), (0, 5)):
            kernel_case("DecodeWav", scalar(stream), desired_channels=desired_channels,
                        desired_samples=desired_samples)  # fmt: skip
    kernel_case("EncodeWav", np.array([[np.nan, np.inf, -np.inf, 0.5 / 32768, -1.5 / 32768]], np.float32).T,
                np.int32(100))  # fmt: skip
    for rate in (0, -5):
        kernel_case("EncodeWav", audio(3, 1), np.int32(rate))
    kernel_case("EncodeWav", np.zeros((4, 0), np.float32), np.int32(8000))
    kernel_case("EncodeWav", audio(3, 1).reshape(3), np.int32(8000))
    kernel_case("EncodeWav", audio(3, 1), np.array([8000], np.int32))
    pcm = np.array([1000, -2000, 32767, -32768, 5, -7], np.int16)
    kernel_case("DecodeWav", scalar(wav(pcm, 2, before=b"JUNK" + struct.pack("<I", 6) + b"abcdef")))
    kernel_case("DecodeWav", scalar(wav(pcm, 2, before=b"bext" + struct.pack("<I", 2) + b"xy")))
    kernel_case("DecodeWav", scalar(wav(pcm, 3, format_size=18)))
    kernel_case("DecodeWav", scalar(wav(pcm, 1, after=b"LIST" + struct.pack("<I", 3) + b"abc")))
    kernel_case("DecodeWav", scalar(wav(pcm, 2, data_size=7)))  # an odd data size: whole frames only
    for bad in (
        wav(pcm, 1, bits=8), wav(pcm, 1, audio_format=3), wav(pcm, 1, format_size=20), wav(pcm, 0),
        wav(pcm, 2, frame_bytes=2), wav(pcm, 2, byte_rate=7), wav(pcm, 1, data_size=20),
        wav(pcm, 1, before=b"LIST" + struct.pack("<I", 2) + b"ab"), wav(pcm, 1)[:30],
        wav(pcm, 1, after=b"data" + struct.pack("<I", 2) + b"\x01\x81"), wav(pcm, 1)[:-12] + b"LISX" + b"\x01",
        b"RIFX" + wav(pcm, 1)[4:], wav(pcm, 1, after=b"WXYZ" + struct.pack("<I", 2**31) + b"\x07"),
    ):  # fmt: skip
        kernel_case("DecodeWav", scalar(bad))
    kernel_case("DecodeWav", np.array([wav(pcm, 1)] * 2, dtype=object))
    kernel_case("DecodeWav", scalar(wav(pcm, 1)), desired_channels=-3)
    kernel_case("DecodeWav", scalar(wav(pcm, 1)), desired_samples=-2)
    shape_case("DecodeWav", P([], "string"))
    shape_case("DecodeWav", P([], "string"), desired_channels=2, desired_samples=100)
    shape_case("DecodeWav", P([3], "string"))
    shape_case("DecodeWav", P([], "string"), desired_channels=-4)
    shape_case("DecodeWav", P([], "string"), desired_samples=-4)
    shape_case("EncodeWav", P([U, 2], "float32"), P([], "int32"))
    shape_case("EncodeWav", P([5], "float32"), P([], "int32"))
    shape_case("EncodeWav", P([5, 1], "float32"), P([1], "int32"))
    shape_case("EncodeWav", P(None, "float32"), C(8000, "int32"))
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_audio.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
