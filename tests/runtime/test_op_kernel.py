"""Kernel construction, the per-call context (allocation, forwarding, status) and the checks after compute."""

from __future__ import annotations

import numpy as np
import pytest

from modtensor.framework import dtypes, errors
from modtensor.runtime.allocator import CPUAllocator
from modtensor.runtime.cpu_device import CPUDevice
from modtensor.runtime.device import DeviceAttributes
from modtensor.runtime.kernel_registry import KernelRegistry
from modtensor.runtime.op_kernel import FunctionKernel, OpKernel, OpKernelContext, create_kernel

from .support import make_node, op_def

NAME = "/job:localhost/replica:0/task:0/device:CPU:0"


@pytest.fixture
def cpu() -> CPUDevice:
    return CPUDevice(DeviceAttributes(NAME, "CPU", 1 << 28), CPUAllocator(collect_stats=True))


def build(kernel_cls, op="Relu", node=None, device=None, **reg_kwargs):
    reg = KernelRegistry()
    reg.register(op, "CPU", kernel_cls, **reg_kwargs)
    node = node if node is not None else make_node(op, "r", ("x",), T=dtypes.float32)
    device = device or CPUDevice(DeviceAttributes(NAME, "CPU", 1 << 28), CPUAllocator(collect_stats=True))
    return create_kernel(node, op_def(op), device, reg)


class Forwarding(OpKernel):
    """Relu that writes in place when it may: records where its output came from."""

    def compute(self, ctx):
        shape = ctx.inputs[0].shape
        out, forwarded = ctx.forward_input_or_allocate_output([0], 0, shape)
        ctx.forwarded = forwarded  # type: ignore[attr-defined]  (test-only marker via a subclass)
        np.maximum(ctx.input(0), 0, out=out)


class Ctx(OpKernelContext):
    __slots__ = ("forwarded",)


def test_construction_reads_attrs_and_types(cpu) -> None:
    seen = {}

    class Reader(OpKernel):
        def __init__(self, ctx):
            super().__init__(ctx)
            seen.update(strides=ctx.get_attr("strides"), padding=ctx.get_attr("padding"), T=ctx.get_attr("T"))
            seen.update(fmt=ctx.get_attr("data_format"), has=ctx.has_attr("bogus"))

        def compute(self, ctx):
            pass

    node = make_node("Conv2D", "conv", ("x", "w"), T=dtypes.float32, strides=[1, 2, 2, 1], padding="SAME")
    kernel = build(Reader, "Conv2D", node, cpu)
    assert seen == {"strides": [1, 2, 2, 1], "padding": b"SAME", "T": dtypes.float32, "fmt": b"NHWC", "has": False}
    assert kernel.input_types == (dtypes.float32, dtypes.float32) and kernel.output_types == (dtypes.float32,)
    assert (kernel.name, kernel.type_string, kernel.device) == ("conv", "Conv2D", cpu)


def test_construction_error_is_the_same_class_naming_the_node() -> None:
    class Picky(OpKernel):
        def __init__(self, ctx):
            super().__init__(ctx)
            raise errors.InvalidArgumentError(None, None, "Current implementation does not support strides")

    with pytest.raises(errors.InvalidArgumentError) as info:
        build(Picky)
    assert str(info.value) == "Current implementation does not support strides\n\t [[{{node r}}]]"
    assert info.value.node_def.name == "r" and isinstance(info.value.__cause__, errors.InvalidArgumentError)


def test_construction_failure_through_fail_and_missing_attr() -> None:
    class Fails(OpKernel):
        def __init__(self, ctx):
            super().__init__(ctx)
            ctx.fail(errors.UnimplementedError(None, None, "no such mode"))
            ctx.fail(errors.InternalError(None, None, "second failure is ignored"))

    with pytest.raises(errors.UnimplementedError, match=r"^no such mode\n\t \[\[\{\{node r\}\}\]\]$"):
        build(Fails)

    class Missing(OpKernel):
        def __init__(self, ctx):
            super().__init__(ctx)
            ctx.get_attr("alpha")

    with pytest.raises(errors.NotFoundError) as info:
        build(Missing)
    assert str(info.value) == "No attr named 'alpha' in NodeDef:\n\t [[{{node r}}]]"


