"""Kernels of ``Assert``, ``PrintV2`` and ``StringFormat`` with TensorFlow's formatting and error texts.

``StringFormat`` fills a template with TF's print-v2 summaries of its inputs; ``PrintV2``
writes a string (plus ``end``) to Python's ``sys.stdout``/``sys.stderr`` as they are when it
runs (so redirections see it), to the ``modtensor`` logger at INFO/WARNING/ERROR for
``log(info)``/``log(warning)``/``log(error)``, or appends it to a ``file://`` path.
``Assert`` fails with ``assertion failed: [data] [data]`` (TF's v1 summaries) when its
condition is false; it is registered for CPU and DEFAULT with every input in host memory.
"""

from __future__ import annotations

import logging
import sys

import numpy as np

from modtensor.framework import errors
from modtensor.framework.shape_inference import summarize_value, summarize_value_v2
from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext

__all__ = ["AssertKernel", "PrintV2Kernel", "StringFormatKernel", "register_logging_kernels"]

_VALID_STREAMS = ("stdout", "stderr", "log(info)", "log(warning)", "log(error)")
_LOG_LEVELS = {"log(info)": logging.INFO, "log(warning)": logging.WARNING, "log(error)": logging.ERROR}


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _host(ctx: OpKernelContext, value: object) -> np.ndarray:
    return value if isinstance(value, np.ndarray) else ctx.device.to_host(value)


class StringFormatKernel(OpKernel):
    """The template with each placeholder replaced by the next input's summary."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        template = _text(ctx.get_attr("template"))
        placeholder = _text(ctx.get_attr("placeholder"))
        self._summarize = ctx.get_attr("summarize")
        self._pieces = template.split(placeholder) if placeholder else list(template)
        if len(self._pieces) - 1 != len(ctx.input_types):
            ctx.fail(
                errors.InvalidArgumentError(
                    ctx.node_def,
                    None,
                    f"num placeholders in template and num inputs must match: {len(self._pieces) - 1} vs. "
                    f"{len(ctx.input_types)}",
                )
            )

    def compute(self, ctx: OpKernelContext) -> None:
        """Format the inputs into the template."""
        out = [self._pieces[0]]
        for i, value in enumerate(ctx.inputs):
            out.append(summarize_value_v2(_host(ctx, value), self._summarize))
            out.append(self._pieces[i + 1])
        ctx.set_output(0, np.array("".join(out).encode("utf-8"), dtype=object))


class PrintV2Kernel(OpKernel):
    """Write the scalar string input and ``end`` to the op's output stream."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._stream = _text(ctx.get_attr("output_stream"))
        self._end = _text(ctx.get_attr("end"))
        self._file = self._stream[len("file://") :] if self._stream.startswith("file://") else None
        if self._file is None and self._stream not in _VALID_STREAMS:
            ctx.fail(
                errors.InvalidArgumentError(
                    ctx.node_def,
                    None,
                    f"Unknown output stream: {self._stream}, Valid streams are: " + " ".join(_VALID_STREAMS),
                )
            )

    def compute(self, ctx: OpKernelContext) -> None:
        """Print."""
        value = _host(ctx, ctx.inputs[0])
        if value.shape != ():
            raise errors.InvalidArgumentError(
                None, None, f"Input is expected to be scalar, but got {_shape_text(value.shape)}"
            )
        message = _text(value[()])
        if self._file is not None:
            try:
                with open(self._file, "a", encoding="utf-8") as f:
                    f.write(message + self._end)
            except OSError as exc:
                raise errors.NotFoundError(
                    None, None, f"Could not append to the print output file {self._file}: {exc.strerror}"
                ) from exc
            return
        level = _LOG_LEVELS.get(self._stream)
        if level is not None:
            logging.getLogger("modtensor").log(level, "%s", message)
            return
        stream = sys.stdout if self._stream == "stdout" else sys.stderr
        stream.write(message + self._end)
        stream.flush()


class AssertKernel(OpKernel):
    """Fail with TF's ``assertion failed: [...]`` message when the condition is false."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._summarize = ctx.get_attr("summarize")

    def compute(self, ctx: OpKernelContext) -> None:
        """Check the condition."""
        condition = _host(ctx, ctx.inputs[0])
        if condition.size != 1:  # TF's IsLegacyScalar: any shape with one element
            raise errors.InvalidArgumentError(None, None, f"In[0] should be a scalar: {_shape_text(condition.shape)}")
        if bool(condition.reshape(-1)[0]):
            return
        parts = [f"[{summarize_value(_host(ctx, v), self._summarize)}]" for v in ctx.inputs[1:]]
        raise errors.InvalidArgumentError(None, None, "assertion failed: " + " ".join(parts))


def register_logging_kernels(registry: KernelRegistry, source: str) -> list[KernelRegistration]:
    """StringFormat and PrintV2 for CPU; Assert for CPU and DEFAULT (condition and data in host memory)."""
    return [
        registry.register("StringFormat", "CPU", StringFormatKernel, source=source),
        registry.register("PrintV2", "CPU", PrintV2Kernel, source=source),
        registry.register("Assert", "CPU", AssertKernel, source=source),
        registry.register("Assert", "DEFAULT", AssertKernel, host_memory=("condition", "data"), source=source),
    ]
