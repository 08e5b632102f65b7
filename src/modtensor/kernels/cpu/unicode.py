"""Unicode kernels with TensorFlow's semantics: UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode,
UnicodeTranscode and UnicodeScript.

TF decodes with ICU converters; these kernels decode UTF-8, UTF-16 and UTF-32 (big- and little-endian) and
ISO-8859-1 themselves, cutting ill-formed input where ICU does: in UTF-8 each maximal subpart of an ill-formed
sequence (the Unicode Standard's recommendation), in UTF-16 a lone surrogate's two bytes, in UTF-32 a four-byte unit
beyond U+10FFFF or in the surrogate range, and a truncated sequence at the end whole. Each piece is one error, which
``errors`` decides: ``strict`` fails, ``replace`` gives ``replacement_char``, ``ignore`` drops it (as do control
characters that ``replace_control_characters`` marks, under ``ignore``). UnicodeScript looks codepoints up in
``unicode_scripts.json``, ICU's script codes as TF reports them (tools/make_unicode_script_table.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from modtensor.kernels.cpu.elementwise import as_numpy_dtype
from modtensor.kernels.cpu.errors import invalid_argument
from modtensor.kernels.cpu.strings import _bytes, _str

_MAX_CODEPOINT = 0x10FFFF
_REPLACEMENT = 0xFFFD

# A decoded piece: (codepoint, bytes it took, whether it is an error).
_Piece = tuple[int, int, bool]


def _is_surrogate(cp: int) -> bool:
    return 0xD800 <= cp <= 0xDFFF


# --------------------------------------------------------------------------- decoders


def _utf8_lead(b: int) -> tuple[int, int, int]:
    """How many continuation bytes a UTF-8 lead byte needs and the range its first one must be in (0: not a lead)."""
    if 0xC2 <= b <= 0xDF:
        return 1, 0x80, 0xBF
    if b == 0xE0:
        return 2, 0xA0, 0xBF
    if b == 0xED:  # no surrogates
        return 2, 0x80, 0x9F
    if 0xE1 <= b <= 0xEF:
        return 2, 0x80, 0xBF
    if b == 0xF0:
        return 3, 0x90, 0xBF
    if 0xF1 <= b <= 0xF3:
        return 3, 0x80, 0xBF
    if b == 0xF4:  # nothing beyond U+10FFFF
        return 3, 0x80, 0x8F
    return 0, 0, 0


def _decode_utf8(data: bytes) -> Iterator[_Piece]:
    try:  # well-formed: every character at once
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        for ch in text:
            cp = ord(ch)
            yield cp, 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4, False
        return
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            yield b, 1, False
            i += 1
            continue
        need, lo, hi = _utf8_lead(b)
        if not need:
            yield _REPLACEMENT, 1, True
            i += 1
            continue
        cp = b & (0x3F >> need)
        k = 1
        while k <= need and i + k < n:
            c = data[i + k]
            if not ((lo <= c <= hi) if k == 1 else (0x80 <= c <= 0xBF)):
                break
            cp = (cp << 6) | (c & 0x3F)
            k += 1
        if k > need:
            yield cp, k, False
        else:  # a maximal subpart (or the truncated rest): one error
            yield _REPLACEMENT, k, True
        i += k


def _decode_utf16(data: bytes, order: str) -> Iterator[_Piece]:
    n = len(data)
    i = 0
    while i + 1 < n:
        unit = int.from_bytes(data[i : i + 2], order)
        if 0xD800 <= unit <= 0xDBFF:
            if i + 3 < n:
                low = int.from_bytes(data[i + 2 : i + 4], order)
                if 0xDC00 <= low <= 0xDFFF:
                    yield 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), 4, False
                    i += 4
                    continue
            elif n - i > 2:  # a high surrogate and a truncated unit: the truncated rest
                yield _REPLACEMENT, n - i, True
                return
            yield _REPLACEMENT, 2, True
        elif _is_surrogate(unit):
            yield _REPLACEMENT, 2, True
        else:
            yield unit, 2, False
        i += 2
    if i < n:
        yield _REPLACEMENT, n - i, True


def _decode_utf32(data: bytes, order: str) -> Iterator[_Piece]:
    n = len(data)
    i = 0
    while i + 3 < n:
        cp = int.from_bytes(data[i : i + 4], order)
        if cp > _MAX_CODEPOINT or _is_surrogate(cp):
            yield _REPLACEMENT, 4, True
        else:
            yield cp, 4, False
        i += 4
    if i < n:
        yield _REPLACEMENT, n - i, True


def _decode_latin1(data: bytes) -> Iterator[_Piece]:
    for b in data:
        yield b, 1, False


_DECODERS: dict[str, Callable[[bytes], Iterator[_Piece]]] = {
    "UTF8": _decode_utf8,
    "UTF16BE": lambda data: _decode_utf16(data, "big"),
    "UTF16LE": lambda data: _decode_utf16(data, "little"),
    "UTF32BE": lambda data: _decode_utf32(data, "big"),
    "UTF32LE": lambda data: _decode_utf32(data, "little"),
    "ISO88591": _decode_latin1,
    "LATIN1": _decode_latin1,
}


def _decoder(encoding: Any) -> Callable[[bytes], Iterator[_Piece]]:
    """The decoder of an encoding name, matched as ICU matches converter names (case, ``-``, ``_`` and spaces
    ignored). TF accepts any converter its ICU knows; the ones not built here fail as an unknown one does."""
    name = _str(encoding)
    key = "".join(c for c in name.upper() if c not in "-_ ")
    if key not in _DECODERS:
        raise invalid_argument(f"Could not create converter for input encoding: {name}")
    return _DECODERS[key]


def _check_replacement(replacement_char: int) -> int:
    if not 0 <= int(replacement_char) <= _MAX_CODEPOINT:
        raise invalid_argument("replacement_char out of unicode codepoint range")
    return int(replacement_char)


def _decode_string(data: bytes, decoder: Callable[[bytes], Iterator[_Piece]], errors: str, replacement: int,
                   replace_control: bool) -> tuple[list[int], list[int]]:  # fmt: skip
    """One string's codepoints and the byte offset each starts at, with TF's handling of errors and of control
    characters (those two are elided under ``ignore``; a replaced control character is no error under ``strict``)."""
    codepoints: list[int] = []
    offsets: list[int] = []
    position = 0
    for cp, size, error in decoder(data):
        if error and errors == "strict":
            raise invalid_argument("Invalid formatting on input string")
        if error or (replace_control and cp <= 0x1F):
            if errors == "ignore":
                position += size
                continue
            cp = replacement
        codepoints.append(cp)
        offsets.append(position)
        position += size
    return codepoints, offsets


def _decode_all(input: np.ndarray, input_encoding: Any, errors: Any, replacement_char: int,  # noqa: A002
                replace_control_characters: bool, Tsplits: Any) -> tuple[np.ndarray, ...]:  # noqa: N803  # fmt: skip
    replacement = _check_replacement(replacement_char)
    decoder = _decoder(input_encoding)
    mode = _str(errors)
    splits, values, starts = [0], [], []
    for s in np.asarray(input, dtype=object).reshape(-1):
        codepoints, offsets = _decode_string(_bytes(s), decoder, mode, replacement, bool(replace_control_characters))
        values += codepoints
        starts += offsets
        splits.append(len(values))
    split_dtype = np.dtype(as_numpy_dtype(Tsplits))
    return (np.asarray(splits, split_dtype), np.asarray(values, np.int32).reshape(-1),
            np.asarray(starts, np.int64).reshape(-1))  # fmt: skip


def unicode_decode(input: np.ndarray, input_encoding: Any = b"", errors: Any = b"replace",  # noqa: A002
                   replacement_char: int = _REPLACEMENT, replace_control_characters: bool = False,
                   Tsplits: Any = np.int64) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803  # fmt: skip
    """UnicodeDecode: every string's codepoints, concatenated, and the row splits that part them by string."""
    splits, values, _ = _decode_all(input, input_encoding, errors, replacement_char, replace_control_characters,
                                    Tsplits)  # fmt: skip
    return splits, values


