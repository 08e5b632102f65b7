"""String kernels with TensorFlow's semantics: split, join, length, regex replace, hash buckets, substr,
to-number, lower/upper, as-string (printf-style number formatting) and reduce-join.

String tensors are object arrays of ``bytes``. Regular expressions are RE2 in TF; they
run here with Python's ``re`` on the UTF-8 text (undecodable bytes kept as surrogates),
with the rewrite's ``\\0``..``\\9`` turned into Python's group references.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import ml_dtypes
import numpy as np

from modtensor.framework import dtypes
from modtensor.framework.errors import OutOfRangeError
from modtensor.kernels.cpu.elementwise import as_numpy_dtype
from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.farmhash import fingerprint64_many

_WHITESPACE = b" \t\n\r\v\f"


def _str(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


def _objects(values: list[bytes], shape: tuple[int, ...]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)


def _strings(x: Any) -> np.ndarray:
    a = np.asarray(x, dtype=object)
    return a


# --------------------------------------------------------------------------- split, join, length


def _split_v2(s: bytes, sep: bytes, maxsplit: int) -> list[bytes]:
    """TF's SplitV2: Python's ``str.split`` except that, splitting on whitespace with ``maxsplit``, the rest after
    the last split is kept even when empty (``'x'`` -> ``['x', '']``)."""
    if maxsplit == 0:
        return [s]
    if sep:
        return s.split(sep, maxsplit) if maxsplit > 0 else s.split(sep)
    parts: list[bytes] = []
    text = s.lstrip(_WHITESPACE)
    while text:
        end = 0
        while end < len(text) and text[end] not in _WHITESPACE:
            end += 1
        parts.append(text[:end])
        text = text[end:].lstrip(_WHITESPACE)
        if maxsplit > 0 and len(parts) == maxsplit:
            parts.append(text)
            break
    return parts


def string_split_v2(input: np.ndarray, sep: np.ndarray, maxsplit: int = -1) -> tuple[np.ndarray, ...]:  # noqa: A002
    """StringSplitV2: each string split by ``sep`` (empty: runs of whitespace) as a sparse [rows, max_parts]."""
    texts, separator = _split_inputs(input, sep, "sep")
    return _sparse_parts([_split_v2(t, separator, maxsplit) for t in texts])


def _split_inputs(input: np.ndarray, sep: np.ndarray, sep_name: str) -> tuple[list[bytes], bytes]:  # noqa: A002
    """The split ops' operands checked as TF's kernels check them: the strings (a vector) and the separator."""
    strings, sep_arr = _strings(input), np.asarray(sep, dtype=object)
    if strings.ndim != 1:
        raise invalid_argument(f"input must be a vector, got shape: {shape_str(strings.shape)}")
    if sep_arr.ndim != 0:
        raise invalid_argument(f"{sep_name} must be a scalar, got shape: {shape_str(sep_arr.shape)}")
    return [_bytes(s) for s in strings.tolist()], _bytes(sep_arr.item())


def _sparse_parts(rows: list[list[bytes]]) -> tuple[np.ndarray, ...]:
    """Each row's parts as the split ops' sparse [rows, max_parts]: indices (row, position), values, dense shape."""
    indices = [(row, col) for row, parts in enumerate(rows) for col in range(len(parts))]
    values = [part for parts in rows for part in parts]
    widest = max((len(parts) for parts in rows), default=0)
    index_array = np.asarray(indices, dtype=np.int64).reshape(-1, 2)
    return index_array, _objects(values, (len(values),)), np.asarray([len(rows), widest], dtype=np.int64)


def _split_any(text: bytes, delimiter: bytes) -> list[bytes]:
    """``text`` cut at every byte that is one of ``delimiter``'s (an empty delimiter: into single bytes)."""
    if not delimiter:
        return [text[i : i + 1] for i in range(len(text))]
    parts, start = [], 0
    for i, byte in enumerate(text):
        if byte in delimiter:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def string_split(input: np.ndarray, delimiter: np.ndarray, skip_empty: bool = True) -> tuple[np.ndarray, ...]:  # noqa: A002
    """StringSplit (TF 1's): each string cut at any byte of ``delimiter`` (empty: into bytes) as a sparse
    [rows, max_parts]; empty strings give no parts, empty parts are dropped with ``skip_empty``."""
    texts, cut = _split_inputs(input, delimiter, "delimiter")
    return _sparse_parts([[p for p in _split_any(t, cut) if p or not skip_empty] if t else [] for t in texts])


