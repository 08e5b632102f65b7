"""Check that modtensor's protos agree with TensorFlow's on the wire: names, numbers, types, labels.

Run with a Python that has TensorFlow (never imported by modtensor or its tests):

    /tmp/tfvenv/bin/python tools/check_proto_compat.py [--strict]

For every message and enum in ``src/modtensor/framework/protos/*_pb2.py`` it finds
TensorFlow's descriptor of the same name (package ``tensorflow`` instead of
``modtensor``) and compares each field's number, name, type, label, oneof and
packing, and each enum value. Differences are errors (exit status 1). TensorFlow
fields modtensor leaves out are listed as omitted: fine when reserved, a warning
otherwise (an error with ``--strict``).

``--write-fixtures`` also writes TensorFlow-serialized ConfigProto, RunOptions,
RewriterConfig and RunMetadata messages to ``tests/golden/protos/`` for
``tests/framework/test_proto_compat.py``, which reads them without TensorFlow.
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import pkgutil
import sys
from dataclasses import dataclass, field

from google.protobuf import descriptor_pool
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

OURS, THEIRS = "modtensor.", "tensorflow."
TF_PROTO_PACKAGES = (
    "tensorflow.core.framework",
    "tensorflow.core.protobuf",
    "tensorflow.core.grappler.costs",
    "tensorflow.python.training",  # checkpoint_state.proto
)


@dataclass
class Report:
    """Findings of one run: errors fail the check, warnings only with --strict."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    messages: int = 0
    enums: int = 0
    fields: int = 0


def load_tensorflow_protos() -> None:
    """Import TensorFlow's *_pb2 modules so their descriptors are in the default pool."""
    for package_name in TF_PROTO_PACKAGES:
        try:
            package = importlib.import_module(package_name)
        except ImportError:
            continue
        for info in pkgutil.iter_modules(package.__path__):
            if info.name.endswith("_pb2"):
                try:
                    importlib.import_module(f"{package_name}.{info.name}")
                except Exception:  # noqa: BLE001, S112 - a module that fails to import is just not compared
                    continue


def load_modtensor_protos() -> list[object]:
    """Import every generated module of modtensor's protos."""
    proto_dir = ROOT / "src" / "modtensor" / "framework" / "protos"
    return [importlib.import_module(f"modtensor.framework.protos.{p.stem}") for p in sorted(proto_dir.glob("*_pb2.py"))]


def _their_name(full_name: str) -> str:
    return THEIRS + full_name[len(OURS) :] if full_name.startswith(OURS) else full_name


def _field_type(f: FieldDescriptor) -> str:
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        return f"message {_their_name(f.message_type.full_name)}"
    if f.type == FieldDescriptor.TYPE_ENUM:
        return f"enum {_their_name(f.enum_type.full_name)}"
    return {v: k for k, v in vars(FieldDescriptor).items() if k.startswith("TYPE_")}[f.type][5:].lower()


def _label(f: FieldDescriptor) -> str:
    return "repeated" if f.is_repeated else "singular"


def _oneof(f: FieldDescriptor) -> str | None:
    oneof = f.containing_oneof
    if oneof is None or (f.has_presence and len(oneof.fields) == 1 and oneof.name.startswith("_")):
        return None  # proto3 `optional` makes a synthetic oneof
    return oneof.name


def _reserved(message: Descriptor) -> tuple[set[int], set[str]]:
    from google.protobuf import descriptor_pb2

    proto = descriptor_pb2.DescriptorProto()
    message.CopyToProto(proto)
    numbers = {n for r in proto.reserved_range for n in range(r.start, r.end)}
    return numbers, set(proto.reserved_name)


