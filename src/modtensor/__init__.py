"""modtensor: a Python runtime for tensor programs whose devices, kernels, ops and
graph optimizers come from plugins, following the Modular TensorFlow design.

The public API uses TensorFlow's names for what it implements.
"""

__version__ = "0.1.0"
