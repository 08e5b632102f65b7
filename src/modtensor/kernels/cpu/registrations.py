"""Registers the built-in CPU kernels: every numpy function of OP_FUNCTIONS plus the CPU forms of the plumbing ops.

The CPU kernels go through the same ``KernelRegistry.register`` a plugin uses.
Type constraints are TensorFlow 2.21's for its CPU kernels (the union of its CPU
KernelDefs per op, without quantized, resource and variant types), so a node gets
a CPU kernel here exactly when TensorFlow's CPU has one; the test
tests/runtime/test_cpu_kernels_registered.py holds them to the fixture written by
tools/dump_tf_cpu_kernel_constraints.py.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from modtensor.kernels.cpu import BREADTH_MODULES, OP_FUNCTIONS
from modtensor.kernels.cpu import bitwise as _bitwise
from modtensor.kernels.cpu import fused as _fused
from modtensor.kernels.cpu import io_kernels as _io_kernels
from modtensor.kernels.cpu import layer_norm as _layer_norm
from modtensor.kernels.cpu import list_kernels as _list_kernels
from modtensor.kernels.cpu import logging_kernels as _logging_kernels
from modtensor.kernels.cpu import lookup as _lookup
from modtensor.kernels.cpu import losses as _losses
from modtensor.kernels.cpu import random as _random
from modtensor.kernels.cpu.resource_variable_ops import register_variable_cpu_kernels
from modtensor.kernels.cpu.training_ops import register_training_cpu_kernels
from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry, global_kernel_registry
from modtensor.runtime.kernels import plumbing
from modtensor.runtime.op_kernel import FunctionKernel, OpKernel, OpKernelConstruction, OpKernelContext

__all__ = [
    "CPU_TYPE_CONSTRAINTS",
    "RandomKernel",
    "RandomUniformIntKernel",
    "SnapshotKernel",
    "EnsureShapeKernel",
    "register_cpu_kernels",
]

SOURCE = "modtensor.kernels.cpu"

# Ops the native CPU kernel library (csrc/cpu_kernels, loaded as a built-in plugin) implements for float32 (the random
# ops also for float64; Cast from the integer and bool types to float32; the gathers, scatters, TopKV2 and
# UnsortedSegmentSum for the dtypes csrc/cpu_kernels registers them for) at TF's default kernel priority 0. Their
# numpy kernels register one step lower, as the fallback for the other dtypes (and for everything when the library
# is absent): the native kernel wins on CPU, and a pluggable device's kernel (priority 0) still wins placement over
# CPU by device-type priority, as before.
NATIVE_FALLBACK_OPS = frozenset({
    "Abs", "Add", "AddV2", "AvgPool", "BatchMatMulV2", "BiasAdd", "Cast", "Ceil", "ConcatV2", "Conv2D",
    "DepthwiseConv2dNative", "Einsum", "Elu", "Erf", "Erfc", "Exp", "Floor", "GatherNd", "LeakyRelu", "Log",
    "LogSoftmax", "MatMul", "Max", "MaxPool", "Maximum", "Mean", "Min", "Minimum", "Mul", "Neg", "Pad", "Prod",
    "RandomStandardNormal", "RandomUniform", "RealDiv", "Reciprocal", "Relu", "Relu6", "ResizeArea", "ResizeBicubic",
    "ResizeBilinear", "ResizeNearestNeighbor", "Round", "Rsqrt", "ScatterNd", "SelectV2", "Sigmoid", "Softmax",
    "Sqrt", "Square", "SquaredDifference", "StridedSlice", "Sub", "Sum", "Tanh", "TensorScatterAdd",
    "TensorScatterUpdate", "TopKV2", "Transpose", "TruncatedNormal", "UnsortedSegmentSum", "_FusedConv2D",
    "_FusedDepthwiseConv2dNative", "_FusedMatMul", "_MklLayerNorm",
})  # fmt: skip
FALLBACK_PRIORITY = -1

# Groups used in the table below.
_TYPE_GROUPS = {
    "FLOATS": "bfloat16 float16 float32 float64",
    "INTS": "int8 int16 int32 int64",
    "UINTS": "uint8 uint16 uint32 uint64",
    "COMPLEX": "complex64 complex128",
}

# op -> {attr: allowed dtypes}: TensorFlow 2.21's CPU kernel constraints (ops absent: unconstrained).
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "Abs": {"T": "FLOATS INTS"},
    "Add": {"T": "FLOATS INTS uint8 COMPLEX string"},
    "AddN": {"T": "FLOATS INTS UINTS COMPLEX"},
    "AddV2": {"T": "FLOATS INTS UINTS COMPLEX"},
    "All": {"Tidx": "int32 int64"},
    "Any": {"Tidx": "int32 int64"},
    "ArgMax": {
        "T": "FLOATS INTS UINTS bool",
        "output_type": "int16 int32 int64 uint16",
    },
    "ArgMin": {
        "T": "FLOATS INTS UINTS bool",
        "output_type": "int32 int64",
    },
    "AvgPool": {"T": "FLOATS"},
    "BatchMatMulV2": {"T": "FLOATS int16 int32 int64 COMPLEX"},
    "BiasAdd": {"T": "FLOATS INTS UINTS COMPLEX"},
    **{op: {"T": "INTS UINTS"} for op in _bitwise.OP_FUNCTIONS},  # BitwiseAnd/Or/Xor, Invert, Left/RightShift
    "Ceil": {"T": "FLOATS"},
    "ConcatV2": {"T": "FLOATS INTS UINTS bool COMPLEX string float8_e4m3fn float8_e5m2"},
    "CheckNumerics": {"T": "FLOATS"},
    "Conv2D": {"T": "FLOATS int32"},
    "Cos": {"T": "FLOATS COMPLEX"},
    "DepthwiseConv2dNative": {"T": "FLOATS"},
    "Div": {"T": "FLOATS INTS UINTS COMPLEX"},
    "Elu": {"T": "FLOATS"},
    "Equal": {"T": "FLOATS INTS UINTS bool COMPLEX string"},
    "Erf": {"T": "FLOATS"},
    "Erfc": {"T": "FLOATS"},
    "Exp": {"T": "FLOATS COMPLEX"},
    "ExpandDims": {"Tdim": "int32 int64"},
    "Expm1": {"T": "FLOATS COMPLEX"},
    "Fill": {
        "T": "FLOATS INTS UINTS bool COMPLEX string int4 uint4",
        "index_type": "int32 int64",
    },
    "Floor": {"T": "FLOATS"},
    "FloorDiv": {"T": "FLOATS INTS UINTS"},
    "FloorMod": {"T": "FLOATS INTS UINTS"},
    "GatherV2": {
        "Tindices": "int16 int32 int64",
        "Tparams": "FLOATS INTS UINTS bool COMPLEX string float8_e4m3fn float8_e5m2",
    },
    "Greater": {"T": "FLOATS INTS UINTS"},
    "GreaterEqual": {"T": "FLOATS INTS UINTS"},
    "LeakyRelu": {"T": "FLOATS INTS UINTS"},
    "Less": {"T": "FLOATS INTS UINTS"},
    "LessEqual": {"T": "FLOATS INTS UINTS"},
    "Log": {"T": "FLOATS COMPLEX"},
    "Log1p": {"T": "FLOATS COMPLEX"},
    "LogSoftmax": {"T": "FLOATS"},
    "MatMul": {"T": "FLOATS int16 int32 int64 COMPLEX"},
    "Max": {
        "T": "FLOATS INTS UINTS",
        "Tidx": "int32 int64",
    },
    "MaxPool": {"T": "FLOATS INTS UINTS"},
    "Maximum": {"T": "FLOATS INTS UINTS"},
    "Mean": {
        "T": "FLOATS INTS UINTS COMPLEX",
        "Tidx": "int32 int64",
    },
    "Min": {
        "T": "FLOATS INTS UINTS",
        "Tidx": "int32 int64",
    },
    "Minimum": {"T": "FLOATS INTS UINTS"},
    "Mul": {"T": "FLOATS INTS UINTS COMPLEX"},
    "Neg": {"T": "FLOATS INTS COMPLEX"},
    "NotEqual": {"T": "FLOATS INTS UINTS bool COMPLEX string"},
    "OneHot": {
        "T": "FLOATS INTS UINTS bool COMPLEX string",
        "TI": "int8 int32 int64 uint8",
    },
    "OnesLike": {"T": "FLOATS INTS UINTS bool COMPLEX"},
    "Pack": {"T": "FLOATS INTS UINTS bool COMPLEX string float8_e4m3fn float8_e5m2"},
    "Pad": {
        "T": "FLOATS INTS UINTS bool COMPLEX string",
        "Tpaddings": "int32 int64",
    },
    "PadV2": {"T": "FLOATS INTS UINTS bool COMPLEX string", "Tpaddings": "int32 int64"},
    "MirrorPad": {"T": "FLOATS INTS UINTS bool COMPLEX string", "Tpaddings": "int32 int64"},
    "Pow": {"T": "FLOATS INTS COMPLEX"},
    "Prod": {
        "T": "FLOATS INTS UINTS COMPLEX",
        "Tidx": "int32 int64",
    },
    "RandomStandardNormal": {"dtype": "FLOATS"},
    "RandomUniform": {"dtype": "FLOATS"},
    "RandomUniformInt": {"Tout": "int32 int64"},
    "TruncatedNormal": {"dtype": "FLOATS"},
    "RandomShuffle": {"T": "FLOATS INTS UINTS bool COMPLEX string"},
    "Multinomial": {"T": "FLOATS", "output_dtype": "int32 int64"},
    "Range": {"Tidx": "FLOATS int32 int64"},
    "RealDiv": {"T": "FLOATS COMPLEX"},
    "Reciprocal": {"T": "FLOATS COMPLEX"},
    "Relu": {"T": "FLOATS INTS UINTS"},
    "Relu6": {"T": "FLOATS INTS UINTS"},
    "Reshape": {"Tshape": "int32 int64"},
    "Round": {"T": "FLOATS int32 int64"},
    "Rsqrt": {"T": "FLOATS COMPLEX"},
    "Select": {"T": "FLOATS INTS UINTS bool COMPLEX string"},
    "SelectV2": {"T": "FLOATS INTS UINTS bool COMPLEX string"},
    "Shape": {"out_type": "int32 int64"},
    "ShapeN": {"out_type": "int32 int64"},
    "Sigmoid": {"T": "FLOATS COMPLEX"},
    "Sign": {"T": "FLOATS INTS COMPLEX"},
    "Sin": {"T": "FLOATS COMPLEX"},
    **{op: {"T": "FLOATS COMPLEX"} for op in ("Tan", "Asin", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh")},
    "Acos": {"T": "FLOATS COMPLEX INTS"},  # TF registers int kernels its OpDef never admits
    "Rint": {"T": "float32 float64"},
    "Atan2": {"T": "FLOATS"},
    "TruncateDiv": {"T": "FLOATS INTS UINTS"},
    "TruncateMod": {"T": "float32 float64 int32 int64"},
    "MulNoNan": {"T": "FLOATS COMPLEX"},
    "NextAfter": {"T": "float32 float64"},
    "Size": {"out_type": "int32 int64"},
    "Slice": {"T": "FLOATS INTS UINTS bool COMPLEX string float8_e4m3fn float8_e5m2"},
    "Snapshot": {"T": "FLOATS INTS UINTS bool COMPLEX"},
    "Softmax": {"T": "FLOATS"},
    "Sqrt": {"T": "FLOATS COMPLEX"},
    "Square": {"T": "FLOATS INTS UINTS COMPLEX"},
    "SquaredDifference": {"T": "FLOATS int32 int64 COMPLEX"},
    "StridedSlice": {"T": "FLOATS INTS UINTS bool COMPLEX string float8_e4m3fn float8_e5m2"},
    "Sub": {"T": "FLOATS INTS UINTS COMPLEX"},
    "Sum": {
        "T": "FLOATS INTS UINTS COMPLEX",
        "Tidx": "int32 int64",
    },
    "EuclideanNorm": {"T": "FLOATS INTS UINTS COMPLEX", "Tidx": "int32 int64"},
    "Tanh": {"T": "FLOATS COMPLEX"},
    "Tile": {"Tmultiples": "int32 int64"},
    "Transpose": {"T": "FLOATS INTS UINTS bool COMPLEX string float8_e4m3fn float8_e5m2"},
    "Unpack": {"T": "FLOATS INTS UINTS bool COMPLEX string float8_e4m3fn float8_e5m2"},
    "Where": {"T": "FLOATS INTS UINTS bool COMPLEX"},
    "ZerosLike": {"T": "FLOATS INTS UINTS bool COMPLEX string"},
}
for _module in BREADTH_MODULES:  # the op-breadth modules' own tables (issue 13)
    CPU_TYPE_CONSTRAINTS.update(_module.CPU_TYPE_CONSTRAINTS)


class SnapshotKernel(OpKernel):
    """Snapshot: a copy of the input that later in-place writes to the input cannot change."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Copy the input into a new buffer (forwarding it instead when nothing else sees it)."""
        x = ctx.inputs[0]
        shape = x.shape
        del x
        out, forwarded = ctx.forward_input_or_allocate_output((0,), 0, shape)
        if forwarded < 0:
            np.copyto(out, ctx.inputs[0])


