"""Kernel registration and lookup: constraints, priority, labels, ties, and TF's "no kernel" message.

TF 2.21's own messages for a MatMul of uint8 (no CPU kernel), recorded from TF for the
placer and eager layers, which build them from ``registered_kernels_string``:
graph:  "No OpKernel was registered to support Op 'MatMul' used by {{node mm}} with these attrs: [...]
         \\nRegistered devices: [CPU]\\nRegistered kernels:\\n  device='CPU'; T in [DT_INT64]\\n ..."
eager:  "Could not find device for node: {{node MatMul}} = MatMul[T=DT_UINT8, ...]
         \\nAll kernels registered for op MatMul:\\n  device='CPU'; T in [DT_INT64]\\n ..."
"""

from __future__ import annotations

import pytest

from modtensor.framework import dtypes, errors
from modtensor.runtime import device_factory
from modtensor.runtime.kernel_registry import KernelRegistry, register_kernel
from modtensor.runtime.op_kernel import OpKernel

from .support import make_node, op_def


class K1(OpKernel):
    def compute(self, ctx):
        pass


class K2(K1):
    pass


class K3(K1):
    pass


def mm(dtype=dtypes.float32, **extra):
    return make_node("MatMul", "mm", ("a", "b"), T=dtype, **extra)


@pytest.fixture
def reg() -> KernelRegistry:
    return KernelRegistry()


def test_constraints_select_the_kernel(reg) -> None:
    r_float = reg.register("MatMul", "CPU", K1, constraints={"T": [dtypes.float32, "float64"]}, source="f")
    r_int = reg.register("MatMul", "CPU", K2, constraints={"T": "DT_INT32"}, source="i")
    assert reg.find_kernel(mm(dtypes.float64), op_def("MatMul"), "CPU") is r_float
    assert reg.find_kernel(mm(dtypes.int32), op_def("MatMul"), "CPU") is r_int
    assert r_float.kernel_def.describe() == "device='CPU'; T in [DT_FLOAT, DT_DOUBLE]"


def test_no_matching_kernel_is_tensorflows_not_found(reg) -> None:
    reg.register("MatMul", "CPU", K1, constraints={"T": [dtypes.float32]})
    reg.register("MatMul", "CPU", K2, constraints={"T": [dtypes.float64]})
    with pytest.raises(errors.NotFoundError) as info:
        reg.find_kernel(mm(dtypes.uint8), op_def("MatMul"), "CPU")
    assert str(info.value) == (
        "No registered 'MatMul' OpKernel for 'CPU' devices compatible with node {{node mm}}\n"
        "\t (OpKernel was found, but attributes didn't match) Requested Attributes: "
        "T=DT_UINT8, grad_a=false, grad_b=false, transpose_a=false, transpose_b=false\n"
        "\t.  Registered:  device='CPU'; T in [DT_FLOAT]\n"
        "  device='CPU'; T in [DT_DOUBLE]\n"
    )
    assert info.value.node_def.name == "mm"
    with pytest.raises(errors.NotFoundError) as info:
        reg.find_kernel(mm(), op_def("MatMul"), "GPU")
    assert "for 'GPU' devices compatible with node {{node mm}}\n\t.  Registered:  device='CPU'" in str(info.value)
    with pytest.raises(errors.NotFoundError, match="Registered:  <no registered kernels>\n$"):
        reg.find_kernel(make_node("Relu", "r", ("x",), T=dtypes.float32), op_def("Relu"), "CPU")


def test_highest_priority_wins_and_ties_are_errors(reg) -> None:
    reg.register("MatMul", "CPU", K1, constraints={"T": [dtypes.float32]})
    hi = reg.register("MatMul", "CPU", K2, priority=1)
    assert reg.find_kernel(mm(), op_def("MatMul"), "CPU") is hi
    reg.register("MatMul", "CPU", K3, priority=1, constraints={"T": [dtypes.float32, dtypes.int32]})
    with pytest.raises(errors.InvalidArgumentError, match="Multiple OpKernel registrations match NodeDef at the same"):
        reg.find_kernel(mm(), op_def("MatMul"), "CPU")


