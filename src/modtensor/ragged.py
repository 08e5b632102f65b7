"""``modtensor.ragged``: TensorFlow's ``tf.ragged`` names (``constant``, ``range``, ``map_flat_values``,
``boolean_mask``, ``RaggedTensor``)."""

from modtensor.api.ragged import RaggedTensor, boolean_mask, map_flat_values
from modtensor.api.ragged import constant_ragged as constant
from modtensor.api.ragged import ragged_range as range  # noqa: A004

__all__ = ["RaggedTensor", "boolean_mask", "constant", "map_flat_values", "range"]
