"""``modtensor.random``: TensorFlow's ``tf.random`` names (seeded ``normal``/``truncated_normal``/``uniform``/
``shuffle``, ``categorical``, ``set_seed``, the stateless ``stateless_uniform``/``stateless_normal``/
``stateless_truncated_normal``/``stateless_categorical``)."""

from modtensor.api.random_ops import categorical, normal, set_seed, shuffle, truncated_normal, uniform
from modtensor.api.stateless_random_ops import (
    Algorithm,
    stateless_categorical,
    stateless_normal,
    stateless_truncated_normal,
    stateless_uniform,
)

__all__ = [
    "Algorithm",
    "categorical",
    "normal",
    "set_seed",
    "shuffle",
    "stateless_categorical",
    "stateless_normal",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
]
