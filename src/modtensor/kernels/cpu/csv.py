"""CPU kernel of DecodeCSV: records split into fields as TensorFlow's DecodeCSVOp splits them, fields parsed into
the record defaults' types.

Fields are split on a one-character delimiter; with ``use_quote_delim`` a field may be quoted (``"a,b"``, ``""``
inside for a quote) and an unquoted field may hold no quote; CR and LF between fields are skipped, inside an
unquoted field they are an error. With ``select_cols`` only those columns are kept and splitting stops after the
last of them. An empty field or ``na_value`` takes the column's default (an error where the default is empty).
Numbers are read as TF reads them: surrounding whitespace allowed; integers in decimal digits only, floats as C's
strtod reads them (decimal or hexadecimal, ``inf``, ``infinity``, ``nan``). Errors carry TF's texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.elementwise import as_numpy_dtype
from modtensor.kernels.cpu.errors import invalid_argument

__all__ = ["CPU_TYPE_CONSTRAINTS", "OP_FUNCTIONS"]

_INT = re.compile(rb"[ \t\n\v\f\r]*[+-]?[0-9]+[ \t\n\v\f\r]*\Z")
_FLOAT = re.compile(
    rb"[ \t\n\v\f\r]*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?|inf|infinity|nan(?:\([0-9a-z_]*\))?)"
    rb"[ \t\n\v\f\r]*\Z",
    re.IGNORECASE,
)
_HEX_FLOAT = re.compile(rb"[ \t\n\v\f\r]*[+-]?0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?[ \t\n\v\f\r]*\Z",
                        re.IGNORECASE)  # fmt: skip
_RANGES = {np.dtype(np.int32): (-(2**31), 2**31 - 1), np.dtype(np.int64): (-(2**63), 2**63 - 1)}
_NAMES = {np.dtype(np.int32): "int32", np.dtype(np.int64): "int64", np.dtype(np.float32): "float",
          np.dtype(np.float64): "double"}  # fmt: skip


def _split(record: bytes, delim: int, quotes: bool, select: list[int]) -> list[bytes]:
    """The record's fields (only the selected columns when ``select`` is given), as TF's ExtractFields."""
    fields: list[bytes] = []
    index, column, wanted = 0, 0, 0
    size = len(record)
    if not record:
        return fields
    while index < size:
        if select and wanted >= len(select):
            return fields  # every selected column found: the rest is not read
        if record[index] in b"\n\r":
            index += 1
            continue
        quoted = quotes and record[index] == ord('"')
        field = bytearray()
        if quoted:
            index += 1
            while index < size - 1 and not (record[index] == ord('"') and record[index + 1] == delim):
                if record[index] != ord('"'):
                    field.append(record[index])
                    index += 1
                    continue
                if record[index + 1] != ord('"'):
                    raise invalid_argument("Quote inside a string has to be escaped by another quote")
                field.append(ord('"'))
                index += 2
            if not (index < size and record[index] == ord('"') and (index == size - 1 or record[index + 1] == delim)):
                raise invalid_argument("Quoted field has to end with quote followed by delim or end")
            index += 2
        else:
            while index < size and record[index] != delim:
                if (quotes and record[index] == ord('"')) or record[index] in b"\n\r":
                    raise invalid_argument("Unquoted fields cannot have quotes/CRLFs inside")
                field.append(record[index])
                index += 1
            index += 1
        if not select or select[wanted] == column:
            fields.append(bytes(field))
            wanted += 1
        column += 1
    if record[-1] == delim and (not select or (wanted < len(select) and select[wanted] == column)):
        fields.append(b"")  # the last field, empty
    return fields


def _parse(field: bytes, dtype: np.dtype, f: int, i: int) -> Any:
    if dtype.kind == "O":
        return field
    if dtype.kind == "i":
        if _INT.match(field):
            value = int(field)
            low, high = _RANGES[dtype]
            if low <= value <= high:
                return value
    elif _FLOAT.match(field):  # C's strtod: decimal, inf, infinity, nan or nan(...)
        text = field.strip().decode()
        return dtype.type(float(text.split("(")[0]))
    elif _HEX_FLOAT.match(field):  # and hexadecimal
        return dtype.type(float.fromhex(field.strip().decode()))
    text = field.decode("utf-8", "backslashreplace")
    raise invalid_argument(f"Field {f} in record {i} is not a valid {_NAMES[dtype]}: {text}")


def decode_csv(records: np.ndarray, record_defaults: list[np.ndarray], OUT_TYPE: Any = (),  # noqa: N803 - TF's attr
               field_delim: Any = b",", use_quote_delim: bool = True, na_value: Any = b"",
               select_cols: Any = ()) -> tuple[np.ndarray, ...]:  # fmt: skip
    """DecodeCSV: one output per column, each of the records' shape and its default's type."""
    delim = field_delim.encode() if isinstance(field_delim, str) else bytes(field_delim)
    na = na_value.encode() if isinstance(na_value, str) else bytes(na_value)
    if len(delim) != 1:
        raise invalid_argument("field_delim should be only 1 char")
    defaults = [np.asarray(d) for d in record_defaults]
    for i, default in enumerate(defaults):
        if default.size >= 2:
            raise invalid_argument(f"There should only be 1 default per field but field {i} has {default.size}")
    dtypes = [np.dtype(as_numpy_dtype(t)) for t in OUT_TYPE] if OUT_TYPE else [d.dtype for d in defaults]
    select = [int(c) for c in select_cols]
    records = np.asarray(records, dtype=object)
    outputs = [np.empty(records.shape, dtype=dt) for dt in dtypes]
    flat_outputs = [o.reshape(-1) for o in outputs]
    for i, record in enumerate(records.reshape(-1)):
        record = record if isinstance(record, bytes) else str(record).encode()
        fields = _split(record, delim[0], bool(use_quote_delim), select)
        if len(fields) != len(dtypes):
            raise invalid_argument(f"Expect {len(dtypes)} fields but have {len(fields)} in record {i}")
        for f, (field, dtype) in enumerate(zip(fields, dtypes, strict=True)):
            if not field or field == na:
                if defaults[f].size != 1:
                    raise invalid_argument(f"Field {f} is required but missing in record {i}!")
                flat_outputs[f][i] = defaults[f].reshape(-1)[0]
            else:
                flat_outputs[f][i] = _parse(field, dtype, f, i)
    return tuple(outputs)


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {"DecodeCSV": decode_csv}
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {}
