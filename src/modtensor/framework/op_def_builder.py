"""OpDefBuilder: the chainable builder that turns op-spec strings into a validated OpDef.

Besides the builder this module holds what TensorFlow keeps in op_def_util and
that both ops and nodes need: ``validate_op_def`` (TF's ValidateOpDef rules),
``validate_attr_value`` (an AttrValue against its AttrDef: kind, allowed values,
minimum) and ``summarize_op_def`` (the ``Op<name=...; signature=...>`` text of
TF's error messages).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from modtensor.framework import errors, op_spec
from modtensor.framework.protos import attr_value_pb2, op_def_pb2, types_pb2

ShapeFn = Callable[[Any], None]  # fn(InferenceContext) -> None

_OP_NAME = re.compile(r"[A-Z][a-zA-Z0-9_]*(>[A-Z][a-zA-Z0-9_]*)*")
_SCALAR_ATTR_TYPES = frozenset(op_spec.ATTR_VALUE_FIELDS)


@dataclass(frozen=True)
class OpRegistrationData:
    """One registered op: its OpDef, its shape function (or None) and where it was defined."""

    op_def: op_def_pb2.OpDef
    shape_fn: ShapeFn | None
    source: str


def caller_source(depth: int = 2) -> str:
    """ "file:line" of the code `depth` frames up, used to name where an op was defined."""
    try:
        frame = sys._getframe(depth)
    except ValueError:
        return "<unknown>"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


class OpDefBuilder:
    """Collects an op's specs and flags; ``finalize()`` parses and validates them as TF's OpDefBuilder does.

    Every setter returns the builder, so ops are declared as one chained expression.
    """

    def __init__(self, name: str, *, source: str | None = None):
        self._name = name
        self._attrs: list[str] = []
        self._inputs: list[str] = []
        self._outputs: list[str] = []
        self._control_outputs: list[str] = []
        self._flags: dict[str, bool] = {}
        self._deprecation: tuple[int, str] | None = None
        self._doc: str | None = None
        self._shape_fn: ShapeFn | None = None
        self._type_ctor: Callable[[op_def_pb2.OpDef], None] | None = None
        self._errors: list[str] = []
        self.source = source if source is not None else caller_source()

    @property
    def name(self) -> str:
        """The op's name."""
        return self._name

    def attr(self, spec: str) -> OpDefBuilder:
        """Add an attr, e.g. "T: {float, int32} = DT_FLOAT" or "N: int >= 1"."""
        self._attrs.append(spec)
        return self

    def input(self, spec: str) -> OpDefBuilder:
        """Add an input, e.g. "x: T", "values: N * T", "handle: resource", "ref: Ref(T)"."""
        self._inputs.append(spec)
        return self

    def output(self, spec: str) -> OpDefBuilder:
        """Add an output, same syntax as input()."""
        self._outputs.append(spec)
        return self

    def control_output(self, name: str) -> OpDefBuilder:
        """Add a named control output (functions use these to name side-effecting nodes)."""
        self._control_outputs.append(name)
        return self

    def set_is_commutative(self) -> OpDefBuilder:
        """Mark op(a, b) == op(b, a), which lets optimizers canonicalize inputs."""
        self._flags["is_commutative"] = True
        return self

    def set_is_aggregate(self) -> OpDefBuilder:
        """Mark the op as an associative aggregation (AddN-like), which optimizers may regroup."""
        self._flags["is_aggregate"] = True
        return self

    def set_is_stateful(self) -> OpDefBuilder:
        """Mark the op as having side effects or state, so it is never folded, deduplicated or pruned."""
        self._flags["is_stateful"] = True
        return self

    def set_allows_uninitialized_input(self) -> OpDefBuilder:
        """Allow ref inputs that are not yet initialized (Assign-like ops)."""
        self._flags["allows_uninitialized_input"] = True
        return self

    def set_is_distributed_communication(self) -> OpDefBuilder:
        """Mark the op as communicating across devices/hosts (collectives)."""
        self._flags["is_distributed_communication"] = True
        return self

    def deprecated(self, version: int, explanation: str) -> OpDefBuilder:
        """Record that the op is deprecated from GraphDef version `version`, and why."""
        if self._deprecation is not None:
            self._errors.append(f"Deprecated called twice for Op {self._name}")
        self._deprecation = (int(version), explanation)
        return self

    def doc(self, text: str) -> OpDefBuilder:
        """Set the docs: first paragraph -> summary, the rest -> description.

        Trailing lines of the form "<arg or attr name>: text" (continued by indented
        lines) become that arg's or attr's description, as in TF's Doc().
        """
        if self._doc is not None:
            self._errors.append(f"Extra call to doc() for Op {self._name}")
        self._doc = text
        return self

    def set_shape_fn(self, fn: ShapeFn | None) -> OpDefBuilder:
        """Set the shape function `fn(InferenceContext) -> None` run at graph construction."""
        self._shape_fn = fn
        return self

    def set_type_constructor(self, fn: Callable[[op_def_pb2.OpDef], None]) -> OpDefBuilder:
        """Set TF's type constructor: ``fn(op_def)`` sets the outputs' ``experimental_full_type`` at finalize
        (e.g. :func:`unary_type_constructor`, TF's ``full_type::Unary``)."""
        self._type_ctor = fn
        return self

    def finalize(self) -> OpRegistrationData:
        """Parse every spec, apply TF's implied settings, validate, and return the registration.

        Raises InvalidArgumentError listing every problem found, one per line.
        """
        problems = list(self._errors)
        op_def = op_def_pb2.OpDef(name=self._name)
        attrs: dict[str, op_def_pb2.OpDef.AttrDef] = {}
        broken_attrs: set[str] = set()
        for spec in self._attrs:
            try:
                attr = op_spec.parse_attr_spec(spec, self._name)
            except errors.InvalidArgumentError as e:
                problems.append(e.message)
                m = re.match(r"\s*([A-Za-z][A-Za-z0-9_]*)", spec)
                if m:
                    broken_attrs.add(m.group(1))
                continue
            op_def.attr.append(attr)
            attrs.setdefault(attr.name, op_def.attr[-1])

        for specs, field, kind in (
            (self._inputs, op_def.input_arg, "Input"),
            (self._outputs, op_def.output_arg, "Output"),
        ):
            for spec in specs:
                try:
                    arg = op_spec.parse_arg_spec(spec, attrs, kind, self._name)
                except errors.InvalidArgumentError as e:
                    if not _mentions(spec, broken_attrs):  # already reported at the attr
                        problems.append(e.message)
                    continue
                _apply_arg_implications(arg, attrs, op_def)
                field.append(arg)

        op_def.control_output.extend(self._control_outputs)
        for flag, value in self._flags.items():
            setattr(op_def, flag, value)
        if self._deprecation is not None:
            op_def.deprecation.version, op_def.deprecation.explanation = self._deprecation
        if self._doc is not None:
            _apply_doc(op_def, self._doc)

        if problems:
            raise errors.InvalidArgumentError(None, None, "\n".join(problems))
        if self._type_ctor is not None:
            self._type_ctor(op_def)
        validate_op_def(op_def)
        return OpRegistrationData(op_def=op_def, shape_fn=self._shape_fn, source=self.source)


