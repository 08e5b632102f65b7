"""Record what TensorFlow's ``tf.io.decode_csv`` builds and computes.

    /work/tfvenv/bin/python tools/make_golden_csv.py

Writes ``tests/golden/csv/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets, ids ``csv_...``, read by
``tests/api/test_csv_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py`` writes (OpDef, CPU
kernel constraints, shape and kernel cases) for DecodeCSV: every column type, quoting on and off, escaped quotes,
CR/LF between and inside fields, other delimiters, ``na_value``, ``select_cols``, missing trailing fields, numbers
with whitespace, signs, exponents, inf and nan, and every error TF reports.
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

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "csv"

DEFAULTS = "[[0], [0.0], ['x'], tf.constant([], tf.int64)]"

CASES: list[tuple[str, str, str]] = [
    ("csv_basic", f"tf.io.decode_csv(['1,2.5,a,7', '3,-1e3,\"b,c\",8'], {DEFAULTS})", "ge"),
    ("csv_defaults", f"tf.io.decode_csv(['1,,,9', ',0.5,z,10'], {DEFAULTS}, name='csv')", "ge"),
    ("csv_matrix", "tf.io.decode_csv([['1,a', '2,b'], ['3,c', '4,d']], [[0], ['']])", "ge"),
    ("csv_na_value", "tf.io.decode_csv(['NA,1', '2,NA'], [[-1], [-2]], na_value='NA')", "e"),
    ("csv_delim", "tf.io.decode_csv(['1|2|3'], [[0], [0], [0]], field_delim='|')", "e"),
    ("csv_no_quotes", "tf.io.decode_csv(['\"a\",b'], [[''], ['']], use_quote_delim=False)", "e"),
    ("csv_select_cols", "tf.io.decode_csv(['1,2,3,4', '5,6,7,8'], [[0], [0]], select_cols=[1, 3])", "ge"),
    ("csv_select_cols_tail", "tf.io.decode_csv(['1,2,'], [[0], [9]], select_cols=[0, 2])", "e"),
    ("csv_select_cols_unsorted", "tf.io.decode_csv(['1,2'], [[0], [0]], select_cols=[1, 0])", "e"),
    ("csv_select_cols_negative", "tf.io.decode_csv(['1,2'], [[0], [0]], select_cols=[-1, 0])", "e"),
    ("csv_select_cols_length", "tf.io.decode_csv(['1,2'], [[0], [0]], select_cols=[0])", "e"),
    ("csv_missing_required", f"tf.io.decode_csv(['1,2.0,a,'], {DEFAULTS})", "e"),
    ("csv_wrong_count", "tf.io.decode_csv(['1,2,3'], [[0], [0]])", "e"),
    ("csv_bad_int", "tf.io.decode_csv(['1.5'], [[0]])", "e"),
    ("csv_ph", "tf.io.decode_csv(ph(tf.string, [None]), [[0], tf.constant([], tf.string)])", "g"),
    ("csv_bad_default_shape", "tf.io.decode_csv(['1'], [[0, 1]])", "ge"),
    ("csv_dataset",
     "ds = tf.data.Dataset.from_tensor_slices(['1,0.5', '2,1.5', '3,2.5']).map(lambda l: tf.io.decode_csv(l, "
     "[[0], [0.0]]))\n[tf.stack([a for a, b in ds]), tf.stack([b for a, b in ds])]", "e"),
]  # fmt: skip


def S(*values: str) -> np.ndarray:  # noqa: N802
    return np.array([v.encode() for v in values], dtype=object)


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDef, CPU constraints, shape and kernel cases) of DecodeCSV."""
    P, U, shape_case, kernel_case = breadth.P, breadth.U, breadth.shape_case, breadth.kernel_case
    breadth.begin(OUT / "ops", "tools/make_golden_csv.py", ["DecodeCSV"])
    i32, i64, f32, f64, s = (np.array([v], d) for v, d in ((0, np.int32), (0, np.int64), (0, np.float32),
                                                               (0, np.float64), (b"-", object)))  # fmt: skip
    every = [i32, i64, f32, f64, s]
    kernel_case("DecodeCSV", S("1,2,3.5,4.25,a", "-7,+8, 1e2 ,-.5,\"q,\"\"r\"\"\"", "2147483647,9223372036854775807,"
                               "inf,NaN,"), every)  # fmt: skip
    kernel_case("DecodeCSV", S(",,,,", "\r\n1,2,3,4,b\r\n"), every)
    kernel_case("DecodeCSV", S("a;b", "\"c;d\";e"), [s, s], field_delim=";")
    kernel_case("DecodeCSV", S("\"a\";b"), [s, s], field_delim=";", use_quote_delim=False)
    kernel_case("DecodeCSV", S("?,1", "2,?"), [i32, np.array([], np.int32)], na_value="?")
    kernel_case("DecodeCSV", S("1,2,3,4,5", "6,7,8,9,10"), [i64, f32], select_cols=[1, 4])
    kernel_case("DecodeCSV", S("1,2,\"bad"), [i32, i32], select_cols=[0, 1])  # stops before the bad field
    numbers = ["0x10", "0x1p3", "0X1.8", "-0x10", " 0x10 ", "+.5", "1.e2", "infinity", "-INF", "nan(1)", "1e400",
               "1e-50", "-0"]  # fmt: skip
    kernel_case("DecodeCSV", S(",".join(numbers)), [f32] * len(numbers))
    kernel_case("DecodeCSV", S(",".join(numbers)), [f64] * len(numbers))
    for bad_number in ("0x", "1e", "e5", "."):
        kernel_case("DecodeCSV", S(bad_number), [f64])
    kernel_case("DecodeCSV", np.zeros((0,), object), [i32])
    kernel_case("DecodeCSV", np.array(b"5,6", object), [i32, i32])
    for bad, defaults, attrs in (
        (S("2147483648"), [i32], {}), (S("1.5"), [i64], {}), (S("x"), [f32], {}), (S("1_0"), [f64], {}),
        (S("0x10"), [f32], {}), (S("a\"b,c"), [s, s], {}), (S("\"a\"b,c"), [s, s], {}), (S("\"abc"), [s], {}),
        (S("a\rb,c"), [s, s], {}), (S("1,2"), [i32], {}), (S("1"), [i32, i32], {}), (S(""), [i32], {}),
        (S(",1"), [np.array([], np.int32), i32], {}), (S("1"), [np.array([1, 2], np.int32)], {}),
        (S("1"), [i32], {"field_delim": "::"}),
    ):  # fmt: skip
        kernel_case("DecodeCSV", bad, defaults, **attrs)
    shape_case("DecodeCSV", P([U, 3], "string"), [P([1], "int32"), P([], "string")])
    shape_case("DecodeCSV", P(None, "string"), [P([U], "float32")])
    shape_case("DecodeCSV", P([4], "string"), [P([2], "int32")])
    shape_case("DecodeCSV", P([4], "string"), [P([1, 1], "int32")])
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_csv.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
