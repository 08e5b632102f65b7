"""Parser of TensorFlow's op-spec strings ("x: N * T", "T: {float, int32} = DT_FLOAT").

The op-spec language is the one way ops declare their signatures, in Python and
(through the native bridge) in C, so it follows TensorFlow's grammar, type names
and type-set shorthands exactly; an OpDef built from TF's spec strings equals
TF's registered OpDef. Malformed specs raise ``InvalidArgumentError`` whose
message quotes the spec and puts a caret under the offending token.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from modtensor.framework import errors
from modtensor.framework.protos import attr_value_pb2, op_def_pb2, types_pb2

DT = types_pb2.DataType
REF_OFFSET = 100  # DT_FLOAT_REF == DT_FLOAT + 100, as in types.proto

# Type names accepted in specs (TF's DataTypeFromString). Names are scanned as
# [a-z0-9]+, which is why TF's spec language has no float8 names.
_SPEC_TYPE_NAMES: dict[str, int] = {
    "float": DT.DT_FLOAT,
    "float32": DT.DT_FLOAT,
    "double": DT.DT_DOUBLE,
    "float64": DT.DT_DOUBLE,
    "half": DT.DT_HALF,
    "float16": DT.DT_HALF,
    "bfloat16": DT.DT_BFLOAT16,
    "int8": DT.DT_INT8,
    "int16": DT.DT_INT16,
    "int32": DT.DT_INT32,
    "int64": DT.DT_INT64,
    "uint8": DT.DT_UINT8,
    "uint16": DT.DT_UINT16,
    "uint32": DT.DT_UINT32,
    "uint64": DT.DT_UINT64,
    "bool": DT.DT_BOOL,
    "string": DT.DT_STRING,
    "complex64": DT.DT_COMPLEX64,
    "complex128": DT.DT_COMPLEX128,
    "qint8": DT.DT_QINT8,
    "quint8": DT.DT_QUINT8,
    "qint16": DT.DT_QINT16,
    "quint16": DT.DT_QUINT16,
    "qint32": DT.DT_QINT32,
    "resource": DT.DT_RESOURCE,
    "variant": DT.DT_VARIANT,
    "int4": DT.DT_INT4,
    "uint4": DT.DT_UINT4,
    "int2": DT.DT_INT2,
    "uint2": DT.DT_UINT2,
}

# TF's type-set shorthands (types.cc NumberTypes/RealNumberTypes/QuantizedTypes),
# listed in enum order as TF 2.21 emits them into allowed_values.
_NUMBER_TYPES = (
    DT.DT_FLOAT, DT.DT_DOUBLE, DT.DT_INT32, DT.DT_UINT8, DT.DT_INT16, DT.DT_INT8, DT.DT_COMPLEX64,
    DT.DT_INT64, DT.DT_QINT8, DT.DT_QUINT8, DT.DT_QINT32, DT.DT_BFLOAT16, DT.DT_QINT16, DT.DT_QUINT16,
    DT.DT_UINT16, DT.DT_COMPLEX128, DT.DT_HALF, DT.DT_UINT32, DT.DT_UINT64,
)  # fmt: skip
_REAL_NUMBER_TYPES = (
    DT.DT_FLOAT, DT.DT_DOUBLE, DT.DT_INT32, DT.DT_UINT8, DT.DT_INT16, DT.DT_INT8, DT.DT_INT64,
    DT.DT_BFLOAT16, DT.DT_UINT16, DT.DT_HALF, DT.DT_UINT32, DT.DT_UINT64,
)  # fmt: skip
_QUANTIZED_TYPES = (DT.DT_QINT8, DT.DT_QUINT8, DT.DT_QINT32, DT.DT_QINT16, DT.DT_QUINT16)

TYPE_SETS: Mapping[str, tuple[int, ...]] = {
    "numbertype": _NUMBER_TYPES,
    "numerictype": _NUMBER_TYPES,
    "realnumbertype": _REAL_NUMBER_TYPES,
    "realnumerictype": _REAL_NUMBER_TYPES,
    "quantizedtype": _QUANTIZED_TYPES,
}

# Scalar attr types and the AttrValue field that holds a value of each.
ATTR_VALUE_FIELDS: Mapping[str, str] = {
    "string": "s",
    "int": "i",
    "float": "f",
    "bool": "b",
    "type": "type",
    "shape": "shape",
    "tensor": "tensor",
    "func": "func",
}

_ATTR_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*")
_ARG_NAME = re.compile(r"[a-z][a-z0-9_]*")
_IDENT = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*")
_TYPE_WORD = re.compile(r"[a-z0-9]+")
_INT = re.compile(r"[-+]?[0-9]+")
_STRING_LIT = re.compile(r"""'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)\"""")


