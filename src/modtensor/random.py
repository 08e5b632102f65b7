"""``modtensor.random``: TensorFlow's ``tf.random`` names (seeded ``normal``/``uniform``, ``set_seed``)."""

from modtensor.api.random_ops import normal, set_seed, uniform

__all__ = ["normal", "set_seed", "uniform"]
