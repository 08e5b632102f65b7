"""c_api.h / c_api_experimental.h functions plugins call, through a plugin built against the headers.

TensorFlow's behaviour for each (TF 2.21): TF_Version is the version string; TF_GetAllOpList a
serialized OpList of every registered op; TF_GetRegisteredKernelsForOp a serialized KernelList
(empty for an unknown op); TF_OpIsStateful the op's flag (NotFound for an unknown op);
TF_TensorFromProto replaces the tensor's contents with the parsed proto (InvalidArgument
"Could not parse input proto" on bad bytes). The same plugin built against TensorFlow's headers and
loaded into TensorFlow 2.21 gave the values asserted here (version, 300-byte Relu KernelList there,
empty list and NotFound for an unknown op, the parsed floats, aligned, and InvalidArgument).
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from modtensor.framework import tensor_proto
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import op_def_pb2
from modtensor.plugin import load_library
from modtensor.plugin.native.kernel_def import _kernel_list_class
from modtensor.runtime.kernel_registry import global_kernel_registry


@pytest.fixture(scope="module")
def lib(build_plugin):
    path = build_plugin("c_api_user")
    load_library(path)
    lib = ctypes.CDLL(str(path))
    lib.c_api_version.restype = ctypes.c_char_p
    lib.c_api_kernels_for.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.c_api_is_stateful.argtypes = [ctypes.c_char_p]
    int_p = ctypes.POINTER(ctypes.c_int)
    float_p = ctypes.POINTER(ctypes.c_float)
    lib.c_api_tensor_from_proto.argtypes = [ctypes.c_char_p, ctypes.c_size_t, float_p, ctypes.c_long, int_p, int_p]
    return lib


def test_version(lib):
    assert lib.c_api_version() == b"2.21.0"


def test_all_op_list_is_the_op_registry(lib):
    from modtensor.plugin.native.c_api import registry_query

    size = lib.c_api_op_list_size()
    ops = op_def_pb2.OpList.FromString(registry_query(0, None))
    assert size == ops.ByteSize() > 0
    names = [op.name for op in ops.op]
    assert "MatMul" in names and len(names) == len(global_registry().names())


def test_registered_kernels_for_op(lib):
    from modtensor.plugin.native.c_api import registry_query

    error = ctypes.create_string_buffer(256)
    assert lib.c_api_kernels_for(b"Relu", error, 256) > 0
    listed = _kernel_list_class().FromString(registry_query(1, "Relu"))
    registered = global_kernel_registry().kernels_for_op("Relu")
    assert [(k.op, k.device_type) for k in listed.kernel] == [("Relu", r.kernel_def.device_type) for r in registered]
    assert listed.kernel[0].constraint[0].name == "T"
    assert lib.c_api_kernels_for(b"NoSuchOpAtAll", error, 256) == 0  # TF: an empty KernelList


def test_op_is_stateful(lib):
    assert lib.c_api_is_stateful(b"RandomUniform") == 1
    assert lib.c_api_is_stateful(b"MatMul") == 0
    assert lib.c_api_is_stateful(b"NoSuchOpAtAll") == -5  # NotFound


def test_tensor_from_proto(lib):
    proto = tensor_proto.make_tensor_proto(np.array([[1.5, 2.5], [3.5, 4.5]], np.float32)).SerializeToString()
    out = (ctypes.c_float * 4)()
    dtype, aligned = ctypes.c_int(), ctypes.c_int()
    assert lib.c_api_tensor_from_proto(proto, len(proto), out, 4, ctypes.byref(dtype), ctypes.byref(aligned)) == 4
    assert list(out) == [1.5, 2.5, 3.5, 4.5] and dtype.value == 1 and aligned.value == 1
    bad = b"\xff\xff\xff"
    assert lib.c_api_tensor_from_proto(bad, len(bad), out, 4, ctypes.byref(dtype), ctypes.byref(aligned)) == -3
