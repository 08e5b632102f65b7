"""The attrs an op's inputs determine, checked against its OpDef: one set of rules for every way an op is made.

Type attrs (``x: T``), number attrs (``values: N * T``) and type-list attrs (``input: T`` with
``T: list(type)``) follow from the inputs' dtypes and list lengths; fixed-type args (``x: bool``)
are checked against them. TensorFlow applies these rules in three places, each reporting a
mismatch in its own words, and so does modtensor, with one implementation:

===============  ==================================  =====================================================
dialect          caller                              TensorFlow's texts
===============  ==================================  =====================================================
``GRAPH``        ``Graph.create_op`` (flat inputs)   NodeDefBuilder: ``Inconsistent values for attr 'T'
                                                     DT_FLOAT vs. DT_INT32 while building NodeDef ...``
``WRAPPER``      ``op_def_library.apply_op`` (the    ``_apply_op_helper``: ``Input 'y' of 'AddV2' Op has
                 Python wrappers' keyword door)      type int32 that does not match type float32 of
                                                     argument 'x'.``, allowed types checked at once
``EAGER``        ``runtime.eager`` (cache miss)      TFE_Execute: ``cannot compute AddV2 as input
                                                     #1(zero-based) was expected to be a float tensor but
                                                     is a int32 tensor`` (the caller adds ``[Op:AddV2]``)
===============  ==================================  =====================================================

:func:`signature` condenses an OpDef once into what the rules (and the callers' hot paths) read;
an :class:`Inference` collects the attrs of one op as its args are added, arg by arg
(:meth:`Inference.add_arg`: the wrappers convert Python values with the dtypes inferred so far) or
from the flat input list (:meth:`Inference.add_flat`: graph construction, which splits the list
by the sizes known or inferred so far). Allowed values, minimums and missing attrs beyond these
are the NodeDef validation's (``node_def.validate_node_def``), except where a dialect checks them
earlier, as TF's wrappers do.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from modtensor.framework import dtypes, errors, op_spec
from modtensor.framework.op_def_builder import summarize_attr_value, summarize_op_def
from modtensor.framework.protos import attr_value_pb2, node_def_pb2, op_def_pb2, types_pb2

__all__ = [
    "EAGER",
    "GRAPH",
    "NUMBER_LIST",
    "SINGLE",
    "TYPE_LIST",
    "WRAPPER",
    "ArgInfo",
    "Inference",
    "InferenceErrors",
    "OpSignature",
    "check_type_allowed",
    "signature",
]

SINGLE, NUMBER_LIST, TYPE_LIST = 0, 1, 2


class ArgInfo:
    """One input arg of an OpDef, as the rules and the callers' hot paths read it (absent attrs are None)."""

    __slots__ = ("alt", "fixed", "is_ref", "kind", "name", "number_attr", "type_attr", "type_list_attr")

    def __init__(self, arg: op_def_pb2.OpDef.ArgDef):
        self.name = arg.name
        self.alt = arg.name + "_"  # the keyword for names that are Python keywords
        self.fixed = dtypes.as_dtype(arg.type) if arg.type != types_pb2.DT_INVALID else None
        self.type_attr = arg.type_attr or None
        self.number_attr = arg.number_attr or None
        self.type_list_attr = arg.type_list_attr or None
        self.is_ref = arg.is_ref
        if self.number_attr:
            self.kind = NUMBER_LIST
        elif self.type_list_attr:
            self.kind = TYPE_LIST
        else:
            self.kind = SINGLE


