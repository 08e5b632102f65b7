"""The remapper's layer-normalization fusion: Keras's ``LayerNormalization`` subgraph -> ``_MklLayerNorm``.

What Keras 3 exports for ``LayerNormalization(axis=-1)`` (``ops.moments`` then the batch-norm
formula), once constant folding made the reshaped gamma/beta constants and common-subgraph
elimination shared the axes and epsilon constants::

    mean = Mean(x, axes, keep_dims)            var = Mean(SquaredDifference(x, [StopGradient] mean), axes, keep_dims)
    inv  = Rsqrt(var + epsilon) * gamma        out = x * inv + (Neg(mean) * inv + beta)

TensorFlow's remapper (``FindMklLayerNorm``, its "common norm" pattern, oneDNN builds only) matches the
same graph in the form its arithmetic optimizer leaves, ``out = x * inv + (beta - inv * mean)``; both
forms are matched here, commutative operands in either order, gamma and beta each optional (Keras's
``scale=False`` / ``center=False``). The fused node is TF's ``_MklLayerNorm(x, scale, offset)`` with
attr ``epsilon``; it takes the output node's name, so readers are unchanged.

Conditions (else the graph is left alone), as TF's: float32, on CPU, both means reduce exactly the
last axis (one axis, ``-1``, or ``rank - 1`` when the rank is known, with ``keep_dims``),
``epsilon`` a scalar constant, gamma and beta constants with the last dimension's number of elements
that vary only along the last axis (and no higher rank than the input's, when known), one device,
and every intermediate read only inside the pattern (not fetched, not preserved). Where static shapes
are unknown (client feeds arrive as ``_Recv`` nodes) the constants give the size, and the kernels
check at run time that it is the input's last dimension (InvalidArgument otherwise), as the fused
``Add`` of the contraction fusions is checked. TF's oneDNN kernel also limits the input to rank 2 or
3; modtensor's kernels take any rank, so rank-4 layer norms (ConvNeXt) fuse too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from modtensor.framework.protos import node_def_pb2, types_pb2
from modtensor.grappler.graph_view import parse

if TYPE_CHECKING:
    from modtensor.grappler.passes.remapper import _Rewrite

__all__ = ["fuse_layer_norm"]

_ADD = ("AddV2", "Add")
_PASS_THROUGH = ("StopGradient", "Identity", "Snapshot")
FUSED_OP = "_MklLayerNorm"


class _Match:
    """The nodes of one candidate pattern, collected while matching."""

    def __init__(self, rewrite: _Rewrite, out: node_def_pb2.NodeDef):
        self.rewrite, self.view, self.out = rewrite, rewrite.view, out
        self.inner: list[node_def_pb2.NodeDef] = []

    def node(self, text: str, ops: tuple[str, ...]) -> node_def_pb2.NodeDef | None:
        """The node output ``text`` (output 0) names, when its op is one of ``ops``, a float32 node on the output's
        device; recorded as an intermediate."""
        source, index = parse(text)
        node = self.view.nodes.get(source)
        if node is None or index != 0 or node.op not in ops or source in self.view.removed:
            return None
        if node.device != self.out.device or node.attr["T"].type != types_pb2.DT_FLOAT:
            return None
        if node not in self.inner:
            self.inner.append(node)
        return node

    def binary(self, node: node_def_pb2.NodeDef) -> list[str] | None:
        data = self.view.data_inputs(node)
        return data if len(data) == 2 else None

    def through(self, text: str) -> str:
        """``text`` with StopGradient/Identity/Snapshot readers skipped (recorded as intermediates)."""
        for _ in range(4):
            node = self.node(text, _PASS_THROUGH)
            if node is None:
                return text
            data = self.view.data_inputs(node)
            if len(data) != 1:
                return text
            text = data[0]
        return text


def _axis_is_last(rewrite: _Rewrite, mean: node_def_pb2.NodeDef, rank: int | None) -> bool:
    """One reduction axis, the last one (``-1``, or ``rank - 1`` when the rank is known), with ``keep_dims``."""
    if not mean.attr["keep_dims"].b:
        return False
    data = rewrite.view.data_inputs(mean)
    axes = rewrite.const(data[1]) if len(data) == 2 else None
    if axes is None or axes.dtype.kind not in "iu" or axes.size != 1:
        return False
    axis = int(axes.reshape(()))
    return axis == -1 or (rank is not None and axis == rank - 1)


def _vector(value: np.ndarray | None, channels: int, rank: int | None) -> np.ndarray | None:
    """A gamma/beta constant as a [channels] float32 vector when it varies only along the last axis (and, when the
    input's rank is known, does not broadcast the output to a higher rank)."""
    if value is None or value.dtype != np.float32 or value.ndim < 1 or (rank is not None and value.ndim > rank):
        return None
    if value.shape[-1] != channels or value.size != channels:
        return None
    return value.reshape(channels)


def fuse_layer_norm(rewrite: _Rewrite, out: node_def_pb2.NodeDef) -> bool:
    """Replace the layer normalization ending at ``out`` (an AddV2/Add) by ``_MklLayerNorm``; True when fused."""
    view = rewrite.view
    if out.op not in _ADD or out.attr["T"].type != types_pb2.DT_FLOAT or not rewrite.on_cpu(out):
        return False
    data = view.data_inputs(out)
    if len(data) != 2:
        return False
    for scaled_text, shift_text in ((data[0], data[1]), (data[1], data[0])):
        found = _match(rewrite, out, scaled_text, shift_text)
        if found is not None:
            _replace(rewrite, out, *found)
            return True
    return False


def _match(
    rewrite: _Rewrite, out: node_def_pb2.NodeDef, scaled_text: str, shift_text: str
) -> tuple[list[node_def_pb2.NodeDef], str, np.ndarray | None, np.ndarray | None, float, int] | None:
    """(intermediates, x, gamma, beta, epsilon, channels) of ``out = x * inv + shift``, else None."""
    # x * inv (either order); which operand is x is settled by the moments below.
    scaled = _Match(rewrite, out).node(scaled_text, ("Mul",))
    operands = _Match(rewrite, out).binary(scaled) if scaled is not None else None
    if operands is None:
        return None
    for x_text, inv_text in ((operands[0], operands[1]), (operands[1], operands[0])):
        probe = _Match(rewrite, out)
        probe.inner = [scaled]
        found = _match_inv(probe, x_text, inv_text)
        if found is None:
            continue
        inv_node, gamma_text, mean, epsilon = found
        shift = _match_shift(probe, shift_text, inv_node, mean)
        if shift is None:
            continue
        beta_text = shift
        shape = rewrite.shape(x_text)
        rank = len(shape) if shape is not None else None
        if rank == 0:
            return None
        consts = [rewrite.const(t) for t in (gamma_text, beta_text) if t]
        channels = shape[-1] if shape is not None else None
        if channels is None:
            # Unknown statically (a graph fed through client transfers): the constants give the size, and the
            # kernels check at run time that it is the input's last dimension (as the fused Add's operand is).
            sizes = {c.shape[-1] for c in consts if c is not None and c.ndim >= 1}
            if len(sizes) != 1:
                return None
            channels = sizes.pop()
        means = [n for n in probe.inner if n.op == "Mean"]
        if len(means) != 2 or not all(_axis_is_last(rewrite, n, rank) for n in means):
            return None
        gamma = beta = None
        if gamma_text is not None:
            gamma = _vector(rewrite.const(gamma_text), channels, rank)
            if gamma is None:
                return None
        if beta_text:
            beta = _vector(rewrite.const(beta_text), channels, rank)
            if beta is None:
                return None
        if not _private(rewrite, out, probe.inner):
            return None
        return probe.inner, x_text, gamma, beta, epsilon, channels
    return None


def _match_inv(
    m: _Match, x_text: str, inv_text: str
) -> tuple[node_def_pb2.NodeDef, str | None, node_def_pb2.NodeDef, float] | None:
    """``inv = Rsqrt(Mean(SquaredDifference(x, mean)) + eps) [* gamma]``: (inv node, gamma input, mean, eps)."""
    view, rewrite = m.view, m.rewrite
    source = view.nodes.get(parse(inv_text)[0])
    if source is None:
        return None
    gamma_text = None
    if source.op == "Mul":
        inv = m.node(inv_text, ("Mul",))
        operands = m.binary(inv) if inv is not None else None
        if operands is None:
            return None
        rsqrt = None
        for a, b in ((operands[0], operands[1]), (operands[1], operands[0])):
            node = view.nodes.get(parse(a)[0])
            if node is not None and node.op == "Rsqrt" and rewrite.const_node(b) is not None:
                rsqrt, gamma_text = m.node(a, ("Rsqrt",)), b
                break
        if rsqrt is None:
            return None
    else:
        rsqrt = m.node(inv_text, ("Rsqrt",))
        inv = rsqrt
        if rsqrt is None:
            return None
    add = m.node(view.data_inputs(rsqrt)[0], _ADD) if view.data_inputs(rsqrt) else None
    operands = m.binary(add) if add is not None else None
    if operands is None:
        return None
    variance = epsilon = None
    for a, b in ((operands[0], operands[1]), (operands[1], operands[0])):
        value = rewrite.const(b)
        node = view.nodes.get(parse(a)[0])
        if node is not None and node.op == "Mean" and value is not None and value.size == 1 and value.dtype.kind == "f":
            variance, epsilon = m.node(a, ("Mean",)), float(value.reshape(()))
            break
    if variance is None or epsilon is None:
        return None
    vdata = view.data_inputs(variance)
    sqd = m.node(vdata[0], ("SquaredDifference",)) if len(vdata) == 2 else None
    operands = m.binary(sqd) if sqd is not None else None
    if operands is None:
        return None
    x = parse(x_text)
    for a, b in ((operands[0], operands[1]), (operands[1], operands[0])):
        if parse(a) != x:
            continue
        mean = m.node(m.through(b), ("Mean",))
        mdata = view.data_inputs(mean) if mean is not None else []
        if mean is not None and len(mdata) == 2 and parse(mdata[0]) == x:
            return inv, gamma_text, mean, epsilon
    return None


def _match_shift(m: _Match, shift_text: str, inv: node_def_pb2.NodeDef, mean: node_def_pb2.NodeDef) -> str | None:
    """The beta input of ``shift`` ("" when there is none), else None.

    Forms: ``Neg(mean) * inv + beta`` (Keras), ``beta - inv * mean`` (TF's), ``Neg(mean) * inv`` (no beta).
    """
    view, rewrite = m.view, m.rewrite
    source = view.nodes.get(parse(shift_text)[0])
    if source is None:
        return None

    def neg_mean_times_inv(text: str) -> bool:
        mul = m.node(text, ("Mul",))
        operands = m.binary(mul) if mul is not None else None
        if operands is None:
            return False
        for a, b in ((operands[0], operands[1]), (operands[1], operands[0])):
            if parse(b) != (inv.name, 0):
                continue
            neg = m.node(a, ("Neg",))
            ndata = view.data_inputs(neg) if neg is not None else []
            if len(ndata) == 1 and parse(m.through(ndata[0])) == (mean.name, 0):
                return True
        return False

    if source.op in _ADD:
        add = m.node(shift_text, _ADD)
        operands = m.binary(add) if add is not None else None
        if operands is None:
            return None
        for a, b in ((operands[0], operands[1]), (operands[1], operands[0])):
            if rewrite.const_node(b) is not None and neg_mean_times_inv(a):
                return b
        return None
    if source.op == "Sub":
        sub = m.node(shift_text, ("Sub",))
        operands = m.binary(sub) if sub is not None else None
        if operands is None or rewrite.const_node(operands[0]) is None:
            return None
        mul = m.node(operands[1], ("Mul",))
        pair = m.binary(mul) if mul is not None else None
        if pair is None or sorted(parse(t) for t in pair) != sorted([(inv.name, 0), (mean.name, 0)]):
            return None
        return operands[0]
    if source.op == "Mul" and neg_mean_times_inv(shift_text):
        return ""
    return None


def _private(rewrite: _Rewrite, out: node_def_pb2.NodeDef, inner: list[node_def_pb2.NodeDef]) -> bool:
    """Every intermediate is read only by pattern nodes and is neither fetched nor preserved."""
    names = {n.name for n in inner} | {out.name}
    for node in inner:
        if node.name in rewrite.keep or node.name in rewrite.item.nodes_to_preserve:
            return False
        if not rewrite.view.consumers.get(node.name, set()) <= names:
            return False
    return True


def _replace(
    rewrite: _Rewrite,
    out: node_def_pb2.NodeDef,
    inner: list[node_def_pb2.NodeDef],
    x_text: str,
    gamma: np.ndarray | None,
    beta: np.ndarray | None,
    epsilon: float,
    channels: int,
) -> None:
    view = rewrite.view
    const_texts = [t for n in inner for t in view.data_inputs(n) if rewrite.const_node(t) is not None]
    const_controls = rewrite.const_controls(*const_texts)
    scale = gamma if gamma is not None else np.ones((channels,), np.float32)
    offset = beta if beta is not None else np.zeros((channels,), np.float32)
    scale_name = rewrite.new_const(
        out.name + "/scale", np.ascontiguousarray(scale), types_pb2.DT_FLOAT, out.device, const_controls
    )
    offset_name = rewrite.new_const(
        out.name + "/offset", np.ascontiguousarray(offset), types_pb2.DT_FLOAT, out.device, const_controls
    )
    controls = rewrite.controls_of(out, *inner)
    for node in inner:
        view.remove(node.name)
    view.set_inputs(out, [x_text, scale_name, offset_name, *controls])
    out.op = FUSED_OP
    out.attr.clear()
    out.attr["T"].type = types_pb2.DT_FLOAT
    out.attr["epsilon"].f = epsilon
