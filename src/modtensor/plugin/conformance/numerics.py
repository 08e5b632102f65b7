"""Numerics check of a plugin's kernels: each kernel against a CPU kernel of the same op on generated inputs.

For every kernel a plugin registered, and each dtype its type constraints allow (a few per kernel),
the check builds a node: type attrs from the constraint, other attrs from their defaults (or a
plausible value: the first allowed string, 1 for ints, strides of ones), inputs of one of a few
candidate shapes. A candidate is used when the op's shape function accepts it (the node is imported
into a graph, which runs shape inference) and the reference kernel runs on it. The kernel under
test gets the same inputs (copied to its device, host-memory arguments staying on the host) and its
outputs are compared with the reference's: same dtypes and shapes, values within a tolerance of
the dtype. The reference is modtensor's built-in CPU kernel of the op when it has one, else another
CPU kernel of it (the plugin's own, for a device kernel). What cannot be generated (resource,
variant, string or quantized arguments, function attrs, ...) is skipped with the reason.

Values: floats uniform in [0.1, 1) (inside the domain of log, sqrt, reciprocal, acos, ...), integers
in {1, 2} (then all ones when the reference rejects every candidate), booleans at random; seeded.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.protos import attr_value_pb2, graph_pb2, node_def_pb2, op_def_pb2, types_pb2
from modtensor.runtime.kernel_registry import KernelRegistration

__all__ = ["KernelResult", "Reference", "check_kernel", "kernel_key"]

_PREFERRED = [
    types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE, types_pb2.DT_INT32, types_pb2.DT_INT64, types_pb2.DT_HALF,
    types_pb2.DT_BFLOAT16, types_pb2.DT_BOOL, types_pb2.DT_UINT8, types_pb2.DT_INT8, types_pb2.DT_INT16,
    types_pb2.DT_UINT16, types_pb2.DT_UINT32, types_pb2.DT_UINT64, types_pb2.DT_COMPLEX64, types_pb2.DT_COMPLEX128,
]  # fmt: skip
_NOT_GENERATED = {
    types_pb2.DT_STRING: "string",
    types_pb2.DT_RESOURCE: "resource",
    types_pb2.DT_VARIANT: "variant",
    types_pb2.DT_QINT8: "quantized",
    types_pb2.DT_QUINT8: "quantized",
    types_pb2.DT_QINT16: "quantized",
    types_pb2.DT_QUINT16: "quantized",
    types_pb2.DT_QINT32: "quantized",
}
# Candidate input shapes, tried in order: every input gets the shape, or the first one does and the rest are scalars.
_SHAPES: list[tuple[int, ...]] = [
    (3, 3),
    (2, 3),
    (4,),
    (2, 2),
    (),
    (2, 3, 4),
    (1, 4, 4, 3),
    (2, 2, 2, 2),
    (1, 3, 4, 4, 2),
]
_TOLERANCE = {
    types_pb2.DT_HALF: (1e-2, 1e-2),
    types_pb2.DT_BFLOAT16: (2e-2, 2e-2),
    types_pb2.DT_FLOAT: (1e-4, 1e-5),
    types_pb2.DT_COMPLEX64: (1e-4, 1e-5),
}
_DEFAULT_TOLERANCE = (1e-9, 1e-12)
_INTERNAL_OP = (
    "internal op (its name starts with '_') and no CPU kernel to compare with: its inputs come from the plugin's "
    "own graph rewrites, generated ones say little (--internal-ops runs it anyway)"
)


def kernel_key(registration: KernelRegistration) -> str:
    """A stable name of a registration: ``Op on DEVICE [T in (DT_FLOAT)] label``."""
    kd = registration.kernel_def
    parts = [f"{kd.op} on {kd.device_type}"]
    constraints = "; ".join(
        f"{name} in ({', '.join(types_pb2.DataType.Name(t) for t in types)})" for name, types in kd.constraints
    )
    if constraints:
        parts.append(f"[{constraints}]")
    if kd.label:
        parts.append(f"label '{kd.label}'")
    if kd.priority:
        parts.append(f"priority {kd.priority}")
    return " ".join(parts)


@dataclass
class KernelResult:
    """The outcome of one kernel at one dtype: "pass", "fail", "ran" (no reference), "skip" or "error"."""

    kernel: str
    dtype: str
    status: str
    detail: str = ""
    reference: str = ""
    shapes: list[list[int]] = field(default_factory=list)
    max_error: float | None = None

    def summary(self) -> dict[str, Any]:
        """A JSON-friendly description."""
        return {
            "kernel": self.kernel,
            "dtype": self.dtype,
            "status": self.status,
            "detail": self.detail,
            "reference": self.reference,
            "shapes": self.shapes,
            "max_error": self.max_error,
        }


@dataclass
class Reference:
    """The kernel a tested kernel is compared with, and the op it runs (a vendor op's standard twin, or the same op)."""

    registration: KernelRegistration
    op_def: op_def_pb2.OpDef


class _Skip(Exception):
    """This case cannot be generated; the message says why."""


def _type_name(enum: int) -> str:
    return dtypes.as_dtype(enum).name


def _ordered(types: list[int]) -> list[int]:
    rank = {t: i for i, t in enumerate(_PREFERRED)}
    return sorted(types, key=lambda t: rank.get(t, len(rank) + t))


def _allowed_types(attr: op_def_pb2.OpDef.AttrDef, registration: KernelRegistration) -> list[int]:
    constrained = registration.kernel_def.allowed(attr.name)
    declared = list(attr.allowed_values.list.type) if attr.HasField("allowed_values") else []
    if constrained is not None:
        types = [t for t in constrained if not declared or t in declared]
    elif declared:
        types = declared
    elif attr.HasField("default_value") and attr.default_value.HasField("type"):
        types = [attr.default_value.type]
    else:
        types = list(_PREFERRED)
    return _ordered([t for t in types if t not in _NOT_GENERATED])


def dtype_cases(
    op_def: op_def_pb2.OpDef, registration: KernelRegistration, limit: int, only: frozenset[int] | None = None
) -> list[dict[str, int]]:
    """Up to ``limit`` assignments of the op's type attrs: each allowed type of the first constrained attr
    (of those in ``only``, when given)."""
    choices: dict[str, list[int]] = {}
    for attr in op_def.attr:
        if attr.type not in ("type", "list(type)"):
            continue
        types = _allowed_types(attr, registration)
        if not types:
            raise _Skip(f"no generatable dtype for attr '{attr.name}'")
        choices[attr.name] = types
    if not choices:
        return [{}]
    lead = next((name for name in choices if registration.kernel_def.allowed(name) is not None), next(iter(choices)))
    leads = [t for t in choices[lead] if only is None or t in only]
    if not leads:
        raise _Skip("none of the selected dtypes is allowed")
    cases = []
    for dtype in leads[:limit]:
        cases.append({name: (dtype if name == lead else types[0]) for name, types in choices.items()})
    return cases


def _attr_candidates(attr: op_def_pb2.OpDef.AttrDef) -> list[attr_value_pb2.AttrValue]:
    """Values to try for a non-type attr without a default (the default is always used when there is one)."""
    if attr.HasField("default_value"):
        return [attr.default_value]
    kind = attr.type
    if kind == "int":
        if attr.has_minimum:  # a list length (N) or a count: the smallest allowed, then one more
            return [attr_value_pb2.AttrValue(i=attr.minimum), attr_value_pb2.AttrValue(i=attr.minimum + 1)]
        return [attr_value_pb2.AttrValue(i=1)]
    if kind == "float":
        return [attr_value_pb2.AttrValue(f=1.0)]
    if kind == "bool":
        return [attr_value_pb2.AttrValue(b=False)]
    if kind == "string":
        if attr.HasField("allowed_values") and attr.allowed_values.list.s:
            return [attr_value_pb2.AttrValue(s=attr.allowed_values.list.s[0])]
        raise _Skip(f"string attr '{attr.name}' has no default and no allowed values")
    if kind == "list(int)":
        out = []
        for n in (4, 2, 1, 5, 0):
            value = attr_value_pb2.AttrValue()
            value.list.i.extend([1] * n)
            out.append(value)
        return out
    if kind == "shape":
        value = attr_value_pb2.AttrValue()
        value.shape.unknown_rank = True
        return [value]
    if kind == "list(float)":
        out = []
        for values in ([1.0, 2.0], [1.0], []):
            value = attr_value_pb2.AttrValue()
            value.list.f.extend(values)
            out.append(value)
        return out
    if kind in ("list(string)", "list(bool)", "list(shape)"):
        return [attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue())]
    raise _Skip(f"attr '{attr.name}' of type {kind} without a default cannot be generated")