class OpSignature:
    """What attr inference needs of an OpDef, computed once per OpDef (see :func:`signature`)."""

    __slots__ = (
        "attr_defs",
        "inferred_attrs",
        "inputs",
        "minimums",
        "name",
        "op_def",
        "size_attrs",
        "type_allowed",
        "type_attr_args",
        "type_defaults",
    )

    def __init__(self, op_def: op_def_pb2.OpDef):
        self.op_def = op_def
        self.name = op_def.name
        self.inputs = tuple(ArgInfo(a) for a in op_def.input_arg)
        self.attr_defs = {a.name: a for a in op_def.attr}
        # Number attrs' minimums (TF's wrappers and eager check them as they infer the length).
        self.minimums = {a.name: a.minimum for a in op_def.attr if a.type == "int" and a.has_minimum and a.minimum > 0}
        self.type_defaults = {
            a.name: dtypes.as_dtype(a.default_value.type)
            for a in op_def.attr
            if a.type == "type" and a.HasField("default_value")
        }
        self.type_allowed = {
            a.name: frozenset(a.allowed_values.list.type)
            for a in op_def.attr
            if a.type in ("type", "list(type)") and a.HasField("allowed_values")
        }
        # type attr -> indices of the input args using it
        type_attr_args: dict[str, list[int]] = {}
        for i, a in enumerate(self.inputs):
            if a.type_attr:
                type_attr_args.setdefault(a.type_attr, []).append(i)
        self.type_attr_args = type_attr_args
        self.inferred_attrs = frozenset(
            n for a in self.inputs for n in (a.type_attr, a.number_attr, a.type_list_attr) if n
        )
        # The attrs giving list args their sizes (graph construction takes explicit ones before splitting inputs).
        self.size_attrs = frozenset(a.number_attr or a.type_list_attr for a in self.inputs if a.kind != SINGLE)


_SIGNATURES: dict[int, tuple[op_def_pb2.OpDef, OpSignature]] = {}
_MAX_SIGNATURES = 8192


def signature(op_def: op_def_pb2.OpDef) -> OpSignature:
    """The :class:`OpSignature` of ``op_def`` (cached per OpDef object: registered OpDefs do not change)."""
    cached = _SIGNATURES.get(id(op_def))
    if cached is not None and cached[0] is op_def:
        return cached[1]
    sig = OpSignature(op_def)
    if len(_SIGNATURES) >= _MAX_SIGNATURES:
        _SIGNATURES.clear()
    _SIGNATURES[id(op_def)] = (op_def, sig)  # the OpDef is held, so its id is not reused while cached
    return sig


def check_type_allowed(dtype: dtypes.DType, attr_def: op_def_pb2.OpDef.AttrDef, param_name: str) -> None:
    """TF's wrapper check of a type attr's value against its allowed list (TypeError)."""
    if attr_def.HasField("allowed_values"):
        allowed = list(attr_def.allowed_values.list.type)
        if dtype.as_datatype_enum not in allowed:
            names = ", ".join(dtypes.as_dtype(t).name for t in allowed)
            raise TypeError(
                f"Value passed to parameter '{param_name}' has DataType {dtype.name} not in list of allowed values: "
                f"{names}"
            )


# ============================================================================ dialects