def data_type_from_string(name: str) -> int | None:
    """The DataType enum a spec type name denotes ("float", "float32", "half", "float_ref"), or None."""
    if name.endswith("_ref"):
        base = _SPEC_TYPE_NAMES.get(name[:-4])
        return None if base is None else base + REF_OFFSET
    return _SPEC_TYPE_NAMES.get(name)


def data_type_string(dtype: int) -> str:
    """TF's DataTypeString: "float", "int32", "float_ref", ... as used in op and node error messages."""
    dtype = int(dtype)
    if dtype == DT.DT_INVALID:
        return "INVALID"
    suffix = ""
    if dtype > REF_OFFSET:
        dtype -= REF_OFFSET
        suffix = "_ref"
    try:
        name = DT.Name(dtype)
    except ValueError:
        return f"unknown dtype enum ({dtype})"
    return name[3:].lower() + suffix


def is_valid_attr_name(name: str) -> bool:
    """Attr names: a letter, then letters, digits and underscores (TF's rule)."""
    return _ATTR_NAME.fullmatch(name) is not None


def is_valid_arg_name(name: str) -> bool:
    """Input/output names: a lowercase letter, then lowercase letters, digits and underscores (TF's rule)."""
    return _ARG_NAME.fullmatch(name) is not None


class _Scanner:
    """Cursor over one spec string; every failure becomes an error pointing at the cursor."""

    def __init__(self, spec: str, kind: str, op_name: str):
        self.spec = spec
        self.kind = kind
        self.op_name = op_name
        self.pos = 0

    def skip_ws(self) -> None:
        while self.pos < len(self.spec) and self.spec[self.pos].isspace():
            self.pos += 1

    def peek(self, text: str) -> bool:
        return self.spec.startswith(text, self.pos)

    def consume(self, text: str) -> bool:
        self.skip_ws()
        if self.spec.startswith(text, self.pos):
            self.pos += len(text)
            return True
        return False

    def match(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        self.skip_ws()
        m = pattern.match(self.spec, self.pos)
        if m:
            self.pos = m.end()
        return m

    def rest(self) -> str:
        return self.spec[self.pos :]

    def at_end(self) -> bool:
        self.skip_ws()
        return self.pos >= len(self.spec)

    def token_at(self, pos: int) -> str:
        """The token starting at pos (what a caret points at), for messages."""
        m = re.compile(r"'[^']*'?|\"[^\"]*\"?|[A-Za-z0-9_.+-]+|\S").match(self.spec, pos)
        return m.group(0) if m else ""

    def error(self, what: str, pos: int | None = None, width: int | None = None) -> errors.InvalidArgumentError:
        pos = self.pos if pos is None else pos
        while pos < len(self.spec) and self.spec[pos].isspace():
            pos += 1
        if width is None:
            width = max(1, len(self.token_at(pos)))
        return spec_error(what, self.spec, self.kind, self.op_name, pos, width)


def spec_error(
    what: str, spec: str, kind: str, op_name: str, pos: int | None = None, width: int = 1
) -> errors.InvalidArgumentError:
    """An InvalidArgumentError in TF's form `<what> from Attr("<spec>") for Op <op>`, plus a caret line."""
    message = f'{what} from {kind}("{spec}") for Op {op_name or "<unnamed>"}'
    if pos is not None:
        message += f"\n    {spec}\n    {' ' * pos}^{'~' * (width - 1)}"
    return errors.InvalidArgumentError(None, None, message)


def parse_attr_spec(spec: str, op_name: str = "") -> op_def_pb2.OpDef.AttrDef:
    """Parse an attr spec ("N: int >= 1", "T: {float, int32} = DT_FLOAT", "padding: {'SAME', 'VALID'}").

    Grammar (TF's): `<name>: <type> [>= <int>] [= <default>]` where <type> is a scalar
    type (string, int, float, bool, type, shape, tensor, func), a type-set shorthand
    (numbertype, realnumbertype, quantizedtype), a set `{float, int32}` / `{'A', 'B'}`,
    or `list(<one of those>)`; the default is AttrValue text format for that type.
    """
    s = _Scanner(spec, "Attr", op_name)
    m = s.match(_ATTR_NAME)
    if not m or not s.consume(":"):
        raise s.error("Trouble parsing '<name>:'", pos=m.end() if m else None)
    attr = op_def_pb2.OpDef.AttrDef(name=m.group(0))

    if s.consume("list("):
        element = _parse_attr_type(s, attr)
        if not s.consume(")"):
            raise s.error(f"Expected ) to close 'list(', not: '{s.rest().strip()}'")
        attr.type = f"list({element})"
        is_list = True
    else:
        attr.type = _parse_attr_type(s, attr)
        is_list = False

    if s.consume(">="):
        if not (is_list or attr.type == "int"):
            raise s.error(
                f"Minimum ('>=') given for attr '{attr.name}' of type {attr.type}; only int and list attrs take one",
                pos=s.pos - 2,
                width=2,
            )
        m_int = s.match(_INT)
        if not m_int:
            raise s.error(f"Could not parse integer lower limit after '>=', found '{s.rest().strip()}' instead")
        attr.has_minimum = True
        attr.minimum = int(m_int.group(0))

    if s.consume("="):
        s.skip_ws()
        default_pos = s.pos
        text = s.rest().strip()
        if not _parse_default(text, attr.type, attr.default_value):
            raise s.error(
                f"Could not parse default value '{text}' as {attr.type}", pos=default_pos, width=max(1, len(text))
            )
        return attr

    if not s.at_end():
        raise s.error(f"Extra '{s.rest().strip()}' unparsed at the end", width=len(s.rest().strip()))
    return attr


def _parse_attr_type(s: _Scanner, attr: op_def_pb2.OpDef.AttrDef) -> str:
    """Parse a non-list attr type; fills attr.allowed_values for sets. Returns the scalar type name."""
    s.skip_ws()
    if s.consume("{"):
        return _parse_allowed_set(s, attr)
    start = s.pos
    m = s.match(_IDENT)
    word = m.group(0) if m else ""
    if word in ATTR_VALUE_FIELDS:
        return word
    if word in TYPE_SETS:
        attr.allowed_values.list.type.extend(TYPE_SETS[word])
        return "type"
    if not word:
        raise s.error("Trouble parsing type string", pos=start)
    raise s.error(
        f"Unrecognized attr type '{word}' (expected string, int, float, bool, type, shape, tensor, func, "
        f"list(...), a type set such as numbertype, or {{...}})",
        pos=start,
        width=len(word),
    )


def _parse_allowed_set(s: _Scanner, attr: op_def_pb2.OpDef.AttrDef) -> str:
    """Parse the inside of `{...}` after the `{`: either quoted strings or type names/sets."""
    s.skip_ws()
    is_strings = s.peek("'") or s.peek('"')
    allowed = attr.allowed_values.list
    while True:
        s.skip_ws()
        item_pos = s.pos
        if is_strings:
            m = s.match(_STRING_LIT)
            if not m:
                raise s.error("Trouble parsing allowed string (expected a quoted string)", pos=item_pos)
            allowed.s.append(_unescape(m.group(1) if m.group(1) is not None else m.group(2)).encode())
        else:
            m = s.match(_TYPE_WORD)
            word = m.group(0) if m else ""
            if not word:
                if s.peek("'") or s.peek('"'):
                    raise s.error("Trouble parsing type string (a {...} set holds types or quoted strings, not both)")
                raise s.error("Trouble parsing type string", pos=item_pos)
            if word in TYPE_SETS:
                allowed.type.extend(TYPE_SETS[word])
            elif word in _SPEC_TYPE_NAMES:
                allowed.type.append(_SPEC_TYPE_NAMES[word])
            else:
                raise s.error(f"Unrecognized type string '{word}'", pos=item_pos, width=len(word))
        if s.consume("}"):
            break
        if not s.consume(","):
            raise s.error(f"Expected , or }} after {'strings' if is_strings else 'types'} in list, not: '{s.rest()}'")
        if s.consume("}"):  # trailing comma, as TF allows
            break
    return "string" if is_strings else "type"


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), text)