def unary_type_constructor(type_name: str, var: str) -> Callable[[op_def_pb2.OpDef], None]:
    """TF's ``full_type::Unary(t, var)``: output 0 gets the full type ``t[TFT_TENSOR[TFT_VAR var]]``
    (``unary_type_constructor("TFT_ARRAY", "element_dtype")`` for a TensorList output)."""
    from modtensor.framework.protos import full_type_pb2

    def construct(op_def: op_def_pb2.OpDef) -> None:
        full_type = op_def.output_arg[0].experimental_full_type
        full_type.type_id = full_type_pb2.FullTypeId.Value(type_name)
        tensor = full_type.args.add(type_id=full_type_pb2.TFT_TENSOR)
        tensor.args.add(type_id=full_type_pb2.TFT_VAR, s=var)

    return construct


def _mentions(spec: str, names: set[str]) -> bool:
    return bool(names) and any(re.search(rf"\b{re.escape(n)}\b", spec.split(":", 1)[-1]) for n in names)


def _apply_arg_implications(
    arg: op_def_pb2.OpDef.ArgDef, attrs: dict[str, op_def_pb2.OpDef.AttrDef], op_def: op_def_pb2.OpDef
) -> None:
    """TF's implied settings: length attrs get minimum 1 unless given one; resource args make the op stateful."""
    for attr_name in (arg.number_attr, arg.type_list_attr):
        if attr_name and not attrs[attr_name].has_minimum:
            attrs[attr_name].has_minimum = True
            attrs[attr_name].minimum = 1
    if arg.type == types_pb2.DT_RESOURCE:
        op_def.is_stateful = True


