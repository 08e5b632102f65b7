"""compat.v1.train.Saver: TF 1's name-based checkpoints in Session programs (golden: tests/golden/checkpoint/v1_saver,
written by TF 2.21's compat.v1 Saver) and eagerly."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "checkpoint" / "v1_saver"

PROGRAM = textwrap.dedent(
    """
    import os, sys
    import numpy as np
    import modtensor as tf
    from modtensor.framework import errors
    v1 = tf.compat.v1
    v1.disable_eager_execution()
    golden, out = sys.argv[1], sys.argv[2]
    graph = tf.Graph()
    with graph.as_default():
        w = v1.get_variable("w", initializer=tf.constant([[0.0, 0.0], [0.0, 0.0]]))
        with v1.variable_scope("scope"):
            b = v1.get_variable("b", initializer=tf.constant([0.0, 0.0]))
        step = v1.Variable(0, dtype=tf.int64, name="global_step", trainable=False)
        saver = v1.train.Saver(max_to_keep=2)
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())
            saver.restore(session, os.path.join(golden, "model.ckpt-7"))
            w_value, b_value, step_value = session.run([w, b, step])
            assert w_value.tolist() == [[1.0, 2.0], [3.0, 4.0]] and b_value.tolist() == [0.25, 0.75]
            assert step_value == 7
            path = saver.save(session, os.path.join(out, "model.ckpt"), global_step=step, write_meta_graph=False)
            assert path == os.path.join(out, "model.ckpt-7"), path
            if sys.argv[3] == "once":
                print("ok")
                sys.exit(0)
            for i in (8, 9):
                saver.save(session, os.path.join(out, "model.ckpt"), global_step=i)
            assert saver.last_checkpoints == [os.path.join(out, "model.ckpt-8"), os.path.join(out, "model.ckpt-9")]
            assert not os.path.exists(os.path.join(out, "model.ckpt-7.index"))
            assert v1.train.latest_checkpoint(out) == os.path.join(out, "model.ckpt-9")
    other = tf.Graph()
    with other.as_default():
        w = v1.get_variable("w", initializer=tf.constant([[5.0, 5.0], [5.0, 5.0]]))
        extra = v1.get_variable("extra", initializer=tf.constant(1.0))
        saver = v1.train.Saver()
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())
            try:
                saver.restore(session, os.path.join(golden, "model.ckpt-7"))
            except errors.NotFoundError as e:
                assert "Key extra not found in checkpoint" in str(e), e
            else:
                raise AssertionError("restore should fail")
            assert session.run(w).tolist() == [[5.0, 5.0], [5.0, 5.0]]  # nothing was assigned
    print("ok")
    """
)


def test_saver_in_session_restores_tf_checkpoint_and_writes_tf_bytes(tmp_path: Path) -> None:
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run([sys.executable, str(script), str(GOLDEN), str(out), "all"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    # the first save alone (later deleted by max_to_keep): the same bytes as TF's Saver wrote
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    done = subprocess.run(
        [sys.executable, str(script), str(GOLDEN), str(fresh), "once"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    for name in ("model.ckpt-7.index", "model.ckpt-7.data-00000-of-00001"):
        assert (fresh / name).read_bytes() == (GOLDEN / name).read_bytes(), name


def test_saver_eagerly(tmp_path: Path) -> None:
    import numpy as np
    import pytest

    import modtensor as tf
    from modtensor.framework import errors

    w = tf.Variable([[1.0, 2.0]], name="w")
    saver = tf.compat.v1.train.Saver([w])
    path = saver.save(None, str(tmp_path / "m"))
    assert tf.train.list_variables(path) == [("w", [1, 2])]
    w.assign([[0.0, 0.0]])
    saver.restore(None, path)
    np.testing.assert_array_equal(w.numpy(), [[1.0, 2.0]])
    wrong = tf.Variable([1.0, 2.0, 3.0], name="w")
    with pytest.raises(errors.InvalidArgumentError, match="Assign requires shapes of both tensors to match"):
        tf.compat.v1.train.Saver([wrong]).restore(None, path)
    with pytest.raises(ValueError, match="not a valid checkpoint"):
        saver.restore(None, str(tmp_path / "nope"))
    with pytest.raises(RuntimeError, match="`var_list` must specify"):
        tf.compat.v1.train.Saver()
    assert os.path.exists(path + ".index")
