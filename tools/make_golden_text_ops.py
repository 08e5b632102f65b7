"""Record what TensorFlow's text ops build and compute: ``tf.strings.strip``, ``ngrams``, ``regex_full_match``,
``to_hash_bucket``, ``to_hash_bucket_strong``, ``unsorted_segment_join``, ``tf.io.encode_base64``/``decode_base64``,
``tf.fingerprint`` and ``tf.raw_ops.Bucketize``.

    /work/tfvenv/bin/python tools/make_golden_text_ops.py

Writes ``tests/golden/text_ops/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets, ids ``textop_...``, read
by ``tests/api/test_text_ops_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py`` writes
(OpDefs, CPU kernel constraints, shape and kernel cases): empty strings and inputs, UTF-8 and undecodable bytes,
every padding and width of the n-grams, the web-safe base64 alphabet with and without padding, hash keys and bucket
counts, fingerprints of every kind of dtype, unsorted boundaries, and every error TF reports.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_breadth  # noqa: E402, F401  (its scalar-bytes encoding of eager values)
import make_golden_frontend_ops as base  # noqa: E402
import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "text_ops"
OPS = ["StringStrip", "StringNGrams", "Bucketize", "Fingerprint", "EncodeBase64", "DecodeBase64",
       "StringToHashBucketStrong", "StringToHashBucket", "RegexFullMatch", "StaticRegexFullMatch",
       "UnsortedSegmentJoin"]  # fmt: skip

WORDS = "tf.constant(['a', 'b', 'c', 'd'])"
SPLIT = "tf.strings.split(tf.constant(['a b c', '', 'd e', 'f']))"

CASES: list[tuple[str, str, str]] = [
    ("textop_strip", "tf.strings.strip(tf.constant([' a b ', '\\t\\n x\\r\\v\\f', '', '   ', 'caf\\u00e9 ']))", "ge"),
    ("textop_strip_matrix", "tf.strings.strip([['  x', 'y  '], ['\\u00a0z\\u00a0', ' ']], name='s')", "ge"),
    ("textop_regex_full_match", "tf.strings.regex_full_match(['abc', 'abcd', '', 'ABC'], 'a.c')", "ge"),
    ("textop_regex_full_match_tensor", "tf.strings.regex_full_match(['aa', 'ab'], tf.constant('a+'))", "ge"),
    ("textop_regex_full_match_unicode", "tf.strings.regex_full_match(['caf\\u00e9', 'cafe', '\\u20ac'], 'caf.|.')",
     "e"),
    ("textop_regex_full_match_alternation", "tf.strings.regex_full_match(['ab', 'abc', 'c'], 'ab|abc|\\\\w')", "e"),
    ("textop_regex_full_match_bad", "tf.strings.regex_full_match(['a'], tf.constant(['a', 'b']))", "ge"),
    ("textop_encode_base64", "tf.io.encode_base64(tf.constant(['hello', '', '\\u00ff\\u00fe?', 'ab']))", "ge"),
    ("textop_encode_base64_pad", "tf.io.encode_base64([['a', 'ab'], ['abc', '>>?']], pad=True)", "ge"),
    ("textop_decode_base64", "tf.io.decode_base64(['aGVsbG8', 'aGVsbG8=', 'YWI=', 'YQ==', '', '-_8'])", "ge"),
    ("textop_base64_roundtrip", "x = tf.constant(['\\x00\\x01', 'text', '\\u00e9'])\n"
     "tf.io.decode_base64(tf.io.encode_base64(x, pad=True))", "e"),
    ("textop_decode_base64_length", "tf.io.decode_base64(['YWJjZ'])", "e"),
    ("textop_decode_base64_char", "tf.io.decode_base64(['YW+i'])", "e"),
    ("textop_to_hash_bucket", "tf.strings.to_hash_bucket(['a', 'b', '', 'hello world'], 1000)", "ge"),
    ("textop_to_hash_bucket_strong", "tf.strings.to_hash_bucket_strong(['a', 'b', '', 'hello'], 1000, [7, 11])",
     "ge"),
    ("textop_to_hash_bucket_strong_key", "tf.strings.to_hash_bucket_strong(['a'], 10, [1, 2, 3])", "e"),
    ("textop_to_hash_bucket_zero", "tf.strings.to_hash_bucket(['a'], 0)", "ge"),
    ("textop_fingerprint", "tf.fingerprint(tf.constant(['a', 'b', '']))", "ge"),
    ("textop_fingerprint_matrix", "tf.fingerprint(tf.constant([[1, 2, 3], [4, 5, 6]], tf.int64))", "ge"),
    ("textop_fingerprint_strings_rows", "tf.fingerprint([['a', 'b'], ['c', 'd']], name='fp')", "e"),
    ("textop_fingerprint_scalar", "tf.fingerprint(tf.constant(1.5))", "ge"),
    ("textop_fingerprint_method", "tf.fingerprint(['a'], method='md5')", "ge"),
    ("textop_segment_join", "tf.strings.unsorted_segment_join(['this', 'is', 'a', 'test'], [0, 0, 1, 1], 2, ' ')",
     "ge"),
    ("textop_segment_join_matrix", "tf.strings.unsorted_segment_join([['Y', 'q', 'c'], ['Y', '6', '6'], "
     "['p', 'G', 'a']], [1, 0, 1], 2, separator=':')", "ge"),
    ("textop_segment_join_empty_parts", "tf.strings.unsorted_segment_join(['', 'a', '', 'b', ''], [0, 0, 0, 0, 1], "
     "3, '-')", "e"),
    ("textop_segment_join_int64", "tf.strings.unsorted_segment_join(['x', 'y'], tf.constant([1, 1], tf.int64), "
     "tf.constant(2, tf.int64))", "ge"),
    ("textop_segment_join_bad_id", "tf.strings.unsorted_segment_join(['a', 'b'], [0, 2], 2)", "e"),
    ("textop_segment_join_negative", "tf.strings.unsorted_segment_join(['a', 'b'], [0, 1], -1)", "e"),
    ("textop_segment_join_rank", "tf.strings.unsorted_segment_join(['a', 'b'], [[0], [1]], 2)", "e"),
    ("textop_segment_join_shape", "tf.strings.unsorted_segment_join(['a', 'b', 'c'], [0, 1], 2)", "ge"),
    ("textop_ngrams", f"tf.strings.ngrams({WORDS}, 2)", "e"),
    ("textop_ngrams_widths", f"tf.strings.ngrams({WORDS}, (1, 3), separator='_')", "e"),
    ("textop_ngrams_pad", f"tf.strings.ngrams({WORDS}, 3, pad_values=('<s>', '</s>'))", "e"),
    ("textop_ngrams_pad_width", f"tf.strings.ngrams({WORDS}, 3, pad_values='#', padding_width=1)", "e"),
    ("textop_ngrams_short", "tf.strings.ngrams(['a', 'b'], 4, pad_values='#', padding_width=1, "
     "preserve_short_sequences=True)", "e"),
    ("textop_ngrams_too_short", "tf.strings.ngrams(['a', 'b'], 3)", "e"),
    ("textop_ngrams_matrix", "tf.strings.ngrams([['a', 'b', 'c'], ['d', 'e', 'f']], (1, 2), pad_values='#')", "e"),
    ("textop_ngrams_rank3", "tf.strings.ngrams(tf.reshape(tf.constant([str(i) for i in range(12)]), [2, 2, 3]), "
     "2, separator='')", "e"),
    ("textop_ngrams_ragged", f"r = tf.strings.ngrams({SPLIT}, 2)\n[r.values, r.row_splits]", "e"),
    ("textop_ngrams_ragged_preserve", f"r = tf.strings.ngrams({SPLIT}, 3, pad_values='.', padding_width=1, "
     "preserve_short_sequences=True)\n[r.values, r.row_splits, r.to_tensor()]", "e"),
    ("textop_ngrams_ragged_rank2", "r = tf.strings.ngrams(tf.strings.split([['a b c', 'd'], ['e f', '']]), 2, "
     "separator='+')\n[r.flat_values, r.values.row_splits, r.to_tensor()]", "e"),
    ("textop_ngrams_empty", "tf.strings.ngrams(tf.constant([], tf.string), 2)", "e"),
    ("textop_ngrams_no_rows", "tf.strings.ngrams(tf.zeros([0, 3], tf.string), 2)", "e"),
    ("textop_ngrams_empty_rows", "tf.strings.ngrams(tf.zeros([2, 0], tf.string), 1)", "e"),
    ("textop_ngrams_scalar", "tf.strings.ngrams('a', 2)", "e"),
    # the reshape that ends n-grams of an empty dense input: TF infers -1 over the non-zero sizes
    ("textop_reshape_empty_infer", "[tf.reshape(tf.zeros([0], tf.string), [0, -1]), tf.reshape(tf.zeros([2, 0]), "
     "[0, -1]), tf.reshape(tf.zeros([0]), [3, 0, -1])]", "e"),
    ("textop_ngrams_zero_width", f"tf.strings.ngrams({WORDS}, 0)", "e"),
    ("textop_ngrams_bad_padding_width", f"tf.strings.ngrams({WORDS}, 2, pad_values='#', padding_width=0)", "e"),
    ("textop_ngrams_padding_without_values", f"tf.strings.ngrams({WORDS}, 2, padding_width=1)", "e"),
    ("textop_ngrams_bad_pad_values", f"tf.strings.ngrams({WORDS}, 2, pad_values=3)", "e"),
    ("textop_bucketize", "tf.raw_ops.Bucketize(input=tf.constant([[-5.0, 0.0], [2.5, 100.0]]), "
     "boundaries=[0.0, 1.0, 2.5, 10.0])", "ge"),
    ("textop_bucketize_int", "tf.raw_ops.Bucketize(input=tf.constant([-3, 0, 5, 7]), boundaries=[0.0, 5.0, 5.0])",
     "ge"),
    ("textop_bucketize_unsorted", "tf.raw_ops.Bucketize(input=tf.constant([1.0]), boundaries=[2.0, 1.0])", "e"),
    ("textop_bucketize_empty", "tf.raw_ops.Bucketize(input=tf.constant([1.0, 2.0]), boundaries=[])", "e"),
]  # fmt: skip


def S(*values: str | bytes) -> np.ndarray:  # noqa: N802
    return breadth.S(*values)


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape and kernel cases) of the text ops."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    I32 = breadth.I32  # noqa: N806
    breadth.begin(OUT / "ops", "tools/make_golden_text_ops.py", OPS)
    text = S("hello world", "  a  b ", "", "x", "tab\tsep\nline", "naïve café", b"\xff\xfe bytes", "€uro", "   ")
    # StringStrip
    kernel_case("StringStrip", text)
    kernel_case("StringStrip", S(" \t\n\v\f\ra\r\f\v\n\t ", "\x00 in", "\xa0nbsp\xa0").reshape(3, 1))
    kernel_case("StringStrip", np.zeros((0, 2), object))
    kernel_case("StringStrip", breadth.bytes_scalar(b"  scalar \n"))
    shape_case("StringStrip", P([U, 3], "string"))
    shape_case("StringStrip", P(None, "string"))
    # RegexFullMatch / StaticRegexFullMatch
    for pattern in ("a.c", "", ".*", "[aeiou ]+", "(\\w+) (\\w+)", "hello|hello world", "\\s+", "naïve.*", ".",
                    "\\d*", "(?i)HELLO.*", "a{2,3}", "[^a]*", "\\xff.*", "^x$", "€.*"):  # fmt: skip
        kernel_case("RegexFullMatch", text, np.array(pattern.encode(), object))
        kernel_case("StaticRegexFullMatch", text, pattern=pattern)
    kernel_case("RegexFullMatch", text.reshape(3, 3), np.array(b"x|", object))
    kernel_case("RegexFullMatch", np.zeros((0,), object), np.array(b"a", object))
    kernel_case("RegexFullMatch", text, S("a", "b"))
    kernel_case("RegexFullMatch", text, np.array(b"(", object), check="message_up_to:error: ")
    kernel_case("StaticRegexFullMatch", text, pattern="a)", check="message_up_to:error: ")
    shape_case("RegexFullMatch", P([2, U], "string"), P([], "string"))
    shape_case("RegexFullMatch", P([2], "string"), P([1], "string"))
    shape_case("StaticRegexFullMatch", P([U, 4], "string"), pattern="a")
    # EncodeBase64 / DecodeBase64
    raw = S(*[bytes((i * 37 + j * 11) % 256 for j in range(n)) for i, n in enumerate(range(0, 13))])
    for pad in (False, True):
        kernel_case("EncodeBase64", raw, pad=pad)
        kernel_case("EncodeBase64", text.reshape(3, 3), pad=pad)
    kernel_case("EncodeBase64", np.zeros((0,), object))
    encoded = S("", "AAE", "AAEC", "aGVsbG8", "aGVsbG8=", "YQ==", "YWI=", "YWJj", "-_-_", "__8", "aGV=",
                "YR", "YR==", "YWJjZA", "YWJjZA==", "YWJjZGU", "YWJjZGU=", "09AZaz-_")  # fmt: skip
    kernel_case("DecodeBase64", encoded)
    kernel_case("DecodeBase64", encoded[:16].reshape(4, 4))  # (no output ends in a NUL: npz would drop it)
    kernel_case("DecodeBase64", np.zeros((2, 0), object))
    for bad in ("a", "abcde", "YW+i", "YW/i", "YWJ=Y", "YQ===", "Y===", "=", "====", "YQ=", "YWJjZA=", "YW Jj",
                "YWJj\n", "aGVsbG8==", "YQ=a", "\xe9abc", "ab=c", "YWJj=", "abc!defg", "abcde!"):  # fmt: skip
        kernel_case("DecodeBase64", S("YWJj", bad))
    for op in ("EncodeBase64", "DecodeBase64"):
        shape_case(op, P([U, 2], "string"))
    # StringToHashBucket (TF's legacy Hash64) and StringToHashBucketStrong (SipHash-2-4)
    # (no NUL bytes: npz would drop trailing ones)
    long_strings = S(*[bytes((i * 7 + j * 13) % 255 + 1 for j in range(n)) for i, n in enumerate(
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 63, 64, 65, 100, 127, 128, 300])])  # fmt: skip
    for buckets in (1, 10, 1000003, 2**62, 2**63 - 1):
        kernel_case("StringToHashBucket", long_strings, num_buckets=buckets)
        kernel_case("StringToHashBucketStrong", long_strings, num_buckets=buckets, key=[0, 0])
    kernel_case("StringToHashBucket", text.reshape(9, 1), num_buckets=97)
    for key in ([1, 2], [2**63 - 1, -1], [-(2**63), 12345], [0x0706050403020100, 0x0F0E0D0C0B0A0908]):
        kernel_case("StringToHashBucketStrong", long_strings, num_buckets=2**63 - 1, key=key)
        kernel_case("StringToHashBucketStrong", text, num_buckets=1000, key=key)
    kernel_case("StringToHashBucketStrong", text, num_buckets=10, key=[1])
    kernel_case("StringToHashBucketStrong", text, num_buckets=10, key=[1, 2, 3])
    kernel_case("StringToHashBucketStrong", text, num_buckets=10, key=[])
    kernel_case("StringToHashBucket", np.zeros((0, 3), object), num_buckets=5)
    shape_case("StringToHashBucket", P([U, 2], "string"), num_buckets=5)
    shape_case("StringToHashBucketStrong", P([3, U], "string"), num_buckets=5, key=[1, 2])
    # Fingerprint
    rng = np.random.default_rng(20261207)
    method = np.array(b"farmhash64", object)
    kernel_case("Fingerprint", text, method)
    kernel_case("Fingerprint", text.reshape(3, 3), method)
    kernel_case("Fingerprint", text.reshape(3, 3, 1), method)
    kernel_case("Fingerprint", text[:8].reshape(2, 2, 2), method)
    kernel_case("Fingerprint", np.zeros((0,), object), method)
    kernel_case("Fingerprint", np.zeros((0, 3), object), method)
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.uint16, np.float16,
                  np.bool_, np.complex64):  # fmt: skip
        data = (rng.standard_normal((4, 3)) * 100).astype(dtype)
        kernel_case("Fingerprint", data, method)
        kernel_case("Fingerprint", data.reshape(4, 3, 1)[:, :1], method)
    kernel_case("Fingerprint", rng.integers(0, 256, (3, 64)).astype(np.uint8), method)
    kernel_case("Fingerprint", np.zeros((0, 4), np.float32), method)
    kernel_case("Fingerprint", np.zeros((3, 0), np.int32), method)
    kernel_case("Fingerprint", np.float32(1), method)
    kernel_case("Fingerprint", text, np.array(b"md5", object))
    kernel_case("Fingerprint", text, S("farmhash64"))
    # (constant methods, which make the second dimension 8, are in the graph snippets: the shape cases' constants
    # are numeric)
    shape_case("Fingerprint", P([U, 3], "float32"), P([], "string"))
    shape_case("Fingerprint", P([5], "string"), P([], "string"))
    shape_case("Fingerprint", P(None, "int32"), P([], "string"))
    shape_case("Fingerprint", P([], "int32"), P([], "string"))
    shape_case("Fingerprint", P([4], "int32"), P([1], "string"))
    # UnsortedSegmentJoin
    words = S("a", "b", "", "cd", "e", "€", "", "f")
    i32, i64 = np.int32, np.int64
    kernel_case("UnsortedSegmentJoin", words, np.array([0, 1, 0, 2, 0, 1, 2, 4], i32), i32(5), separator=", ")
    kernel_case("UnsortedSegmentJoin", words, np.array([0, 1, 0, 2, 0, 1, 2, 4], i64), i64(6))
    kernel_case("UnsortedSegmentJoin", words, np.array([3, 3, 3, 3, 3, 3, 3, 3], i32), i64(4), separator="-")
    kernel_case("UnsortedSegmentJoin", words.reshape(4, 2), np.array([1, 0, 1, 1], i64), i32(2), separator="|")
    kernel_case("UnsortedSegmentJoin", words.reshape(2, 2, 2), np.array([[0, 1], [1, 0]], i32), i32(3), separator="+")
    kernel_case("UnsortedSegmentJoin", words.reshape(2, 2, 2), np.array([[0, 1], [1, 0]], i32), i32(2))
    kernel_case("UnsortedSegmentJoin", np.zeros((0, 2), object), np.zeros((0,), i32), i32(2))
    kernel_case("UnsortedSegmentJoin", words, np.zeros((8,), i32), i32(0))
    kernel_case("UnsortedSegmentJoin", words[:3], np.array([0, 1, 0], i32), i32(1))
    kernel_case("UnsortedSegmentJoin", words[:3], np.array([0, -1, 0], i32), i32(2))
    kernel_case("UnsortedSegmentJoin", words[:3], np.array([0, 1], i32), i32(2))
    kernel_case("UnsortedSegmentJoin", words[:4].reshape(2, 2), np.array([0, 1, 0], i32), i32(2))
    kernel_case("UnsortedSegmentJoin", words[:3], np.array([0, 1, 0], i32), i32(-2))
    kernel_case("UnsortedSegmentJoin", words[:3], np.int32(0), i32(2))
    kernel_case("UnsortedSegmentJoin", words[:3], np.array([0, 1, 0], i32), np.zeros((0,), i32))
    kernel_case("UnsortedSegmentJoin", words[:3], np.array([0, 1, 0], i32), np.array([2, 3], i32))
    shape_case("UnsortedSegmentJoin", P([U, 3], "string"), P([5], I32), C(4, I32))
    shape_case("UnsortedSegmentJoin", P([4, 3], "string"), P([4, 3], "int64"), P([], I32))
    shape_case("UnsortedSegmentJoin", P([4, 3], "string"), P([5], I32), C(2, I32))
    shape_case("UnsortedSegmentJoin", P([4, 3], "string"), P(None, I32), C(2, I32))
    shape_case("UnsortedSegmentJoin", P([4, 3], "string"), P([4], I32), P([2], I32))
    shape_case("UnsortedSegmentJoin", P(None, "string"), P([4], I32), C(3, "int64"))
    # StringNGrams
    tokens = S("a", "b", "c", "d", "e", "€", "", "g", "h", "i")
    splits = np.array([0, 3, 3, 4, 6, 10], np.int64)

    def ngrams(data: np.ndarray, row_splits: Any, widths: list[int], pad: int, preserve: bool = False,
               **attrs: Any) -> None:  # fmt: skip
        attrs = {"separator": " ", "left_pad": "<", "right_pad": ">"} | attrs
        kernel_case("StringNGrams", data, np.asarray(row_splits, np.int64) if isinstance(row_splits, list)
                    else row_splits, ngram_widths=widths, pad_width=pad, preserve_short_sequences=preserve,
                    **attrs)  # fmt: skip

    for widths, pad, preserve in (([1], -1, False), ([2], -1, False), ([2], 0, False), ([3], 1, False),
                                  ([3], 2, False), ([3], 5, False), ([1, 2, 3], -1, False), ([3, 1], 0, False),
                                  ([4], 0, True), ([4], 1, True), ([5], -1, True), ([2, 5], 1, True),
                                  ([], 0, False), ([], 1, True), ([6], 0, True), ([1], 3, True)):  # fmt: skip
        ngrams(tokens, splits, widths, pad, preserve)
    ngrams(tokens, splits.astype(np.int32), [2, 3], -1)
    ngrams(tokens, splits, [3], 2, separator="", left_pad="", right_pad="")
    ngrams(tokens, [0, 10], [10, 11], 0)
    ngrams(np.zeros((0,), object), [0, 0, 0], [2], -1)
    ngrams(np.zeros((0,), object), np.zeros((0,), np.int64), [2], -1)
    ngrams(tokens, np.zeros((0,), np.int64), [2], -1)
    ngrams(tokens, [0, 4, 4, 6], [6], -1, True)
    ngrams(tokens, [0, 4, 4, 10], [12], -1, True)
    for bad_splits in ([1, 10], [0, 5, 4, 10], [0, 11], [0, 4, 9], [0, 4, 12, 10]):
        ngrams(tokens, bad_splits, [2], -1)
    ngrams(tokens, splits, [2, 0], -1)
    ngrams(tokens, splits, [12], -1, True)
    ngrams(tokens, splits, [], -1, True)
    for data, row_splits in ((P([U], "string"), P([U], "int64")), (P(None, "string"), P([4], "int32")),
                             (P([2, 3], "string"), P([3], "int64")),
                             (P([6], "string"), P([2, 2], "int64"))):  # fmt: skip
        shape_case("StringNGrams", data, row_splits, separator=" ", ngram_widths=[2], left_pad="", right_pad="",
                   pad_width=-1, preserve_short_sequences=False)  # fmt: skip
    # Bucketize
    values = np.array([-np.inf, -10, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3, 100, np.inf, np.nan, -0.0], np.float64)
    bounds = [-1.0, 0.0, 1.0, 1.0, 2.5, 3.0]
    for dtype in (np.float32, np.float64):
        kernel_case("Bucketize", values.astype(dtype), boundaries=bounds)
        kernel_case("Bucketize", values.astype(dtype).reshape(2, 7), boundaries=[0.1])
    for dtype in (np.int32, np.int64):
        kernel_case("Bucketize", np.array([-5, -1, 0, 1, 2, 3, 4], dtype), boundaries=bounds)
    big = np.array([16777215, 16777216, 16777217, 16777218, 2**40 + 1, -(2**40)], np.int64)
    kernel_case("Bucketize", big, boundaries=[16777216.0, 16777217.0, 2.0**40])
    kernel_case("Bucketize", big.astype(np.int32)[:4], boundaries=[16777216.0, 16777217.0])
    kernel_case("Bucketize", np.array([0.1, 0.10000001, 1e-40, 3.4e38], np.float64), boundaries=[1e-40, 0.1])
    kernel_case("Bucketize", np.array([1.0, np.nan], np.float32), boundaries=[])
    kernel_case("Bucketize", np.zeros((0, 3), np.float32), boundaries=[1.0])
    kernel_case("Bucketize", np.float32(2.0), boundaries=[1.0, 3.0])
    kernel_case("Bucketize", np.array([1.0], np.float32), boundaries=[1.0, 0.5])
    kernel_case("Bucketize", np.array([1, 2], np.int32), boundaries=[0.0, np.nan, 1.0])
    shape_case("Bucketize", P([U, 4]), boundaries=[1.0, 2.0])
    shape_case("Bucketize", P(None, "int64"), boundaries=[])
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_text_ops.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