def compare_message(ours: Descriptor, theirs: Descriptor, report: Report) -> None:
    """Compare fields, nested messages and nested enums of one message."""
    report.messages += 1
    where = ours.full_name
    their_by_number = {f.number: f for f in theirs.fields}
    for f in ours.fields:
        report.fields += 1
        t = their_by_number.get(f.number)
        if t is None:
            report.errors.append(f"{where}.{f.name} = {f.number}: TensorFlow has no field {f.number}")
            continue
        for what, a, b in (
            ("name", f.name, t.name),
            ("type", _field_type(f), _field_type(t)),
            ("label", _label(f), _label(t)),
            ("oneof", _oneof(f), _oneof(t)),
        ):
            if a != b:
                report.errors.append(f"{where}.{f.name} = {f.number}: {what} is {a!r}, TensorFlow's is {b!r}")
        if f.is_repeated and f.is_packed != t.is_packed:
            report.warnings.append(
                f"{where}.{f.name}: packed={f.is_packed}, TensorFlow's packed={t.is_packed} (parsers accept both)"
            )
    reserved_numbers, reserved_names = _reserved(ours)
    our_numbers = {f.number for f in ours.fields}
    for t in theirs.fields:
        if t.number in our_numbers:
            continue
        if t.number in reserved_numbers:
            report.notes.append(f"{where}: omits TensorFlow's {t.name} = {t.number} (reserved)")
        else:
            report.warnings.append(f"{where}: omits TensorFlow's {t.name} = {t.number} without reserving it")
        if t.name in {f.name for f in ours.fields}:
            report.errors.append(f"{where}.{t.name}: name used with a different number than TensorFlow's {t.number}")
    _ = reserved_names
    for nested in ours.nested_types:
        if nested.GetOptions().map_entry:
            continue
        their_nested = theirs.nested_types_by_name.get(nested.name)
        if their_nested is None:
            report.errors.append(f"{nested.full_name}: TensorFlow has no nested message {nested.name}")
        else:
            compare_message(nested, their_nested, report)
    for enum in ours.enum_types:
        their_enum = theirs.enum_types_by_name.get(enum.name)
        if their_enum is None:
            report.errors.append(f"{enum.full_name}: TensorFlow has no nested enum {enum.name}")
        else:
            compare_enum(enum, their_enum, report)


def compare_enum(ours: EnumDescriptor, theirs: EnumDescriptor, report: Report) -> None:
    """Compare the values (names and numbers) of one enum."""
    report.enums += 1
    theirs_by_name = {v.name: v.number for v in theirs.values}
    ours_by_name = {v.name: v.number for v in ours.values}
    for name, number in ours_by_name.items():
        if name not in theirs_by_name:
            report.errors.append(f"{ours.full_name}.{name} = {number}: TensorFlow has no such value")
        elif theirs_by_name[name] != number:
            report.errors.append(f"{ours.full_name}.{name} = {number}: TensorFlow's number is {theirs_by_name[name]}")
    for name, number in theirs_by_name.items():
        if name not in ours_by_name:
            report.warnings.append(f"{ours.full_name}: omits TensorFlow's value {name} = {number}")


def run(strict: bool) -> int:
    """Compare every modtensor message and enum; print the report; return the exit status."""
    load_tensorflow_protos()
    pool = descriptor_pool.Default()
    report = Report()
    files = 0
    for module in load_modtensor_protos():
        file_descriptor = module.DESCRIPTOR  # type: ignore[attr-defined]
        files += 1
        for message in file_descriptor.message_types_by_name.values():
            try:
                theirs = pool.FindMessageTypeByName(_their_name(message.full_name))
            except KeyError:
                report.errors.append(f"{message.full_name}: TensorFlow has no message of this name")
                continue
            compare_message(message, theirs, report)
        for enum in file_descriptor.enum_types_by_name.values():
            try:
                their_enum = pool.FindEnumTypeByName(_their_name(enum.full_name))
            except KeyError:
                report.errors.append(f"{enum.full_name}: TensorFlow has no enum of this name")
                continue
            compare_enum(enum, their_enum, report)
    for line in report.notes:
        print(f"note:    {line}")
    for line in report.warnings:
        print(f"warning: {line}")
    for line in report.errors:
        print(f"ERROR:   {line}")
    failed = bool(report.errors) or (strict and bool(report.warnings))
    print(
        f"{'FAILED' if failed else 'OK'}: {files} files, {report.messages} messages, {report.enums} enums, "
        f"{report.fields} fields compared; {len(report.errors)} errors, {len(report.warnings)} warnings, "
        f"{len(report.notes)} reserved omissions"
    )
    return 1 if failed else 0