def unicode_decode_with_offsets(input: np.ndarray, input_encoding: Any = b"", errors: Any = b"replace",  # noqa: A002
                                replacement_char: int = _REPLACEMENT, replace_control_characters: bool = False,
                                Tsplits: Any = np.int64) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # noqa: N803  # fmt: skip
    """UnicodeDecodeWithOffsets: UnicodeDecode's outputs and the byte offset each codepoint starts at."""
    return _decode_all(input, input_encoding, errors, replacement_char, replace_control_characters, Tsplits)


# --------------------------------------------------------------------------- encoders


def _encode(codepoints: list[int], encoding: str) -> bytes:
    """Codepoints in an output encoding. A lone surrogate (a ``replacement_char`` may be one) is written as ICU
    writes it: U+FFFD in UTF-8, its own unit in UTF-16 and UTF-32."""
    if encoding == "UTF-8":
        return "".join(chr(_REPLACEMENT if _is_surrogate(cp) else cp) for cp in codepoints).encode("utf-8")
    text = "".join(map(chr, codepoints))
    return text.encode("utf-16-be" if encoding == "UTF-16-BE" else "utf-32-be", "surrogatepass")


def _valid_codepoint(cp: int) -> bool:
    return 0 <= cp <= _MAX_CODEPOINT and not _is_surrogate(cp)


