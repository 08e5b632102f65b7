"""C kernels through TensorFlow's kernel C API, run as the runtime runs every kernel (create_kernel + OpKernel.run).

The kernels are in tests/plugin/csrc/api_plugin.c; most report what the API
returned as a ``key=value;`` string, checked here against TensorFlow's behaviour.
"""

from __future__ import annotations

import ctypes
import gc
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from modtensor.framework import errors, tensor_proto
from modtensor.plugin.native.kernels import NativeKernel
from modtensor.runtime.allocator import aligned_copy
from modtensor.runtime.op_kernel import AsyncOpKernel

from .support import kernel, node, report, run

pytestmark = pytest.mark.usefixtures("api_plugin")


def attrs_node(**extra):
    attrs = {
        "i": (7, "int"),
        "f": (2.5, "float"),
        "t": (2, "type"),
        "s": (b"hello", "string"),
        "li": ([1, 2, 3], "list(int)"),
        "lt": ([1, 9], "list(type)"),
        "ls": ([b"ab", b"cde"], "list(string)"),
        "shape": ([2, 5], "shape"),
        "lshape": ([[2, 3], [4]], "list(shape)"),
        "tensor": (tensor_proto.make_tensor_proto(np.array([4, 5, 6], np.int32)), "tensor"),
        "ltensor": ([tensor_proto.make_tensor_proto(np.float32(1.5)), tensor_proto.make_tensor_proto(b"xy")],
                    "list(tensor)"),
    }  # fmt: skip
    attrs.update(extra)
    return node("MtApiAttrs", ["x"], name="attrs_node", **attrs)


def test_every_attr_getter_reads_the_node_with_tensorflow_semantics():
    r = report(run(attrs_node(), [np.zeros(1, np.float32)])[0])
    assert r["name"] == "attrs_node"
    assert (r["i"], r["i32"], r["f"], r["b"], r["t"]) == ("7", "7", "2.5", "1", "2")  # b: the OpDef default
    assert r["big_as_int32"] == "3:Attr big has value 5000000000 out of range for an int32"
    assert (r["s"], r["s_size"]) == ("hello", "-1,5")
    assert (r["li_size"], r["li"], r["li32"]) == ("3", "1,2,3,", "1,2")  # max_vals cuts the list
    assert (r["lf"], r["lb"], r["lt"]) == ("0.5,1.5", "1,0,1", "1,9")
    assert (r["ls_size"], r["ls"]) == ("2,5", "ab,cde,")
    assert r["ls_small_storage"] == "3:Not enough storage to hold the requested list of strings"
    assert (r["shape_size"], r["shape"], r["lshape_size"]) == ("-1,2", "2,5", "2,3")
    assert r["shape_wrong_rank"] == "3:Expected rank is 3 but actual rank is 2"
    assert r["tensor"] == "3[3]:4,5,6"  # TF_INT32, 3 elements
    assert (r["ltensor0"], r["ltensor1"]) == ("1.5", "str:xy")
    assert r["has_i"] == "1" and r["has_nope"] == "0" and r["node_def_bytes"] == "1"


def test_attr_getter_errors_have_tensorflow_codes_and_texts():
    r = report(run(attrs_node(), [np.zeros(1, np.float32)])[0])
    assert r["int_of_string"].startswith("3:AttrValue had value with type 'string' when 'int' expected")
    assert r["missing"].startswith("5:No attr named 'nope' in NodeDef:")  # NotFound, naming the node
    assert "{{node attrs_node}}" in r["missing"]
    assert r["missing_list"] == "3:Operation 'attrs_node' has no attr named 'nope'."
    assert r["list_of_scalar"] == "3:Value for 'i' is not a list."
    assert r["floats_of_ints"].startswith("3:AttrValue had value with type 'list(int)' when 'list(float)' expected")
    assert r["func_of_int"].startswith("3:AttrValue had value with type 'int' when 'func' expected")