def _reference_node(node: Any, op_def: op_def_pb2.OpDef, ref_op_def: op_def_pb2.OpDef) -> Any:
    """``node`` as a node of the reference op (a twin op keeps the attrs it declares), or None when the
    twin's inputs and outputs would not have the same dtypes."""
    if ref_op_def.name == op_def.name:
        return node
    out = node_def_pb2.NodeDef(name=node.name, op=ref_op_def.name, input=list(node.input))
    declared = {a.name for a in ref_op_def.attr}
    for name, value in node.attr.items():
        if name in declared:
            out.attr[name].CopyFrom(value)
    node_def_lib.add_default_attrs(out, ref_op_def)
    try:
        same = node_def_lib.input_types(out, ref_op_def) == node_def_lib.input_types(node, op_def) and (
            node_def_lib.output_types(out, ref_op_def) == node_def_lib.output_types(node, op_def)
        )
    except (errors.OpError, ValueError, KeyError):
        return None
    return out if same else None


def _tensor_candidates(attr: op_def_pb2.OpDef.AttrDef, types: dict[str, int]) -> list[attr_value_pb2.AttrValue]:
    """A tensor attr without a default whose dtype the op's ``dtype`` attr gives (Const's value): a (2, 3) tensor."""
    from modtensor.framework.tensor_proto import make_tensor_proto

    if "dtype" not in types:
        raise _Skip(f"tensor attr '{attr.name}' without a default (and no 'dtype' attr saying what it holds)")
    dtype = types["dtype"]
    value = _values(dtype, (2, 3), np.random.default_rng(1), False)
    return [attr_value_pb2.AttrValue(tensor=make_tensor_proto(value, dtype=dtypes.as_dtype(dtype)))]


