"""Record what TensorFlow's Unicode string ops build and compute: ``tf.strings.unicode_decode``,
``unicode_decode_with_offsets``, ``unicode_split``, ``unicode_split_with_offsets``, ``unicode_encode``,
``unicode_transcode`` and ``unicode_script`` (ops UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode,
UnicodeTranscode, UnicodeScript; StringLength's UTF8_CHAR unit beside them).

    cd /tmp/scratch && /work/tfvenv/bin/python /work/main/tools/make_golden_unicode.py

Writes ``tests/golden/unicode/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets, ids ``unicode_...``, read
by ``tests/api/test_unicode_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py`` writes
(OpDefs, CPU kernel constraints, shape and kernel cases): ASCII, multi-byte UTF-8, every kind of ill-formed UTF-8
(stray continuation bytes, truncated and overlong sequences, encoded surrogates, beyond U+10FFFF) under each
``errors`` mode, control characters, UTF-16-BE and UTF-32-BE input (lone surrogates, odd lengths), codepoints that
are surrogates or beyond U+10FFFF in UnicodeEncode, empty strings and inputs, and TF's errors.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_breadth  # noqa: E402, F401  (its scalar-bytes encoding of eager values)
import make_golden_frontend_ops as base  # noqa: E402
import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "unicode"
OPS = ["UnicodeDecode", "UnicodeDecodeWithOffsets", "UnicodeEncode", "UnicodeTranscode", "UnicodeScript",
       "StringLength"]  # fmt: skip

WORDS = "['G\\u00f6\\u00f6dnight', '\\U0001f60a', '', 'abc']"
BAD = "[b'a\\xffb', b'\\xc3', b'\\xed\\xa0\\x80x', b'\\xf4\\x90\\x80\\x80', b'\\x01ok']"
ERR = "{{function_node"

CASES: list[tuple[str, str, str]] = [
    ("unicode_decode", f"r = tf.strings.unicode_decode({WORDS}, 'UTF-8')\n[r.values, r.row_splits]", "e"),
    ("unicode_decode_scalar", "tf.strings.unicode_decode('caf\\u00e9 \\u20ac', 'UTF-8')", "e"),
    ("unicode_decode_to_tensor", f"tf.strings.unicode_decode({WORDS}, 'UTF-8').to_tensor()", "e"),
    ("unicode_decode_replace", f"r = tf.strings.unicode_decode({BAD}, 'UTF-8')\n[r.values, r.row_splits]", "e"),
    ("unicode_decode_ignore", f"r = tf.strings.unicode_decode({BAD}, 'UTF-8', errors='ignore')\n"
     "[r.values, r.row_splits]", "e"),
    ("unicode_decode_strict", f"tf.strings.unicode_decode({BAD}, 'UTF-8', errors='strict')", "e"),
    ("unicode_decode_replacement_char", f"r = tf.strings.unicode_decode({BAD}, 'UTF-8', replacement_char=63, "
     "replace_control_characters=True)\n[r.values, r.row_splits]", "e"),
    ("unicode_decode_bad_replacement", "tf.strings.unicode_decode(['a'], 'UTF-8', replacement_char=0x110000)", "e"),
    ("unicode_decode_control_ignore", "tf.strings.unicode_decode('\\x01a\\x1f\\x20', 'UTF-8', errors='ignore', "
     "replace_control_characters=True)", "e"),
    ("unicode_decode_utf16", "r = tf.strings.unicode_decode([b'\\x00a\\xd8\\x3d\\xde\\x0a', b'\\xdc\\x00\\x00b', "
     "b'\\x00c\\x00'], 'UTF-16-BE')\n[r.values, r.row_splits]", "e"),
    ("unicode_decode_utf32", "r = tf.strings.unicode_decode([b'\\x00\\x01\\xf6\\x0a\\x00\\x11\\x00\\x00', "
     "b'\\x00\\x00\\xd8\\x00\\x00\\x00\\x00a\\x00'], 'UTF-32-BE')\n[r.values, r.row_splits]", "e"),
    ("unicode_decode_bad_encoding", "tf.strings.unicode_decode(['a'], 'no-such-encoding')", "e"),
    ("unicode_decode_bad_errors", "tf.strings.unicode_decode(['a'], 'UTF-8', errors='loose')", "e"),
    ("unicode_decode_empty", "r = tf.strings.unicode_decode(tf.constant([], tf.string), 'UTF-8')\n"
     "[r.values, r.row_splits]", "e"),
    ("unicode_decode_matrix", "r = tf.strings.unicode_decode([['ab', '\\u00e9'], ['', 'xyz']], 'UTF-8')\n"
     "[r.flat_values, r.nested_row_splits[0], r.nested_row_splits[1], r.to_tensor()]", "e"),
    ("unicode_decode_ragged", "r = tf.strings.unicode_decode(tf.strings.split(['a b\\u00e9', '', 'cd']), 'UTF-8')\n"
     "[r.flat_values, r.nested_row_splits[0], r.nested_row_splits[1]]", "e"),
    ("unicode_decode_with_offsets", f"c, o = tf.strings.unicode_decode_with_offsets({WORDS}, 'UTF-8')\n"
     "[c.values, o.values, o.row_splits]", "e"),
    ("unicode_decode_with_offsets_bad", f"c, o = tf.strings.unicode_decode_with_offsets({BAD}, 'UTF-8', "
     "errors='ignore')\n[c.values, o.values, o.row_splits]", "e"),
    ("unicode_decode_with_offsets_scalar", "tf.strings.unicode_decode_with_offsets('\\u00e9t\\u00e9', 'UTF-8')",
     "e"),
    ("unicode_split", f"r = tf.strings.unicode_split({WORDS}, 'UTF-8')\n[r.values, r.row_splits]", "e"),
    ("unicode_split_scalar", "tf.strings.unicode_split('a\\u00e9\\u20ac', 'UTF-8')", "e"),
    ("unicode_split_replace", f"r = tf.strings.unicode_split({BAD}, 'UTF-8')\n[r.values, r.row_splits]", "e"),
    ("unicode_split_utf16", "r = tf.strings.unicode_split([b'\\x00a\\xd8\\x3d\\xde\\x0a'], 'UTF-16-BE')\n"
     "[r.values, r.row_splits]", "e"),
    ("unicode_split_matrix", "r = tf.strings.unicode_split([['ab', 'c'], ['\\u00e9', '']], 'UTF-8')\n"
     "[r.flat_values, r.nested_row_splits[1]]", "e"),
    ("unicode_split_with_offsets", f"c, o = tf.strings.unicode_split_with_offsets({WORDS}, 'UTF-8')\n"
     "[c.values, o.values, o.row_splits]", "e"),
    ("unicode_encode", "tf.strings.unicode_encode(tf.strings.unicode_decode(" + WORDS + ", 'UTF-8'), 'UTF-8')",
     "e"),
    ("unicode_encode_vector", "tf.strings.unicode_encode([72, 105, 0x1f60a], 'UTF-8')", "e"),
    ("unicode_encode_matrix", "tf.strings.unicode_encode([[97, 98], [0xe9, 0x20ac]], 'UTF-16-BE')", "e"),
    ("unicode_encode_rank3", "tf.strings.unicode_encode(tf.reshape(tf.range(65, 77), [2, 3, 2]), 'UTF-32-BE')",
     "e"),
    ("unicode_encode_invalid", "tf.strings.unicode_encode([97, 0xd800, 0x110000, -1, 0xfffe, 98], 'UTF-8')", "e"),
    ("unicode_encode_ignore", "tf.strings.unicode_encode([97, 0xdfff, 0x110000, 98], 'UTF-8', errors='ignore')",
     "e"),
    ("unicode_encode_strict", "tf.strings.unicode_encode([97, 0x110000], 'UTF-8', errors='strict')", "e"),
    ("unicode_encode_replacement", "tf.strings.unicode_encode([[97, -5], [0xd800, 98]], 'UTF-16-BE', "
     "replacement_char=0x2603)", "e"),
    ("unicode_encode_surrogate_replacement", "[tf.strings.unicode_encode([-1], e, replacement_char=0xd800) "
     "for e in ('UTF-8', 'UTF-16-BE', 'UTF-32-BE')]", "e"),
    ("unicode_encode_empty_rows", "r = tf.strings.unicode_decode(['', 'a', ''], 'UTF-8')\n"
     "tf.strings.unicode_encode(r, 'UTF-8')", "e"),
    ("unicode_encode_scalar", "tf.strings.unicode_encode(97, 'UTF-8')", "e"),
    ("unicode_encode_bad_encoding", "tf.strings.unicode_encode([97], 'UTF-7')", "e"),
    ("unicode_encode_ragged_rank2", "r = tf.strings.unicode_decode([['ab', 'c'], ['', '\\u00e9']], 'UTF-8')\n"
     "e = tf.strings.unicode_encode(r, 'UTF-8')\n[e.values, e.row_splits]", "e"),
    ("unicode_encode_raw", "tf.raw_ops.UnicodeEncode(input_values=[97, 98, 99], input_splits=[0, 1, 3], "
     "output_encoding='UTF-8')", "ge"),
    ("unicode_encode_raw_bad_splits", "tf.raw_ops.UnicodeEncode(input_values=[97, 98], input_splits=[1, 2], "
     "output_encoding='UTF-8')", "e"),
    ("unicode_decode_raw", "tf.raw_ops.UnicodeDecode(input=['a\\u00e9', ''], input_encoding='UTF-8', "
     "Tsplits=tf.int32)", "ge"),
    ("unicode_decode_raw_offsets", "tf.raw_ops.UnicodeDecodeWithOffsets(input=[['a\\u00e9'], ['b']], "
     "input_encoding='UTF-8')", "ge"),
    ("unicode_transcode", "tf.strings.unicode_transcode(['Hello', '\\u00e9\\u20ac\\U0001f60a', ''], 'UTF-8', "
     "'UTF-16-BE')", "ge"),
    ("unicode_transcode_utf32", "tf.strings.unicode_transcode([['a\\u00e9'], ['\\U0001f60a']], 'UTF-8', "
     "'UTF-32-BE', name='tc')", "ge"),
    ("unicode_transcode_replace", f"tf.strings.unicode_transcode({BAD}, 'UTF-8', 'UTF-8')", "e"),
    ("unicode_transcode_ignore", f"tf.strings.unicode_transcode({BAD}, 'UTF-8', 'UTF-8', errors='ignore', "
     "replace_control_characters=True)", "e"),
    ("unicode_transcode_strict", f"tf.strings.unicode_transcode({BAD}, 'UTF-8', 'UTF-8', errors='strict')", "e"),
    ("unicode_transcode_from_utf16", "tf.strings.unicode_transcode([b'\\x00h\\x00i\\xd8\\x00', b'\\x00'], "
     "'UTF-16-BE', 'UTF-8', replacement_char=0x3f)", "e"),
    ("unicode_transcode_bad_output", "tf.strings.unicode_transcode(['a'], 'UTF-8', 'latin1')", "ge"),
    ("unicode_transcode_bad_input", "tf.strings.unicode_transcode(['a'], 'klingon', 'UTF-8')", "e"),
    ("unicode_script", "tf.strings.unicode_script([0x41, 0x3b1, 0x4e00, 0x627, 0x300, 0x30, -1, 0x110000, "
     "0x10ffff, 0x1f600])", "ge"),
    ("unicode_script_matrix", "tf.strings.unicode_script(tf.strings.unicode_decode('Hi \\u043f\\u0440\\u0438', "
     "'UTF-8'))", "e"),
    ("unicode_script_bad_dtype", "tf.strings.unicode_script(tf.constant([65], tf.int64))", "ge"),
    ("unicode_length_utf8", "tf.strings.length(['caf\\u00e9', '\\U0001f60a', b'\\xff\\xfe', ''], unit='UTF8_CHAR')",
     "ge"),
    ("unicode_decode_encode_roundtrip", "x = tf.constant(['\\u00e9t\\u00e9', '\\u65e5\\u672c', '\\U0001f600!'])\n"
     "tf.strings.unicode_encode(tf.strings.unicode_decode(x, 'UTF-8'), 'UTF-16-BE')", "e"),
]  # fmt: skip


def S(*values: str | bytes) -> np.ndarray:  # noqa: N802
    return breadth.S(*values)


# ill-formed and edge-case byte strings; none ends in a NUL, nor does any output (npz would drop it)
UTF8 = [b"", b"hello", "naïve café".encode(), "€uro ∑ 😊 𝄞".encode(), b"a\xffb", b"\xc3", b"\xc3(", b"\x80abc",
        b"\xbf\xbf", b"\xc0\x80x", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\xa0", b"\xe0\xa0\x81", b"\xed\xa0\x80",
        b"\xed\xbf\xbfz", b"\xed\x9f\xbf", b"\xef\xbf\xbe\xef\xbf\xbf", b"\xf0\x80\x80\x80", b"\xf0\x90\x80",
        b"\xf0\x90\x80\x81", b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80", b"\xf8\x88\x80\x80\x80",
        b"\xfe\xff", b"\x01\x02tab\tnl\n\x1f\x7f", b"x\xe2\x82", b"\xe2\x82\xe2\x82\xac", b"\xf0\x9f\x98"]  # fmt: skip
UTF16 = [b"", b"\x00h\x00i", b"\xd8\x3d\xde\x0a", b"\xd8\x3d", b"\xde\x0a\x00a", b"\xd8\x3d\x00a", b"\x00a\x01",
         b"\xd8\x3d\xde", b"\xff\xfe\x00\x01", b"\xdb\xff\xdf\xff", b"\x00\x01\x00\x1f",
         b"\xd8\x00\xd8\x00\xdc\x01"]  # fmt: skip
UTF32 = [b"", b"\x00\x00\x00a", b"\x00\x01\xf6\x0a", b"\x00\x10\xff\xff", b"\x00\x11\x00\x00", b"\x00\x00\xd8\x01",
         b"\xff\xff\xff\xff", b"\x00\x00\x00a\x01", b"\x00\x00\x00a\x00\x01", b"\x80\x00\x00\x01",
         b"\x00\x00\x00\x05"]  # fmt: skip


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape and kernel cases) of the Unicode ops."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    breadth.begin(OUT / "ops", "tools/make_golden_unicode.py", OPS)
    inputs = {"UTF-8": S(*UTF8), "UTF-16-BE": S(*UTF16), "UTF-32-BE": S(*UTF32)}
    # UnicodeDecode / UnicodeDecodeWithOffsets / UnicodeTranscode over every errors mode
    for encoding, strings in inputs.items():
        for errors in ("replace", "ignore"):
            for control in (False, True):
                for op in ("UnicodeDecode", "UnicodeDecodeWithOffsets"):
                    kernel_case(op, strings, input_encoding=encoding, errors=errors,
                                replace_control_characters=control)  # fmt: skip
                for out in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
                    kernel_case("UnicodeTranscode", strings, input_encoding=encoding, output_encoding=out,
                                errors=errors, replace_control_characters=control)  # fmt: skip
        kernel_case("UnicodeDecodeWithOffsets", strings, input_encoding=encoding, replacement_char=0x2603)
        kernel_case("UnicodeTranscode", strings, input_encoding=encoding, output_encoding="UTF-16-BE",
                    replacement_char=0xD801)  # fmt: skip
        for s in strings.tolist():  # strict: each string alone, a valid one decodes, an ill-formed one fails
            if s:
                kernel_case("UnicodeDecode", S(s), input_encoding=encoding, errors="strict")
                kernel_case("UnicodeTranscode", S(s), input_encoding=encoding, output_encoding="UTF-8",
                            errors="strict")  # fmt: skip
    kernel_case("UnicodeDecode", S(*UTF8[:12]).reshape(3, 4), input_encoding="UTF-8", Tsplits=np.int32)
    # (UnicodeDecodeWithOffsets with Tsplits=int32 aborts TF 2.21's process: its kernel writes the int64 offsets
    # as Tsplits; modtensor's kernel gives int64 offsets as the OpDef says)
    kernel_case("UnicodeDecodeWithOffsets", S(*UTF8[:8]).reshape(2, 2, 2), input_encoding="utf8")
    kernel_case("UnicodeDecode", np.zeros((0,), object), input_encoding="UTF-8")
    kernel_case("UnicodeDecode", np.zeros((2, 0), object), input_encoding="UTF-16-BE")
    kernel_case("UnicodeDecode", breadth.bytes_scalar("ŝcalar".encode()), input_encoding="UTF-8")
    kernel_case("UnicodeDecode", S("a\x01b"), input_encoding="UTF-8", errors="strict", replace_control_characters=True)
    kernel_case("UnicodeTranscode", S(*UTF8[:6]).reshape(2, 3), input_encoding="UTF-8", output_encoding="UTF-8",
                replacement_char=0x41)  # fmt: skip
    kernel_case("UnicodeTranscode", np.zeros((0, 2), object), input_encoding="UTF-8", output_encoding="UTF-32-BE")
    for encoding in ("UTF-16BE", "utf-32-be", "nonsense"):
        kernel_case("UnicodeDecode", S(b"\x00\x00\x00a"), input_encoding=encoding)
        kernel_case("UnicodeTranscode", S(b"\x00\x00\x00a"), input_encoding=encoding, output_encoding="UTF-8")
    for replacement in (-1, 0x110000, 0xD800, 0x10FFFF, 1):
        kernel_case("UnicodeDecode", S(b"a\xff"), input_encoding="UTF-8", replacement_char=replacement)
        kernel_case("UnicodeTranscode", S(b"a\xff"), input_encoding="UTF-8", output_encoding="UTF-8",
                    replacement_char=replacement)  # fmt: skip
        kernel_case("UnicodeEncode", np.array([97, -1], np.int32), np.array([0, 2], np.int64),
                    output_encoding="UTF-8", replacement_char=replacement)  # fmt: skip
    # UnicodeEncode
    codepoints = np.array([72, 0xE9, 0x20AC, 0x1F60A, 0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF,
                           0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFFFE, 0xFDD0, 0x110000, -1, -(2**31), 2**31 - 1,
                           0x1F, 65], np.int32)  # fmt: skip
    splits = np.array([0, 4, 4, 12, 16, 20, 22, 24], np.int64)
    for errors in ("replace", "ignore"):
        for out in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
            kernel_case("UnicodeEncode", codepoints, splits, errors=errors, output_encoding=out)
            kernel_case("UnicodeEncode", codepoints, splits.astype(np.int32), errors=errors, output_encoding=out,
                        replacement_char=0xDC01)  # fmt: skip
    for row in range(len(splits) - 1):
        kernel_case("UnicodeEncode", codepoints[splits[row] : splits[row + 1]],
                    np.array([0, splits[row + 1] - splits[row]], np.int64), errors="strict",
                    output_encoding="UTF-8")  # fmt: skip
    kernel_case("UnicodeEncode", np.zeros((0,), np.int32), np.array([0, 0, 0], np.int64), output_encoding="UTF-8")
    kernel_case("UnicodeEncode", np.zeros((0,), np.int32), np.array([0], np.int32), output_encoding="UTF-16-BE")
    for bad_splits in ([], [1, 3], [0, 2], [0, 2, 1, 3], [0, 4, 3], [0, 3, 3, 4]):
        kernel_case("UnicodeEncode", np.array([97, 98, 99], np.int32), np.array(bad_splits, np.int64),
                    output_encoding="UTF-8")  # fmt: skip
    kernel_case("UnicodeEncode", np.array([97, 0x110000, 98], np.int32), np.array([0, 4, 3], np.int64),
                errors="strict", output_encoding="UTF-8")  # fmt: skip
    # UnicodeScript
    kernel_case("UnicodeScript", codepoints)
    kernel_case("UnicodeScript", np.arange(0, 0x3000, 7, dtype=np.int32)[:1752].reshape(-1, 8))
    kernel_case("UnicodeScript", np.arange(0x1F000, 0x10FFFF, 4099, dtype=np.int32))
    kernel_case("UnicodeScript", np.int32(0x3042))
    kernel_case("UnicodeScript", np.zeros((0, 3), np.int32))
    # StringLength's UTF8_CHAR unit (TF counts every byte that is not a continuation byte)
    kernel_case("StringLength", inputs["UTF-8"], unit="UTF8_CHAR")
    kernel_case("StringLength", inputs["UTF-16-BE"].reshape(3, 4), unit="UTF8_CHAR")
    # shapes
    for op in ("UnicodeDecode", "UnicodeDecodeWithOffsets"):
        for shape in ([U, 3], [2, 3], [], None, [0, U], [4]):
            shape_case(op, P(shape, "string"), input_encoding="UTF-8")
    for values, splits in (([U], [4]), ([7], [U]), (None, None), ([2, 2], [3]), ([3], [2, 2]), ([3], [0]),
                           ([3], [])):  # fmt: skip
        shape_case("UnicodeEncode", P(values, "int32"), P(splits, "int64"), output_encoding="UTF-8")
    for shape in ([U, 3], None, []):
        shape_case("UnicodeTranscode", P(shape, "string"), input_encoding="UTF-8", output_encoding="UTF-16-BE")
        shape_case("UnicodeScript", P(shape, "int32"))
    shape_case("UnicodeEncode", P([4], "int32"), C([0, 1, 4], "int64"), output_encoding="UTF-8")
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_unicode.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
