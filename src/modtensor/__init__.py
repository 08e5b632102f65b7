"""modtensor: a Python runtime for tensor programs whose devices, kernels, ops and
graph optimizers come from plugins, following the Modular TensorFlow design.

The public API uses TensorFlow's names for what it implements, so a simple
TensorFlow program runs with ``import modtensor as tf``: eager by default,
``modtensor.function`` for graphs, ``modtensor.compat.v1`` for Session programs.
"""

from __future__ import annotations

import importlib as _importlib
from typing import Any as _Any

from modtensor import audio, bitwise, compat, config, image, linalg, math, nn, random, strings, sysconfig
from modtensor import kernels as _kernels  # noqa: F401 - arms the built-in CPU kernels at the runtime's first use
from modtensor.api import array_ops as _array_ops
from modtensor.api import clip_ops as _clip_ops
from modtensor.api import indexing_ops as _indexing_ops
from modtensor.api import linalg_ops as _linalg_ops
from modtensor.api import math_ops as _math_ops
from modtensor.api import nn_ops as _nn_ops
from modtensor.api import random_ops as _random_ops
from modtensor.api import segment_ops as _segment_ops
from modtensor.api import sort_ops as _sort_ops
from modtensor.api import tensor_operators as _tensor_operators  # noqa: F401 - installs Tensor's operators
from modtensor.api.constant_op import constant, convert_to_tensor
from modtensor.api.context import device, executing_eagerly, name_scope
from modtensor.api.ragged import RaggedTensor
from modtensor.framework import dtypes, errors
from modtensor.framework.device_spec import DeviceSpec
from modtensor.framework.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool,  # noqa: A004 - TensorFlow's name
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from modtensor.framework.graph import Graph
from modtensor.framework.importer import import_graph_def
from modtensor.framework.protos.graph_pb2 import GraphDef
from modtensor.framework.tensor import Tensor, TensorSpec
from modtensor.framework.tensor_shape import TensorShape
from modtensor.plugin import load_library, load_op_library  # also arms plugin discovery at the runtime's first use

__version__ = "0.1.0"

newaxis = None

__all__ = [
    "DType",
    "DeviceSpec",
    "Graph",
    "GradientTape",  # noqa: F822 - loaded on first use (module __getattr__)
    "GraphDef",
    "IndexedSlices",  # noqa: F822
    "Module",  # noqa: F822 - loaded on first use (module __getattr__)
    "RaggedTensor",
    "Tensor",
    "TensorArray",  # noqa: F822 - loaded on first use (module __getattr__)
    "TensorArraySpec",  # noqa: F822 - loaded on first use (module __getattr__)
    "TensorShape",
    "TensorSpec",
    "Variable",  # noqa: F822 - loaded on first use (module __getattr__)
    "VariableAggregation",  # noqa: F822
    "VariableSynchronization",  # noqa: F822
    "as_dtype",
    "autograph",  # noqa: F822 - loaded on first use (module __getattr__)
    "bfloat16",
    "audio",
    "bitwise",
    "bool",
    "case",  # noqa: F822 - loaded on first use (module __getattr__)
    "compat",
    "complex128",
    "complex64",
    "cond",  # noqa: F822 - loaded on first use (module __getattr__)
    "config",
    "constant",
    "convert_to_tensor",
    "data",  # noqa: F822 - loaded on first use (module __getattr__)
    "device",
    "double",
    "dtypes",
    "errors",
    "executing_eagerly",
    "float16",
    "float32",
    "float64",
    "function",  # noqa: F822 - loaded on first use (module __getattr__)
    "custom_gradient",  # noqa: F822
    "recompute_grad",  # noqa: F822
    "gradients",  # noqa: F822
    "hessians",  # noqa: F822
    "no_gradient",  # noqa: F822
    "NotDifferentiable",  # noqa: F822
    "RegisterGradient",  # noqa: F822
    "UnconnectedGradients",  # noqa: F822
    "Assert",  # noqa: F822 - loaded on first use (module __getattr__)
    "assert_equal",  # noqa: F822 - loaded on first use (module __getattr__)
    "assert_greater",  # noqa: F822 - loaded on first use (module __getattr__)
    "assert_less",  # noqa: F822 - loaded on first use (module __getattr__)
    "assert_rank",  # noqa: F822 - loaded on first use (module __getattr__)
    "debugging",  # noqa: F822 - loaded on first use (module __getattr__)
    "print",  # noqa: F822 - loaded on first use (module __getattr__)
    "map_fn",  # noqa: F822 - loaded on first use (module __getattr__)
    "scan",  # noqa: F822 - loaded on first use (module __getattr__)
    "foldl",  # noqa: F822 - loaded on first use (module __getattr__)
    "foldr",  # noqa: F822 - loaded on first use (module __getattr__)
    "strings",  # noqa: F822 - loaded on first use (module __getattr__)
    "sparse",  # noqa: F822 - loaded on first use (module __getattr__)
    "half",
    "image",
    "import_graph_def",
    "init_scope",  # noqa: F822
    "int16",
    "int32",
    "int64",
    "int8",
    "linalg",
    "load_library",
    "load_op_library",
    "math",
    "name_scope",
    "newaxis",
    "nn",
    "optimizers",  # noqa: F822
    "qint16",
    "qint32",
    "qint8",
    "quint16",
    "quint8",
    "random",
    "raw_ops",  # noqa: F822
    "reduce_logsumexp",  # noqa: F822
    "resource",
    "saved_model",  # noqa: F822
    "signal",  # noqa: F822 - loaded on first use (module __getattr__)
    "string",
    "strings",
    "switch_case",  # noqa: F822 - loaded on first use (module __getattr__)
    "sysconfig",
    "train",  # noqa: F822
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "variant",
    "while_loop",  # noqa: F822 - loaded on first use (module __getattr__)
]