def _node(op_def: op_def_pb2.OpDef, types: dict[str, int], attrs: dict[str, attr_value_pb2.AttrValue]) -> Any:
    node = node_def_pb2.NodeDef(name=f"modtensor_check_{op_def.name}", op=op_def.name)
    for name, value in attrs.items():
        node.attr[name].CopyFrom(value)
    for name, dtype in types.items():
        attr = next(a for a in op_def.attr if a.name == name)
        if attr.type == "type":
            node.attr[name].type = dtype
        else:
            minimum = attr.minimum if attr.has_minimum else 1
            node.attr[name].list.type.extend([dtype] * max(1, minimum))
    node_def_lib.add_default_attrs(node, op_def)
    count = len(node_def_lib.input_types(node, op_def))
    node.input.extend(f"in{i}" for i in range(count))
    return node


def _nodes(op_def: op_def_pb2.OpDef, types: dict[str, int]) -> Iterator[Any]:
    """Every node of the attr candidates' product (inputs named in0, in1, ...)."""
    names, options = [], []
    for attr in op_def.attr:
        if attr.type in ("type", "list(type)"):
            continue
        if attr.type.startswith("func") or attr.type == "list(func)":
            raise _Skip(f"function attr '{attr.name}' cannot be generated")
        names.append(attr.name)
        if attr.type == "tensor" and not attr.HasField("default_value"):
            options.append(_tensor_candidates(attr, types))
            continue
        if attr.type == "list(tensor)" and not attr.HasField("default_value"):
            raise _Skip(f"list(tensor) attr '{attr.name}' without a default cannot be generated")
        options.append(_attr_candidates(attr))
    for combo in itertools.islice(itertools.product(*options), 12):
        yield _node(op_def, types, dict(zip(names, combo, strict=True)))