def _parse_default(text: str, attr_type: str, out: attr_value_pb2.AttrValue) -> bool:
    """Parse a default the way TF does: AttrValue text format of `<field>: <text>`; lists need [...]."""
    if not text:
        return False
    is_list = attr_type.startswith("list(")
    field = ATTR_VALUE_FIELDS.get(attr_type[5:-1] if is_list else attr_type)
    if field is None:
        return False
    if is_list:
        if not text.startswith("["):
            return False
        to_parse = f"list {{ {field}: {text} }}"
    else:
        to_parse = f"{field}: {text}"
    from google.protobuf import text_format  # imported here: only finalizing ops needs it

    try:
        text_format.Parse(to_parse, out)
    except text_format.ParseError:
        out.Clear()
        return False
    if is_list:
        out.list.SetInParent()
    return True


@dataclass(frozen=True)
class ArgSpec:
    """An input/output spec before its attr references are resolved (what the string alone says)."""

    name: str
    is_ref: bool
    number_attr: str  # "" unless "N * T"
    number_attr_pos: int
    type_name: str  # a fixed type name ("float") or the name of an attr ("T")
    type_pos: int  # where type_name starts in the spec, for error carets


def parse_arg_syntax(spec: str, kind: str = "Input", op_name: str = "") -> ArgSpec:
    """Parse `<name>: [Ref(][<number_attr> *] <type or attr>[)]` without looking at the attrs."""
    s = _Scanner(spec, kind, op_name)
    m = s.match(_ARG_NAME)
    if not m or not s.consume(":"):
        raise s.error("Trouble parsing 'name:'", pos=m.end() if m else None)
    name = m.group(0)
    is_ref = s.consume("Ref(")
    s.skip_ws()
    first_pos = s.pos
    first = s.match(_IDENT)
    if not first:
        raise s.error("Trouble parsing type or attr name")
    number_attr, number_attr_pos = "", 0
    type_name, type_pos = first.group(0), first_pos
    if s.consume("*"):
        number_attr, number_attr_pos = type_name, type_pos
        s.skip_ws()
        type_pos = s.pos
        if s.peek("Ref("):
            raise s.error(f"Ref(...) must enclose the whole type: write 'Ref({number_attr} * ...)'", width=4)
        second = s.match(_IDENT)
        if not second:
            raise s.error(f"Trouble parsing type or attr name after '{number_attr} *'")
        type_name = second.group(0)
    if is_ref and not s.consume(")"):
        raise s.error(f"Did not find closing ')' for 'Ref(', instead found: '{s.rest().strip()}'")
    if not s.at_end():
        raise s.error(f"Extra '{s.rest().strip()}' unparsed at the end", width=len(s.rest().strip()))
    return ArgSpec(name, is_ref, number_attr, number_attr_pos, type_name, type_pos)


