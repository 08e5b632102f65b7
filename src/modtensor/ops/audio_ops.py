"""Audio ops: DecodeWav and EncodeWav (16-bit PCM WAV files), with TensorFlow 2.21's OpDefs and shape functions."""

from __future__ import annotations

from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import DimensionHandle, InferenceContext
from modtensor.ops._shape_errors import invalid


def _desired_dim(ctx: InferenceContext, attr: str, what: str) -> DimensionHandle:
    value = int(ctx.get_attr(attr))
    if value == -1:
        return ctx.unknown_dim()
    if value < 0:
        raise invalid(f"{what} must be non-negative, got {value}")
    return ctx.make_dim(value)


def _decode_wav_shape(ctx: InferenceContext) -> None:
    """Scalar contents -> ``[desired_samples, desired_channels]`` (unknown where -1) and a scalar sample rate."""
    ctx.with_rank(ctx.input(0), 0)
    channels = _desired_dim(ctx, "desired_channels", "channels")
    samples = _desired_dim(ctx, "desired_samples", "samples")
    ctx.set_output(0, ctx.matrix(samples, channels))
    ctx.set_output(1, ctx.scalar())


def _encode_wav_shape(ctx: InferenceContext) -> None:
    """``[samples, channels]`` audio and a scalar rate -> scalar contents."""
    ctx.with_rank(ctx.input(0), 2)
    ctx.with_rank(ctx.input(1), 0)
    ctx.set_output(0, ctx.scalar())


(
    register_op("DecodeWav")
    .input("contents: string")
    .output("audio: float")
    .output("sample_rate: int32")
    .attr("desired_channels: int = -1")
    .attr("desired_samples: int = -1")
    .set_shape_fn(_decode_wav_shape)
)
(
    register_op("EncodeWav")
    .input("audio: float")
    .input("sample_rate: int32")
    .output("contents: string")
    .set_shape_fn(_encode_wav_shape)
)