class EnsureShapeKernel(OpKernel):
    """EnsureShape: ``array.ensure_shape`` with the node's input name (TF's message names it) and its `shape` attr."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._shape = ctx.get_attr("shape")
        self._input_name = ctx.node_def.input[0] if ctx.node_def.input else "input"

    def compute(self, ctx: OpKernelContext) -> None:
        """Check the runtime shape against the attr and pass the input through."""
        ctx.outputs[0] = OP_FUNCTIONS["EnsureShape"](ctx.inputs[0], self._shape, self._input_name)


class RandomKernel(OpKernel):
    """RandomUniform / RandomStandardNormal: TF's stateful Philox stream, advanced per call as TF's kernel does.

    With seed == seed2 == 0 the kernel draws fresh seeds once at construction
    (nondeterministic, as in TF); every call advances the stream by 256 blocks per
    output element, so call k gives TF's k-th result for the same seeds.
    """

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._fn = OP_FUNCTIONS[ctx.type]
        seed, seed2 = ctx.get_attr("seed"), ctx.get_attr("seed2")
        if seed == 0 and seed2 == 0:
            bits = int.from_bytes(os.urandom(16), "little")
            seed, seed2 = bits & (2**63 - 1) or 1, (bits >> 64) & (2**63 - 1)
        self._seed, self._seed2 = seed, seed2
        self._dtype = ctx.output_types[0]
        self._skip = 0
        self._lock = threading.Lock()

    def compute(self, ctx: OpKernelContext) -> None:
        """Draw the next samples of this kernel's stream."""
        shape = ctx.inputs[0]
        n = int(np.prod(np.asarray(shape), dtype=np.int64)) if np.asarray(shape).ndim == 1 else 0
        with self._lock:
            skip = self._skip
            self._skip += 256 * n
        ctx.outputs[0] = self._fn(shape, self._dtype, seed=self._seed, seed2=self._seed2, skip=skip)


