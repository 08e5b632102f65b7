"""``tf.audio``: ``decode_wav`` and ``encode_wav``, TF's generated wrappers of DecodeWav / EncodeWav."""

from __future__ import annotations

from typing import Any

from modtensor.api.dispatch import apply_op
from modtensor.framework import op_def_library
from modtensor.framework.op_registry import global_registry
from modtensor.framework.tensor import Tensor

__all__ = ["decode_wav", "encode_wav"]


def decode_wav(contents: Any, desired_channels: int = -1, desired_samples: int = -1, name: str | None = None) -> Any:
    """A 16-bit PCM WAV file as ``(audio, sample_rate)`` (TF's ``DecodeWav`` namedtuple): ``[samples, channels]``
    float32 in [-1, 1), channels repeated or dropped to ``desired_channels``, zero-padded or cut to
    ``desired_samples`` (-1: as in the file)."""
    outputs = apply_op("DecodeWav", name=name, contents=contents, desired_channels=desired_channels,
                       desired_samples=desired_samples)  # fmt: skip
    return op_def_library.wrapper_outputs(global_registry().get("DecodeWav").op_def, list(outputs))


def encode_wav(audio: Any, sample_rate: Any, name: str | None = None) -> Tensor:
    """``[samples, channels]`` float audio as a 16-bit PCM WAV file (values clamped to [-1, 1))."""
    return apply_op("EncodeWav", name=name, audio=audio, sample_rate=sample_rate)
