"""Graph optimizer plugins (TF_InitGraph): registration checks, the item/properties/op-def C API, and
optimizers that fail at run time (tests/plugin/csrc/graph_optimizer_cases.c, one behaviour per -D flag)."""

from __future__ import annotations

import ctypes
import logging
import warnings

import numpy as np
import pytest

from modtensor.framework import errors
from modtensor.framework.protos import op_performance_data_pb2, rewriter_config_pb2
from modtensor.grappler import meta_optimizer
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.plugin_optimizers import plugin_optimizers
from modtensor.plugin.loader import load_native_library, unload_native_library
from modtensor.runtime import graph_execution

from .graph_support import dense_graph, expected, run
from .support import CSRC

RC = rewriter_config_pb2.RewriterConfig
SOURCE = [CSRC / "graph_optimizer_cases.c"]


def optimize(graph_def, device_type, rc=None):
    item = GrapplerItem(graph_def, feeds=("x:0",), fetches=("y:0",), device_types=("CPU", device_type))
    return meta_optimizer.optimize(item, rc, host_evaluator=graph_execution.host_evaluator())


@pytest.fixture
def plugin(build_plugin):
    """``plugin(case, device)`` builds and loads one case; everything loaded is unloaded after the test."""
    loaded = []

    def load(case: str, device: str, *, name: str | None = None, raise_errors: bool = True):
        path = build_plugin(name or f"go_{case}_{device}", SOURCE, [f"-D{case}", f'-DTEST_GO_DEVICE="{device}"'])
        loaded.append(path)
        record = load_native_library(path, origin="load_library", raise_errors=raise_errors)
        return record, path

    yield load
    for path in loaded:
        unload_native_library(path)


def counter(record, name: str) -> int:
    return ctypes.c_int.in_dll(record.handle, name).value


def test_a_good_optimizer_registers_once_and_sees_the_item_properties_and_op_defs(plugin, caplog):
    record, path = plugin("GOOD", "GO_A")
    assert record.entry_points["TF_InitGraph"] == "called" and record.optimizers == ["GO_A"]
    assert counter(record, "go_created") == 1 and counter(record, "go_destroyed") == 0
    (registered,) = plugin_optimizers(["GO_A"])
    assert registered.plugin == str(path) and dict(registered.configs) == {"constant_folding": 1}

    with caplog.at_level(logging.WARNING, logger="modtensor.grappler"):
        result = optimize(dense_graph(), "GO_A")
    row = result.stats[-1]
    assert row.name == f"plugin:{path}" and row.status == "no change"  # it returned its input
    assert "constant_folding" in result.warnings[0] and str(path) in result.warnings[0]  # its config applied
    assert "constant_folding" not in {s.name for s in result.stats}
    probe = ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(record.handle, "go_probe"))).decode()
    assert probe.startswith("fetch 1 3;small 3 Not enough storage to hold the requested list of nodes;f=y:0;")
    assert "p=x;p=y;" in probe  # fed and fetched nodes are preserved
    assert "before 3;infer 0;mm inputs 2;mm out 0" in probe  # INVALID_ARGUMENT before TF_InferStatically
    assert "missing 5;" in probe and "opdef 0 " in probe  # NotFound for an unknown op
    raw = ctypes.string_at(
        ctypes.addressof(ctypes.c_ubyte.in_dll(record.handle, "go_props")),
        ctypes.c_size_t.in_dll(record.handle, "go_props_len").value,
    )
    props = op_performance_data_pb2.OpInfo.TensorProperties.FromString(raw)
    assert props.dtype == 1 and [d.size for d in props.shape.dim] == [2, 4]

    calls = counter(record, "go_calls")
    result = optimize(dense_graph(), "GO_A", RC(use_plugin_optimizers=RC.OFF))
    assert counter(record, "go_calls") == calls and not result.warnings  # off: neither optimizer nor configs
    assert "constant_folding" in {s.name for s in result.stats}

    unload_native_library(path)
    assert counter(record, "go_destroyed") == 1 and plugin_optimizers(["GO_A"]) == []


