"""Explicit loading: load_library / load_op_library, each library once, and bad plugins rolled back."""

from __future__ import annotations

import os

import numpy as np
import pytest

from modtensor.framework import dtypes, errors
from modtensor.framework.graph import Graph
from modtensor.framework.op_registry import global_registry
from modtensor.plugin import load_library, load_op_library, loaded_plugins
from modtensor.plugin.op_library import op_function_name
from modtensor.runtime.kernel_registry import global_kernel_registry


def record_of(path) -> object:
    real = os.path.realpath(path)
    return next(r for r in loaded_plugins() if r.real_path == real)


def test_a_library_is_loaded_once_by_real_path(api_plugin, tmp_path):
    alias = tmp_path / "alias.so"
    alias.symlink_to(api_plugin)
    before = len(loaded_plugins())
    load_library(api_plugin)
    load_library(alias)
    load_library(tmp_path)  # a folder: every *.so in it
    assert len(loaded_plugins()) == before
    assert record_of(alias) is record_of(api_plugin)
    assert len(global_kernel_registry().kernels_for_op("MtApiCheck")) == 1


def test_record_lists_entry_points_ops_and_kernels(api_plugin):
    record = record_of(api_plugin)
    assert record.loaded and record.kind == "native" and record.origin == "load_library"
    assert record.entry_points == {"TF_InitKernel": "called"}
    assert record.ops[:2] == ["MtApiAttrs", "MtApiAdd"]
    assert "MtApiLabel (label='special'; T in [DT_FLOAT])" in record.kernels_by_device()["CPU"]


@pytest.mark.parametrize(
    ("plugin", "error", "message", "rolled_back"),
    [
        ("bad_spec", errors.InvalidArgumentError, "Reference to unknown attr 'NoSuchType'", "MtBadSpecGood"),
        ("no_entry", errors.NotFoundError, "exports none of the entry points SE_InitPlugin, TF_InitKernel", None),
        ("unresolved", errors.NotFoundError, "undefined symbol: TF_NoSuchFunction", None),
    ],
)
def test_a_bad_plugin_raises_names_the_file_and_leaves_nothing_behind(
    build_plugin, plugin, error, message, rolled_back
):
    flags = ["-Wno-error"] if plugin == "unresolved" else []
    path = build_plugin(plugin, flags=flags)
    with pytest.raises(error) as info:
        load_library(path)
    assert message in info.value.message
    assert str(path) in info.value.message
    record = record_of(path)
    assert record.error is not None and not record.loaded and record.ops == [] and record.kernels == []
    if rolled_back is not None:
        assert rolled_back not in global_registry()
        assert global_kernel_registry().kernels_for_op(rolled_back) == []
    with pytest.raises(error):  # a second attempt reports the same failure without re-running the plugin
        load_library(path)


def test_a_plugin_redefining_a_builtin_op_is_rejected(build_plugin):
    path = build_plugin("redefine_op")
    with pytest.raises(errors.AlreadyExistsError, match="Op 'Relu' is already registered"):
        load_library(path)
    assert "Relu" in global_registry() and global_registry().get("Relu").source != str(path)


def test_not_a_library_is_reported(tmp_path):
    garbage = tmp_path / "garbage.so"
    garbage.write_text("this is not an ELF file\n")
    with pytest.raises(errors.NotFoundError, match="cannot be loaded as a shared library"):
        load_library(garbage)
    with pytest.raises(errors.NotFoundError, match="no such file"):
        load_library(tmp_path / "missing.so")


def test_entry_points_of_later_features_are_recorded_not_run(build_plugin):
    path = build_plugin("recorded")
    load_library(path)
    record = record_of(path)
    assert record.loaded and record.ops == ["MtRecorded"]
    assert record.entry_points["TF_InitKernel"] == "called"
    assert record.entry_points["TF_InitProfiler"].startswith("recorded, not run (profiler plugins")


def test_load_op_library_returns_wrappers_with_tensorflow_names(api_plugin):
    module = load_op_library(api_plugin)
    assert module is load_op_library(api_plugin)
    assert [op.name for op in module.OP_LIST.op][:3] == ["MtApiAttrs", "MtApiAdd", "MtApiInfo"]
    import inspect

    assert str(inspect.signature(module.mt_api_check)) == "(x, limit=10, name=None)"
    assert str(inspect.signature(module.mt_api_info)) == "(x, scale, name=None)"  # N and T are inferred
    g = Graph()
    with g.as_default():
        x = g.create_op("Placeholder", [], [dtypes.float32], attrs={"dtype": dtypes.float32, "shape": [3]})
        y = module.mt_api_check(x.outputs[0], limit=4, name="checked")
    assert y.op.type == "MtApiCheck" and y.op.name == "checked" and y.op.get_attr("limit") == 4
    assert y.shape.as_list() == [3]


@pytest.mark.parametrize(
    ("op", "name"),
    [("ZeroOut", "zero_out"), ("MatMul", "mat_mul"), ("BiasAddV2", "bias_add_v2"), ("LRN", "lrn"),
     ("HTTPServer", "http_server"), ("Print", "print_"), ("Ns>MyOp", "ns__my_op"), ("MtApiInfo", "mt_api_info")],
)  # fmt: skip
def test_op_function_names_follow_tensorflows_rule(op, name):
    assert op_function_name(op) == name


def test_plugin_kernels_run_like_builtin_ones_next_to_them(api_plugin):
    from .support import node, run

    (out,) = run(node("MtApiCheck", ["x"]), [np.array([1.0], np.float32)])
    assert out.tolist() == [1.0]
    assert "Relu" in global_kernel_registry().ops()
