"""Record what TensorFlow's ``tf.strings.as_string`` (``tf.as_string``), ``tf.strings.reduce_join`` and
``tf.strings.bytes_split`` (StringSplit) build and compute, for modtensor's front-end and kernel tests (and
``tf.strings.split`` of tensors of rank 2 and more: RaggedTensors of several ragged dimensions).

    /work/tfvenv/bin/python tools/make_golden_namespace_strings.py

The sibling of ``tools/make_golden_namespace_core.py`` (same snippet format and records, the functions of
``tools/make_golden_frontend_ops.py`` reused): AsString's printf-style formats over every dtype modtensor has
(ints, floats with nan/inf/-0/denormals, bool, complex, string; precision, scientific, shortest, width, fill) and
its errors, ReduceJoin's axes (None, negative, several, empty), keepdims, separators, empty inputs and its errors,
in graphs (TF's nodes and static shapes) and eagerly. Writes ``tests/golden/namespace_strings/``
(``graph_cases.json``, ``eager_cases.json``), read by ``tests/api/test_namespace_strings_golden.py``, and under
``ops/`` the files ``tools/make_golden_op_breadth.py`` writes (OpDefs, CPU kernel constraints, shape and kernel
cases) for AsString and ReduceJoin.
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

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "namespace_strings"

FLOATS = "[0.0, -0.0, 1.5, -2.25, 1e10, 1e-10, 3.14159265358979, 123456789.0, 0.1, 0.5, 2.5, 1e-40, -1e-40]"
SPECIAL = "[float('nan'), -float('nan'), float('inf'), -float('inf')]"
A2 = "tf.constant([['a', 'b'], ['c', 'd']])"
B3 = "tf.reshape(tf.strings.as_string(tf.range(24)), [2, 3, 4])"
M2 = "tf.constant([['ab', 'c'], ['', 'def']])"
M3 = "tf.constant([['a b', 'c'], ['d', 'e f g'], ['', 'h']])"

# (case id, snippet, modes) as in make_golden_frontend_ops.py; ids start with "nsstr_".
CASES: list[tuple[str, str, str]] = [
    # ------------------------------------------------------------------ as_string: floats
    ("nsstr_as_string_float", f"tf.strings.as_string(tf.constant({FLOATS}))", "ge"),
    ("nsstr_as_string_float_special", f"tf.strings.as_string(tf.constant({SPECIAL}))", "e"),
    ("nsstr_as_string_double", f"tf.as_string(tf.constant({FLOATS} + [1e300, 5e-324, -5e-324], tf.float64))", "ge"),
    ("nsstr_as_string_half", f"tf.strings.as_string(tf.cast(tf.constant({FLOATS} + [6e-8, 65504.0]), tf.float16))",
     "e"),
    ("nsstr_as_string_bfloat16", f"tf.strings.as_string(tf.cast(tf.constant({FLOATS}), tf.bfloat16))", "e"),
    ("nsstr_as_string_bfloat16_shortest",
     f"tf.strings.as_string(tf.cast(tf.constant({FLOATS}), tf.bfloat16), shortest=True)", "e"),
    ("nsstr_as_string_shortest", f"tf.strings.as_string(tf.constant({FLOATS} + [1234567.0, 1e-5]), shortest=True)",
     "ge"),
    ("nsstr_as_string_shortest_double",
     f"tf.strings.as_string(tf.constant({FLOATS} + [1e300, 5e-324], tf.float64), shortest=True)", "e"),
    ("nsstr_as_string_scientific", f"tf.strings.as_string(tf.constant({FLOATS}), scientific=True)", "ge"),
    ("nsstr_as_string_scientific_double",
     f"tf.strings.as_string(tf.constant({FLOATS} + [1e300, 1e-300], tf.float64), scientific=True, precision=10)",
     "e"),
    ("nsstr_as_string_precision", f"tf.strings.as_string(tf.constant({FLOATS}), precision=3)", "ge"),
    ("nsstr_as_string_precision_0", f"tf.strings.as_string(tf.constant({FLOATS}), precision=0)", "e"),
    ("nsstr_as_string_precision_0_scientific",
     f"tf.strings.as_string(tf.constant({FLOATS}), precision=0, scientific=True)", "e"),
    ("nsstr_as_string_precision_shortest", f"tf.strings.as_string(tf.constant({FLOATS}), precision=2, shortest=True)",
     "e"),
    ("nsstr_as_string_precision_negative", "tf.strings.as_string(tf.constant([1.0, 2.5]), precision=-7)", "e"),
    ("nsstr_as_string_precision_large", "tf.strings.as_string(tf.constant([1.0, 0.1], tf.float64), precision=60)",
     "e"),
    ("nsstr_as_string_width", f"tf.strings.as_string(tf.constant({FLOATS} + {SPECIAL}), width=12)", "e"),
    ("nsstr_as_string_width_zero_fill",
     f"tf.strings.as_string(tf.constant({FLOATS} + {SPECIAL}), width=12, fill='0')", "e"),
    ("nsstr_as_string_width_small", "tf.strings.as_string(tf.constant([1.5, -2.0]), width=3, fill='0', precision=1)",
     "e"),
    ("nsstr_as_string_width_zero", "tf.strings.as_string(tf.constant([1.5, -2.0]), width=0)", "e"),
    ("nsstr_as_string_width_negative", "tf.strings.as_string(tf.constant([1.5, -2.0]), width=-4)", "e"),
    ("nsstr_as_string_fill_space_no_width", f"tf.strings.as_string(tf.constant([1.0, -2.5] + {SPECIAL}), fill=' ')",
     "e"),
    ("nsstr_as_string_fill_plus", f"tf.strings.as_string(tf.constant([1.0, -2.5, 100.0] + {SPECIAL}), fill='+', "
     "width=10)", "e"),
    ("nsstr_as_string_fill_minus", f"tf.strings.as_string(tf.constant([1.0, -2.5, 100.0] + {SPECIAL}), fill='-', "
     "width=10, shortest=True)", "e"),
    ("nsstr_as_string_fill_hash_shortest",
     "tf.strings.as_string(tf.constant([1.0, -2.5, 100.0, 1e-5, 0.0001], tf.float64), fill='#', shortest=True)", "e"),
    ("nsstr_as_string_fill_hash_precision_0",
     "tf.strings.as_string(tf.constant([1.0, -2.5]), fill='#', precision=0)", "e"),
    ("nsstr_as_string_fill_zero_scientific",
     "tf.strings.as_string(tf.constant([1.0, -2.5]), fill='0', width=15, scientific=True)", "e"),
    ("nsstr_as_string_float_2d_ph", "tf.strings.as_string(ph(tf.float32, [None, 3]), precision=2)", "g"),
    ("nsstr_as_string_named", "tf.strings.as_string(tf.constant([[1.0], [2.0]]), name='fmt')", "g"),
    # ------------------------------------------------------------------ as_string: ints, bool, complex, strings
    *[(f"nsstr_as_string_{dt}", f"tf.strings.as_string(tf.constant([tf.{dt}.min, 0, 7, tf.{dt}.max], tf.{dt}))", "e")
      for dt in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")],
    ("nsstr_as_string_int_ph", "tf.as_string(ph(tf.int64, [2, None]))", "g"),
    ("nsstr_as_string_int_width", "tf.strings.as_string(tf.constant([-5, 0, 123456, -123456]), width=5)", "ge"),
    ("nsstr_as_string_int_width_zero", "tf.strings.as_string(tf.constant([-5, 0, 123456]), width=5, fill='0')", "e"),
    ("nsstr_as_string_int_fill_minus", "tf.strings.as_string(tf.constant([-5, 0, 12], tf.int64), width=4, fill='-')",
     "e"),
    ("nsstr_as_string_int_fill_plus", "tf.strings.as_string(tf.constant([-5, 0, 12], tf.uint8), fill='+')", "e"),
    ("nsstr_as_string_int_fill_space", "tf.strings.as_string(tf.constant([-5, 0, 12]), fill=' ')", "e"),
    ("nsstr_as_string_uint_fill_space", "tf.strings.as_string(tf.constant([5, 0], tf.uint32), fill=' ', width=3)",
     "e"),
    ("nsstr_as_string_int_fill_hash", "tf.strings.as_string(tf.constant([-5, 0, 12]), fill='#', width=3)", "e"),
    ("nsstr_as_string_bool", "tf.strings.as_string(tf.constant([[True, False], [False, True]]))", "ge"),
    ("nsstr_as_string_bool_width", "tf.strings.as_string(tf.constant([True, False]), width=8, fill='0')", "e"),
    ("nsstr_as_string_complex64",
     "tf.strings.as_string(tf.constant([1 + 2j, -1.5 + 0j, complex(float('nan'), -float('inf')), 1e-40 + 1e10j], "
     "tf.complex64))", "e"),
    ("nsstr_as_string_complex128_shortest",
     "tf.strings.as_string(tf.constant([1 + 2j, -1.5 + 0.25j, 5e-324j], tf.complex128), shortest=True)", "e"),
    ("nsstr_as_string_complex_width",
     "tf.strings.as_string(tf.constant([1 + 2j, -1.5 - 3j], tf.complex64), width=12, fill='0', precision=2)", "e"),
    ("nsstr_as_string_complex_fill_minus",
     "tf.strings.as_string(tf.constant([1 + 2j, -1.5 - 3j], tf.complex128), width=10, fill='-')", "e"),
    ("nsstr_as_string_string", "tf.strings.as_string(tf.constant(['abcdef', 'x', '']))", "ge"),
    ("nsstr_as_string_string_width",
     "tf.strings.as_string(tf.constant(['abcdef', 'x', '', 'caf\\u00e9']), width=5, precision=2)", "e"),
    ("nsstr_as_string_string_fill_minus", "tf.strings.as_string(tf.constant(['abcdef', 'x']), width=4, fill='-')",
     "e"),
    ("nsstr_as_string_string_fill_zero", "tf.strings.as_string(tf.constant(['abcdef', 'x']), width=4, fill='0')", "e"),
    ("nsstr_as_string_string_shortest", "tf.strings.as_string(tf.constant(['ab']), shortest=True)", "e"),
    ("nsstr_as_string_scalar", "tf.strings.as_string(2.5)", "ge"),
    ("nsstr_as_string_empty", "tf.strings.as_string(tf.zeros([2, 0]))", "ge"),
    # ------------------------------------------------------------------ as_string: errors
    ("nsstr_as_string_err_sci_shortest", "tf.strings.as_string(tf.constant([1.0]), scientific=True, shortest=True)",
     "e"),
    ("nsstr_as_string_err_fill_long", "tf.strings.as_string(tf.constant([1.0]), fill='ab', width=4)", "e"),
    ("nsstr_as_string_err_fill_utf8", "tf.strings.as_string(tf.constant(['ab']), fill='\\u00e9', width=4)", "e"),
    ("nsstr_as_string_err_fill_bad", "tf.strings.as_string(tf.constant([1.0]), fill='x', width=4)", "e"),
    ("nsstr_as_string_err_fill_percent", "tf.strings.as_string(tf.constant([1]), fill='%', width=4)", "e"),
    ("nsstr_as_string_err_int_precision", "tf.strings.as_string(tf.constant([1], tf.int8), precision=2)", "e"),
    ("nsstr_as_string_err_int_scientific", "tf.strings.as_string(tf.constant([1], tf.uint64), scientific=True)", "e"),
    ("nsstr_as_string_err_int_shortest_first",
     "tf.strings.as_string(tf.constant([1]), shortest=True, precision=2, fill='xy')", "e"),
    ("nsstr_as_string_err_int_precision_first", "tf.strings.as_string(tf.constant([1]), precision=2, fill='xy')",
     "e"),
    ("nsstr_as_string_err_bool_precision", "tf.strings.as_string(tf.constant([True]), precision=1)", "e"),
    ("nsstr_as_string_err_bool_shortest", "tf.strings.as_string(tf.constant([True]), shortest=True)", "e"),
    ("nsstr_as_string_err_fill_long_first",
     "tf.strings.as_string(tf.constant([1.0]), fill='xy', scientific=True, shortest=True)", "e"),
    ("nsstr_as_string_err_sci_shortest_before_fill",
     "tf.strings.as_string(tf.constant(['a']), fill='x', scientific=True, shortest=True)", "e"),
    # ------------------------------------------------------------------ reduce_join
    ("nsstr_reduce_join_all", f"tf.strings.reduce_join({A2})", "ge"),
    ("nsstr_reduce_join_all_sep", f"tf.strings.reduce_join({A2}, separator='-')", "e"),
    ("nsstr_reduce_join_all_keepdims", f"tf.strings.reduce_join({A2}, keepdims=True)", "ge"),
    ("nsstr_reduce_join_axis0", f"tf.strings.reduce_join({A2}, 0, separator=', ')", "ge"),
    ("nsstr_reduce_join_axis1", f"tf.strings.reduce_join({A2}, axis=1)", "e"),
    ("nsstr_reduce_join_axis_neg", f"tf.strings.reduce_join({A2}, -2, keepdims=True)", "ge"),
    ("nsstr_reduce_join_axes_01", f"tf.strings.reduce_join({A2}, [0, 1], separator='-')", "ge"),
    ("nsstr_reduce_join_axes_10", f"tf.strings.reduce_join({A2}, [1, 0], separator='-')", "e"),
    ("nsstr_reduce_join_axes_neg", f"tf.strings.reduce_join({A2}, [-1, 0], keepdims=True)", "e"),
    ("nsstr_reduce_join_axes_empty", f"tf.strings.reduce_join({A2}, [], separator='-')", "ge"),
    ("nsstr_reduce_join_axes_tensor", f"tf.strings.reduce_join({A2}, tf.constant([1]))", "ge"),
    ("nsstr_reduce_join_3d_02", f"tf.strings.reduce_join({B3}, [0, 2], separator='.')", "ge"),
    ("nsstr_reduce_join_3d_20", f"tf.strings.reduce_join({B3}, [2, 0], separator='.')", "e"),
    ("nsstr_reduce_join_3d_120", f"tf.strings.reduce_join({B3}, [1, 2, 0], separator='.', keepdims=True)", "e"),
    ("nsstr_reduce_join_3d_all", f"tf.strings.reduce_join({B3}, separator='.')", "e"),
    ("nsstr_reduce_join_scalar", "tf.strings.reduce_join('x')", "ge"),
    ("nsstr_reduce_join_scalar_keepdims", "tf.strings.reduce_join('x', [], keepdims=True)", "e"),
    ("nsstr_reduce_join_empty_all", "tf.strings.reduce_join(tf.zeros([2, 0], tf.string), separator='-')", "e"),
    ("nsstr_reduce_join_empty_axis0", "tf.strings.reduce_join(tf.zeros([2, 0], tf.string), 0, keepdims=True)", "e"),
    ("nsstr_reduce_join_empty_axis1", "tf.strings.reduce_join(tf.zeros([2, 0], tf.string), 1, separator='-')", "e"),
    ("nsstr_reduce_join_named", f"tf.strings.reduce_join({A2}, 1, name='rj')", "g"),
    ("nsstr_reduce_join_ph", "tf.strings.reduce_join(ph(tf.string, [None, 3, 4]), [0, -1])", "g"),
    ("nsstr_reduce_join_ph_keepdims", "tf.strings.reduce_join(ph(tf.string, [None, 3]), 1, keepdims=True)", "g"),
    ("nsstr_reduce_join_ph_all", "tf.strings.reduce_join(ph(tf.string, [None, 3]))", "g"),
    ("nsstr_reduce_join_ph_unknown_rank", "tf.strings.reduce_join(ph(tf.string))", "g"),
    ("nsstr_reduce_join_ph_axis", "tf.strings.reduce_join(ph(tf.string, [2, 3]), ph(tf.int32, [None]))", "g"),
    ("nsstr_reduce_join_ph_axis_keepdims",
     "tf.strings.reduce_join(ph(tf.string, [2, 3]), ph(tf.int32, [None]), keepdims=True)", "g"),
    ("nsstr_reduce_join_err_axis", f"tf.strings.reduce_join({A2}, 2)", "ge"),
    ("nsstr_reduce_join_err_axis_neg", f"tf.strings.reduce_join({A2}, [0, -3])", "e"),
    ("nsstr_reduce_join_err_scalar_axis", "tf.strings.reduce_join('x', 0)", "e"),
    ("nsstr_reduce_join_err_duplicate", f"tf.strings.reduce_join({A2}, [1, -1])", "e"),
    ("nsstr_reduce_join_err_duplicate_first", f"tf.strings.reduce_join({A2}, [0, 0, 5])", "e"),
    ("nsstr_reduce_join_err_int64_axis", f"tf.strings.reduce_join({A2}, tf.constant(0, tf.int64))", "e"),
    ("nsstr_reduce_join_err_not_string", "tf.strings.reduce_join(tf.constant([1, 2]))", "ge"),
    # ------------------------------------------------------------------ bytes_split (StringSplit, empty delimiter)
    # (eagerly: TF builds its RaggedTensor through RaggedFromValueRowIds' nodes, modtensor through its own)
    ("nsstr_bytes_split_vector", "tf.strings.bytes_split(['', 'ab', 'hello']).values", "e"),
    ("nsstr_bytes_split_vector_splits", "tf.strings.bytes_split(tf.constant(['ab', '', 'xyz'])).row_splits", "e"),
    ("nsstr_bytes_split_scalar", "tf.strings.bytes_split('abc')", "e"),
    ("nsstr_bytes_split_empty_scalar", "tf.strings.bytes_split('')", "e"),
    ("nsstr_bytes_split_function",
     "@tf.function\ndef f(s):\n  return tf.strings.bytes_split(s).values\nf(tf.constant(['ab', 'c']))", "e"),
    ("nsstr_bytes_split_err_not_string", "tf.strings.bytes_split(tf.constant([1, 2]))", "ge"),
    # rank 2 and more: a RaggedTensor of one more rank, the input's dimensions outside (uniform rows)
    ("nsstr_bytes_split_matrix", f"tf.strings.bytes_split({M2}).to_tensor()", "e"),
    ("nsstr_bytes_split_matrix_splits", f"tf.strings.bytes_split({M2}).nested_row_splits[1]", "e"),
    ("nsstr_split_matrix_flat_values", f"tf.strings.split({M3}).flat_values", "e"),
    ("nsstr_split_matrix_row_splits", f"tf.strings.split({M3}).row_splits", "e"),
    ("nsstr_split_matrix_inner_splits", f"tf.strings.split({M3}).values.row_splits", "e"),
    ("nsstr_split_matrix_to_tensor", f"tf.strings.split({M3}).to_tensor('-')", "e"),
    ("nsstr_split_matrix_ragged_rank", f"tf.constant(tf.strings.split({M3}).ragged_rank)", "e"),
    ("nsstr_split_matrix_shape", f"tf.constant(tf.strings.split({M3}).shape.as_list()[:2])", "e"),
    ("nsstr_split_matrix_row_lengths", f"tf.strings.split({M3}).values.row_lengths()", "e"),
    ("nsstr_split_rank3_to_tensor", "tf.strings.split(tf.constant([[['a b', 'c']], [['', 'd e f']]])).to_tensor()",
     "e"),
    ("nsstr_split_rank3_splits", "tf.strings.split(tf.constant([[['a b', 'c']], [['', 'd e f']]]), sep=' ')"
     ".nested_row_splits[2]", "e"),
    ("nsstr_split_empty_matrix", "tf.strings.split(tf.constant([[], []], tf.string)).to_tensor()", "e"),
    ("nsstr_split_matrix_function",
     f"@tf.function\ndef f(s):\n  return tf.strings.split(s).to_tensor()\nf({M3})", "e"),
    ("nsstr_string_split_raw",
     "tf.raw_ops.StringSplit(input=['a,b,,c', ' x y ', ''], delimiter=', ', skip_empty=False)", "ge"),
    ("nsstr_string_split_raw_skip",
     "tf.raw_ops.StringSplit(input=['a,b,,c', ' x y '], delimiter=', ')", "ge"),
    ("nsstr_string_split_raw_err_rank", "tf.raw_ops.StringSplit(input=[['a']], delimiter=',')", "ge"),
    ("nsstr_string_split_raw_err_delimiter", "tf.raw_ops.StringSplit(input=['a'], delimiter=[','])", "ge"),
]  # fmt: skip


OPS = ["AsString", "ReduceJoin", "StringSplit"]


def S(*values: str) -> np.ndarray:  # noqa: N802 - as make_golden_op_breadth.py's
    return np.array([v.encode() for v in values], dtype=object)


def write_op_goldens() -> int:
    """The op-breadth goldens of AsString and ReduceJoin, with make_golden_op_breadth.py's writers."""
    P, C, shape_case, kernel_case = breadth.P, breadth.C, breadth.shape_case, breadth.kernel_case
    breadth.OUT = OUT / "ops"
    breadth.OUT.mkdir(parents=True, exist_ok=True)
    breadth.GENERATOR = "tools/make_golden_namespace_strings.py"
    breadth.OPS, breadth.KERNEL_ONLY = list(OPS), []
    breadth.SHAPE_CASES.clear()
    breadth.KERNEL_CASES.clear()
    floats = np.array([0.0, -0.0, 1.5, -2.25, 1e10, 1e-10, np.pi, np.nan, -np.nan, np.inf, -np.inf, 123456789.0,
                       1e300, 5e-324, 0.1, 0.5, 2.5, 1e-40])  # fmt: skip
    for dtype in (np.float32, np.float64, np.float16):
        with np.errstate(over="ignore"):
            x = floats.astype(dtype)
        for attrs in ({}, {"shortest": True}, {"scientific": True}, {"precision": 3}, {"precision": 0},
                      {"precision": 2, "shortest": True}, {"precision": 1, "scientific": True}, {"width": 12},
                      {"width": 12, "fill": "0"}, {"width": 14, "fill": "-"}, {"fill": "+"}, {"fill": " ", "width": 5},
                      {"fill": "#", "shortest": True}, {"fill": "#", "precision": 0}):  # fmt: skip
            kernel_case("AsString", x, **attrs)
    with np.errstate(over="ignore"):
        kernel_case("AsString", floats.astype(np.float32).reshape(2, 9), precision=4, width=10)
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        info = np.iinfo(dtype)
        x = np.array([info.min, 0, 7, 42 if info.min == 0 else -42, info.max], dtype)
        for attrs in ({}, {"width": 6}, {"width": 6, "fill": "0"}, {"width": 6, "fill": "-"}, {"fill": "+"},
                      {"fill": " "}, {"fill": "#", "width": 3}, {"precision": 1}, {"scientific": True},
                      {"shortest": True}):  # fmt: skip
            kernel_case("AsString", x, **attrs)
    b = np.array([[True, False], [False, True]])
    for attrs in ({}, {"width": 8, "fill": "0"}, {"precision": 2}, {"shortest": True}, {"fill": "xy"}, {"fill": "x"}):
        kernel_case("AsString", b, **attrs)
    c = np.array([1 + 2j, -1.5 + 0.25j, complex(np.nan, -np.inf), 1e-40 + 1e10j])
    for dtype in (np.complex64, np.complex128):
        for attrs in ({}, {"shortest": True}, {"scientific": True, "precision": 2}, {"width": 12, "fill": "0"},
                      {"width": 10, "fill": "-"}, {"fill": "+"}):  # fmt: skip
            kernel_case("AsString", c.astype(dtype), **attrs)
    s = S("abcdef", "x", "", "café")
    for attrs in ({}, {"width": 5}, {"width": 5, "fill": "-"}, {"width": 5, "fill": "0"}, {"width": 5, "fill": "+"},
                  {"precision": 2}, {"scientific": True}, {"width": 0}, {"width": 0, "precision": 1},
                  {"width": 3, "precision": 0}, {"width": 6, "precision": 5, "fill": "-"}):  # fmt: skip
        kernel_case("AsString", s, **attrs)
    one = np.array([1.0], np.float32)
    for attrs in ({"scientific": True, "shortest": True}, {"fill": "ab"}, {"fill": "é"}, {"fill": "x"},
                  {"fill": "%", "width": 3}, {"fill": "\t"}, {"fill": "xy", "scientific": True, "shortest": True},
                  {"fill": "x", "scientific": True, "shortest": True}):  # fmt: skip
        kernel_case("AsString", one, **attrs)
    kernel_case("AsString", np.float64(2.5))
    kernel_case("AsString", np.zeros((2, 0), np.float32))
    shape_case("AsString", P([None, 3], "float32"))
    shape_case("AsString", P(None, "int64"))
    shape_case("AsString", P([2], "bool"), width=3)

    a2 = S("a", "b", "c", "d").reshape(2, 2)
    b3 = S(*(str(i) for i in range(24))).reshape(2, 3, 4)
    i32 = np.int32
    for axes in ([0], [1], [-1], [-2], [0, 1], [1, 0], [-1, 0], [], 0, -1):
        for keep_dims in (False, True):
            kernel_case("ReduceJoin", a2, np.array(axes, i32), keep_dims=keep_dims, separator="-")
    for axes in ([0, 2], [2, 0], [1, 2, 0], [2], [-1, -3], [2, 1, 0]):
        kernel_case("ReduceJoin", b3, np.array(axes, i32), separator=".")
        kernel_case("ReduceJoin", b3, np.array(axes, i32), keep_dims=True)
    empty = np.zeros((2, 0), dtype=object)
    for axes in ([0], [1], [1, 0], [0, 1], []):
        for keep_dims in (False, True):
            kernel_case("ReduceJoin", empty, np.array(axes, i32), keep_dims=keep_dims, separator="-")
    kernel_case("ReduceJoin", np.array(b"x", object), np.array([], i32))
    kernel_case("ReduceJoin", np.array(b"x", object), np.array([], i32), keep_dims=True)
    kernel_case("ReduceJoin", a2, np.array([[0]], i32))
    kernel_case("ReduceJoin", S("ab", "", "c"), np.array(0, i32), separator=", ")
    for axes in ([0, 0], [1, -1], [0, 0, 5], [-2, 0]):  # duplicates (TF's out-of-range errors: in the snippets)
        kernel_case("ReduceJoin", a2, np.array(axes, i32))
    shape_case("ReduceJoin", P([2, 3, 4], "string"), C([0, 2], "int32"))
    shape_case("ReduceJoin", P([2, 3, 4], "string"), C([-1], "int32"), keep_dims=True)
    shape_case("ReduceJoin", P([None, 3], "string"), C([], "int32"))
    shape_case("ReduceJoin", P([None, 3], "string"), C(1, "int32"))
    shape_case("ReduceJoin", P([2, 3], "string"), C([2], "int32"))
    shape_case("ReduceJoin", P([2, 3], "string"), C([0, 0], "int32"))
    shape_case("ReduceJoin", P([2, 3], "string"), P([None], "int32"))
    shape_case("ReduceJoin", P([2, 3], "string"), P([None], "int32"), keep_dims=True)
    shape_case("ReduceJoin", P(None, "string"), C([0], "int32"))
    shape_case("ReduceJoin", P([2, 3], "string"), P([1, 1], "int32"))
    for strings, delimiter in ((S("a,b,,c", " x y ", "", ","), ", "), (S("ab", "", "h\u00e9"), ""), (S(), ","),
                               (S("aaa"), "a"), (S("a b"), "")):  # fmt: skip
        for skip in (False, True):
            kernel_case("StringSplit", strings, np.array(delimiter.encode(), object), skip_empty=skip)
    kernel_case("StringSplit", S("a", "b").reshape(2, 1), np.array(b",", object))
    kernel_case("StringSplit", S("a"), S(","))
    shape_case("StringSplit", P([None], "string"), P([], "string"))
    shape_case("StringSplit", P([None, 2], "string"), P([], "string"))
    shape_case("StringSplit", P([3], "string"), P([1], "string"))
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_namespace_strings.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