def test_forward_input_or_allocate_output_reuses_an_unshared_input():
    fresh = run(node("MtApiAdd", ["x", "y"]), [np.ones(3, np.float32), np.full(3, 2.0, np.float32)])
    np.testing.assert_array_equal(fresh[0], [3, 3, 3])
    assert int(fresh[1]) == 0  # input 0 was the first candidate and nothing else held it


def test_an_input_with_a_live_handle_or_an_outside_reference_is_not_forwarded():
    held = run(node("MtApiAdd", ["x", "y"], hold=(True, "bool")), [np.ones(3, np.float32), np.ones(3, np.float32)])
    assert int(held[1]) == 1  # TF_GetInput's handle on input 0 blocks it, as in TensorFlow
    x, y = np.ones(3, np.float32), np.ones(3, np.float32)
    shared = run(node("MtApiAdd", ["x", "y"]), [x, y])
    assert int(shared[1]) == -1  # the caller still references both: a new buffer
    np.testing.assert_array_equal(shared[0], [2, 2, 2])
    np.testing.assert_array_equal(x, [1, 1, 1])


def test_context_queries():
    nd = node("MtApiInfo", ["a", "b:1", "s", "^ctrl"], N=(2, "int"), T=(3, "type"))
    scale = np.array(0.5, np.float32)
    r = report(run(nd, [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32), scale], step_id=42)[0])
    assert (r["inputs"], r["outputs"], r["in_types"], r["out_type"]) == ("3", "1", "3,3,1,", "7")
    assert r["step"] == "42,42" and r["kernel"] == "n1"
    assert (r["requested0"], r["requested1"], r["requested2"]) == ("a", "b:1", "s")
    assert (r["host_in0"], r["host_out0"]) == ("1", "1")  # everything is host memory on the CPU
    assert r["host_in99"] == "11:input index out of range"
    assert r["stream_null"] == "1"
    assert r["stream"] == "9:Accessing device stream is not supported for a CPU device."
    assert r["range_x"] == "0,2" and r["range_nope"] == "3:Unknown input name: nope"
    assert r["by_name_list"].startswith("3:OpKernel used list-valued input name 'x'")
    assert r["by_name_scale"] == "0.5" and r["input_neg"] == "11:input index out of range"
    assert r["device"] == "/job:localhost/replica:0/task:0/device:CPU:0" and r["device_id"] == "0"
    assert (r["graph_def_version_pos"], r["frame"], r["iter"]) == ("1", "0", "0")
    assert r["config"] == "0:" and r["ref0"] == "0" and r["container"] == "localhost"
    assert r["assign_ref_variable"] == str(errors.UNIMPLEMENTED)  # resource variables: tests/plugin/test_variables.py
    assert r["mutable_unset"].startswith("9:output 0 of 'n1' is not set yet")


def test_kernel_failure_names_the_plugin_the_op_and_the_node(api_plugin):
    nd = node("MtApiCheck", ["x"], name="checker", limit=(10, "int"))
    x = aligned_copy(np.array([1.0, 2.0], np.float32))  # a runtime value: 64-byte aligned
    (out,) = run(nd, [x])
    assert out is x  # TF_GetInput + TF_SetOutput passes the runtime's own array through
    with pytest.raises(errors.OutOfRangeError) as info:
        run(nd, [np.array([1.0, 11.0], np.float32)])
    message = info.value.message
    assert message.startswith("value 11 at 1 exceeds the limit 10")
    assert "kernel for op 'MtApiCheck'" in message and str(api_plugin) in message
    assert "{{node checker}}" in message


def test_construction_failure_is_raised_by_create_kernel():
    with pytest.raises(errors.InvalidArgumentError, match=r"limit must be >= 0\n\t \[construction of the CPU kernel"):
        kernel(node("MtApiCheck", ["x"], name="bad_limit", limit=(-1, "int")))


