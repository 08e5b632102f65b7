"""Optimizer options with TensorFlow's ``RewriterConfig`` field names, and the plugin-config merge.

``OptimizerOptions`` is what the meta-optimizer reads: one effective on/off per pass,
derived from a ``RewriterConfig`` (its ``Toggle`` DEFAULT means the pass's TensorFlow
default). ``merge_plugin_configs`` combines the user's config with the configs that
plugin optimizers recommend (``TP_OptimizerConfigs`` tri-states), as the Modular
TensorFlow design prescribes. The process-wide experimental options
(``modtensor.config.optimizer.set_experimental_options``) live here too.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from modtensor.framework.protos import rewriter_config_pb2

__all__ = [
    "PASS_FIELDS",
    "PLUGIN_CONFIG_FIELDS",
    "OptimizerOptions",
    "TriState",
    "experimental_rewriter_config",
    "get_experimental_options",
    "merge_plugin_configs",
    "set_experimental_options",
]

RewriterConfig = rewriter_config_pb2.RewriterConfig
_ON, _OFF, _DEFAULT = RewriterConfig.ON, RewriterConfig.OFF, RewriterConfig.DEFAULT


class TriState(enum.IntEnum):
    """``TF_TriState`` of grappler.h (C values): what a plugin recommends for one pass."""

    DEFAULT = 0
    OFF = 1
    ON = 2


# RewriterConfig Toggle field -> on when DEFAULT (TensorFlow's defaults).
PASS_FIELDS: dict[str, bool] = {
    "implementation_selector": True,
    "function_optimization": True,
    "common_subgraph_elimination": True,
    "debug_stripper": False,
    "constant_folding": True,
    "shape_optimization": True,
    "auto_mixed_precision": False,
    "auto_mixed_precision_onednn_bfloat16": False,
    "pin_to_host_optimization": False,
    "arithmetic_optimization": True,
    "layout_optimizer": True,
    "remapping": True,
    "loop_optimization": True,
    "dependency_optimization": True,
    "scoped_allocator_optimization": False,
}

# The TriState fields of TP_OptimizerConfigs (grappler.h), in order; disable_model_pruning is a bool in RewriterConfig.
PLUGIN_CONFIG_FIELDS: tuple[str, ...] = (
    "disable_model_pruning",
    "implementation_selector",
    "function_optimization",
    "common_subgraph_elimination",
    "arithmetic_optimization",
    "debug_stripper",
    "constant_folding",
    "shape_optimization",
    "auto_mixed_precision",
    "auto_mixed_precision_onednn_bfloat16",
    "pin_to_host_optimization",
    "layout_optimizer",
    "remapping",
    "loop_optimization",
    "dependency_optimization",
    "auto_parallel",
    "memory_optimization",
    "scoped_allocator_optimization",
)

_MIN_GRAPH_NODES = 4  # TensorFlow's kDefaultMinGraphNodes


@dataclass
class OptimizerOptions:
    """The effective settings of one meta-optimizer run (see ``from_rewriter_config``)."""

    enabled: dict[str, bool] = field(default_factory=lambda: dict(PASS_FIELDS))
    model_pruning: bool = True
    disable_meta_optimizer: bool = False
    use_plugin_optimizers: bool = True
    iterations: int = 2
    min_graph_nodes: int = _MIN_GRAPH_NODES
    max_constant_bytes: int = 10 * 1024 * 1024  # TF's kMaxConstantSize: a folded result larger than its inputs

    @classmethod
    def from_rewriter_config(cls, config: rewriter_config_pb2.RewriterConfig | None) -> OptimizerOptions:
        """Effective options from a ``RewriterConfig`` (None: every default)."""
        options = cls()
        if config is None:
            return options
        for name, default in PASS_FIELDS.items():
            toggle = getattr(config, name)
            options.enabled[name] = default if toggle == _DEFAULT else toggle != _OFF
        options.model_pruning = not config.disable_model_pruning
        options.disable_meta_optimizer = config.disable_meta_optimizer
        options.use_plugin_optimizers = config.use_plugin_optimizers != _OFF
        options.iterations = 1 if config.meta_optimizer_iterations == RewriterConfig.ONE else 2
        if config.min_graph_nodes:
            options.min_graph_nodes = max(config.min_graph_nodes, 0)
        return options


def _as_tristate(value: Any, plugin: str, name: str) -> TriState:
    if isinstance(value, str):
        text = value.strip().upper()
        if text in TriState.__members__:
            return TriState[text]
    elif isinstance(value, bool):
        return TriState.ON if value else TriState.OFF
    elif isinstance(value, int) and value in (0, 1, 2):
        return TriState(value)
    raise ValueError(f"Plugin '{plugin}': optimizer config '{name}' must be DEFAULT, ON or OFF, got {value!r}")


def merge_plugin_configs(
    user: rewriter_config_pb2.RewriterConfig | None,
    plugins: Sequence[tuple[str, Mapping[str, Any]]],
) -> tuple[rewriter_config_pb2.RewriterConfig, list[str]]:
    """Merge the user's RewriterConfig with the plugins' recommended configs; returns (merged config, warnings).

    The user's setting wins when it is OFF. Otherwise a plugin turning a pass OFF disables
    it (with a warning naming the plugins, the pass and the performance impact); a plugin
    turning it ON enables it when the user left it DEFAULT. ``use_plugin_optimizers`` OFF
    in the user's config ignores every plugin config. Unknown fields raise ValueError.
    """
    merged = RewriterConfig()
    if user is not None:
        merged.CopyFrom(user)
    warnings: list[str] = []
    if merged.use_plugin_optimizers == _OFF:
        return merged, warnings
    offs: dict[str, list[str]] = {}
    ons: dict[str, list[str]] = {}
    for plugin, configs in plugins:
        for name, value in configs.items():
            if name not in PLUGIN_CONFIG_FIELDS:
                raise ValueError(
                    f"Plugin '{plugin}': unknown optimizer config '{name}'; known: {', '.join(PLUGIN_CONFIG_FIELDS)}"
                )
            state = _as_tristate(value, plugin, name)
            if state == TriState.OFF:
                offs.setdefault(name, []).append(plugin)
            elif state == TriState.ON:
                ons.setdefault(name, []).append(plugin)
    for name in PLUGIN_CONFIG_FIELDS:
        if name == "disable_model_pruning":
            # TriState ON here means "disable pruning"; the user's explicit True is the OFF of pruning.
            if ons.get(name) and not merged.disable_model_pruning:
                merged.disable_model_pruning = True
                warnings.append(_warning(ons[name], "model_pruning"))
            continue
        if name not in PASS_FIELDS:
            continue  # auto_parallel, memory_optimization: not toggles we build
        current = getattr(merged, name)
        if current == _OFF:
            continue  # the user's OFF wins
        if name in offs:
            if current == _ON or PASS_FIELDS[name]:
                warnings.append(_warning(offs[name], name))
            setattr(merged, name, _OFF)
        elif name in ons and current == _DEFAULT:
            setattr(merged, name, _ON)
    return merged, warnings


def _warning(plugins: list[str], name: str) -> str:
    names = ", ".join(f"'{p}'" for p in plugins)
    return (
        f"Plugin optimizer config of {names} turns off the graph optimizer pass '{name}', which the user's config "
        "enables; the plugin's setting takes precedence. This may reduce performance."
    )


# ------------------------------------------------------------------ process-wide experimental options

_TOGGLE_KEYS = (
    "layout_optimizer",
    "constant_folding",
    "shape_optimization",
    "remapping",
    "arithmetic_optimization",
    "dependency_optimization",
    "loop_optimization",
    "function_optimization",
    "debug_stripper",
    "scoped_allocator_optimization",
    "pin_to_host_optimization",
    "implementation_selector",
    "auto_mixed_precision",
    "common_subgraph_elimination",
    "use_plugin_optimizers",
)
_BOOL_KEYS = ("disable_model_pruning", "disable_meta_optimizer")
_INT_KEYS = ("min_graph_nodes",)
EXPERIMENTAL_KEYS = _TOGGLE_KEYS + _BOOL_KEYS + _INT_KEYS

_experimental: dict[str, Any] = {}


def set_experimental_options(options: Mapping[str, Any]) -> None:
    """Merge ``options`` (TensorFlow's keys, e.g. ``{"constant_folding": False}``) into the process-wide options."""
    for key, value in options.items():
        if key not in EXPERIMENTAL_KEYS:
            raise ValueError(f"Unknown optimizer option '{key}'; known options: {', '.join(EXPERIMENTAL_KEYS)}")
        if key in _INT_KEYS:
            _experimental[key] = int(value)
        else:
            _experimental[key] = bool(value)


def get_experimental_options() -> dict[str, Any]:
    """The options set so far (TensorFlow returns only the keys that were set)."""
    return dict(_experimental)


def experimental_rewriter_config() -> rewriter_config_pb2.RewriterConfig:
    """The process-wide experimental options as a RewriterConfig (what functions and the CLI optimize with)."""
    config = RewriterConfig()
    for key, value in _experimental.items():
        if key in _TOGGLE_KEYS:
            setattr(config, key, _ON if value else _OFF)
        else:
            setattr(config, key, value)
    return config
