"""Symbolic shapes: static shapes whose unknown dimensions carry symbols, as TensorFlow's grappler compares them.

TensorFlow's ``GraphProperties`` give every unknown dimension a symbolic id (-2, -3, ...)
that the shape functions pass on: ``Erfc(x)``, ``ZerosLike(x)``, ``x + ZerosLike(x)`` and
``Conv2D(x, f)`` all have batch ``s`` when ``x`` is ``[?, ...]``, so the optimizers can tell
that ``x + 0`` keeps ``x``'s shape or that both inputs of an ``Add`` have the same shape
(``ShapesSymbolicallyEqual``) although the batch is unknown. Plugins see these ids too
(``TF_InferStatically``): ITEX's remapper treats ``Add(conv, bias)`` as a bias only when
both shapes are "symbolically defined" (no -1).

``SymbolicShapes`` reruns the ops' registered shape functions over the nodes asked about
and their fan-in, in topological order, handing each node its producers' shape handles:
a shape function that reuses an input's unknown ``DimensionHandle`` (as TF's do) passes
the same symbol on. ``Shape(x)`` used as a shape input (Fill, Reshape, the random ops)
carries ``x``'s handles. With ``GraphProperties`` (what plugins get), constant inputs and
static shapes come from its inference (a statically known size always wins over a
symbol; a node whose shape function fails or disagrees with it in rank gets fresh
symbols). Without (what the passes use: no import of the graph, a few microseconds a
node), constant inputs are the values of ``Const`` nodes (through Identity) and a
failing shape function leaves the shape unknown: less is known, never something wrong.
Symbols are only ever shared where a shape function shared a dimension, so equal symbolic
shapes are equal at run time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import node_def as node_def_lib
from modtensor.framework import shape_refiner, tensor_proto
from modtensor.framework.protos import node_def_pb2, tensor_shape_pb2
from modtensor.framework.shape_inference import DimensionHandle, InferenceContext, ShapeHandle, run_shape_fn
from modtensor.grappler.graph_properties import GraphProperties
from modtensor.grappler.graph_view import parse, source_name

__all__ = ["SymbolicShapes"]

Shape = tuple[int, ...]


class SymbolicShapes:
    """Symbolic shapes of the tensors of a graph (``nodes``: name -> NodeDef), computed on demand."""

    def __init__(
        self,
        nodes: dict[str, node_def_pb2.NodeDef],
        properties: GraphProperties | None = None,
        registry: Any = None,
    ):
        from modtensor.framework.op_registry import global_registry

        self.nodes = nodes
        self.properties = properties
        self.registry = registry if registry is not None else global_registry()
        self._handles: dict[str, list[ShapeHandle]] = {}
        self._constants: dict[str, Any] = {}
        self._symbols: dict[int, int] = {}
        self._alive: list[DimensionHandle] = []  # keeps symbol handles alive (their ids name the symbols)

    # ------------------------------------------------------------------ queries

    def shape(self, tensor: str) -> Shape | None:
        """The symbolic shape of ``tensor`` (``node:i``): ints, unknown dims as symbols <= -2; None: unknown rank."""
        handle = self.handle(tensor)
        if handle is None or handle.dims is None:
            return None
        return tuple(self._symbol(d) for d in handle.dims)

    def equal(self, a: str, b: str) -> bool:
        """TF's ShapesSymbolicallyEqual for two tensors: known ranks, the same sizes and symbols."""
        first, second = self.shape(a), self.shape(b)
        return first is not None and first == second

    def proto(self, tensor: str) -> tensor_shape_pb2.TensorShapeProto:
        """The shape as TF's grappler reports it to plugins: unknown dims as their (negative) symbol."""
        out = tensor_shape_pb2.TensorShapeProto()
        shape = self.shape(tensor)
        if shape is None:
            out.unknown_rank = True
        else:
            for d in shape:
                out.dim.add(size=d)
        return out

    def handle(self, tensor: str) -> ShapeHandle | None:
        """The shape handle of ``tensor`` (None for a node not in the graph)."""
        name, index = parse(tensor)
        if name not in self.nodes or index < 0:
            return None
        if name not in self._handles:
            self._compute(name)
        outputs = self._handles.get(name, [])
        return outputs[index] if index < len(outputs) else None

    # ------------------------------------------------------------------ inference

    def _symbol(self, dim: DimensionHandle) -> int:
        if dim.value is not None:
            return dim.value
        found = self._symbols.get(id(dim))
        if found is None:
            found = self._symbols[id(dim)] = -2 - len(self._symbols)
            self._alive.append(dim)
        return found

    def _compute(self, root: str) -> None:
        """Shape handles of ``root`` and of its data fan-in not computed yet, producers first."""
        stack: list[tuple[str, bool]] = [(root, False)]
        busy: set[str] = set()
        while stack:
            name, ready = stack.pop()
            if name in self._handles:
                continue
            if ready:
                busy.discard(name)
                self._handles[name] = self._infer(self.nodes[name])
                continue
            busy.add(name)
            stack.append((name, True))
            for text in self.nodes[name].input:
                source = source_name(text)
                if text.startswith("^") or source not in self.nodes or source in self._handles:
                    continue
                if source not in busy:  # a busy source is a loop's back edge: its static shape serves
                    stack.append((source, False))

    def _static(self, name: str, index: int) -> ShapeHandle:
        if self.properties is None:
            return ShapeHandle(None)
        shape = self.properties.output_shape(name, index)
        return ShapeHandle(None) if shape.rank is None else ShapeHandle(shape.as_list())

    def _constant(self, text: str) -> Any:
        """The value of a constant input: from the inference, else a Const's value (through Identity)."""
        source, index = parse(text)
        if self.properties is not None:
            return self.properties.constant_value(source, index)
        if source in self._constants:
            return self._constants[source]
        value, node = None, self.nodes.get(source)
        for _ in range(8):
            if node is None or index != 0:
                break
            if node.op == "Const":
                try:
                    value = tensor_proto.make_ndarray(node.attr["value"].tensor)
                except Exception:  # noqa: BLE001 - an unreadable constant is simply unknown
                    value = None
                break
            data = [t for t in node.input if not t.startswith("^")]
            if node.op not in ("Identity", "Snapshot") or len(data) != 1:
                break
            source, index = parse(data[0])
            node = self.nodes.get(source)
        self._constants[parse(text)[0]] = value
        return value

    def _input(self, text: str) -> ShapeHandle:
        source, index = parse(text)
        outputs = self._handles.get(source)
        if outputs is not None and index < len(outputs):
            return outputs[index]
        return self._static(source, index)

    def _as_shape(self, text: str) -> ShapeHandle | None:
        """The partial shape a shape-valued input holds: ``Shape(x)`` carries ``x``'s handles."""
        source, index = parse(text)
        node = self.nodes.get(source)
        if node is not None and node.op == "Shape" and index == 0:
            data = [t for t in node.input if not t.startswith("^")]
            if data:
                return self._input(data[0])
        if self.properties is None:
            value = self._constant(text)
            if value is None or np.ndim(value) != 1:
                return None
            return ShapeHandle([None if int(v) < 0 else int(v) for v in np.asarray(value).tolist()])
        tensor = self.properties._output(source, index)
        if tensor is None:
            return None
        try:
            partial = shape_refiner.constant_partial_shape(tensor)
        except Exception:  # noqa: BLE001 - not a shape
            return None
        return None if partial is None else ShapeHandle(partial)

    def _infer(self, node: node_def_pb2.NodeDef) -> list[ShapeHandle]:
        count = self._num_outputs(node)
        static = [self._static(node.name, i) for i in range(count)]
        registration = self.registry.lookup(node.op)
        shape_fn = getattr(registration, "shape_fn", None) if registration is not None else None
        if shape_fn is None:
            return static
        data = [t for t in node.input if not t.startswith("^")]
        try:
            full = node_def_pb2.NodeDef()
            full.CopyFrom(node)
            node_def_lib.add_default_attrs(full, registration.op_def)
            ctx = InferenceContext(
                full,
                registration.op_def,
                [self._input(t) for t in data],
                [self._constant(t) for t in data],
                [self._as_shape(t) for t in data],
            )
            outputs = run_shape_fn(shape_fn, ctx)
        except Exception:  # noqa: BLE001 - the static shapes serve, with fresh symbols
            return static
        if len(outputs) != count:
            return static
        return [_merge(derived, known) for derived, known in zip(outputs, static, strict=True)]

    def _num_outputs(self, node: node_def_pb2.NodeDef) -> int:
        if self.properties is None:
            registration = self.registry.lookup(node.op)
            if registration is None:
                return 0
            try:
                return len(node_def_lib.output_types(node, registration.op_def))
            except Exception:  # noqa: BLE001 - a malformed node has no known outputs
                return 0
        count = 0
        while self.properties.output_dtype(node.name, count) is not None:
            count += 1
        return count


def _merge(derived: ShapeHandle, static: ShapeHandle) -> ShapeHandle:
    """The static shape, its unknown dims taken from the derived handles when the ranks agree."""
    if static.dims is None:
        return derived if derived.dims is not None else static
    if derived.dims is None or len(derived.dims) != len(static.dims):
        return static
    dims = []
    for d, s in zip(derived.dims, static.dims, strict=True):
        if s.value is not None:
            dims.append(d if d.value == s.value else s)
        else:
            dims.append(d)
    return ShapeHandle(dims)