def unicode_encode(input_values: np.ndarray, input_splits: np.ndarray, errors: Any = b"replace",
                   output_encoding: Any = b"UTF-8", replacement_char: int = _REPLACEMENT,
                   Tsplits: Any = np.int64) -> np.ndarray:  # noqa: N803  # fmt: skip
    """UnicodeEncode: the codepoints of each row (``input_splits`` the row splits) as one string; codepoints
    outside 0..0x10FFFF or in the surrogate range are errors (noncharacters are not)."""
    del Tsplits
    replacement = _check_replacement(replacement_char)
    values = [int(v) for v in np.asarray(input_values).reshape(-1)]
    splits = [int(v) for v in np.asarray(input_splits).reshape(-1)]
    mode, encoding = _str(errors), _str(output_encoding)
    if not splits:
        raise invalid_argument("Input_splits should contain elements, but given input_values has 0 elements")
    if splits[0] != 0:
        raise invalid_argument("First value in input_splits must be zero.")
    if splits[-1] != len(values):
        raise invalid_argument("Last value in input_splits must be equal to length of input_tensor.")
    out = []
    for i in range(1, len(splits)):
        if splits[i - 1] > splits[i]:
            raise invalid_argument("Values in input_splits must be equal or in ascending order.")
        if splits[i] > len(values):
            raise invalid_argument("Values in input_splits must be less than or equal to input_tensor length.")
        row = []
        for cp in values[splits[i - 1] : splits[i]]:
            if not _valid_codepoint(cp):
                if mode == "strict":
                    raise invalid_argument("Code point is out of range for Unicode, or is a surrogate.")
                if mode == "ignore":
                    continue
                cp = replacement
            row.append(cp)
        out.append(_encode(row, encoding))
    result = np.empty(len(out), dtype=object)
    result[:] = out
    return result


def unicode_transcode(input: np.ndarray, input_encoding: Any = b"", output_encoding: Any = b"UTF-8",  # noqa: A002
                      errors: Any = b"replace", replacement_char: int = _REPLACEMENT,
                      replace_control_characters: bool = False) -> np.ndarray:  # fmt: skip
    """UnicodeTranscode: each string decoded from ``input_encoding`` (errors handled as UnicodeDecode handles
    them) and encoded in ``output_encoding``."""
    replacement = _check_replacement(replacement_char)
    decoder = _decoder(input_encoding)
    mode, encoding = _str(errors), _str(output_encoding)
    strings = np.asarray(input, dtype=object)
    out = [_encode(_decode_string(_bytes(s), decoder, mode, replacement, bool(replace_control_characters))[0],
                   encoding) for s in strings.reshape(-1)]  # fmt: skip
    result = np.empty(len(out), dtype=object)
    result[:] = out
    return result.reshape(strings.shape)


# --------------------------------------------------------------------------- scripts


@cache
def _script_table() -> tuple[np.ndarray, np.ndarray]:
    table = json.loads((Path(__file__).with_name("unicode_scripts.json")).read_text())
    return np.asarray(table["starts"], np.int64), np.asarray(table["scripts"], np.int32)


def unicode_script(input: np.ndarray) -> np.ndarray:  # noqa: A002
    """UnicodeScript: ICU's ``UScriptCode`` of each codepoint; -1 for a value that is not a codepoint."""
    codepoints = np.asarray(input, dtype=np.int64)
    starts, scripts = _script_table()
    index = np.searchsorted(starts, np.clip(codepoints, 0, _MAX_CODEPOINT), side="right") - 1
    valid = (codepoints >= 0) & (codepoints <= _MAX_CODEPOINT)
    return np.where(valid, scripts[index], -1).astype(np.int32)


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "UnicodeDecode": unicode_decode,
    "UnicodeDecodeWithOffsets": unicode_decode_with_offsets,
    "UnicodeEncode": unicode_encode,
    "UnicodeTranscode": unicode_transcode,
    "UnicodeScript": unicode_script,
}
# TF 2.21's CPU kernels (tests/golden/unicode/ops/cpu_kernel_constraints.json).
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "UnicodeDecode": {"Tsplits": "int32 int64"},
    "UnicodeDecodeWithOffsets": {"Tsplits": "int32 int64"},
    "UnicodeEncode": {"Tsplits": "int32 int64"},
}
