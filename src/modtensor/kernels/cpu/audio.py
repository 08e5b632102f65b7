"""CPU kernels of DecodeWav and EncodeWav: 16-bit PCM WAV files read and written as TensorFlow's wav_io does.

Decoding walks the RIFF chunks as TF does (JUNK, bext and the other broadcast-WAV chunks before ``fmt `` skipped,
a format chunk of 16 or 18 bytes, PCM only, 16 bits only, the header's byte rates checked, chunks after it skipped
to the single ``data`` chunk) and scales samples by 1/32768; a requested channel count repeats the last channel or
drops the extra ones, a requested sample count pads with zeros or cuts. Encoding writes TF's 44-byte header and
``round(x * 32768)`` clamped to int16. Errors carry TF's texts.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str

__all__ = ["CPU_TYPE_CONSTRAINTS", "OP_FUNCTIONS"]

_SKIPPED_BEFORE_FORMAT = {b"JUNK", b"bext", b"iXML", b"qlty", b"mext", b"levl", b"link", b"axml"}
_INT32_MAX = 2**31 - 1


class _Reader:
    """A cursor over the file with TF's bounds checks (IncrementOffset)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.offset = data, 0

    def advance(self, count: int) -> int:
        if self.offset > len(self.data):
            raise invalid_argument(f"Initial offset is outside data range: {self.offset}")
        new = self.offset + count
        if new > len(self.data):
            raise invalid_argument("Data too short when trying to read string")
        if new > _INT32_MAX:
            raise invalid_argument(f"Offset too large, overflowed: {new - 2**32}")
        start, self.offset = self.offset, new
        return start

    def text(self, count: int) -> bytes:
        start = self.advance(count)
        return self.data[start : self.offset]

    def expect(self, text: bytes) -> None:
        found = self.text(len(text))
        if found != text:
            raise invalid_argument(f"Header mismatch: Expected {text.decode()} but found {found.decode('latin-1')}")

    def value(self, fmt: str) -> int:
        size = struct.calcsize(fmt)
        start = self.advance(size)
        return struct.unpack_from(fmt, self.data, start)[0]


def _decode(data: bytes) -> tuple[np.ndarray, int, int, int]:
    """(samples as float32 [frames * channels], frames, channels, sample rate), as DecodeLin16WaveAsFloatVector."""
    r = _Reader(data)
    r.expect(b"RIFF")
    r.value("<I")  # the file size, unchecked as in TF
    r.expect(b"WAVE")
    found = r.text(4)
    while found != b"fmt ":
        if found not in _SKIPPED_BEFORE_FORMAT:
            raise invalid_argument(f"Unexpected field {found.decode('latin-1')}")
        r.advance(r.value("<I"))
        found = r.text(4)
    format_size = r.value("<I")
    if format_size not in (16, 18):
        raise invalid_argument(f"Bad format chunk size for WAV: Expected 16 or 18, but got{format_size}")
    audio_format = r.value("<H")
    if audio_format != 1:
        raise invalid_argument(f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}")
    channels = r.value("<H")
    if channels < 1:
        raise invalid_argument(f"Bad number of channels for WAV: Expected at least 1, but got {channels}")
    sample_rate = r.value("<I")
    bytes_per_second = r.value("<I")
    bytes_per_frame = r.value("<H")
    bits = r.value("<H")
    if bits != 16:
        raise invalid_argument(f"Can only read 16-bit WAV files, but received {bits}")
    expected_frame = (bits * channels + 7) // 8
    if bytes_per_frame != expected_frame:
        raise invalid_argument(
            f"Bad bytes per sample in WAV header: Expected {expected_frame} but got {bytes_per_frame}"
        )
    expected_rate = (bytes_per_frame * sample_rate) % 2**32
    if bytes_per_second != expected_rate:
        raise invalid_argument(
            f"Bad bytes per second in WAV header: Expected {expected_rate} but got {bytes_per_second} "
            f"(sample_rate={sample_rate}, bytes_per_sample={bytes_per_frame})"
        )
    if format_size == 18:
        r.offset += 2  # the unused extension size
    samples: np.ndarray | None = None
    frames = 0
    while r.offset < len(data):
        chunk_id = r.text(4)
        chunk_size = r.value("<I")
        if chunk_size > _INT32_MAX:
            raise invalid_argument(
                f"WAV data chunk '{chunk_id.decode('latin-1')}' is too large: {chunk_size} bytes, but the limit is "
                f"{_INT32_MAX}"
            )
        if chunk_id == b"data":
            if samples is not None:
                raise invalid_argument("More than one data chunk found in WAV")
            frames = chunk_size // bytes_per_frame
            count = frames * channels
            start = r.offset
            if start + 2 * count > len(data):  # checked before anything is read, as TF does
                raise invalid_argument("Data too short when trying to read string")
            samples = np.frombuffer(data, "<i2", count, start).astype(np.float32) * np.float32(1.0 / 32768)
            r.offset = start + 2 * count
        else:
            r.offset += chunk_size
    if samples is None:
        raise invalid_argument("No data chunk found in WAV")
    return samples, frames, channels, sample_rate