def test_the_optimizer_runs_only_for_graphs_that_may_be_placed_on_its_device_type(plugin):
    record, _ = plugin("GOOD", "GO_B")
    graph_def = dense_graph()
    for node in graph_def.node:
        node.device = "/device:CPU:0"
    optimize(graph_def, "GO_B")
    assert counter(record, "go_calls") == 0
    graph_def.node[0].device = "/device:GO_B:0"
    optimize(graph_def, "GO_B")
    assert counter(record, "go_calls") == 1


def test_the_design_documents_entry_point_name_is_accepted(plugin):
    record, _ = plugin("PLUGIN_NAME", "GO_C")
    assert record.entry_points["TF_InitGraphPlugin"] == "called" and record.optimizers == ["GO_C"]


@pytest.mark.parametrize(
    ("case", "error", "message"),
    [
        ("NO_OPTIMIZE", errors.FailedPreconditionError, "required function 'TP_Optimizer.optimize_func' is not set"),
        ("BAD_SIZE", errors.FailedPreconditionError, "TP_Optimizer.struct_size is 8, expected 40"),
        ("BAD_MAJOR", errors.FailedPreconditionError, "major version 1 does not match modtensor's 0"),
        ("NO_DEVICE", errors.FailedPreconditionError, "device_type is not set"),
        ("INIT_ERROR", errors.InvalidArgumentError, "the plugin reported: init refused on purpose"),
    ],
)
def test_a_bad_registration_is_rolled_back_and_reported(plugin, case, error, message):
    with pytest.raises(error, match=message) as info:
        plugin(case, f"GO_{case}")
    assert "TF_InitGraph of plugin" in str(info.value)
    assert plugin_optimizers([f"GO_{case}"]) == []
    with warnings.catch_warnings(record=True) as caught:  # discovered: a warning, and the process goes on
        warnings.simplefilter("always")
        record, _ = plugin(case, f"GO_{case}", name=f"go_{case}_discovered", raise_errors=False)
    assert not record.loaded and message.split(" ")[0] in str(caught[0].message)
    assert counter(record, "go_created") == 0
    x = np.ones((2, 3), np.float32)
    (y,) = run(optimize(dense_graph(), f"GO_{case}").graph_def, ["y:0"], {"x:0": x})
    np.testing.assert_allclose(y, expected(x), rtol=1e-6)


def test_a_second_optimizer_for_a_device_type_is_rejected_naming_both_plugins(plugin):
    first, first_path = plugin("GOOD", "GO_DUP")
    with pytest.raises(errors.AlreadyExistsError) as info:
        plugin("GOOD", "GO_DUP", name="go_dup_second")
    assert str(first_path) in str(info.value) and "go_dup_second.so" in str(info.value)
    (registered,) = plugin_optimizers(["GO_DUP"])
    assert registered.plugin == str(first_path)
    optimize(dense_graph(), "GO_DUP")
    assert counter(first, "go_calls") == 1


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("RETURNS_ERROR", "the test optimizer failed on purpose"),
        ("RETURNS_GARBAGE", "not a serialized GraphDef"),
    ],
)
def test_an_optimizer_failing_at_run_time_keeps_the_input_graph_with_a_warning(plugin, caplog, case, message):
    _, path = plugin(case, f"GO_{case}")
    with caplog.at_level(logging.WARNING, logger="modtensor.grappler"):
        result = optimize(dense_graph(), f"GO_{case}")
    row = result.stats[-1]
    assert row.name == f"plugin:{path}" and row.status == "error" and message in row.message
    assert str(path) in caplog.text and message in caplog.text
    x = np.ones((2, 3), np.float32)
    (y,) = run(result.graph_def, ["y:0"], {"x:0": x})
    np.testing.assert_allclose(y, expected(x), rtol=1e-6)