class RandomUniformIntKernel(RandomKernel):
    """RandomUniformInt: like RandomKernel, but the stream advances only when the bounds are valid, as in TF."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Draw the next integers of this kernel's stream."""
        shape, minval, maxval = ctx.inputs
        n = int(np.prod(np.asarray(shape), dtype=np.int64)) if np.asarray(shape).ndim == 1 else 0
        with self._lock:
            out = self._fn(shape, minval, maxval, seed=self._seed, seed2=self._seed2, skip=self._skip)
            self._skip += 256 * n
        ctx.outputs[0] = out


class RandomShuffleKernel(RandomKernel):
    """RandomShuffle: like RandomKernel, but a call reserves ceil((rows - 1) / 4) blocks, as TF's kernel does."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Shuffle the input's rows with the next words of this kernel's stream."""
        value = ctx.inputs[0]
        with self._lock:
            skip = self._skip
            self._skip += _random.random_shuffle_blocks(np.shape(value))
        ctx.outputs[0] = _random.random_shuffle(value, seed=self._seed, seed2=self._seed2, skip=skip)


class MultinomialKernel(RandomKernel):
    """Multinomial: like RandomKernel; a call reserves 256 blocks per output of batch * 2 * ceil4(num_samples)."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Draw the next class samples of this kernel's stream (a failing call advances nothing, as in TF)."""
        logits, num_samples = ctx.inputs
        with self._lock:
            out = _random.multinomial(
                logits, num_samples, self._dtype, seed=self._seed, seed2=self._seed2, skip=self._skip
            )
            self._skip += _random.multinomial_blocks(np.shape(logits), int(np.asarray(num_samples)))
        ctx.outputs[0] = out


