"""Activation kernels with TensorFlow's semantics: Relu, Relu6, Elu, Sigmoid, Tanh, Softmax, LogSoftmax, BiasAdd.

Half-precision inputs are computed in float32 and rounded once; softmaxes
subtract the row maximum so large logits do not overflow.
"""

from __future__ import annotations

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.fp_quiet import quiet_off, quiet_on
from modtensor.kernels.cpu.precision import HALF_TYPES

_HALF = HALF_TYPES


def _work(x: np.ndarray) -> np.ndarray:
    """The array to compute on: half types widen to float32."""
    return x.astype(np.float32) if x.dtype in _HALF else x


_ZEROS: dict[np.dtype, np.ndarray] = {}


def _zero(dtype: np.dtype) -> np.ndarray:
    """A 0-d zero of ``dtype`` (cached: making a numpy scalar costs as much as a small ufunc call)."""
    found = _ZEROS.get(dtype)
    if found is None:
        found = _ZEROS[dtype] = np.zeros((), dtype)
    return found


def relu(features: np.ndarray) -> np.ndarray:
    """Relu: max(x, 0); NaN stays NaN as in TF."""
    if type(features) is not np.ndarray:
        features = np.asarray(features)
    dt = features.dtype
    out = np.maximum(features, _zero(dt), out=...)
    return out if out.dtype == dt else out.astype(dt)


def relu6(features: np.ndarray) -> np.ndarray:
    """Relu6: min(max(x, 0), 6); NaN stays NaN."""
    if type(features) is not np.ndarray:
        features = np.asarray(features)
    t = features.dtype.type
    out = np.maximum(features, t(0), out=...)
    return np.minimum(out, t(6), out=out)


def elu(features: np.ndarray) -> np.ndarray:
    """Elu: x for x > 0, exp(x) - 1 otherwise."""
    features = np.asarray(features)
    x = _work(features)
    with np.errstate(all="ignore"):
        out = np.where(x < 0, np.expm1(x), x)
    return np.asarray(out, dtype=features.dtype)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Sigmoid: 1 / (1 + exp(-x)), computed without overflow for large |x|."""
    x = np.asarray(x)
    w = _work(x)
    token = quiet_on()
    try:
        # e = exp(-|x|) <= 1 never overflows; NaN flows through every step to the output.
        e = np.abs(w, out=...)
        np.negative(e, out=e)
        np.exp(e, out=e)
        pos = np.add(e, e.dtype.type(1), out=...)
        np.reciprocal(pos, out=pos)  # 1 / (1 + e): sigmoid(|x|)
        np.multiply(e, pos, out=e)  # e / (1 + e): sigmoid(-|x|)
        out = np.where(w >= 0, pos, e)
    finally:
        quiet_off(token)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


def tanh(x: np.ndarray) -> np.ndarray:
    """Tanh elementwise."""
    x = np.asarray(x)
    token = quiet_on()
    try:
        return np.asarray(np.tanh(_work(x)), dtype=x.dtype)
    finally:
        quiet_off(token)


def _check_logits(logits: np.ndarray) -> None:
    if logits.ndim < 1:
        raise invalid_argument(f"logits must have >= 1 dimension, got {shape_str(logits.shape)}")


def softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax along the last axis, shifted by the row max for stability (in place on one buffer)."""
    logits = np.asarray(logits)
    _check_logits(logits)
    x = _work(logits)
    token = quiet_on()
    try:
        if x.size:
            e = np.subtract(x, np.maximum.reduce(x, axis=-1, keepdims=True))
            np.exp(e, out=e)
        else:
            e = np.exp(x)
        out = np.divide(e, np.add.reduce(e, axis=-1, keepdims=True), out=e)
    finally:
        quiet_off(token)
    return out if out.dtype == logits.dtype else out.astype(logits.dtype)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """LogSoftmax along the last axis: x - max - log(sum(exp(x - max)))."""
    logits = np.asarray(logits)
    _check_logits(logits)
    x = _work(logits)
    token = quiet_on()
    try:
        shifted = np.subtract(x, np.maximum.reduce(x, axis=-1, keepdims=True)) if x.size else x
        out = shifted - np.log(np.add.reduce(np.exp(shifted), axis=-1, keepdims=True))
    finally:
        quiet_off(token)
    return np.asarray(out, dtype=logits.dtype)


def bias_add(value: np.ndarray, bias: np.ndarray, data_format: str = "NHWC") -> np.ndarray:
    """BiasAdd: add a 1-D bias along the channel dim (last for NHWC, dim 1 for NCHW)."""
    value, bias = np.asarray(value), np.asarray(bias)
    if value.ndim < 2:
        raise invalid_argument(f"Input tensor must be at least 2D: {shape_str(value.shape)}")
    if bias.ndim != 1:
        raise invalid_argument(f"Biases must be 1D: {shape_str(bias.shape)}")
    channel_axis = 1 if data_format.startswith("NC") else value.ndim - 1
    if value.shape[channel_axis] != bias.shape[0]:
        raise invalid_argument(
            "Must provide as many biases as the last dimension of the input tensor: "
            f"{shape_str(bias.shape)} vs. {shape_str(value.shape)}"
        )
    b = bias.reshape((-1,) + (1,) * (value.ndim - 1 - channel_axis)) if channel_axis != value.ndim - 1 else bias
    token = quiet_on()
    try:
        out = np.add(value, b, out=...)
    finally:
        quiet_off(token)
    return out if out.dtype == value.dtype else out.astype(value.dtype)


# Added with tf.nn.leaky_relu (frontend issue).
def leaky_relu(features: np.ndarray, alpha: float = 0.2) -> np.ndarray:
    """LeakyRelu: x where x > 0, else alpha * x; alpha is a float32 attr converted to the input's dtype, as in TF."""
    features = np.asarray(features)
    a = features.dtype.type(np.float32(alpha))
    with np.errstate(all="ignore"):
        return np.asarray(np.where(features > 0, features, features * a), dtype=features.dtype)