def decode_wav(contents: np.ndarray, desired_channels: int = -1, desired_samples: int = -1) -> tuple[Any, Any]:
    """DecodeWav: ``[samples, channels]`` float32 in [-1, 1) and the int32 sample rate."""
    contents = np.asarray(contents)
    if contents.ndim != 0:
        raise invalid_argument(f"contents must be scalar, got shape {shape_str(contents.shape)}")
    data = contents.item()
    data = data if isinstance(data, bytes) else str(data).encode()
    samples, frames, channels, sample_rate = _decode(data)
    if desired_channels < -1:
        raise invalid_argument(f"desired_channels must be >= -1, got {desired_channels}")
    if desired_samples < -1:
        raise invalid_argument(f"desired_samples must be >= -1, got {desired_samples}")
    out_frames = frames if desired_samples == -1 else desired_samples
    out_channels = channels if desired_channels == -1 else desired_channels
    decoded = samples.reshape(frames, channels)
    source = np.minimum(np.arange(out_channels), channels - 1)  # extra channels repeat the last one
    audio = np.zeros((out_frames, out_channels), np.float32)
    kept = min(out_frames, frames)
    audio[:kept] = decoded[:kept][:, source]
    return audio, np.array(sample_rate, np.uint32).astype(np.int32)


def encode_wav(audio: np.ndarray, sample_rate: np.ndarray) -> np.ndarray:
    """EncodeWav: ``[samples, channels]`` float audio as a 16-bit PCM WAV file (TF's header and rounding)."""
    audio = np.asarray(audio, np.float32)
    if audio.ndim != 2:
        raise invalid_argument(f"audio must be 2-dimensional{shape_str(audio.shape)}")
    sample_rate = np.asarray(sample_rate)
    if sample_rate.ndim != 0:
        raise invalid_argument(
            f"Input sample_rate should be a scalar tensor, got {shape_str(sample_rate.shape)} instead."
        )
    if audio.size >= _INT32_MAX:
        raise invalid_argument("Cannot encode audio with >= max int32 elements")
    frames, channels = audio.shape
    rate = int(sample_rate) % 2**64  # TF passes the int32 on as a size_t
    if rate == 0 or rate > 2**32 - 1:
        raise invalid_argument(f"sample_rate must be in (0, 2^32), got: {rate}")
    if channels == 0 or channels > 2**16 - 1:
        raise invalid_argument(f"num_channels must be in (0, 2^16), got: {channels}")
    data_size = frames * channels * 2
    if 44 + data_size > 2**32 - 1:
        raise invalid_argument("Provided channels and frames cannot be encoded as a WAV.")
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + data_size, b"WAVE", b"fmt ", 16, 1, channels, rate, rate * 2 * channels,
        2 * channels, 16, b"data", data_size,
    )  # fmt: skip
    scaled = (audio * np.float32(32768)).astype(np.float64)  # roundf: halves away from zero
    with np.errstate(invalid="ignore"):
        rounded = np.clip(np.where(scaled >= 0, np.floor(scaled + 0.5), np.ceil(scaled - 0.5)), -32768, 32767)
    pcm = np.where(np.isnan(rounded), 0, rounded).astype("<i2")  # NaN: 0, what x86 makes of the C cast
    out = np.empty((), object)
    out[()] = header + pcm.tobytes()
    return out


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {"DecodeWav": decode_wav, "EncodeWav": encode_wav}
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {}
