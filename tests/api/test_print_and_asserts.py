"""``tf.print`` streams beyond the golden programs (files, logging, v1 sessions) and the ops behind the
assertions in graphs (``Assert`` ops, ``NoOp`` for static checks)."""

from __future__ import annotations

import logging

import pytest

import modtensor as tf
from modtensor.api.logging_ops import apply_stateful_op


def test_print_appends_to_a_file_eagerly_and_in_a_function(tmp_path):
    path = tmp_path / "out.txt"
    tf.print("first", tf.constant([1, 2]), output_stream=f"file://{path}")

    @tf.function
    def f(x):
        tf.print("second", x, output_stream=f"file://{path}", end="|")
        return x

    f(tf.constant(3.5))
    assert path.read_text() == "first [1 2]\nsecond 3.5|"


def test_print_to_a_missing_directory_names_the_file(tmp_path):
    target = tmp_path / "missing" / "out.txt"
    with pytest.raises(tf.errors.NotFoundError, match=f"print output file {target}"):
        tf.print("x", output_stream=f"file://{target}")


def test_print_to_logging_levels_logs_on_the_modtensor_logger(caplog):
    with caplog.at_level(logging.INFO, logger="modtensor"):
        tf.print("info line", tf.constant(1), output_stream=logging.info)
        tf.print("warning line", output_stream=logging.WARNING)
        tf.print("error line", output_stream=logging.error)
    records = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "modtensor"]
    assert records == [(logging.INFO, "info line 1"), (logging.WARNING, "warning line"), (logging.ERROR, "error line")]


def test_print_in_a_v1_graph_returns_the_op_a_session_runs(capsys):
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.int32, [None])
        op = tf.print("got", x)
        assert op.type == "PrintV2" and op.inputs[0].op.type == "StringFormat"
    capsys.readouterr()
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(op, {x: list(range(8))})
    assert capsys.readouterr().err == "got [0 1 2 ... 5 6 7]\n"


def test_print_returns_none_eagerly():
    assert tf.print("x", output_stream=__import__("sys").stdout) is None


def test_unknown_output_stream_of_the_op_is_tensorflows_error():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        apply_stateful_op("PrintV2", None, input="x", output_stream="bad")
    assert "Unknown output stream: bad, Valid streams are: stdout stderr log(info) log(warning) log(error)" in str(
        info.value
    )


def test_graph_assertions_return_assert_ops_or_static_no_ops():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        dynamic = tf.debugging.assert_less(x, 1.0)
        static = tf.debugging.assert_rank(x, 1)
        integer = tf.debugging.assert_type(tf.constant(1), tf.int32)
    # As TF's: float data make the Assert a cond (AssertGuard) whose output Identity is returned.
    assert dynamic.type == "Identity" and dynamic.name == "assert_less/Assert/AssertGuard/Identity"
    assert static.type == "NoOp" and static.name.endswith("static_checks_determined_all_ok")
    assert integer.type == "NoOp"
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(dynamic, {x: [0.5]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"assertion failed: \[Condition x < y did not hold"):
            sess.run(dynamic, {x: [0.5, 2.0]})


def test_assert_in_a_function_fails_when_run_not_when_traced():
    @tf.function
    def f(x):
        tf.debugging.assert_non_negative(x)
        return x * 2

    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x >= 0 did not hold element-wise"):
        f(tf.constant([1.0, -2.0]))