def string_join(inputs: list[np.ndarray], separator: Any = "") -> np.ndarray:
    """StringJoin: the inputs joined elementwise with ``separator``; scalars broadcast, other shapes must match."""
    arrays = [_strings(x) for x in inputs]
    sep = _bytes(separator)
    shape: tuple[int, ...] | None = None
    for a in arrays:
        if a.ndim != 0:
            if shape is not None and a.shape != shape:
                raise invalid_argument(f"Input shapes do not match: {shape_str(shape)} vs. {shape_str(a.shape)}")
            shape = a.shape
    shape = () if shape is None else shape
    count = int(np.prod(shape, dtype=np.int64))
    columns = [[_bytes(a.item())] * count if a.ndim == 0 else [_bytes(v) for v in a.reshape(-1)] for a in arrays]
    joined = [sep.join(parts) for parts in zip(*columns, strict=True)] if columns else [b""] * count
    return _objects(joined, shape)


def _utf8_length(s: bytes) -> int:
    return sum(1 for b in s if (b & 0xC0) != 0x80)


def string_length(input: np.ndarray, unit: Any = "BYTE") -> np.ndarray:  # noqa: A002
    """StringLength: the length of each string in bytes or in UTF-8 characters."""
    strings = _strings(input)
    count = len if _str(unit) == "BYTE" else _utf8_length
    flat = [count(_bytes(s)) for s in strings.reshape(-1)]
    return np.asarray(flat, dtype=np.int32).reshape(strings.shape)


# --------------------------------------------------------------------------- regex


def _text(s: bytes) -> str:
    return s.decode("utf-8", "surrogateescape")


_REWRITE_TOKEN = re.compile(r"\\(.)|\\$", re.S)


@functools.lru_cache(maxsize=256)
def _compile(pattern: bytes, rewrite: bytes) -> tuple[re.Pattern[str], Any]:
    """The pattern compiled (RE2's classes are ASCII: ``re.ASCII``), and the RE2 rewrite as a replacement function,
    None when RE2 would reject it (a bad escape or a group the pattern lacks: TF then replaces nothing)."""
    try:
        compiled = re.compile(_text(pattern), re.ASCII)
    except re.error as e:
        raise invalid_argument(f"Invalid pattern: {_text(pattern)}, error: {e}") from None
    text = _text(rewrite)
    pieces: list[str | int] = []
    pos = 0
    for match in _REWRITE_TOKEN.finditer(text):
        pieces.append(text[pos : match.start()])
        char = match.group(1)
        if char is None or not (char.isdigit() or char == "\\") or (char.isdigit() and int(char) > compiled.groups):
            return compiled, None
        pieces.append("\\" if char == "\\" else int(char))
        pos = match.end()
    pieces.append(text[pos:])

    def replace(m: re.Match[str]) -> str:
        return "".join(p if isinstance(p, str) else (m.group(p) or "") for p in pieces)

    return compiled, replace


def _regex_replace(strings: np.ndarray, pattern: bytes, rewrite: bytes, replace_global: bool) -> np.ndarray:
    compiled, replace = _compile(pattern, rewrite)
    if replace is None:
        return np.array(strings, dtype=object, copy=True)
    flat = [_re2_replace(compiled, replace, _text(_bytes(s)), replace_global).encode("utf-8", "surrogateescape")
            for s in strings.reshape(-1)]  # fmt: skip
    return _objects(flat, strings.shape)


def _re2_replace(compiled: re.Pattern[str], replace: Any, text: str, replace_global: bool) -> str:
    """RE2's (Global)Replace: as ``re.sub``, but an empty match right where the last match ended is skipped."""
    out: list[str] = []
    pos, last_end = 0, -1
    for m in compiled.finditer(text):
        if m.start() == m.end() == last_end:
            continue
        out.append(text[pos : m.start()])
        out.append(replace(m))
        pos = last_end = m.end()
        if not replace_global:
            break
    out.append(text[pos:])
    return "".join(out)