def write_fixtures() -> None:
    """Serialize a few TensorFlow config/run messages (including fields modtensor omits) as test fixtures."""
    import tensorflow as tf
    from google.protobuf import text_format
    from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2

    out = ROOT / "tests" / "golden" / "protos"
    out.mkdir(parents=True, exist_ok=True)
    rc = rewriter_config_pb2.RewriterConfig
    config = config_pb2.ConfigProto(
        device_count={"CPU": 1, "GPU": 0},
        intra_op_parallelism_threads=2,
        inter_op_parallelism_threads=3,
        use_per_session_threads=True,
        placement_period=7,
        device_filters=["/job:localhost", "/device:CPU:0"],
        allow_soft_placement=True,
        log_device_placement=True,
        operation_timeout_in_ms=60000,
        isolate_session_state=True,
    )
    config.session_inter_op_thread_pool.add(num_threads=4, global_name="pool")
    gpu = config.gpu_options
    gpu.allow_growth = True
    gpu.per_process_gpu_memory_fraction = 0.5
    gpu.visible_device_list = "0,1"
    gpu.experimental.virtual_devices.add(memory_limit_mb=[1024.0, 2048.0], priority=[0, -1])
    gpu.experimental.use_unified_memory = True
    config.pluggable_device_options.allow_growth = True
    config.pluggable_device_options.visible_device_list = "0"
    graph = config.graph_options
    graph.optimizer_options.opt_level = config_pb2.OptimizerOptions.L0
    graph.optimizer_options.global_jit_level = config_pb2.OptimizerOptions.ON_1
    graph.optimizer_options.do_constant_folding = True
    graph.infer_shapes = True
    graph.build_cost_model = 5
    rewrite = graph.rewrite_options
    rewrite.constant_folding = rc.OFF
    rewrite.layout_optimizer = rc.AGGRESSIVE
    rewrite.cpu_layout_conversion = rc.NCHW_TO_NHWC
    rewrite.memory_optimization = rc.SCHEDULING_HEURISTICS
    rewrite.meta_optimizer_iterations = rc.ONE
    rewrite.min_graph_nodes = -1
    rewrite.use_plugin_optimizers = rc.ON
    rewrite.disable_meta_optimizer = False
    rewrite.optimizers.extend(["constfold", "arithmetic"])
    custom = rewrite.custom_optimizers.add(name="MyPluginOptimizer")
    custom.parameter_map["threshold"].f = 0.25
    custom.parameter_map["mode"].s = b"fast"
    rewrite.auto_parallel.enable = True
    rewrite.auto_parallel.num_replicas = 2
    rewrite.scoped_allocator_opts.enable_op.append("CollectiveReduce")
    rewrite.inter_optimizer_verifier_config.structure_verifier = 1
    rewrite.post_optimization_verifier_config.verification_timeout_in_ms = 100
    config.experimental.session_metadata.name = "session"
    config.experimental.session_metadata.version = 3
    config.experimental.mlir_bridge_rollout = config_pb2.ConfigProto.Experimental.MLIR_BRIDGE_ROLLOUT_ENABLED
    config.cluster_def.job.add(name="worker")  # omitted by modtensor: must survive as an unknown field
    config.rpc_options.compression_algorithm = "gzip"

    run_options = config_pb2.RunOptions(
        trace_level=config_pb2.RunOptions.FULL_TRACE,
        timeout_in_ms=1234,
        inter_op_thread_pool=1,
        output_partition_graphs=True,
        report_tensor_allocations_upon_oom=True,
    )
    run_options.experimental.collective_graph_key = 42
    run_options.experimental.run_handler_pool_options.priority = 2
    run_options.debug_options.debug_tensor_watch_opts.add(node_name="x")  # omitted by modtensor

    with tf.Graph().as_default() as g:
        x = tf.constant([[1.0, 2.0]], name="x")
        y = tf.matmul(x, tf.constant([[3.0], [4.0]], name="w"), name="y")
        with tf.compat.v1.Session(graph=g, config=config_pb2.ConfigProto(device_count={"GPU": 0})) as sess:
            metadata = config_pb2.RunMetadata()
            sess.run(
                y, options=config_pb2.RunOptions(trace_level=3, output_partition_graphs=True), run_metadata=metadata
            )

    for name, message in (
        ("tf_config_proto", config),
        ("tf_run_options", run_options),
        ("tf_rewriter_config", config.graph_options.rewrite_options),
        ("tf_run_metadata", metadata),
    ):
        (out / f"{name}.pb").write_bytes(message.SerializeToString(deterministic=True))
        print(f"wrote {name}.pb ({message.ByteSize()} bytes)")
    text_config = config_pb2.ConfigProto()
    text_config.CopyFrom(config)
    text_config.ClearField("cluster_def")  # text format has no unknown fields: keep to what modtensor declares
    text_config.ClearField("rpc_options")
    (out / "tf_config_proto.pbtxt").write_text(text_format.MessageToString(text_config))
    print("wrote tf_config_proto.pbtxt")


def main() -> int:
    """Parse the command line and run the check (and write the fixtures when asked)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="treat warnings (unreserved omissions) as errors")
    parser.add_argument("--write-fixtures", action="store_true", help="write TF-serialized fixtures for the tests")
    args = parser.parse_args()
    if args.write_fixtures:
        write_fixtures()
    return run(args.strict)


if __name__ == "__main__":
    sys.exit(main())
