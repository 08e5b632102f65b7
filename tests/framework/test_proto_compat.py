"""TensorFlow-serialized config and run messages parse with modtensor's protos (no TensorFlow needed).

Fixtures: ``tools/check_proto_compat.py --write-fixtures`` (run once with TensorFlow 2.21).
"""

from __future__ import annotations

import pathlib

import pytest
from google.protobuf import text_format

from modtensor.framework.protos import (
    config_pb2,
    cost_graph_pb2,
    rewriter_config_pb2,
    step_stats_pb2,
    types_pb2,
    verifier_config_pb2,
)

GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "golden" / "protos"
RC = rewriter_config_pb2.RewriterConfig


def _read(name: str, cls: type) -> tuple[object, bytes]:
    data = (GOLDEN / name).read_bytes()
    return cls.FromString(data), data


def test_config_proto_from_tensorflow() -> None:
    config, data = _read("tf_config_proto.pb", config_pb2.ConfigProto)
    assert dict(config.device_count) == {"CPU": 1, "GPU": 0}
    assert (config.intra_op_parallelism_threads, config.inter_op_parallelism_threads) == (2, 3)
    assert config.use_per_session_threads and config.placement_period == 7
    assert list(config.device_filters) == ["/job:localhost", "/device:CPU:0"]
    assert config.session_inter_op_thread_pool[0].num_threads == 4
    assert config.allow_soft_placement and config.log_device_placement and config.isolate_session_state
    assert config.operation_timeout_in_ms == 60000
    gpu = config.gpu_options
    assert gpu.allow_growth and gpu.per_process_gpu_memory_fraction == 0.5 and gpu.visible_device_list == "0,1"
    assert list(gpu.experimental.virtual_devices[0].memory_limit_mb) == [1024.0, 2048.0]
    assert list(gpu.experimental.virtual_devices[0].priority) == [0, -1]
    assert gpu.experimental.use_unified_memory
    assert config.pluggable_device_options.allow_growth and config.pluggable_device_options.visible_device_list == "0"
    opts = config.graph_options.optimizer_options
    assert opts.opt_level == config_pb2.OptimizerOptions.L0 == -1
    assert opts.global_jit_level == config_pb2.OptimizerOptions.ON_1 and opts.do_constant_folding
    assert config.graph_options.infer_shapes and config.graph_options.build_cost_model == 5
    assert config.experimental.session_metadata.name == "session"
    assert config.experimental.session_metadata.version == 3
    assert config.experimental.mlir_bridge_rollout == config_pb2.ConfigProto.Experimental.MLIR_BRIDGE_ROLLOUT_ENABLED


def test_omitted_fields_survive_a_round_trip() -> None:
    """cluster_def and rpc_options are reserved in modtensor; their bytes are kept as unknown fields."""
    config, data = _read("tf_config_proto.pb", config_pb2.ConfigProto)
    again = config.SerializeToString(deterministic=True)
    # Unknown fields are written after the known ones, so compare content, not byte order.
    assert len(again) == len(data) and sorted(again) == sorted(data)
    assert b"worker" in again and b"gzip" in again
    assert config_pb2.ConfigProto.FromString(again) == config
    options, data = _read("tf_run_options.pb", config_pb2.RunOptions)
    again = options.SerializeToString(deterministic=True)
    assert sorted(again) == sorted(data) and b'"\x03\n\x01x' in again  # debug_options { debug_tensor_watch_opts }


def test_rewriter_config_from_tensorflow() -> None:
    rewrite, data = _read("tf_rewriter_config.pb", RC)
    config, _ = _read("tf_config_proto.pb", config_pb2.ConfigProto)
    assert config.graph_options.rewrite_options == rewrite
    assert rewrite.constant_folding == RC.OFF and rewrite.layout_optimizer == RC.AGGRESSIVE
    assert rewrite.arithmetic_optimization == RC.DEFAULT
    assert rewrite.cpu_layout_conversion == RC.NCHW_TO_NHWC
    assert rewrite.memory_optimization == RC.SCHEDULING_HEURISTICS == 6
    assert rewrite.meta_optimizer_iterations == RC.ONE and rewrite.min_graph_nodes == -1
    assert rewrite.use_plugin_optimizers == RC.ON
    assert list(rewrite.optimizers) == ["constfold", "arithmetic"]
    custom = rewrite.custom_optimizers[0]
    assert custom.name == "MyPluginOptimizer"
    assert custom.parameter_map["threshold"].f == 0.25 and custom.parameter_map["mode"].s == b"fast"
    assert rewrite.auto_parallel.enable and rewrite.auto_parallel.num_replicas == 2
    assert list(rewrite.scoped_allocator_opts.enable_op) == ["CollectiveReduce"]
    assert rewrite.inter_optimizer_verifier_config.structure_verifier == verifier_config_pb2.VerifierConfig.ON
    assert rewrite.post_optimization_verifier_config.verification_timeout_in_ms == 100
    assert rewrite.SerializeToString(deterministic=True) == data


def test_run_options_from_tensorflow() -> None:
    options, _ = _read("tf_run_options.pb", config_pb2.RunOptions)
    assert options.trace_level == config_pb2.RunOptions.FULL_TRACE == 3
    assert options.timeout_in_ms == 1234 and options.inter_op_thread_pool == 1
    assert options.output_partition_graphs and options.report_tensor_allocations_upon_oom
    assert options.experimental.collective_graph_key == 42
    assert options.experimental.run_handler_pool_options.priority == 2


def test_run_metadata_from_a_traced_tensorflow_run() -> None:
    metadata, data = _read("tf_run_metadata.pb", config_pb2.RunMetadata)
    assert isinstance(metadata.step_stats, step_stats_pb2.StepStats)
    device_stats = metadata.step_stats.dev_stats[0]
    assert device_stats.device.endswith("device:CPU:0")
    names = [n.node_name for n in device_stats.node_stats]
    assert "_SOURCE" in names
    with_output = [n for n in device_stats.node_stats if n.output]
    assert with_output, names
    description = with_output[0].output[0].tensor_description
    assert description.dtype == types_pb2.DT_FLOAT and [d.size for d in description.shape.dim] == [1, 1]
    assert description.allocation_description.requested_bytes == 4
    assert all(n.all_start_nanos > 0 for n in device_stats.node_stats)
    assert len(metadata.partition_graphs) == 1 and metadata.partition_graphs[0].node
    assert isinstance(metadata.cost_graph, cost_graph_pb2.CostGraphDef)
    assert metadata.SerializeToString(deterministic=True) == data


def test_config_text_format_from_tensorflow_parses() -> None:
    text = (GOLDEN / "tf_config_proto.pbtxt").read_text()
    config = text_format.Parse(text, config_pb2.ConfigProto())
    binary, _ = _read("tf_config_proto.pb", config_pb2.ConfigProto)
    binary.DiscardUnknownFields()
    assert config == binary


def test_text_format_rejects_fields_modtensor_reserves() -> None:
    with pytest.raises(text_format.ParseError, match="cluster_def"):
        text_format.Parse('cluster_def { job { name: "worker" } }', config_pb2.ConfigProto())
