"""RewriterConfig -> effective options, the plugin-config merge, and config.optimizer's experimental options."""

from __future__ import annotations

import pytest

import modtensor as mt
from modtensor.grappler import config
from modtensor.grappler.config import OptimizerOptions, TriState, merge_plugin_configs

from .support import RC


def test_defaults_follow_tensorflow() -> None:
    options = OptimizerOptions.from_rewriter_config(RC())
    assert options.enabled["constant_folding"] and options.enabled["remapping"]
    assert not options.enabled["debug_stripper"] and not options.enabled["auto_mixed_precision"]
    assert options.model_pruning and options.iterations == 2 and options.min_graph_nodes == 4


def test_toggles_and_scalars_are_read() -> None:
    rc = RC(
        constant_folding=RC.OFF,
        debug_stripper=RC.ON,
        disable_model_pruning=True,
        meta_optimizer_iterations=RC.ONE,
        min_graph_nodes=-1,
    )
    options = OptimizerOptions.from_rewriter_config(rc)
    assert not options.enabled["constant_folding"] and options.enabled["debug_stripper"]
    assert not options.model_pruning and options.iterations == 1 and options.min_graph_nodes == 0


def test_user_off_wins_over_a_plugin_on() -> None:
    merged, warnings = merge_plugin_configs(RC(remapping=RC.OFF), [("p", {"remapping": TriState.ON})])
    assert merged.remapping == RC.OFF and warnings == []


def test_plugin_off_disables_an_enabled_pass_with_a_warning_naming_plugins_and_pass() -> None:
    merged, warnings = merge_plugin_configs(
        RC(remapping=RC.ON), [("dev_a", {"remapping": "off"}), ("dev_b", {"remapping": TriState.OFF})]
    )
    assert merged.remapping == RC.OFF
    (text,) = warnings
    assert "'dev_a', 'dev_b'" in text and "'remapping'" in text and "performance" in text


def test_plugin_on_enables_a_pass_the_user_left_default_and_default_stays_default() -> None:
    merged, warnings = merge_plugin_configs(RC(), [("p", {"debug_stripper": "ON", "constant_folding": "DEFAULT"})])
    assert merged.debug_stripper == RC.ON and merged.constant_folding == RC.DEFAULT and warnings == []


def test_plugin_can_disable_model_pruning_and_use_plugin_optimizers_off_ignores_plugins() -> None:
    merged, warnings = merge_plugin_configs(RC(), [("p", {"disable_model_pruning": TriState.ON})])
    assert merged.disable_model_pruning and "model_pruning" in warnings[0]
    user = RC(use_plugin_optimizers=RC.OFF)
    merged, warnings = merge_plugin_configs(user, [("p", {"remapping": TriState.OFF})])
    assert merged.remapping == RC.DEFAULT and warnings == []


def test_unknown_plugin_field_or_value_raises() -> None:
    with pytest.raises(ValueError, match="Plugin 'p': unknown optimizer config 'remaping'"):
        merge_plugin_configs(RC(), [("p", {"remaping": "off"})])
    with pytest.raises(ValueError, match="must be DEFAULT, ON or OFF"):
        merge_plugin_configs(RC(), [("p", {"remapping": "maybe"})])


@pytest.fixture
def clean_options():
    saved = config.get_experimental_options()
    config._experimental.clear()
    yield
    config._experimental.clear()
    config._experimental.update(saved)


def test_experimental_options_round_trip_with_tensorflows_keys(clean_options) -> None:
    assert mt.config.optimizer.get_experimental_options() == {}
    mt.config.optimizer.set_experimental_options({"constant_folding": False, "min_graph_nodes": 10})
    mt.config.optimizer.set_experimental_options({"use_plugin_optimizers": True})
    assert mt.config.optimizer.get_experimental_options() == {
        "constant_folding": False,
        "min_graph_nodes": 10,
        "use_plugin_optimizers": True,
    }
    rc = config.experimental_rewriter_config()
    assert rc.constant_folding == RC.OFF and rc.min_graph_nodes == 10 and rc.use_plugin_optimizers == RC.ON
    with pytest.raises(ValueError, match="Unknown optimizer option 'constant_fold'"):
        mt.config.optimizer.set_experimental_options({"constant_fold": True})