def _apply_doc(op_def: op_def_pb2.OpDef, text: str) -> None:
    lines = text.strip("\n").splitlines()
    described = {a.name: a for a in (*op_def.input_arg, *op_def.output_arg, *op_def.attr)}
    first_arg_line = len(lines)
    for i, line in enumerate(lines):
        m = re.match(r"([A-Za-z][A-Za-z0-9_]*):(\s|$)", line)
        if m and m.group(1) in described and i > 0:
            first_arg_line = i
            break
    body = "\n".join(lines[:first_arg_line]).strip()
    summary, _, description = body.partition("\n\n")
    op_def.summary = summary.strip()
    op_def.description = description.strip()
    current = None
    for line in lines[first_arg_line:]:
        m = re.match(r"([A-Za-z][A-Za-z0-9_]*):\s?(.*)", line)
        if m and m.group(1) in described:
            current = described[m.group(1)]
            current.description = m.group(2).strip()
        elif current is not None and line.strip():
            current.description = (current.description + " " + line.strip()).strip()


# --------------------------------------------------------------------------- validation


def _attr_value_kind(value: attr_value_pb2.AttrValue) -> str | None:
    """The attr type an AttrValue holds ("int", "list(type)", "list(?)" for an empty list), or None if unset."""
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which == "list":
        for type_name, field in op_spec.ATTR_VALUE_FIELDS.items():
            if len(getattr(value.list, field)):
                return f"list({type_name})"
        return "list(?)"
    if which == "placeholder":
        return "placeholder"
    for type_name, field in op_spec.ATTR_VALUE_FIELDS.items():
        if field == which:
            return type_name
    return which


def _check_attr_value_kind(value: attr_value_pb2.AttrValue, attr_type: str) -> str | None:
    """TF's AttrValueHasType: None if `value` holds a value of `attr_type`, else the error text."""
    kind = _attr_value_kind(value)
    if kind is None:
        return f"AttrValue missing value with expected type '{attr_type}'"
    if kind == "list(?)":
        return (
            None
            if attr_type.startswith("list(")
            else f"AttrValue had value with type 'list' when '{attr_type}' expected"
        )
    if kind.startswith("list("):
        nonempty = [f for f in op_spec.ATTR_VALUE_FIELDS.values() if len(getattr(value.list, f))]
        if len(nonempty) > 1:
            return (
                "AttrValue had value with type 'list' containing more than one kind of element "
                f"when '{attr_type}' expected"
            )
    if kind != attr_type:
        return f"AttrValue had value with type '{kind}' when '{attr_type}' expected"
    return None


def _quote(s: bytes) -> str:
    text = s.decode("utf-8", "backslashreplace")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def validate_attr_value(value: attr_value_pb2.AttrValue, attr_def: op_def_pb2.OpDef.AttrDef) -> None:
    """Check an AttrValue against its AttrDef (TF's ValidateAttrValue): kind, valid dtypes, minimum, allowed.

    Raises InvalidArgumentError with TF's messages ("Value for attr 'T' of string is not in
    the list of allowed values: float, double"); callers append where (node, op).
    """
    name = attr_def.name

    def fail(text: str) -> errors.InvalidArgumentError:
        return errors.InvalidArgumentError(None, None, text)

    problem = _check_attr_value_kind(value, attr_def.type)
    if problem:
        raise fail(f"{problem}\n\t for attr '{name}'")
    is_list = attr_def.type.startswith("list(")
    types = list(value.list.type) if is_list else ([value.type] if attr_def.type == "type" else [])
    for dt in types:
        if dt == types_pb2.DT_INVALID or op_spec.data_type_string(dt).startswith("unknown"):
            raise fail(f"AttrValue has invalid DataType\n\t for attr '{name}'")
    if attr_def.has_minimum:
        if is_list:
            length = max(len(getattr(value.list, f)) for f in op_spec.ATTR_VALUE_FIELDS.values())
            if length < attr_def.minimum:
                raise fail(f"Length for attr '{name}' of {length} must be at least minimum {attr_def.minimum}")
        elif attr_def.type == "int" and value.i < attr_def.minimum:
            raise fail(f"Value for attr '{name}' of {value.i} must be at least minimum {attr_def.minimum}")
    if attr_def.HasField("allowed_values"):
        allowed = attr_def.allowed_values.list
        base = attr_def.type[5:-1] if is_list else attr_def.type
        if base == "type":
            for dt in types:
                if dt not in allowed.type:
                    listed = ", ".join(op_spec.data_type_string(t) for t in allowed.type)
                    raise fail(
                        f"Value for attr '{name}' of {op_spec.data_type_string(dt)} is not in the list of "
                        f"allowed values: {listed}"
                    )
        elif base == "string":
            for s in value.list.s if is_list else [value.s]:
                if s not in allowed.s:
                    listed = ", ".join(_quote(a) for a in allowed.s)
                    raise fail(f"Value for attr '{name}' of {_quote(s)} is not in the list of allowed values: {listed}")


