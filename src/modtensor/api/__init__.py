"""Implementation of modtensor's public namespace (TensorFlow's names); users import ``modtensor``.

See docs/frontend.md for how these modules dispatch to eager execution or graph building.
"""

from modtensor.framework import gradient_registry as _gradient_registry


def _load_builtin_gradients() -> None:
    from modtensor.api import gradients

    gradients.load()


_gradient_registry.add_loader(_load_builtin_gradients)