class InferenceErrors:
    """How one caller reports what the rules find (TF's texts for that caller). The base class raises nothing.

    The flags say which checks happen while inferring: ``check_minimum`` (a number attr's minimum when its
    length is inferred), ``check_allowed`` (an inferred type against the attr's allowed types) and
    ``same_list_types_first`` (a number list's elements of different types, before any type is bound).
    """

    check_minimum = False
    check_allowed = False
    same_list_types_first = False

    def length_mismatch(self, inf: Inference, arg: ArgInfo, input_name: str, length: int, expected: int) -> None:
        """A list's length differs from its number attr's value, known or inferred from an earlier arg."""

    def too_short(self, inf: Inference, arg: ArgInfo, input_name: str, length: int, minimum: int) -> None:
        """A number attr inferred below its minimum."""

    def not_same_type(self, inf: Inference, arg: ArgInfo, input_name: str, types: Sequence[dtypes.DType]) -> None:
        """The elements of a number list have different types."""

    def not_allowed(self, inf: Inference, arg: ArgInfo, input_name: str, attr: str, dtype: dtypes.DType) -> None:
        """A type inferred for ``attr`` is not among its allowed types."""
        check_type_allowed(dtype, inf.sig.attr_defs[attr], input_name)

    def type_mismatch(
        self,
        inf: Inference,
        arg: ArgInfo,
        input_name: str,
        position: int,
        actual: dtypes.DType,
        expected: dtypes.DType,
    ) -> None:
        """Input ``position`` (flat) has ``actual`` where the fixed type or the attr's type is ``expected``."""

    def type_list_mismatch(
        self,
        inf: Inference,
        arg: ArgInfo,
        input_name: str,
        position: int,
        actual: Sequence[dtypes.DType],
        expected: Sequence[dtypes.DType],
    ) -> None:
        """A type-list arg's types differ from the attr's value, known or inferred from an earlier arg."""

    def empty_list(self, inf: Inference, arg: ArgInfo, input_name: str) -> None:
        """An empty number list leaves its type attr unbound."""

    def unresolved(self, inf: Inference, attr: str) -> None:
        """After all args (:meth:`Inference.finish`): a type attr of the inputs is still unbound."""


class _GraphErrors(InferenceErrors):
    """TF's NodeDefBuilder (graph construction): conflicts name the attr and the NodeDef being built; lengths,
    minimums and allowed types are left to the NodeDef validation."""

    def type_mismatch(
        self,
        inf: Inference,
        arg: ArgInfo,
        input_name: str,
        position: int,
        actual: dtypes.DType,
        expected: dtypes.DType,
    ) -> None:
        node_name, full_dtypes = inf.context
        if arg.fixed is not None:
            raise ValueError(
                f"Input '{arg.name}' passed {op_spec.data_type_string(full_dtypes[position].as_datatype_enum)} "
                f"expected {op_spec.data_type_string(arg.fixed.as_datatype_enum)} while building NodeDef "
                f"'{node_name}' using {summarize_op_def(inf.sig.op_def)}"
            )
        _raise_inconsistent(
            inf,
            arg.type_attr,
            attr_value_pb2.AttrValue(type=expected.as_datatype_enum),
            attr_value_pb2.AttrValue(type=actual.as_datatype_enum),
        )

    def type_list_mismatch(
        self,
        inf: Inference,
        arg: ArgInfo,
        input_name: str,
        position: int,
        actual: Sequence[dtypes.DType],
        expected: Sequence[dtypes.DType],
    ) -> None:
        _raise_inconsistent(inf, arg.type_list_attr, _type_list_value(expected), _type_list_value(actual))


def _type_list_value(types: Sequence[dtypes.DType]) -> attr_value_pb2.AttrValue:
    value = attr_value_pb2.AttrValue()
    value.list.SetInParent()
    value.list.type.extend(t.as_datatype_enum for t in types)
    return value


def _raise_inconsistent(
    inf: Inference, name: str, existing: attr_value_pb2.AttrValue, value: attr_value_pb2.AttrValue
) -> None:
    node_name = inf.context[0] if inf.context is not None else inf.sig.name
    raise ValueError(
        f"Inconsistent values for attr '{name}' {summarize_attr_value(existing)} vs. {summarize_attr_value(value)} "
        f"while building NodeDef '{node_name}' using {summarize_op_def(inf.sig.op_def)}"
    )