def _is_valid_attr_type(attr_type: str) -> bool:
    if attr_type.startswith("list(") and attr_type.endswith(")"):
        attr_type = attr_type[5:-1]
    return attr_type in _SCALAR_ATTR_TYPES


def validate_op_def(op_def: op_def_pb2.OpDef) -> None:
    """Check an OpDef as TF's ValidateOpDef does; raises InvalidArgumentError naming the op and the culprit.

    Applies to OpDefs from the builder and to OpDefs handed over whole (plugins, files).
    """
    op = op_def.name

    def fail(text: str) -> errors.InvalidArgumentError:
        return errors.InvalidArgumentError(None, None, f"{text}; in Op '{op}'")

    if not op.startswith("_") and not _OP_NAME.fullmatch(op):
        raise fail(
            f"Invalid op name: '{op}' (Did you use CamelCase? Op names match "
            "[A-Z][a-zA-Z0-9_]*, optionally namespaced as Ns>Name, or start with '_')"
        )
    seen: dict[str, str] = {}

    def claim(name: str, what: str) -> None:
        if name in seen:
            raise fail(f"Duplicate name: '{name}' is used by {seen[name]} and by {what}")
        seen[name] = what

    attrs: dict[str, op_def_pb2.OpDef.AttrDef] = {}
    for attr in op_def.attr:
        claim(attr.name, f"attr '{attr.name}'")
        attrs[attr.name] = attr
        if not op_spec.is_valid_attr_name(attr.name):
            raise fail(f"Invalid attr name: '{attr.name}'")
        if not _is_valid_attr_type(attr.type):
            raise fail(f"Unrecognized type '{attr.type}' for attr '{attr.name}'")
        if attr.has_minimum and not (attr.type == "int" or attr.type.startswith("list(")):
            raise fail(f"Attr '{attr.name}' has minimum for unsupported type {attr.type}")
        if attr.HasField("allowed_values"):
            base = attr.type[5:-1] if attr.type.startswith("list(") else attr.type
            problem = _check_attr_value_kind(attr.allowed_values, f"list({base})")
            if problem:
                raise fail(f"{problem}\n\t for allowed_values of attr '{attr.name}'")
        if attr.HasField("default_value"):
            try:
                validate_attr_value(attr.default_value, attr)
            except errors.InvalidArgumentError as e:
                raise errors.InvalidArgumentError(None, None, f"{e.message}\n\t in Op '{op}'") from None

    for args, kind in ((op_def.input_arg, "input"), (op_def.output_arg, "output")):
        for arg in args:
            claim(arg.name, f"{kind} '{arg.name}'")
            _validate_arg(arg, kind, attrs, fail)

    control = set()
    for name in op_def.control_output:
        if not op_spec.is_valid_attr_name(name):
            raise fail(f"Invalid control output name: '{name}'")
        if name in control:
            raise fail(f"Duplicate control output name: '{name}'")
        control.add(name)


