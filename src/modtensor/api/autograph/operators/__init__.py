"""The operators converted code calls (``ag__.if_stmt``, ``ag__.ld``, ...): Python semantics on Python values,
TensorFlow ops on tensors."""
