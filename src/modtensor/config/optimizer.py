"""``modtensor.config.optimizer``: TensorFlow's ``tf.config.optimizer`` experimental options.

The options apply to every graph that ``function`` compiles (and to sessions whose
ConfigProto sets no ``graph_options``); keys are TensorFlow's RewriterConfig names
(``constant_folding``, ``remapping``, ``disable_model_pruning``, ``min_graph_nodes``,
``use_plugin_optimizers``, ...). Booleans turn a pass ON/OFF; unset keys keep
TensorFlow's defaults. Graphs compiled before a change keep the options they had.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["get_experimental_options", "set_experimental_options"]


def set_experimental_options(options: Mapping[str, Any]) -> None:
    """Set graph optimizer options, e.g. ``{"constant_folding": False, "debug_stripper": True}``.

    ValueError for a key TensorFlow does not have.
    """
    from modtensor.grappler import config

    config.set_experimental_options(options)


def get_experimental_options() -> dict[str, Any]:
    """The options set with ``set_experimental_options`` (only the keys that were set, as TensorFlow)."""
    from modtensor.grappler import config

    return config.get_experimental_options()