class _WrapperErrors(InferenceErrors):
    """TF's ``_apply_op_helper`` (the Python wrappers): arg names as passed, the arg that fixed a value, allowed
    types checked as they are inferred."""

    check_minimum = True
    check_allowed = True
    same_list_types_first = True

    def length_mismatch(self, inf: Inference, arg: ArgInfo, input_name: str, length: int, expected: int) -> None:
        raise ValueError(
            f"List argument '{input_name}' to '{inf.sig.name}' Op with length {length} must match "
            f"length {expected} of argument '{inf.sources[arg.number_attr]}'."
        )

    def too_short(self, inf: Inference, arg: ArgInfo, input_name: str, length: int, minimum: int) -> None:
        raise ValueError(
            f"List argument '{input_name}' to '{inf.sig.name}' Op with length {length} shorter "
            f"than minimum length {minimum}."
        )

    def not_same_type(self, inf: Inference, arg: ArgInfo, input_name: str, types: Sequence[dtypes.DType]) -> None:
        raise TypeError(
            f"All tensors passed to '{input_name}' of '{inf.sig.name}' Op must have the same type. "
            f"Got {list(types)} instead."
        )

    def type_mismatch(
        self,
        inf: Inference,
        arg: ArgInfo,
        input_name: str,
        position: int,
        actual: dtypes.DType,
        expected: dtypes.DType,
    ) -> None:
        prefix = f"Input '{input_name}' of '{inf.sig.name}' Op has type {actual.name} that does not match"
        if arg.fixed is not None:
            raise TypeError(f"{prefix} expected type of {arg.fixed.name}.")
        raise TypeError(f"{prefix} type {expected.name} of argument '{inf.sources[arg.type_attr]}'.")

    def type_list_mismatch(
        self,
        inf: Inference,
        arg: ArgInfo,
        input_name: str,
        position: int,
        actual: Sequence[dtypes.DType],
        expected: Sequence[dtypes.DType],
    ) -> None:
        actual_names = ", ".join(t.name for t in actual)
        expected_names = ", ".join(t.name for t in expected)
        raise TypeError(
            f"Input '{input_name}' of '{inf.sig.name}' Op has type list of {actual_names} that does not "
            f"match type list {expected_names} of argument '{inf.sources[arg.type_list_attr]}'."
        )

    def empty_list(self, inf: Inference, arg: ArgInfo, input_name: str) -> None:
        if arg.type_attr not in inf.sig.type_defaults:
            raise TypeError(
                "Don't know how to infer type variable from empty input list passed to input "
                f"'{input_name}' of '{inf.sig.name}' Op."
            )


class _EagerErrors(InferenceErrors):
    """TF's eager execution: a dtype mismatch is the kernel input check's InvalidArgumentError (the caller
    appends ``[Op:NAME] name: ...``); allowed types are left to the NodeDef validation."""

    check_minimum = True

    def length_mismatch(self, inf: Inference, arg: ArgInfo, input_name: str, length: int, expected: int) -> None:
        raise ValueError(
            f"List argument '{input_name}' to '{inf.sig.name}' Op with length {length} must match length "
            f"{expected} of an earlier argument."
        )

    too_short = _WrapperErrors.too_short

    def type_mismatch(
        self,
        inf: Inference,
        arg: ArgInfo,
        input_name: str,
        position: int,
        actual: dtypes.DType,
        expected: dtypes.DType,
    ) -> None:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"cannot compute {inf.sig.name} as input #{position}(zero-based) was expected to be a "
            f"{expected.cpp_name} tensor but is a {actual.cpp_name} tensor",
        )

    def type_list_mismatch(
        self,
        inf: Inference,
        arg: ArgInfo,
        input_name: str,
        position: int,
        actual: Sequence[dtypes.DType],
        expected: Sequence[dtypes.DType],
    ) -> None:
        if len(actual) != len(expected):
            self.length_mismatch(inf, arg, input_name, len(actual), len(expected))
        for offset, (a, e) in enumerate(zip(actual, expected, strict=True)):
            if a is not e:
                self.type_mismatch(inf, arg, input_name, position + offset, a, e)

    def unresolved(self, inf: Inference, attr: str) -> None:
        raise TypeError(
            f"Don't know how to infer type variable from empty input list passed to an input of '{inf.sig.name}' Op."
        )


GRAPH: InferenceErrors = _GraphErrors()
WRAPPER: InferenceErrors = _WrapperErrors()
EAGER: InferenceErrors = _EagerErrors()


