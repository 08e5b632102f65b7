"""The meta-optimizer: runs the enabled passes in TensorFlow's order, validating each one's output.

``optimize(item, config)`` merges the user's ``RewriterConfig`` with the configs the
plugin optimizers of the item's device types recommend, then runs the built-in passes
(``meta_optimizer_iterations`` times, stopping early when an iteration changes
nothing), then each plugin optimizer once. Every pass's output is validated
(``validation.validate``); an invalid output, or a pass that raises, is skipped with a
warning and its input kept. ``OptimizationResult.stats`` records, per pass run,
nodes and edges before/after and the time taken; passes that are enabled but not
built yet appear once with status ``"not built yet"`` and never as having run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from modtensor.framework.protos import graph_pb2, rewriter_config_pb2
from modtensor.grappler.config import OptimizerOptions, merge_plugin_configs
from modtensor.grappler.graph_view import edge_count
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, HostEvaluator, OptimizerContext
from modtensor.grappler.passes.arithmetic_optimizer import ArithmeticOptimizer
from modtensor.grappler.passes.auto_mixed_precision import AutoMixedPrecision, AutoMixedPrecisionOneDnnBfloat16
from modtensor.grappler.passes.common_subgraph_elimination import CommonSubgraphElimination
from modtensor.grappler.passes.constant_folding import ConstantFolding
from modtensor.grappler.passes.debug_stripper import DebugStripper
from modtensor.grappler.passes.dependency_optimizer import DependencyOptimizer
from modtensor.grappler.passes.function_inliner import FunctionInliner
from modtensor.grappler.passes.layout_optimizer import LayoutOptimizer
from modtensor.grappler.passes.model_pruner import ModelPruner
from modtensor.grappler.passes.remapper import Remapper
from modtensor.grappler.passes.shape_optimizer import ShapeOptimizer
from modtensor.grappler.plugin_optimizers import plugin_optimizers
from modtensor.grappler.validation import validate

__all__ = ["NOT_BUILT", "OptimizationResult", "PassStats", "optimize"]

logger = logging.getLogger("modtensor.grappler")
_WARNED: set[str] = set()  # plugin-config conflict warnings already logged

# (RewriterConfig field, pass) in TensorFlow's meta-optimizer order; None: not built yet.
PIPELINE: tuple[tuple[str, type[GraphOptimizer] | None], ...] = (
    ("model_pruning", ModelPruner),
    ("implementation_selector", None),
    ("function_optimization", FunctionInliner),
    ("common_subgraph_elimination", CommonSubgraphElimination),
    ("debug_stripper", DebugStripper),
    ("constant_folding", ConstantFolding),
    ("shape_optimization", ShapeOptimizer),
    ("auto_mixed_precision", AutoMixedPrecision),
    ("auto_mixed_precision_onednn_bfloat16", AutoMixedPrecisionOneDnnBfloat16),
    ("pin_to_host_optimization", None),
    ("arithmetic_optimization", ArithmeticOptimizer),
    ("layout_optimizer", LayoutOptimizer),
    ("remapping", Remapper),
    ("loop_optimization", None),
    ("dependency_optimization", DependencyOptimizer),
    ("scoped_allocator_optimization", None),
)
NOT_BUILT = tuple(name for name, cls in PIPELINE if cls is None)


@dataclass
class PassStats:
    """One pass run: ``status`` is "ran", "no change", "invalid output", "error" or "not built yet"."""

    name: str
    iteration: int
    status: str
    nodes_before: int = 0
    nodes_after: int = 0
    edges_before: int = 0
    edges_after: int = 0
    seconds: float = 0.0
    message: str = ""


@dataclass
class OptimizationResult:
    """The optimized graph and what each pass did."""

    graph_def: graph_pb2.GraphDef
    stats: list[PassStats] = field(default_factory=list)
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    skipped: str = ""  # why the whole optimizer did not run ("" when it ran)

    def summary(self) -> str:
        """A table of the per-pass statistics, as ``modtensor optimize`` prints it."""
        lines = [f"{'pass':<34} {'iter':>4} {'nodes':>13} {'edges':>13} {'ms':>9}  status"]
        for s in self.stats:
            if s.status == "not built yet":
                lines.append(f"{s.name:<34} {'':>4} {'':>13} {'':>13} {'':>9}  not built yet")
                continue
            nodes = f"{s.nodes_before}->{s.nodes_after}"
            edges = f"{s.edges_before}->{s.edges_after}"
            status = s.status + (f": {s.message}" if s.message else "")
            lines.append(f"{s.name:<34} {s.iteration:>4} {nodes:>13} {edges:>13} {s.seconds * 1e3:>9.2f}  {status}")
        if self.skipped:
            lines.append(f"meta-optimizer skipped: {self.skipped}")
        lines.append(f"total {self.seconds * 1e3:.2f} ms")
        return "\n".join(lines)


def optimize(
    item: GrapplerItem,
    config: rewriter_config_pb2.RewriterConfig | None = None,
    *,
    host_evaluator: HostEvaluator | None = None,
) -> OptimizationResult:
    """Optimize ``item`` with ``config`` (None: TensorFlow's defaults); never raises for a failing pass."""
    start = time.perf_counter()
    plugins = [p for p in plugin_optimizers(item.device_types) if _targets(item.graph_def, p.device_type)]
    user = config if config is not None else rewriter_config_pb2.RewriterConfig()
    options = OptimizerOptions.from_rewriter_config(user)
    warnings: list[str] = []
    if options.use_plugin_optimizers and plugins:
        merged, warnings = merge_plugin_configs(user, [(p.plugin, p.configs) for p in plugins])
        options = OptimizerOptions.from_rewriter_config(merged)
        for text in warnings:
            if text not in _WARNED:  # once per process, as a config conflict does not change between graphs
                _WARNED.add(text)
                logger.warning(text)
    result = OptimizationResult(item.graph_def, warnings=warnings)
    if options.disable_meta_optimizer:
        result.skipped = "disable_meta_optimizer is set"
    elif options.min_graph_nodes and len(item.graph_def.node) < options.min_graph_nodes:
        result.skipped = f"the graph has fewer than min_graph_nodes ({options.min_graph_nodes}) nodes"
    if result.skipped:
        result.seconds = time.perf_counter() - start
        return result
    context = OptimizerContext(options=options, host_evaluator=host_evaluator)
    enabled = {name: options.enabled.get(name, True) for name, _ in PIPELINE}
    enabled["model_pruning"] = options.model_pruning
    for name, cls in PIPELINE:
        if cls is None and enabled[name]:
            result.stats.append(PassStats(name, 0, "not built yet"))
    current = item
    for iteration in range(1, options.iterations + 1):
        changed = False
        for name, cls in PIPELINE:
            if cls is None or not enabled[name]:
                continue
            current, did = _run_pass(cls(), name, current, context, iteration, result.stats)
            changed = changed or did
        if not changed:
            break
    if options.use_plugin_optimizers:
        for plugin in plugins:
            current, _ = _run_pass(_PluginPass(plugin), f"plugin:{plugin.plugin}", current, context, 1, result.stats)
    result.graph_def = current.graph_def
    result.seconds = time.perf_counter() - start
    return result


def _targets(graph_def: graph_pb2.GraphDef, device_type: str) -> bool:
    """True when a node is placed on ``device_type`` or not pinned to a device type yet (so it may land there)."""
    from modtensor.framework.device_spec import DeviceSpec

    types: dict[str, str | None] = {}
    for node in graph_def.node:
        if node.device not in types:
            try:
                types[node.device] = DeviceSpec.from_string(node.device).device_type if node.device else None
            except ValueError:
                types[node.device] = None
        if types[node.device] in (None, device_type):
            return True
    return False


def _run_pass(
    optimizer: GraphOptimizer,
    name: str,
    item: GrapplerItem,
    context: OptimizerContext,
    iteration: int,
    stats: list[PassStats],
) -> tuple[GrapplerItem, bool]:
    before = item.graph_def
    edges = edge_count(before, context.index(before))  # the index is read once per graph, shared by passes
    entry = PassStats(name, iteration, "ran", len(before.node), len(before.node), edges, edges)
    stats.append(entry)
    start = time.perf_counter()
    try:
        output = optimizer.optimize(item, context)
    except Exception as exc:  # noqa: BLE001 - a failing pass is skipped, as TensorFlow's meta-optimizer does
        entry.seconds = time.perf_counter() - start
        entry.status, entry.message = "error", f"{type(exc).__name__}: {exc}"
        logger.warning("Graph optimizer pass '%s' failed and was skipped: %s", name, entry.message)
        return item, False
    if _same(before, output):  # the input was valid: nothing to check
        entry.seconds = time.perf_counter() - start
        entry.status = "no change"
        return item, False
    problems = validate(output, item, previous=before, context=context)  # checks what changed against the input
    entry.seconds = time.perf_counter() - start
    if problems:
        entry.status, entry.message = "invalid output", "; ".join(problems)
        logger.warning("Graph optimizer pass '%s' produced an invalid graph and was skipped: %s", name, entry.message)
        return item, False
    entry.nodes_after, entry.edges_after = len(output.node), edge_count(output, context.index(output))
    return item.with_graph(output), True


def _same(a: graph_pb2.GraphDef, b: graph_pb2.GraphDef) -> bool:
    if len(a.node) != len(b.node):
        return False
    return all(x == y for x, y in zip(a.node, b.node, strict=True))


class _PluginPass(GraphOptimizer):
    """A plugin optimizer wrapped as a pass (its output is validated like a built-in's)."""

    def __init__(self, plugin: object):
        self.plugin = plugin
        self.name = f"plugin:{plugin.plugin}"  # type: ignore[attr-defined]

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        copy = graph_pb2.GraphDef()
        copy.CopyFrom(item.graph_def)
        return self.plugin.optimize(copy, item)  # type: ignore[attr-defined]


def optimize_graph_def(
    graph_def: graph_pb2.GraphDef,
    fetches: Sequence[str] = (),
    feeds: Sequence[str] = (),
    nodes_to_preserve: Sequence[str] = (),
    config: rewriter_config_pb2.RewriterConfig | None = None,
    *,
    device_types: Sequence[str] = ("CPU",),
    host_evaluator: HostEvaluator | None = None,
) -> OptimizationResult:
    """Convenience: build the GrapplerItem and ``optimize`` it."""
    item = GrapplerItem(graph_def, tuple(feeds), tuple(fetches), frozenset(nodes_to_preserve), tuple(device_types))
    return optimize(item, config, host_evaluator=host_evaluator)