def regex_replace(
    input: np.ndarray, pattern: np.ndarray, rewrite: np.ndarray, replace_global: bool = True
) -> np.ndarray:  # noqa: A002
    """RegexReplace: ``pattern`` matches replaced by ``rewrite`` (every match, or the first)."""
    pattern_arr, rewrite_arr = np.asarray(pattern, dtype=object), np.asarray(rewrite, dtype=object)
    if pattern_arr.ndim != 0:
        raise invalid_argument(f"Pattern must be scalar, but received {shape_str(pattern_arr.shape)}")
    if rewrite_arr.ndim != 0:
        raise invalid_argument(f"Replacement string must be scalar, but received {shape_str(rewrite_arr.shape)}")
    return _regex_replace(_strings(input), _bytes(pattern_arr.item()), _bytes(rewrite_arr.item()), replace_global)


def static_regex_replace(input: np.ndarray, pattern: Any, rewrite: Any, replace_global: bool = True) -> np.ndarray:  # noqa: A002
    """StaticRegexReplace: RegexReplace with the pattern and rewrite as attrs."""
    return _regex_replace(_strings(input), _bytes(pattern), _bytes(rewrite), replace_global)


# --------------------------------------------------------------------------- hash, substr, numbers, case


def string_to_hash_bucket_fast(input: np.ndarray, num_buckets: int) -> np.ndarray:  # noqa: A002
    """StringToHashBucketFast: FarmHash Fingerprint64 of each string modulo ``num_buckets``."""
    strings = _strings(input)
    hashes = fingerprint64_many([_bytes(s) for s in strings.reshape(-1)])
    return (hashes % np.uint64(num_buckets)).astype(np.int64).reshape(strings.shape)


def _utf8_offsets(s: bytes) -> list[int]:
    """Byte offset of each UTF-8 character, plus the end."""
    offsets = [i for i, b in enumerate(s) if (b & 0xC0) != 0x80]
    return [*offsets, len(s)]


def _substr_one(s: bytes, pos: int, length: int, utf8: bool, index: int) -> bytes:
    if utf8:
        offsets = _utf8_offsets(s)
        size = len(offsets) - 1
    else:
        size = len(s)
    start = pos + size if pos < 0 else pos
    if not 0 <= start <= size:
        shown = "" if utf8 else f"b'{_text(s)}' "  # TF's BYTE kernel shows the string, its UTF8_CHAR one does not
        raise invalid_argument(f"pos {pos} out of range for string {shown}at index {index}")
    end = min(start + max(length, 0), size)
    if utf8:
        return s[offsets[start] : offsets[end]]
    return s[start:end]


def substr(input: np.ndarray, pos: np.ndarray, len: np.ndarray, unit: Any = "BYTE") -> np.ndarray:  # noqa: A002
    """Substr: ``len`` bytes (or UTF-8 characters) from ``pos`` (negative: from the end) of each string."""
    strings, pos_arr, len_arr = _strings(input), np.asarray(pos), np.asarray(len)
    if pos_arr.shape != len_arr.shape:
        raise invalid_argument(
            f"pos and len should have the same shape, got: {shape_str(pos_arr.shape)} vs. {shape_str(len_arr.shape)}"
        )
    try:
        shape = np.broadcast_shapes(strings.shape, pos_arr.shape)
    except ValueError:
        raise invalid_argument(
            f"Incompatible shapes: {shape_str(strings.shape)} vs. {shape_str(pos_arr.shape)}"
        ) from None
    utf8 = _str(unit) == "UTF8_CHAR"
    s_b = np.broadcast_to(strings, shape).reshape(-1)
    p_b = np.broadcast_to(pos_arr, shape).reshape(-1)
    n_b = np.broadcast_to(len_arr, shape).reshape(-1)
    flat = [
        _substr_one(_bytes(s), int(p), int(n), utf8, i) for i, (s, p, n) in enumerate(zip(s_b, p_b, n_b, strict=True))
    ]
    return _objects(flat, shape)


_INT_RE = re.compile(rb"^\s*[+-]?\d+\s*$")