def _shape_sets(count: int) -> Iterator[list[tuple[int, ...]]]:
    """Every input the same shape; then the first one a shape and the rest scalars, or vectors of its last dim."""
    for shape in _SHAPES:
        yield [shape] * count
    if count > 1:
        for shape in _SHAPES:
            if shape:
                yield [shape] + [()] * (count - 1)
                yield [shape] + [shape[-1:]] * (count - 1)
                if count > 2:
                    yield [shape] * (count - 1) + [shape[-1:]]


def _values(dtype: int, shape: tuple[int, ...], rng: np.random.Generator, ones: bool) -> np.ndarray:
    np_dtype = dtypes.as_dtype(dtype).as_numpy_dtype
    kind = np.dtype(np_dtype).kind
    if kind == "b":
        return rng.random(shape) < 0.5 if not ones else np.ones(shape, bool)
    if kind in "iu":
        return (np.ones(shape) if ones else rng.integers(1, 3, size=shape)).astype(np_dtype)
    if kind == "c":
        return (rng.uniform(0.1, 1.0, shape) + 1j * rng.uniform(0.1, 1.0, shape)).astype(np_dtype)
    return rng.uniform(0.1, 1.0, shape).astype(np_dtype)


def _shape_function_accepts(node: Any, op_def: op_def_pb2.OpDef, input_types: list[int], shapes: list) -> str | None:
    """None when the op's shape function accepts the input shapes (checked by importing the node), else why not."""
    from modtensor.framework.graph import Graph
    from modtensor.framework.importer import import_graph_def

    graph_def = graph_pb2.GraphDef()
    for i, (dtype, shape) in enumerate(zip(input_types, shapes, strict=True)):
        ph = graph_def.node.add(name=f"in{i}", op="Placeholder")
        ph.attr["dtype"].type = dtype
        ph.attr["shape"].shape.CopyFrom(dtypes_shape_proto(shape))
    graph_def.node.add().CopyFrom(node)
    try:
        with Graph().as_default():
            import_graph_def(graph_def, name="")
    except (errors.OpError, ValueError, TypeError) as e:
        return str(getattr(e, "message", e)).splitlines()[0]
    return None


def dtypes_shape_proto(shape: tuple[int, ...]) -> Any:
    """A TensorShapeProto of a fully defined shape."""
    from modtensor.framework.protos import tensor_shape_pb2

    proto = tensor_shape_pb2.TensorShapeProto()
    for d in shape:
        proto.dim.add(size=d)
    return proto


def _construct(registration: KernelRegistration, node: Any, op_def: op_def_pb2.OpDef, device: Any) -> Any:
    from modtensor.runtime.op_kernel import OpKernelConstruction

    ctx = OpKernelConstruction(node, op_def, device, registration)
    kernel = registration.factory(ctx)
    if ctx.status is not None:
        raise ctx.status
    return kernel


def _run(registration: KernelRegistration, node: Any, op_def: op_def_pb2.OpDef, device: Any, inputs: list) -> list:
    """Construct the registration's kernel for ``node`` on ``device``, run it once, return host arrays."""
    from modtensor.runtime.op_kernel import OpKernelContext

    kernel = _construct(registration, node, op_def, device)
    try:
        on_device = []
        for value, host in zip(inputs, kernel.input_host_memory, strict=True):
            on_device.append(value if device.is_host or host else device.from_host(value))
        outputs = kernel.run(OpKernelContext(kernel, on_device, device=device))
        out = []
        for value in outputs:
            if value is None:
                out.append(None)
            elif hasattr(value, "device_address"):
                out.append(np.array(device.to_host(value)))
            else:
                out.append(np.array(value))
        return out
    finally:
        close = getattr(kernel, "close", None)
        if close is not None:
            close()