# ============================================================================ the rules


class Inference:
    """The attrs inferred for one op being made, arg by arg.

    ``values`` maps attr names to what is known: a type attr to its ``DType``, a number attr to the
    length, a type-list attr to the list of ``DType`` (base types). ``known`` seeds it with values
    given before inference (graph construction's explicit list sizes); ``sources`` maps each attr
    inferred here to the input (as the caller names it) it was inferred from. ``context`` is what
    the dialect needs for its texts (graph: the node name and the inputs' full dtypes).
    """

    __slots__ = ("context", "errors", "sig", "sources", "values")

    def __init__(
        self,
        sig: OpSignature,
        errors: InferenceErrors,
        known: dict[str, Any] | None = None,
        context: Any = None,
    ):
        self.sig = sig
        self.errors = errors
        self.values: dict[str, Any] = {} if known is None else known
        self.sources: dict[str, str] = {}
        self.context = context

    def add_arg(self, arg: ArgInfo, types: Sequence[dtypes.DType], input_name: str, position: int = 0) -> None:
        """Infer from, and check, one input arg given its inputs' base dtypes (``position``: the flat index of
        its first input)."""
        values = self.values
        errs = self.errors
        kind = arg.kind
        if kind == NUMBER_LIST:
            number_attr = arg.number_attr
            length = len(types)
            expected = values.get(number_attr)
            if expected is not None:
                if expected != length:
                    errs.length_mismatch(self, arg, input_name, length, expected)
            else:
                values[number_attr] = length
                self.sources[number_attr] = input_name
                if errs.check_minimum:
                    minimum = self.sig.minimums.get(number_attr)
                    if minimum is not None and length < minimum:
                        errs.too_short(self, arg, input_name, length, minimum)
            if errs.same_list_types_first and length > 1:
                first = types[0]
                if any(t is not first for t in types):
                    errs.not_same_type(self, arg, input_name, types)
            if not length and arg.type_attr is not None and arg.type_attr not in values:
                errs.empty_list(self, arg, input_name)
                return
        elif kind == TYPE_LIST:
            attr = arg.type_list_attr
            expected = values.get(attr)
            if expected is not None:
                if len(expected) != len(types) or any(a is not e for a, e in zip(types, expected, strict=False)):
                    errs.type_list_mismatch(self, arg, input_name, position, types, expected)
                return
            if errs.check_allowed and attr in self.sig.type_allowed:
                allowed = self.sig.type_allowed[attr]
                for t in types:
                    if t.as_datatype_enum not in allowed:
                        errs.not_allowed(self, arg, input_name, attr, t)
            values[attr] = list(types)
            self.sources[attr] = input_name
            return
        fixed = arg.fixed
        for offset, actual in enumerate(types):
            if fixed is not None:
                if actual is not fixed:
                    errs.type_mismatch(self, arg, input_name, position + offset, actual, fixed)
                continue
            attr = arg.type_attr
            expected = values.get(attr)
            if expected is None:
                if errs.check_allowed:
                    allowed = self.sig.type_allowed.get(attr)
                    if allowed is not None and actual.as_datatype_enum not in allowed:
                        errs.not_allowed(self, arg, input_name, attr, actual)
                values[attr] = actual
                self.sources[attr] = input_name
            elif actual is not expected:
                errs.type_mismatch(self, arg, input_name, position + offset, actual, expected)

    def add_flat(self, types: Sequence[dtypes.DType]) -> None:
        """Infer from the op's flat input list (TF's NodeDefBuilder): a list arg of unknown size takes the inputs
        the args after it leave (each of those one input unless its size is known by then)."""
        values = self.values
        total = len(types)
        position = 0
        for arg in self.sig.inputs:
            kind = arg.kind
            if kind == SINGLE:
                count = 1
            else:
                known = values.get(arg.number_attr if kind == NUMBER_LIST else arg.type_list_attr)
                if known is not None:
                    count = known if kind == NUMBER_LIST else len(known)
                else:
                    count = max(total - position - self._inputs_after(arg), 0)
            arg_types = types[position : position + count]
            self.add_arg(arg, arg_types, arg.name, position)
            position += len(arg_types)

    def _inputs_after(self, arg: ArgInfo) -> int:
        """How many inputs the args after ``arg`` take, each a single tensor unless its size is known."""
        values = self.values
        inputs = self.sig.inputs
        total = 0
        for other in inputs[inputs.index(arg) + 1 :]:
            size = None
            if other.kind == NUMBER_LIST:
                size = values.get(other.number_attr)
            elif other.kind == TYPE_LIST:
                known = values.get(other.type_list_attr)
                size = None if known is None else len(known)
            total += 1 if size is None else size
        return total

    def finish(self, explicit: Collection[str] = ()) -> None:
        """After the last arg: report type attrs of the inputs that nothing bound (not inferred, not in
        ``explicit``, no default) through the dialect's ``unresolved``."""
        sig = self.sig
        for attr in sig.type_attr_args:
            if attr not in self.values and attr not in explicit and attr not in sig.type_defaults:
                self.errors.unresolved(self, attr)

    def inferred(self) -> dict[str, str]:
        """The attrs inferred here (not given as ``known``), each with the input it came from."""
        return self.sources

    def write(self, node: node_def_pb2.NodeDef) -> None:
        """Set the inferred attrs on ``node`` (AttrValues: ``type``, ``i`` or ``list.type``)."""
        attrs = node.attr
        values = self.values
        for name in self.sources:
            value = values[name]
            if type(value) is int:
                attrs[name].i = value
            elif type(value) is list:
                slot = attrs[name]
                slot.list.SetInParent()
                slot.list.type.extend([t.as_datatype_enum for t in value])
            else:
                attrs[name].type = value.as_datatype_enum