def string_to_number(string_tensor: np.ndarray, out_type: Any = np.float32) -> np.ndarray:
    """StringToNumber: each string parsed as ``out_type`` (TF's error names the string that does not parse)."""
    strings = _strings(string_tensor)
    dtype = np.dtype(as_numpy_dtype(out_type))
    flat = []
    for s in strings.reshape(-1):
        raw = _bytes(s)
        flat.append(_parse_number(raw, dtype))
    with np.errstate(over="ignore"):  # a float beyond float32's range becomes inf, as in TF
        return np.asarray(flat, dtype=dtype).reshape(strings.shape)


def _parse_number(raw: bytes, dtype: np.dtype) -> Any:
    message = f"StringToNumberOp could not correctly convert string: {_text(raw)}"
    if dtype.kind == "f":
        text = raw.decode("ascii", "replace").strip()
        try:
            if not text or "_" in text:
                raise ValueError
            value = float(text)
        except ValueError:
            raise invalid_argument(message) from None
        return value  # out of float32's range: inf, as TF
    if not _INT_RE.match(raw):
        raise invalid_argument(message)
    value = int(raw.strip())
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise invalid_argument(message)
    return value


def _case(strings: np.ndarray, encoding: Any, lower: bool) -> np.ndarray:
    enc = _str(encoding)
    out = []
    for s in strings.reshape(-1):
        raw = _bytes(s)
        if enc == "":
            out.append(raw.lower() if lower else raw.upper())
        else:
            text = raw.decode("utf-8", "surrogateescape")
            out.append((text.lower() if lower else text.upper()).encode("utf-8", "surrogateescape"))
    return _objects(out, strings.shape)


def string_lower(input: np.ndarray, encoding: Any = "") -> np.ndarray:  # noqa: A002
    """StringLower: ASCII lowercase (Unicode with ``encoding='utf-8'``)."""
    return _case(_strings(input), encoding, lower=True)


def string_upper(input: np.ndarray, encoding: Any = "") -> np.ndarray:  # noqa: A002
    """StringUpper: ASCII uppercase (Unicode with ``encoding='utf-8'``)."""
    return _case(_strings(input), encoding, lower=False)


# --------------------------------------------------------------------------- as_string, reduce_join

_FILL_FLAGS = b" +-0#"  # the printf flags TF accepts as ``fill``
# The smallest normal magnitude of each float type whose subnormals TF's CPU kernels flush to zero (float16's
# convert to normal float32 values and are kept).
_SMALLEST_NORMAL = {
    np.dtype(np.float32): float(np.finfo(np.float32).tiny),
    np.dtype(ml_dtypes.bfloat16): float(np.finfo(np.float32).tiny),
    np.dtype(np.float64): float(np.finfo(np.float64).tiny),
}


def _format_float(value: float, flags: str, width: int, spec: str, tiny: float) -> str:
    """One float as C's printf ``%<flags><width><spec>`` with TF's denormal flush; nan and inf as glibc prints
    them (a sign for negative nan too, space-padded even with the ``0`` flag)."""
    if not np.isfinite(value):
        sign = "-" if np.signbit(value) else "+" if "+" in flags else " " if " " in flags else ""
        text = sign + ("nan" if np.isnan(value) else "inf")
        return text.ljust(width) if "-" in flags else text.rjust(width)
    if abs(value) < tiny:
        value = -0.0 if np.signbit(value) else 0.0
    return f"%{flags}{width if width > -1 else ''}{spec}" % value