def _validate_arg(
    arg: op_def_pb2.OpDef.ArgDef,
    kind: str,
    attrs: dict[str, op_def_pb2.OpDef.AttrDef],
    fail: Callable[[str], errors.InvalidArgumentError],
) -> None:
    if not op_spec.is_valid_arg_name(arg.name):
        raise fail(f"Invalid {kind} name: '{arg.name}' (names match [a-z][a-z0-9_]*)")
    if arg.type > op_spec.REF_OFFSET:
        raise fail(
            f"Illegal use of ref type '{op_spec.data_type_string(arg.type)}'. Use 'Ref(type)' instead for "
            f"{kind} '{arg.name}'"
        )
    if arg.number_attr:
        n_attr = attrs.get(arg.number_attr)
        if n_attr is None:
            raise fail(f"No attr with name '{arg.number_attr}' for {kind} '{arg.name}'")
        if n_attr.type != "int":
            raise fail(f"Attr '{arg.number_attr}' used as length for {kind} '{arg.name}' has type {n_attr.type} != int")
        if not n_attr.has_minimum or n_attr.minimum < 0:
            raise fail(f"Length attr '{arg.number_attr}' for {kind} '{arg.name}' must have minimum >= 0")
        if arg.type_list_attr:
            raise fail(f"Can't have both number_attr and type_list_attr for {kind} '{arg.name}'")
    kinds = sum(bool(x) for x in (arg.type != types_pb2.DT_INVALID, arg.type_attr, arg.type_list_attr))
    if kinds != 1:
        raise fail(f"{kind.capitalize()} '{arg.name}' must have exactly one of type, type_attr or type_list_attr")
    if arg.type_attr:
        t_attr = attrs.get(arg.type_attr)
        if t_attr is None:
            raise fail(f"No attr with name '{arg.type_attr}' for {kind} '{arg.name}'")
        if t_attr.type != "type":
            raise fail(f"Attr '{arg.type_attr}' used as type_attr for {kind} '{arg.name}' has type {t_attr.type}")
    if arg.type_list_attr:
        t_attr = attrs.get(arg.type_list_attr)
        if t_attr is None:
            raise fail(f"No attr with name '{arg.type_list_attr}' for {kind} '{arg.name}'")
        if t_attr.type != "list(type)":
            raise fail(
                f"Attr '{arg.type_list_attr}' used as type_list_attr for {kind} '{arg.name}' has type {t_attr.type}"
            )


# --------------------------------------------------------------------------- summaries


def summarize_attr_value(value: attr_value_pb2.AttrValue) -> str:
    """TF's SummarizeAttrValue (attr_value.format_attr_value), as used in op and node summaries."""
    from modtensor.framework.attr_value import format_attr_value  # numpy-backed; imported when first needed

    return format_attr_value(value)


def _summarize_args(args: Any) -> str:
    parts = []
    for arg in args:
        text = f"{arg.name}:"
        if arg.is_ref:
            text += "Ref("
        if arg.number_attr:
            text += f"{arg.number_attr}*"
        # TF prints nothing for a type_list_attr arg ("input:"); kept for message compatibility.
        text += op_spec.data_type_string(arg.type) if arg.type != types_pb2.DT_INVALID else arg.type_attr
        if arg.is_ref:
            text += ")"
        parts.append(text)
    return ", ".join(parts)


def summarize_op_def(op_def: op_def_pb2.OpDef) -> str:
    """TF's SummarizeOpDef: `Op<name=AddV2; signature=x:T, y:T -> z:T; attr=T:type,allowed=[...]; ...>`."""
    text = (
        f"Op<name={op_def.name}; signature={_summarize_args(op_def.input_arg)} -> {_summarize_args(op_def.output_arg)}"
    )
    for attr in op_def.attr:
        text += f"; attr={attr.name}:{attr.type}"
        if attr.HasField("default_value"):
            text += f",default={summarize_attr_value(attr.default_value)}"
        if attr.has_minimum:
            text += f",min={attr.minimum}"
        if attr.HasField("allowed_values"):
            text += f",allowed={summarize_attr_value(attr.allowed_values)}"
    for flag in ("is_commutative", "is_aggregate", "is_stateful", "allows_uninitialized_input",
                 "is_distributed_communication"):  # fmt: skip
        if getattr(op_def, flag):
            text += f"; {flag}=true"
    return text + ">"