def parse_arg_spec(
    spec: str,
    attrs: Mapping[str, op_def_pb2.OpDef.AttrDef],
    kind: str = "Input",
    op_name: str = "",
) -> op_def_pb2.OpDef.ArgDef:
    """Parse an input/output spec ("x: T", "values: N * T", "out: Tout", "y: float", "ref: Ref(T)").

    ``attrs`` are the op's attrs by name: a type token that is not a type name must
    name an attr of type `type` (-> type_attr) or `list(type)` (-> type_list_attr);
    a `N *` prefix must name an `int` attr. ``kind`` is "Input" or "Output".
    """
    a = parse_arg_syntax(spec, kind, op_name)
    arg = op_def_pb2.OpDef.ArgDef(name=a.name, is_ref=a.is_ref)

    def fail(what: str, pos: int, token: str) -> errors.InvalidArgumentError:
        return spec_error(what, spec, kind, op_name, pos, max(1, len(token)))

    if a.number_attr:
        n_attr = attrs.get(a.number_attr)
        if n_attr is None:
            raise fail(f"Reference to unknown attr '{a.number_attr}'", a.number_attr_pos, a.number_attr)
        if n_attr.type != "int":
            raise fail(
                f"Reference to attr '{a.number_attr}' with type {n_attr.type} that isn't int",
                a.number_attr_pos,
                a.number_attr,
            )
        arg.number_attr = a.number_attr

    fixed = data_type_from_string(a.type_name)
    if fixed is not None:
        if fixed > REF_OFFSET:
            raise fail(
                f"Illegal use of ref type '{a.type_name}'. Use 'Ref(type)' instead for {kind.lower()} '{a.name}'",
                a.type_pos,
                a.type_name,
            )
        arg.type = fixed
        return arg
    t_attr = attrs.get(a.type_name)
    if t_attr is None:
        raise fail(f"Reference to unknown attr '{a.type_name}'", a.type_pos, a.type_name)
    if t_attr.type == "type":
        arg.type_attr = a.type_name
    elif t_attr.type == "list(type)":
        if a.number_attr:
            raise fail(
                f"Can't have both number_attr and type_list_attr for {kind.lower()} '{a.name}'",
                a.type_pos,
                a.type_name,
            )
        arg.type_list_attr = a.type_name
    else:
        raise fail(
            f"Reference to attr '{a.type_name}' with type {t_attr.type} that isn't type or list(type)",
            a.type_pos,
            a.type_name,
        )
    return arg