def test_labels_select_only_labelled_kernels(reg) -> None:
    plain = reg.register("MatMul", "CPU", K1)
    fast = reg.register("MatMul", "CPU", K2, label="fast")
    assert reg.find_kernel(mm(), op_def("MatMul"), "CPU") is plain
    assert reg.find_kernel(mm(_kernel="fast"), op_def("MatMul"), "CPU") is fast
    with pytest.raises(errors.NotFoundError):
        reg.find_kernel(mm(_kernel="slow"), op_def("MatMul"), "CPU")
    assert fast.kernel_def.describe() == "device='CPU'; label='fast'"


def test_constraint_on_unknown_attr_is_reported(reg) -> None:
    reg.register("MatMul", "CPU", K1, constraints={"Tidx": [dtypes.int32]})
    with pytest.raises(
        errors.InvalidArgumentError, match="OpKernel 'MatMul' has constraint on attr 'Tidx' not in NodeDef"
    ):
        reg.find_kernel(mm(), op_def("MatMul"), "CPU")


def test_list_type_constraints_check_every_element(reg) -> None:
    reg.register("IdentityN", "CPU", K1, constraints={"T": [dtypes.float32, dtypes.int32]})
    good = make_node("IdentityN", "n", ("a", "b"), T=[dtypes.float32, dtypes.int32])
    bad = make_node("IdentityN", "n", ("a", "b"), T=[dtypes.float32, dtypes.int64])
    assert reg.has_kernel(good, op_def("IdentityN"), "CPU")
    assert not reg.has_kernel(bad, op_def("IdentityN"), "CPU")


def test_duplicates_are_kept_as_tensorflow_keeps_them_and_removal_rolls_back(reg) -> None:
    first = reg.register("MatMul", "CPU", K1, constraints={"T": [dtypes.float32]}, source="one.so")
    second = reg.register("MatMul", "CPU", K2, constraints={"T": [dtypes.float32]}, source="two.so")
    assert reg.kernels_for_op("MatMul") == [first, second]
    assert reg.same_priority_duplicates(second) == [first]
    with pytest.raises(errors.InvalidArgumentError, match="Multiple OpKernel registrations match NodeDef"):
        reg.find_kernel(mm(), op_def("MatMul"), "CPU")
    reg.remove(second)
    assert reg.find_kernel(mm(), op_def("MatMul"), "CPU") is first
    reg.remove(first)
    assert reg.kernels_for_op("MatMul") == [] and reg.ops() == []
    assert reg.registered_kernels_string("MatMul") == "  <no registered kernels>\n"
    with pytest.raises(KeyError):
        reg.remove(first)


def test_change_listeners_hear_of_registration_and_removal(reg) -> None:
    heard: list[str] = []
    reg.add_change_listener(heard.append)
    first = reg.register("MatMul", "CPU", K1)
    reg.remove(first)
    assert heard == ["MatMul", "MatMul"]


def test_supported_device_types_follow_device_priority(reg, fresh_devices) -> None:
    from .test_device_factory import FakeFactory

    device_factory.register_device_factory("GPU", FakeFactory("GPU", 1), priority=210)
    reg.register("MatMul", "CPU", K1)
    reg.register("MatMul", "GPU", K2, constraints={"T": [dtypes.float32]})
    assert reg.supported_device_types(mm(), op_def("MatMul")) == ["GPU", "CPU"]
    assert reg.supported_device_types(mm(dtypes.int32), op_def("MatMul")) == ["CPU"]
    assert reg.supported_device_types(mm(), op_def("MatMul"), ["CPU"]) == ["CPU"]


def test_decorator_registers_and_records_the_registration(reg) -> None:
    @register_kernel("MatMul", "CPU", constraints={"T": [dtypes.float32]}, priority=3, registry=reg)
    class MyMatMul(OpKernel):
        def compute(self, ctx):
            pass

    (registration,) = MyMatMul.kernel_registrations
    assert registration.factory is MyMatMul and registration.kernel_def.priority == 3
    assert registration.source.endswith("test_kernel_registry.py:" + registration.source.rsplit(":", 1)[1])
    assert reg.find_kernel(mm(), op_def("MatMul"), "CPU") is registration
