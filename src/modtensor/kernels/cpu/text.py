"""Text kernels with TensorFlow's semantics: StringStrip, StringNGrams, EncodeBase64, DecodeBase64, RegexFullMatch,
StaticRegexFullMatch and UnsortedSegmentJoin.

String tensors are object arrays of ``bytes``. Base64 is the web-safe alphabet (``-`` and ``_``) as in TF, decoded
as TF's decoder does: groups of four, one or two ``=`` only at the very end, and the bits left over ignored. Regular
expressions are RE2's in TF and run with strings.py's translation to Python's ``re``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.framework.errors import OutOfRangeError
from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.strings import _bytes, _compile, _objects, _text

_ASCII_WHITESPACE = b" \t\n\v\f\r"


def _map(strings: Any, fn: Callable[[bytes], Any]) -> list[Any]:
    return [fn(_bytes(s)) for s in np.asarray(strings, dtype=object).reshape(-1)]


def string_strip(input: np.ndarray) -> np.ndarray:  # noqa: A002
    """StringStrip: ASCII whitespace (space, \\t, \\n, \\v, \\f, \\r) removed from both ends of each string."""
    strings = np.asarray(input, dtype=object)
    return _objects(_map(strings, lambda s: s.strip(_ASCII_WHITESPACE)), strings.shape)


# --------------------------------------------------------------------------- base64

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_DECODE = {c: i for i, c in enumerate(_ALPHABET)}


def _encode_base64(data: bytes, pad: bool) -> bytes:
    out = bytearray()
    for i in range(0, len(data), 3):
        chunk = data[i : i + 3]
        value = int.from_bytes(chunk.ljust(3, b"\x00"), "big")
        chars = [_ALPHABET[(value >> shift) & 0x3F] for shift in (18, 12, 6, 0)][: len(chunk) + 1]
        out += bytes(chars)
        if pad:
            out += b"=" * (3 - len(chunk))
    return bytes(out)


def _decode_group(codes: bytes) -> bytes:
    """Four characters as three bytes; any character outside the alphabet fails."""
    value = 0
    for c in codes:
        if c not in _DECODE:
            raise invalid_argument("Invalid character found in base64.")
        value = (value << 6) | _DECODE[c]
    return value.to_bytes(3, "big")


def _decode_base64(data: bytes) -> bytes:
    """TF's Base64Decode: whole groups while more than four characters remain; then the last group, whose ``==``
    or ``=`` ending is padding; one character left over is an error."""
    if not data:
        return b""
    out = bytearray()
    pos = 0
    while len(data) - pos > 4:
        out += _decode_group(data[pos : pos + 4])
        pos += 4
    tail = data[pos:]
    if len(tail) == 4:
        if tail[2:4] == b"==":
            tail = tail[:2]
        elif tail[3:4] == b"=":
            tail = tail[:3]
    if len(tail) == 1:
        raise invalid_argument("Base64 string length cannot be 1 modulo 4.")
    return bytes(out + _decode_group(tail.ljust(4, b"A"))[: len(tail) - 1])


def encode_base64(input: np.ndarray, pad: bool = False) -> np.ndarray:  # noqa: A002
    """EncodeBase64: each string in web-safe base64, ``=``-padded to a multiple of four characters with ``pad``."""
    strings = np.asarray(input, dtype=object)
    return _objects(_map(strings, lambda s: _encode_base64(s, bool(pad))), strings.shape)


def decode_base64(input: np.ndarray) -> np.ndarray:  # noqa: A002
    """DecodeBase64: each web-safe base64 string decoded (padding optional)."""
    strings = np.asarray(input, dtype=object)
    return _objects(_map(strings, _decode_base64), strings.shape)


# --------------------------------------------------------------------------- regex full match


def _valid_utf8(s: bytes) -> bool:
    try:
        s.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _full_match(strings: np.ndarray, pattern: bytes) -> np.ndarray:
    """RE2's FullMatch of each string. RE2 matches UTF-8 characters: no part of a pattern (``.`` and negated classes
    included) matches a byte of an invalid UTF-8 sequence, so such a string never matches as a whole."""
    compiled, _ = _compile(pattern, b"")
    flat = [_valid_utf8(s) and compiled.fullmatch(_text(s)) is not None for s in _map(strings, lambda s: s)]
    return np.asarray(flat, dtype=bool).reshape(strings.shape)


def regex_full_match(input: np.ndarray, pattern: np.ndarray) -> np.ndarray:  # noqa: A002
    """RegexFullMatch: whether each string matches the RE2 ``pattern`` (a scalar tensor) as a whole."""
    pattern_arr = np.asarray(pattern, dtype=object)
    if pattern_arr.ndim != 0:
        raise invalid_argument(f"Pattern must be scalar, but received {shape_str(pattern_arr.shape)}")
    return _full_match(np.asarray(input, dtype=object), _bytes(pattern_arr.item()))


def static_regex_full_match(input: np.ndarray, pattern: Any) -> np.ndarray:  # noqa: A002
    """StaticRegexFullMatch: RegexFullMatch with the pattern as an attr."""
    return _full_match(np.asarray(input, dtype=object), _bytes(pattern))


# --------------------------------------------------------------------------- unsorted segment join


def unsorted_segment_join(inputs: np.ndarray, segment_ids: np.ndarray, num_segments: np.ndarray,
                          separator: Any = b"") -> np.ndarray:  # fmt: skip
    """UnsortedSegmentJoin: ``output[i, ...]`` joins, in order, the ``inputs[j..., ...]`` whose segment id is ``i``.

    As TF's kernel, the separator goes only after a non-empty part: empty strings at the start of a segment leave no
    separator (``['', 'a']`` joins to ``'a'``), later ones do (``['a', '', 'b']`` to ``'a--b'`` with ``'-'``).
    """
    strings = np.asarray(inputs, dtype=object)
    ids = np.asarray(segment_ids)
    count_arr = np.asarray(num_segments)
    if count_arr.size == 0:
        raise invalid_argument("Number of segments cannot be empty.")
    if count_arr.ndim != 0:
        raise invalid_argument("Number of segments must be a scalar")
    count = int(count_arr)
    if ids.ndim == 0:
        raise invalid_argument("Segment_id cannot have rank 0")
    if ids.ndim > strings.ndim:
        raise OutOfRangeError(
            None, None, f"Invalid segment_id rank {ids.ndim} for input with {strings.ndim} dimension(s)"
        )
    for i in range(ids.ndim):
        if ids.shape[i] != strings.shape[i]:
            # (TF's text names the input's rank where it means the input's dimension)
            raise invalid_argument(
                f"Segment dimension is {ids.shape[i]} while input dimension is {strings.ndim} in rank {i}"
            )
    if count < 0:
        raise invalid_argument(f"Number of segments must be non-negative but got {count}")
    flat_ids = ids.reshape(-1).tolist()
    if any(not 0 <= s < count for s in flat_ids):
        raise invalid_argument("segment_ids are not allowed to exceed num_segments or to have negative values.")
    inner_shape = strings.shape[ids.ndim :]
    inner = int(np.prod(inner_shape, dtype=np.int64))
    rows = strings.reshape(len(flat_ids), inner)
    sep = _bytes(separator)
    out = [b""] * (count * inner)
    for row, segment in zip(rows, flat_ids, strict=True):
        for k in range(inner):
            index = segment * inner + k
            part = _bytes(row[k])
            out[index] = out[index] + sep + part if out[index] else part
    return _objects(out, (count, *inner_shape))


# --------------------------------------------------------------------------- n-grams


class _NGrams:
    """TF's StringNGrams kernel for one set of attrs: the n-grams of each row of ``data``, given by its splits."""

    def __init__(self, separator: bytes, left_pad: bytes, right_pad: bytes, pad_width: int) -> None:
        self.separator, self.left_pad, self.right_pad, self.pad_width = separator, left_pad, right_pad, pad_width

    def width_pad(self, width: int) -> int:
        """The padding on each side for n-grams of ``width``: ``pad_width`` (all but one of the width when
        negative), never more than ``width - 1``."""
        return min(width - 1 if self.pad_width < 0 else self.pad_width, width - 1)

    def count(self, length: int, width: int) -> int:
        return max(0, length + 2 * self.width_pad(width) - width + 1)

    def make(self, row: list[bytes], count: int, width: int) -> list[bytes]:
        """``count`` n-grams of ``width`` over ``row``, padded on the left and right as TF pads them."""
        pad = self.width_pad(width)
        grams = []
        for index in range(count):
            left = max(0, pad - index)
            right = max(0, pad - (count - index - 1))
            tokens = width - left - right
            start = 0 if left > 0 else index - pad
            parts = [self.left_pad] * left + row[start : start + tokens] + [self.right_pad] * right
            grams.append(self.separator.join(parts))
        return grams