def _compare(got: list, want: list, output_types: list[int]) -> tuple[str | None, float]:
    worst = 0.0
    for i, (g, w, dtype) in enumerate(zip(got, want, output_types, strict=True)):
        if g is None or w is None:
            if (g is None) != (w is None):
                return f"output {i} is set by only one of the kernels", worst
            continue
        if g.shape != w.shape:
            return f"output {i}: shape {list(g.shape)}, reference {list(w.shape)}", worst
        if g.dtype != w.dtype:
            return f"output {i}: dtype {g.dtype}, reference {w.dtype}", worst
        if g.size == 0:
            continue
        if g.dtype.kind in "fc" or g.dtype.name == "bfloat16":
            a, b = (
                g.astype(np.complex128 if g.dtype.kind == "c" else np.float64),
                w.astype(np.complex128 if w.dtype.kind == "c" else np.float64),
            )
            rtol, atol = _TOLERANCE.get(dtype, _DEFAULT_TOLERANCE)
            if not np.array_equal(np.isnan(a), np.isnan(b)):
                return f"output {i}: NaN where the reference has none (or the reverse)", worst
            finite = ~np.isnan(a)
            diff = np.abs(a[finite] - b[finite])
            scale = np.maximum(np.abs(b[finite]), 1.0)
            error = float(np.max(diff / scale)) if diff.size else 0.0
            worst = max(worst, error)
            if not np.allclose(a[finite], b[finite], rtol=rtol, atol=atol):
                return f"output {i}: max relative error {error:.3g} (tolerance {rtol:g})", worst
        elif g.dtype == object:
            if not all(x == y for x, y in zip(g.reshape(-1), w.reshape(-1), strict=True)):
                return f"output {i}: values differ", worst
        elif not np.array_equal(g, w):
            bad = int(np.sum(g != w))
            return f"output {i}: {bad} of {g.size} values differ", worst
    return None, worst


def check_kernel(
    registration: KernelRegistration,
    reference: Callable[[dict[str, int]], Reference | None],
    device: Any,
    cpu: Any,
    *,
    dtypes_per_kernel: int = 3,
    seed: int = 0,
    internal_ops: bool = False,
    only_dtypes: frozenset[int] | None = None,
) -> list[KernelResult]:
    """Check one registration at up to ``dtypes_per_kernel`` dtypes; ``reference(types)`` picks the CPU kernel."""
    from modtensor.framework.op_registry import global_registry

    key = kernel_key(registration)
    op = registration.kernel_def.op
    found = global_registry().lookup(op)
    if found is None:
        return [KernelResult(key, "", "skip", f"op '{op}' is not registered")]
    op_def = found.op_def
    try:
        cases = dtype_cases(op_def, registration, dtypes_per_kernel, only_dtypes)
    except _Skip as e:
        return [KernelResult(key, "", "skip", str(e))]
    results = []
    for types in cases:
        label = ", ".join(f"{name}={_type_name(t)}" for name, t in types.items())
        ref = reference(types)
        if ref is None and op.startswith("_") and not internal_ops:
            results.append(KernelResult(key, label, "skip", _INTERNAL_OP))
            continue
        try:
            results.append(_check_case(registration, ref, op_def, types, device, cpu, seed, key, label))
        except _Skip as e:
            results.append(KernelResult(key, label, "skip", str(e)))
    return results