def test_python_exception_in_constructor_is_internal_error() -> None:
    class Buggy(OpKernel):
        def __init__(self, ctx):
            super().__init__(ctx)
            raise KeyError("oops")

    with pytest.raises(errors.InternalError, match=r"kernel for op 'Relu' \(from .*\) failed: KeyError: 'oops'"):
        build(Buggy)


def test_factory_must_return_an_initialized_kernel() -> None:
    with pytest.raises(errors.InternalError, match="returned object, not an OpKernel"):
        build(lambda ctx: object())


def test_run_checks_status_unset_outputs_and_dtypes() -> None:
    class WrongType(OpKernel):
        def compute(self, ctx):
            ctx.set_output(0, np.zeros(3, np.int64))

    kernel = build(WrongType)
    with pytest.raises(errors.InternalError) as info:
        kernel.run(OpKernelContext(kernel, [np.zeros(3, np.float32)]))
    assert str(info.value) == (
        "Kernel 'r' (op Relu) on CPU produced output 0 of dtype int64, expected float32 (node {{node r}})"
    )

    class Lazy(OpKernel):
        def compute(self, ctx):
            pass

    kernel = build(Lazy)
    with pytest.raises(errors.InternalError, match=r"Kernel 'r' \(op Relu\) did not set output 0"):
        kernel.run(OpKernelContext(kernel, [np.zeros(3, np.float32)]))

    class Failing(OpKernel):
        def compute(self, ctx):
            ctx.fail(errors.InvalidArgumentError(None, None, "bad input"))

    kernel = build(Failing)
    with pytest.raises(errors.InvalidArgumentError, match="^bad input$"):
        kernel.run(OpKernelContext(kernel, [np.zeros(3, np.float32)]))


def test_allocation_comes_from_the_device_allocator(cpu) -> None:
    class Alloc(OpKernel):
        def compute(self, ctx):
            tmp = ctx.allocate_temp(np.float64, (4,))
            out = ctx.allocate_output(0, ctx.input(0).shape)
            tmp.fill(1)
            out[...] = ctx.input(0) + tmp[: out.size].reshape(out.shape)

    kernel = build(Alloc, device=cpu)
    before = cpu.allocator.get_stats().num_allocs
    (out,) = kernel.run(OpKernelContext(kernel, [np.arange(3, dtype=np.float32)]))
    np.testing.assert_array_equal(out, [1, 2, 3])
    assert out.dtype == np.float32
    stats = cpu.allocator.get_stats()
    assert stats.num_allocs == before + 2 and stats.largest_alloc_size == 32
    del out
    assert cpu.allocator.get_stats().bytes_in_use == 0  # the temp and output were freed


def run_forwarding(kernel, value):
    ctx = Ctx(kernel, [value])
    del value
    out = kernel.run(ctx)[0]
    return out, ctx.forwarded


def test_forwarding_reuses_an_exclusive_input() -> None:
    kernel = build(Forwarding)
    out, forwarded = run_forwarding(kernel, np.array([-1.0, 2.0], np.float32))
    assert forwarded == 0 and out.tolist() == [0.0, 2.0]


def test_forwarding_never_touches_a_value_seen_elsewhere() -> None:
    kernel = build(Forwarding)
    held = np.array([-1.0, 2.0], np.float32)
    out, forwarded = run_forwarding(kernel, held)
    assert forwarded == -1 and held.tolist() == [-1.0, 2.0] and out.tolist() == [0.0, 2.0]

    base = np.array([-1.0, 2.0, -3.0, 4.0], np.float32)
    _, forwarded = run_forwarding(kernel, base[:2])  # a view: its buffer belongs to `base`
    assert forwarded == -1 and base.tolist() == [-1.0, 2.0, -3.0, 4.0]

    def read_only():  # e.g. a Const kernel's cached value: never written in place
        value = np.array([-1.0], np.float32)
        value.flags.writeable = False
        return value

    out, forwarded = run_forwarding(kernel, read_only())
    assert forwarded == -1 and out.tolist() == [0.0]