def known_sizes(node: node_def_pb2.NodeDef, sig: OpSignature) -> dict[str, Any]:
    """The list-size attrs already on ``node`` (explicit ``N`` / type lists), as :class:`Inference` values."""
    known: dict[str, Any] = {}
    attrs = node.attr
    for name in sig.size_attrs:
        if name in attrs:
            value = attrs[name]
            if value.WhichOneof("value") == "list":
                known[name] = [dtypes.as_dtype(t) for t in value.list.type]
            else:
                known[name] = value.i
    return known


def infer_node_attrs(node: node_def_pb2.NodeDef, sig: OpSignature, input_dtypes: Sequence[dtypes.DType]) -> None:
    """Graph construction (TF's NodeDefBuilder): fill ``node``'s attrs that its flat inputs determine.

    ``node`` may already hold explicit list sizes (they split the inputs); ``input_dtypes`` are the
    inputs' dtypes, ref types included (a ``Ref(T)`` arg binds ``T`` to the base type). Conflicts
    raise ValueError with TF's texts.
    """
    known = known_sizes(node, sig) if sig.size_attrs else None
    inference = Inference(sig, GRAPH, known, (node.name, input_dtypes))
    inference.add_flat([t.base_dtype for t in input_dtypes])
    inference.write(node)


def set_attr_checked(
    node: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, name: str, value: attr_value_pb2.AttrValue
) -> None:
    """Set attr ``name`` unless the node already has it; a different value there is TF's NodeDefBuilder error."""
    if name in node.attr:
        existing = node.attr[name]
        if existing.SerializeToString(deterministic=True) != value.SerializeToString(deterministic=True):
            raise ValueError(
                f"Inconsistent values for attr '{name}' {summarize_attr_value(existing)} vs. "
                f"{summarize_attr_value(value)} while building NodeDef '{node.name}' using {summarize_op_def(op_def)}"
            )
        return
    node.attr[name].CopyFrom(value)