def string_n_grams(data: np.ndarray, data_splits: np.ndarray, separator: Any = b"", ngram_widths: Any = (),
                   left_pad: Any = b"", right_pad: Any = b"", pad_width: int = 0,
                   preserve_short_sequences: bool = False) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """StringNGrams: the n-grams of every width in ``ngram_widths`` of each row (``data_splits`` the row splits),
    row after row, and the splits of the result. With ``preserve_short_sequences`` a non-empty row too short for any
    n-gram gives one of the whole row and its padding."""
    widths = [int(w) for w in ngram_widths]
    if any(w <= 0 for w in widths):
        raise invalid_argument("ngram_widths must contain positive values")
    strings = np.asarray(data, dtype=object)
    splits_arr = np.asarray(data_splits)
    tokens = _map(strings, lambda s: s)
    splits = splits_arr.reshape(-1).tolist()
    size = len(tokens)
    if splits:
        if splits[0] != 0:
            raise invalid_argument(f"First split value must be 0, got {splits[0]}")
        for prev, split in zip(splits, splits[1:]):  # noqa: B905 - one shorter by design
            if not prev <= split <= size:
                raise invalid_argument(f"Invalid split value {split}, must be in [{prev}, {size}]")
        if splits[-1] != size:
            raise invalid_argument(f"Last split value must be data size. Expected {size}, got {splits[-1]}")
    out_splits = np.zeros(splits_arr.shape, splits_arr.dtype)
    if size == 0 or not splits:  # TF: an output of data's shape (empty strings) and zero splits
        return _objects([b""] * size, strings.shape), out_splits
    maker = _NGrams(_bytes(separator), _bytes(left_pad), _bytes(right_pad), int(pad_width))
    grams: list[bytes] = []
    for i in range(len(splits) - 1):
        row = tokens[splits[i] : splits[i + 1]]
        made = 0
        for width in widths:
            count = maker.count(len(row), width)
            grams += maker.make(row, count, width)
            made += count
        if preserve_short_sequences and made == 0 and row:
            if maker.pad_width < 0:
                raise invalid_argument(
                    "Pad width should be >= 0 when preserve_short_sequences is True and ngram_widths are not "
                    f"provided, got {maker.pad_width}"
                )
            grams += maker.make(row, 1, len(row) + 2 * maker.pad_width)
        out_splits[i + 1] = len(grams)
    return _objects(grams, (len(grams),)), out_splits


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "StringStrip": string_strip,
    "EncodeBase64": encode_base64,
    "DecodeBase64": decode_base64,
    "RegexFullMatch": regex_full_match,
    "StaticRegexFullMatch": static_regex_full_match,
    "UnsortedSegmentJoin": unsorted_segment_join,
    "StringNGrams": string_n_grams,
}
# TF 2.21's CPU kernels (tests/golden/text_ops/ops/cpu_kernel_constraints.json).
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "StringNGrams": {"Tsplits": "int32 int64"},
    "UnsortedSegmentJoin": {"Tindices": "int32 int64", "Tnumsegments": "int32 int64"},
}