def _check_case(
    registration: KernelRegistration,
    reference: Reference | None,
    op_def: op_def_pb2.OpDef,
    types: dict[str, int],
    device: Any,
    cpu: Any,
    seed: int,
    key: str,
    label: str,
) -> KernelResult:
    result = KernelResult(key, label, "skip")
    if reference is not None:
        result.reference = reference.registration.source
        if reference.op_def.name != op_def.name:
            result.reference += f" (op {reference.op_def.name})"
    last_reason = "no candidate node"
    for node in _nodes(op_def, types):
        input_types = [t.as_datatype_enum for t in map(dtypes.as_dtype, node_def_lib.input_types(node, op_def))]
        output_types = [t.as_datatype_enum for t in map(dtypes.as_dtype, node_def_lib.output_types(node, op_def))]
        for t in input_types + output_types:
            base = t - 100 if t > 100 else t  # reference types
            if base in _NOT_GENERATED or t > 100:
                raise _Skip(f"{_NOT_GENERATED.get(base, 'reference')} arguments cannot be generated")
        for ones in (False, True):
            for shapes in _shape_sets(len(input_types)):
                rejected = _shape_function_accepts(node, op_def, input_types, shapes)
                if rejected is not None:
                    last_reason = f"the shape function rejected every candidate shape (last: {rejected})"
                    continue
                rng = np.random.default_rng(seed)
                inputs = [_values(t, s, rng, ones) for t, s in zip(input_types, shapes, strict=True)]
                result.shapes = [list(s) for s in shapes]
                ref_node = _reference_node(node, op_def, reference.op_def) if reference is not None else None
                if ref_node is None:
                    try:
                        return _run_without_reference(registration, node, op_def, device, inputs, output_types, result)
                    except errors.InvalidArgumentError as e:
                        last_reason = f"the kernel rejected every generated input (last: {e.message.splitlines()[0]})"
                        continue
                try:
                    want = _run(reference.registration, ref_node, reference.op_def, cpu, [np.copy(v) for v in inputs])
                except errors.OpError as e:
                    last_reason = (
                        f"the reference kernel rejected every generated input (last: {e.message.splitlines()[0]})"
                    )
                    continue
                return _run_and_compare(registration, node, op_def, device, inputs, output_types, want, result)
    result.detail = last_reason
    return result


def _run_without_reference(
    registration: KernelRegistration,
    node: Any,
    op_def: op_def_pb2.OpDef,
    device: Any,
    inputs: list[np.ndarray],
    output_types: list[int],
    result: KernelResult,
) -> KernelResult:
    """Run a kernel no CPU kernel can check; InvalidArgumentError (the generated input is wrong) propagates."""
    try:
        got = _run(registration, node, op_def, device, inputs)
    except errors.InvalidArgumentError:
        raise
    except errors.OpError as e:
        result.status, result.detail = "error", f"{type(e).__name__}: {e.message.splitlines()[0]}"
        return result
    for i, (value, dtype) in enumerate(zip(got, output_types, strict=True)):
        if value is not None and value.dtype != np.dtype(dtypes.as_dtype(dtype).as_numpy_dtype):
            result.status, result.detail = (
                "fail",
                f"output {i} has dtype {value.dtype}, the node says {_type_name(dtype)}",
            )
            return result
    result.status = "ran"
    result.detail = "no CPU kernel to compare with: ran, outputs have the declared dtypes"
    return result


def _run_and_compare(
    registration: KernelRegistration,
    node: Any,
    op_def: op_def_pb2.OpDef,
    device: Any,
    inputs: list[np.ndarray],
    output_types: list[int],
    want: list[Any],
    result: KernelResult,
) -> KernelResult:
    """Run the kernel under test on the inputs the reference accepted and compare the outputs."""
    try:
        got = _run(registration, node, op_def, device, inputs)
    except errors.OpError as e:
        result.status, result.detail = "error", f"{type(e).__name__}: {e.message.splitlines()[0]}"
        return result
    if op_def.is_stateful:
        problem, _ = _compare(
            [None if g is None else np.zeros(g.shape, g.dtype) for g in got],
            [None if w is None else np.zeros(w.shape, w.dtype) for w in want],
            output_types,
        )
        result.status = "fail" if problem else "pass"
        result.detail = problem or "stateful op: shapes and dtypes compared, not values"
        return result
    problem, worst = _compare(got, want, output_types)
    result.max_error = worst
    result.status = "fail" if problem else "pass"
    result.detail = problem or ""
    return result