def _reexport(*modules: _Any) -> list[str]:
    """Copy each module's ``__all__`` names into this namespace (the op wrappers' TF top-level names)."""
    names: list[str] = []
    for module in modules:
        for name in getattr(module, "__all__", ()):
            globals()[name] = getattr(module, name)
            names.append(name)
    return names


__all__ += [n for n in _reexport(_math_ops, _array_ops, _nn_ops, _random_ops) if n not in __all__]
# issue 13's op breadth: einsum, tensordot, gather/scatter_nd, sort, cumsum, split, eye, norm, clip_by_norm, ...
_BREADTH = (_linalg_ops, _indexing_ops, _sort_ops, _segment_ops, _clip_ops)
__all__ += [n for n in _reexport(*_BREADTH) if n not in __all__]
# tf.searchsorted and tf.histogram_fixed_width (namespace-ops work: api/counting_ops.py)
from modtensor.api.counting_ops import histogram_fixed_width, searchsorted  # noqa: E402
from modtensor.api.sequence_ops import linspace  # noqa: E402

__all__ += ["histogram_fixed_width", "linspace", "searchsorted"]
from modtensor.api.string_ops import as_string, fingerprint  # noqa: E402  (tf.as_string, tf.fingerprint)

__all__ += ["as_string", "fingerprint"]
from modtensor.api.spectral_ops import complex  # noqa: E402, A004  (tf.complex; real/imag are in tf.math only)

__all__ += ["complex"]