def as_string(
    input: np.ndarray,  # noqa: A002
    precision: int = -1,
    scientific: bool = False,
    shortest: bool = False,
    width: int = -1,
    fill: Any = "",
) -> np.ndarray:
    """AsString: each element formatted as TF's printf-style format (``%f``, ``%e`` with ``scientific``, ``%g``
    with ``shortest``; ``fill`` one of the flags `` +-0#``, ``width`` and ``precision``), checked as TF checks."""
    x = np.asarray(input)
    kind = "f" if x.dtype == ml_dtypes.bfloat16 else x.dtype.kind  # numpy calls ml_dtypes' bfloat16 kind "V"
    if kind in "iub":
        name = dtypes.as_dtype(x.dtype).name
        if scientific or shortest:
            raise invalid_argument(f"scientific and shortest format not supported for datatype {name}")
        if precision > -1:
            raise invalid_argument(f"precision not supported for datatype {name}")
    fill_bytes = _bytes(fill)
    if len(fill_bytes) > 1:
        raise invalid_argument("Fill string must be one or fewer characters")
    if scientific and shortest:
        raise invalid_argument("Cannot select both scientific and shortest notation")
    if fill_bytes and fill_bytes not in _FILL_FLAGS:
        raise invalid_argument(f'Fill argument not supported: "{_text(fill_bytes)}"')
    flags = fill_bytes.decode("ascii")
    flat = x.reshape(-1)
    out: list[bytes]
    if kind == "b":
        out = [b"true" if v else b"false" for v in flat.tolist()]
    elif kind in "iu":
        if kind == "u":  # C's %u has no sign: the "+" and " " flags do nothing
            flags = flags.replace("+", "").replace(" ", "")
        fmt = f"%{flags}{width if width > -1 else ''}d"
        out = [(fmt % v).encode() for v in flat.tolist()]
    elif kind in "fc":
        spec = (f".{precision}" if precision > -1 else "") + ("e" if scientific else "g" if shortest else "f")
        part = np.dtype(np.float32) if x.dtype == np.complex64 else np.dtype(np.float64) if kind == "c" else x.dtype
        tiny = _SMALLEST_NORMAL.get(part, 0.0)
        if kind == "f":
            out = [_format_float(float(v), flags, width, spec, tiny).encode() for v in flat]
        else:
            out = [f"({_format_float(float(v.real), flags, width, spec, tiny)},"
                   f"{_format_float(float(v.imag), flags, width, spec, tiny)})".encode() for v in flat]  # fmt: skip
    else:  # strings: kept as they are unless width > 0; then cut to ``precision`` bytes, space-padded to width
        out = [_bytes(v) for v in flat]
        if width > 0:
            cut = [v[:precision] if precision > -1 else v for v in out]
            out = [v.ljust(width) if "-" in flags else v.rjust(width) for v in cut]
    return _objects(out, x.shape)


def reduce_join(inputs: np.ndarray, reduction_indices: np.ndarray, keep_dims: bool = False,
                separator: Any = "") -> np.ndarray:  # fmt: skip
    """ReduceJoin: the strings joined with ``separator`` over the reduced dims; of the reduced dims the first
    listed varies fastest (``[0, 1]`` of ``[[a, b], [c, d]]`` is ``acbd``)."""
    strings = _strings(inputs)
    rank = strings.ndim
    order: list[int] = []
    for axis in np.asarray(reduction_indices).reshape(-1).tolist():
        if not -rank <= axis < rank:
            raise OutOfRangeError(None, None, f"Invalid reduction dimension {axis} for input with {rank} dimension(s)")
        if (axis % rank) in order:
            raise invalid_argument(f"Duplicate reduction dimension {axis}")
        order.append(axis % rank)
    kept = [i for i in range(rank) if i not in order]
    kept_shape = tuple(strings.shape[i] for i in kept)
    group = int(np.prod([strings.shape[i] for i in order], dtype=np.int64))
    rows = strings.transpose(kept + order[::-1]).reshape((*kept_shape, group)).reshape(-1, group) if group else None
    count = int(np.prod(kept_shape, dtype=np.int64))
    sep = _bytes(separator)
    joined = [sep.join(_bytes(v) for v in row) for row in rows] if rows is not None else [b""] * count
    shape = tuple(1 if i in order else d for i, d in enumerate(strings.shape)) if keep_dims else kept_shape
    return _objects(joined, shape)


OP_FUNCTIONS: dict[str, Any] = {
    "StringSplit": string_split,
    "StringSplitV2": string_split_v2,
    "StringJoin": string_join,
    "StringLength": string_length,
    "RegexReplace": regex_replace,
    "StaticRegexReplace": static_regex_replace,
    "StringToHashBucketFast": string_to_hash_bucket_fast,
    "Substr": substr,
    "StringToNumber": string_to_number,
    "StringLower": string_lower,
    "StringUpper": string_upper,
    "AsString": as_string,
    "ReduceJoin": reduce_join,
}
CPU_TYPE_CONSTRAINTS = {
    "Substr": {"T": "int32 int64"},
    "StringToNumber": {"out_type": "float32 float64 int32 int64 uint32 uint64"},
}
