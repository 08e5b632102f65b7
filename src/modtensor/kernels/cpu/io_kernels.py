"""Kernels of ``tf.io``'s byte ops: DecodeRaw, DecodePaddedRaw, SerializeTensor, ParseTensor, ReadFile, WriteFile.

``DecodeRaw`` reinterprets each string as values of ``out_type`` (all strings the same size,
byte order per ``little_endian``); ``DecodePaddedRaw`` zero-pads or truncates each to
``fixed_length`` bytes first. ``SerializeTensor`` writes the TensorProto TF's kernel writes
(strings in ``string_val``, everything else little-endian in ``tensor_content``), so the bytes
equal TF's; ``ParseTensor`` reads any TensorProto back. ``ReadFile`` / ``WriteFile`` read and
(stateful) write whole files, creating missing parent directories as TF does. Errors are TF's.
They are registered for CPU by ``register_io_kernels`` (from kernels/cpu/registrations.py).
"""

from __future__ import annotations

import base64
import os
from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors
from modtensor.framework.file_system import matching_paths, os_error
from modtensor.framework.protos import tensor_pb2
from modtensor.framework.tensor_proto import as_proto_tensor_content, make_ndarray
from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext

__all__ = [
    "IO_KERNELS",
    "register_io_kernels",
    "DecodePaddedRawOp",
    "DecodeRawOp",
    "ParseTensorOp",
    "ReadFileOp",
    "SerializeTensorOp",
    "WriteFileOp",
]


def _strings(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=object)


def _as_bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def _from_bytes(data: bytes, dtype: dtypes.DType, little_endian: bool) -> np.ndarray:
    """``data`` read as values of ``dtype``, each value's bytes reversed when the order is not the host's (a complex
    value's real and imaginary parts each, as TF swaps them)."""
    size = dtype.size // 2 if dtype.is_complex else dtype.size
    raw = np.frombuffer(data, dtype=np.uint8).reshape(-1, size)
    if little_endian != (np.little_endian is True) and size > 1:
        raw = raw[:, ::-1]
    raw = np.ascontiguousarray(raw).reshape(-1, dtype.size)
    if dtype == dtypes.bool:
        return raw.reshape(-1) != 0
    return raw.view(dtype.as_numpy_dtype).reshape(-1)


class _DecodeBase(OpKernel):
    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self.out_type = dtypes.as_dtype(ctx.get_attr("out_type"))
        self.little_endian = bool(ctx.get_attr("little_endian"))