# Loaded on first use: tracing machinery that eager-only programs never touch.
_LAZY = {
    "function": ("modtensor.api.function", "function"),
    "Variable": ("modtensor.api.variables", "Variable"),
    "VariableAggregation": ("modtensor.api.variables", "VariableAggregation"),
    "VariableSynchronization": ("modtensor.api.variables", "VariableSynchronization"),
    "init_scope": ("modtensor.api.variables", "init_scope"),
    "optimizers": ("modtensor.optimizers", None),
    "raw_ops": ("modtensor.raw_ops", None),
    "Module": ("modtensor.api.module", "Module"),
    "train": ("modtensor.train", None),
    "saved_model": ("modtensor.saved_model", None),
    "reduce_logsumexp": ("modtensor.api.losses", "reduce_logsumexp"),
    "TensorArray": ("modtensor.api.tensor_array_ops", "TensorArray"),
    "TensorArraySpec": ("modtensor.api.tensor_array_ops", "TensorArraySpec"),
    "print": ("modtensor.api.logging_ops", "print_v2"),
    "map_fn": ("modtensor.api.functional_ops", "map_fn"),
    "scan": ("modtensor.api.functional_ops", "scan"),
    "foldl": ("modtensor.api.functional_ops", "foldl"),
    "foldr": ("modtensor.api.functional_ops", "foldr"),
    "Assert": ("modtensor.api.check_ops", "Assert"),
    "assert_equal": ("modtensor.api.check_ops", "assert_equal"),
    "assert_greater": ("modtensor.api.check_ops", "assert_greater"),
    "assert_less": ("modtensor.api.check_ops", "assert_less"),
    "assert_rank": ("modtensor.api.check_ops", "assert_rank"),
    "debugging": ("modtensor.debugging", None),
    "strings": ("modtensor.strings", None),
    # tf.data input pipelines, tf.io records and example parsing, tf.train protos (issue 13)
    "data": ("modtensor.data", None),
    "io": ("modtensor.io", None),
    "lookup": ("modtensor.lookup", None),
    "signal": ("modtensor.signal", None),
    "ragged": ("modtensor.ragged", None),
    "SparseTensor": ("modtensor.api.sparse_tensor", "SparseTensor"),
    "sparse": ("modtensor.sparse", None),
    "numpy_function": ("modtensor.api.script_ops", "numpy_function"),
    "py_function": ("modtensor.api.script_ops", "py_function"),
    "cond": ("modtensor.api.cond", "cond"),
    "case": ("modtensor.api.cond", "case"),
    "switch_case": ("modtensor.api.cond", "switch_case"),
    "while_loop": ("modtensor.api.while_loop", "while_loop"),
    "autograph": ("modtensor.autograph", None),  # a module: AutoGraph's user functions
    # gradients (issue 11)
    "GradientTape": ("modtensor.api.backprop", "GradientTape"),
    "UnconnectedGradients": ("modtensor.api.backprop", "UnconnectedGradients"),
    "gradients": ("modtensor.api.gradients_impl", "gradients_v2"),
    "hessians": ("modtensor.api.gradients_impl", "hessians"),
    "IndexedSlices": ("modtensor.api.indexed_slices", "IndexedSlices"),
    "RegisterGradient": ("modtensor.framework.gradient_registry", "RegisterGradient"),
    "no_gradient": ("modtensor.framework.gradient_registry", "no_gradient"),
    "NotDifferentiable": ("modtensor.framework.gradient_registry", "no_gradient"),
    "custom_gradient": ("modtensor.api.custom_gradient", "custom_gradient"),
    "recompute_grad": ("modtensor.api.custom_gradient", "recompute_grad"),
}


# Graph control, tensor utilities and tf.nest (TF 2.21's top-level names; loaded on first use).
_CORE_NAMES = {
    "control_dependencies": ("modtensor.api.graph_control", "control_dependencies"),
    "group": ("modtensor.api.graph_control", "group"),
    "tuple": ("modtensor.api.graph_control", "tuple"),
    "no_op": ("modtensor.api.graph_control", "no_op"),
    "is_tensor": ("modtensor.api.tensor_util", "is_tensor"),
    "get_static_value": ("modtensor.api.tensor_util", "get_static_value"),
    "make_ndarray": ("modtensor.api.tensor_util", "make_ndarray"),
    "make_tensor_proto": ("modtensor.api.tensor_util", "make_tensor_proto"),
    "nest": ("modtensor.nest", None),
    "ensure_shape": ("modtensor.api.check_ops", "ensure_shape"),
}
_LAZY.update(_CORE_NAMES)
__all__ += list(_CORE_NAMES)  # noqa: PLE0605 - names loaded on first use


def __getattr__(name: str) -> _Any:
    found = _LAZY.get(name)
    if found is None:
        raise AttributeError(f"module 'modtensor' has no attribute '{name}'")
    module = _importlib.import_module(found[0])
    value = module if found[1] is None else getattr(module, found[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