def test_plugin_memory_and_bitcasts_become_arrays_without_copies(api_plugin):
    lib = ctypes.CDLL(str(api_plugin))
    before = lib.mt_api_plugin_deallocations()
    a, b, text = run(node("MtApiMemory", []), [])
    np.testing.assert_array_equal(a, [0, 10, 20, 30])
    assert a.dtype == np.float32 and a.base is not None  # a view of the plugin's buffer, kept alive
    np.testing.assert_array_equal(b, np.full((2, 2), 0x3F800000, np.int32))  # 1.0f bitcast to int32
    r = report(text)
    assert (r["temp"], r["temp_bytes"]) == ("0:", "32")
    assert r["temp_no_struct_size"].startswith("3:TF_AllocatorAttributes struct size member must be set")
    assert (r["too_small_null"], r["aligned"], r["alignment"], r["moved"]) == ("1", "1", "64", "1")
    assert r["set_output_7"] == "11:output index out of range"
    assert lib.mt_api_plugin_deallocations() == before + 1  # only the too-small TF_NewTensor so far
    del a
    gc.collect()
    assert lib.mt_api_plugin_deallocations() == before + 2  # the plugin's deallocator ran with the array


def test_string_tensors_cross_as_tf_tstrings():
    words = np.array([b"abc", b"Hello World!", b"x" * 40, b""], dtype=object).reshape(2, 2)
    (out,) = run(node("MtApiUpper", ["x"]), [words])
    assert out.dtype == object and out.shape == (2, 2)
    assert out.tolist() == [[b"ABC", b"HELLO WORLD!"], [b"X" * 40, b""]]


def test_async_kernel_completes_on_another_thread():
    (out,) = run(node("MtApiAsync", ["x"]), [np.arange(5, dtype=np.float32)])
    assert float(out) == 10.0


def test_async_kernels_finish_through_their_done_callback_in_a_graph():
    """Two asynchronous C kernels in one step: the executor starts both and finishes each node from the plugin's
    worker thread (TF_RunAsyncOpKernelDoneCallback), many times over."""
    from modtensor.framework.protos import graph_pb2
    from modtensor.runtime.graph_execution import compile_graph

    assert isinstance(kernel(node("MtApiAsync", ["x"])), AsyncOpKernel)
    f32 = (1, "type")
    g = graph_pb2.GraphDef()
    g.node.extend(
        [
            node("Placeholder", [], name="x", dtype=f32),
            node("MtApiAsync", ["x"], name="a"),
            node("Square", ["x"], name="sq", T=f32),
            node("MtApiAsync", ["sq"], name="b"),
            node("AddV2", ["a", "b"], name="total", T=f32),
        ]
    )
    compiled = compile_graph(g, ("x",), ("total",))
    assert compiled._executors[0].dataflow  # asynchronous kernels need the dataflow machine
    for _ in range(200):
        (out,) = compiled.run([np.arange(5, dtype=np.float32)])
        assert float(out) == 10.0 + 30.0


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        ({"T": (1, "type")}, 1),
        ({"T": (1, "type"), "_kernel": (b"special", "string")}, 2),
        ({"T": (2, "type")}, 3),  # two double kernels: TF_KernelBuilder_Priority(5) wins
        ({"T": (19, "type"), "_kernel": (b"kd", "string")}, 4),  # TF_RegisterKernelBuilderWithKernelDef
    ],
)
def test_labels_priorities_and_serialized_kernel_defs_select_the_kernel(attrs, expected):
    (out,) = run(node("MtApiLabel", [], **attrs), [])
    assert int(out) == expected


def test_c_kernels_run_concurrently_from_threads():
    k = kernel(node("MtApiCheck", ["x"], limit=(1000, "int")))
    assert isinstance(k, NativeKernel)
    barrier = threading.Barrier(4)

    def work(seed: int) -> bool:
        from modtensor.runtime import OpKernelContext

        barrier.wait()
        ok = True
        for i in range(200):
            x = aligned_copy(np.full(8, float(seed + i % 7), np.float32))  # runtime values are 64-byte aligned
            ok &= k.run(OpKernelContext(k, [x]))[0] is x
        return ok

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, range(4)))