class DecodeRawOp(_DecodeBase):
    """DecodeRaw: ``[*input.shape, len / sizeof(out_type)]``; every string must have the same length."""

    def compute(self, ctx: OpKernelContext) -> None:
        strings = _strings(ctx.inputs[0])
        flat = [_as_bytes(s) for s in strings.reshape(-1).tolist()]
        str_size = -1
        for i, item in enumerate(flat):
            if str_size == -1:
                str_size = len(item)
            elif len(item) != str_size:
                raise invalid_argument(
                    f"DecodeRaw requires input strings to all be the same size, but element {i} has size {str_size} "
                    f"!= {len(item)}"
                )
        np_dtype = self.out_type.as_numpy_dtype
        if str_size <= 0:
            ctx.set_output(0, np.zeros((*strings.shape, 0), dtype=np_dtype))
            return
        size = self.out_type.size
        if str_size % size:
            raise invalid_argument(
                f"Input to DecodeRaw has length {str_size} that is not a multiple of {size}, the size of "
                f"{self.out_type.cpp_name}"
            )
        values = _from_bytes(b"".join(flat), self.out_type, self.little_endian)
        ctx.set_output(0, values.reshape(*strings.shape, str_size // size).astype(np_dtype, copy=False))


class DecodePaddedRawOp(_DecodeBase):
    """DecodePaddedRaw: each string cut or zero-padded to ``fixed_length`` bytes, then read as DecodeRaw does."""

    def compute(self, ctx: OpKernelContext) -> None:
        strings = _strings(ctx.inputs[0])
        length = np.asarray(ctx.inputs[1])
        if length.ndim != 0:
            raise invalid_argument(f"k must be scalar, got shape {shape_str(length.shape)}")
        fixed_length = int(length)
        size = self.out_type.size
        if fixed_length % size:
            raise invalid_argument(
                f"fixed_length ({fixed_length}) must be a multiple of the size of out_type ({size})"
            )
        if fixed_length <= 0:
            raise invalid_argument(f"fixed_length ({fixed_length}) must be greater than zero.")
        padded = [_as_bytes(s)[:fixed_length].ljust(fixed_length, b"\0") for s in strings.reshape(-1).tolist()]
        values = _from_bytes(b"".join(padded), self.out_type, self.little_endian)
        np_dtype = self.out_type.as_numpy_dtype
        ctx.set_output(0, values.reshape(*strings.shape, fixed_length // size).astype(np_dtype, copy=False))


def serialize_tensor(value: np.ndarray, dtype: dtypes.DType) -> bytes:
    """The TensorProto bytes TF's SerializeTensor gives: strings as ``string_val``, else ``tensor_content``."""
    if dtype == dtypes.string:
        value = np.asarray([_as_bytes(x) for x in value.reshape(-1).tolist()], dtype=object).reshape(value.shape)
    return as_proto_tensor_content(value, dtype).SerializeToString()


class SerializeTensorOp(OpKernel):
    """SerializeTensor: a scalar string holding the input as a serialized TensorProto."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self.dtype = dtypes.as_dtype(ctx.get_attr("T"))

    def compute(self, ctx: OpKernelContext) -> None:
        if self.dtype in (dtypes.variant, dtypes.resource):
            raise errors.UnimplementedError(None, None, f"SerializeTensor: {self.dtype.name} tensors are not supported")
        out = np.empty((), dtype=object)
        out[()] = serialize_tensor(np.asarray(ctx.inputs[0]), self.dtype)
        ctx.set_output(0, out)


class ParseTensorOp(OpKernel):
    """ParseTensor: the tensor a serialized TensorProto holds; its dtype must be ``out_type``."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self.out_type = dtypes.as_dtype(ctx.get_attr("out_type"))

    def compute(self, ctx: OpKernelContext) -> None:
        serialized = _strings(ctx.inputs[0])
        if serialized.ndim != 0:
            raise invalid_argument(f"Expected `serialized` to be a scalar, got shape: {shape_str(serialized.shape)}")
        data = _as_bytes(serialized[()])
        proto = tensor_pb2.TensorProto()
        try:
            proto.ParseFromString(data)
        except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
            encoded = base64.b64encode(data).decode("ascii")
            raise invalid_argument(f"Could not parse `serialized` as TensorProto, base64: {encoded}") from None
        try:
            if proto.dtype in (0, dtypes.variant.as_datatype_enum, dtypes.resource.as_datatype_enum):
                raise ValueError("no tensor of this dtype")
            value = make_ndarray(proto)
        except Exception:  # noqa: BLE001 - an invalid dtype, shape or content size
            raise invalid_argument(f"Cannot parse tensor from proto: goo.gle/debugstr   \n{proto}") from None
        dtype = dtypes.as_dtype(proto.dtype)
        if dtype != self.out_type:
            raise invalid_argument(
                f"Type mismatch between parsed tensor ({dtype.cpp_name}) and dtype ({self.out_type.cpp_name})"
            )
        if dtype == dtypes.string:
            out = np.empty(value.shape, dtype=object)
            out.reshape(-1)[:] = [_as_bytes(x) for x in value.reshape(-1).tolist()]
            value = out
        ctx.set_output(0, np.asarray(value, dtype=object if dtype == dtypes.string else dtype.as_numpy_dtype))


def _scalar_string(value: Any, what: str) -> str:
    array = _strings(value)
    if array.ndim != 0:
        raise invalid_argument(f"{what} tensor must be scalar, but had shape: {shape_str(array.shape)}")
    item = array[()]
    return item.decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item)


class ReadFileOp(OpKernel):
    """ReadFile: the whole contents of the file named by a scalar string."""

    def compute(self, ctx: OpKernelContext) -> None:
        path = _scalar_string(ctx.inputs[0], "Input filename")
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise os_error(e, path) from None
        out = np.empty((), dtype=object)
        out[()] = data
        ctx.set_output(0, out)


class WriteFileOp(OpKernel):
    """WriteFile: replace the file's contents (creating missing parent directories); no outputs."""

    def compute(self, ctx: OpKernelContext) -> None:
        path = _scalar_string(ctx.inputs[0], "Input filename")
        contents = _strings(ctx.inputs[1])
        if contents.ndim != 0:
            raise invalid_argument(f"Contents tensor must be scalar, but had shape: {shape_str(contents.shape)}")
        try:
            parent = os.path.dirname(path)
            if parent:
                os.makedirs(parent, exist_ok=True)
            with open(path, "wb") as f:
                f.write(_as_bytes(contents[()]))
        except OSError as e:
            raise os_error(e, path) from None


class MatchingFilesOp(OpKernel):
    """MatchingFiles: the files matching a pattern (or a vector of patterns), all of them sorted together."""

    def compute(self, ctx: OpKernelContext) -> None:
        patterns = _strings(ctx.inputs[0])
        if patterns.ndim > 1:
            raise invalid_argument(f"Input patterns tensor must be scalar or vector, but had shape: "
                                   f"{shape_str(patterns.shape)}")  # fmt: skip
        found: list[str] = []
        for item in patterns.reshape(-1):
            found += matching_paths(item.decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item))
        out = np.empty(len(found), dtype=object)
        out[:] = [os.fsencode(path) for path in sorted(found)]
        ctx.set_output(0, out)


IO_KERNELS: dict[str, type[OpKernel]] = {
    "MatchingFiles": MatchingFilesOp,
    "DecodeRaw": DecodeRawOp,
    "DecodePaddedRaw": DecodePaddedRawOp,
    "SerializeTensor": SerializeTensorOp,
    "ParseTensor": ParseTensorOp,
    "ReadFile": ReadFileOp,
    "WriteFile": WriteFileOp,
}


def register_io_kernels(registry: KernelRegistry, source: str) -> list[KernelRegistration]:
    """DecodeRaw, DecodePaddedRaw, SerializeTensor, ParseTensor, ReadFile, WriteFile and MatchingFiles for CPU."""
    return [registry.register(op, "CPU", cls, source=source) for op, cls in IO_KERNELS.items()]