_STATEFUL: dict[str, type[OpKernel]] = {
    "RandomUniform": RandomKernel,
    "RandomStandardNormal": RandomKernel,
    "TruncatedNormal": RandomKernel,
    "RandomShuffle": RandomShuffleKernel,
    "RandomUniformInt": RandomUniformIntKernel,
    "Multinomial": MultinomialKernel,
}

_registered: dict[int, list[KernelRegistration]] = {}
_lock = threading.Lock()


def _constraints(op: str) -> dict[str, list[str]] | None:
    table = CPU_TYPE_CONSTRAINTS.get(op)
    if table is None:
        return None
    return {attr: " ".join(_TYPE_GROUPS.get(n, n) for n in names.split()).split() for attr, names in table.items()}


def register_cpu_kernels(registry: KernelRegistry | None = None) -> list[KernelRegistration]:
    """Register every built-in CPU kernel into ``registry`` (default: the global one) once; returns them."""
    target = registry if registry is not None else global_kernel_registry()
    with _lock:
        done = _registered.get(id(target))
        if done is not None:
            return list(done)
        regs: list[KernelRegistration] = []
        for op, fn in (*OP_FUNCTIONS.items(), *_bitwise.OP_FUNCTIONS.items()):
            factory: Any = _STATEFUL.get(op) or FunctionKernel.factory_for(fn)
            priority = FALLBACK_PRIORITY if op in NATIVE_FALLBACK_OPS else 0
            regs.append(
                target.register(op, "CPU", factory, constraints=_constraints(op), priority=priority, source=SOURCE)
            )
        for op, cls in plumbing.CPU_OPS.items():  # as TF: NoOp and IdentityN have DEFAULT kernels only
            regs.append(target.register(op, "CPU", cls, source=SOURCE))
        regs.append(
            target.register("Snapshot", "CPU", SnapshotKernel, constraints=_constraints("Snapshot"), source=SOURCE)
        )
        regs.extend(_fused.register_fused_kernels(target, SOURCE))  # the remapper's _FusedMatMul/_FusedConv2D
        regs.extend(_layer_norm.register_layer_norm_kernels(target, SOURCE))  # the remapper's _MklLayerNorm
        regs.extend(_register_state_and_training(target))
        regs.extend(_list_kernels.register_list_kernels(target, SOURCE))  # TensorList ops, CPU and DEFAULT
        regs.extend(_logging_kernels.register_logging_kernels(target, SOURCE))  # Assert, PrintV2, StringFormat
        regs.extend(_io_kernels.register_io_kernels(target, SOURCE))  # tf.io's byte and file ops
        regs.extend(_lookup.register_lookup_kernels(target, SOURCE))  # tf.lookup's hash tables
        _registered[id(target)] = regs
        return list(regs)


def _register_state_and_training(target: KernelRegistry) -> list[KernelRegistration]:
    """Variables (CPU and DEFAULT kernels), the optimizers' training ops and the losses."""
    from modtensor.runtime.resource_variable import register_variable_kernels

    regs = register_variable_kernels(target)
    regs += register_variable_cpu_kernels(target)
    regs += register_training_cpu_kernels(target)
    from modtensor.kernels.cpu.data import register_data_kernels

    regs += register_data_kernels(target)  # tf.data datasets, iterators, optionals; PyFunc/EagerPyFunc
    for op, fn in _losses.OP_FUNCTIONS.items():
        regs.append(
            target.register(
                op, "CPU", FunctionKernel.factory_for(fn), constraints=_losses.TYPE_CONSTRAINTS[op], source=SOURCE
            )
        )
    return regs