def test_forward_input_requires_matching_dtype_size_and_reshapes_in_place(cpu) -> None:
    kernel = build(Forwarding, device=cpu)
    ctx = OpKernelContext(kernel, [np.zeros(6, np.float32), np.zeros(6, np.float64)])
    assert ctx.forward_input(1, 0, (6,)) is None  # float64 input, float32 output
    assert ctx.forward_input(0, 0, (7,)) is None  # different number of elements
    out = ctx.forward_input(0, 0, (2, 3))
    assert out is ctx.input(0) and out.shape == (2, 3) and ctx.output(0) is out


def test_context_basics(cpu) -> None:
    kernel = build(Forwarding, device=cpu)
    ctx = OpKernelContext(kernel, [np.zeros(2, np.float32)], step_id=7)
    assert (ctx.num_inputs, ctx.num_outputs, ctx.step_id, ctx.device, ctx.op_kernel) == (1, 1, 7, cpu, kernel)
    assert ctx.input_dtype(0) == dtypes.float32 and ctx.expected_output_dtype(0) == dtypes.float32
    assert ctx.is_input_host_memory(0) and ctx.is_output_host_memory(0)
    assert ctx.stream is None  # CPU has no stream: TF_GetStream reports an error there


def test_host_memory_args_on_a_device_with_its_own_memory() -> None:
    class DeviceMemoryDevice(CPUDevice):
        is_host = False

    dev = DeviceMemoryDevice(DeviceAttributes(NAME.replace("CPU", "XPU"), "XPU", 1 << 20), CPUAllocator())
    reg = KernelRegistry()
    reg.register("Reshape", "XPU", Forwarding, host_memory=["shape"])
    node = make_node("Reshape", "rs", ("t", "s"), T=dtypes.float32, Tshape=dtypes.int32)
    kernel = create_kernel(node, op_def("Reshape"), dev, reg)
    assert kernel.input_host_memory == (False, True) and kernel.output_host_memory == (False,)
    reg.register("Reshape", "XPU", Forwarding, host_memory=["bogus"], label="x")
    with pytest.raises(errors.InvalidArgumentError, match="HostMemory arg 'bogus' of the XPU kernel for op 'Reshape'"):
        create_kernel(
            make_node("Reshape", "rs", ("t", "s"), T=dtypes.float32, _kernel="x"), op_def("Reshape"), dev, reg
        )


def test_function_kernel_groups_list_inputs_and_passes_attrs(cpu) -> None:
    calls = []

    def concat(values, axis):
        calls.append(len(values))
        return np.concatenate(values, axis=int(axis))

    reg = KernelRegistry()
    reg.register("ConcatV2", "CPU", FunctionKernel.factory_for(concat))
    node = make_node("ConcatV2", "c", ("a", "b", "ax"), T=dtypes.float32, N=2, Tidx=dtypes.int32)
    kernel = create_kernel(node, op_def("ConcatV2"), cpu, reg)
    a, b = np.ones((1, 2), np.float32), np.zeros((1, 2), np.float32)
    (out,) = kernel.run(OpKernelContext(kernel, [a, b, np.array(0, np.int32)]))
    assert out.shape == (2, 2) and calls == [2]

    def unpack(value, num, axis=0):
        return tuple(np.moveaxis(value, axis, 0))

    reg.register("Unpack", "CPU", FunctionKernel.factory_for(unpack))
    node = make_node("Unpack", "u", ("v",), T=dtypes.float32, num=2, axis=1)
    kernel = create_kernel(node, op_def("Unpack"), cpu, reg)
    outs = kernel.run(OpKernelContext(kernel, [np.arange(4, dtype=np.float32).reshape(2, 2)]))
    assert [o.tolist() for o in outs] == [[0.0, 2.0], [1.0, 3.0]]
