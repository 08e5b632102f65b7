"""tf.cond, tf.while_loop and nested functions whose bodies run on the example device plugin (MY_DEVICE).

A ``tf.function`` with a cond, a while loop and a nested function call runs under
``tf.device('/MY_DEVICE:0')`` with the CPU's numbers: lowered (the default: v1 control flow on
the dataflow executor) and through the functional kernels (a Session with
``disable_functional_ops_lowering``): the While kernel placed on MY_DEVICE instantiates its cond
and body there, and the body's float32 ops run on the device (the placement log of the
instantiated body says so); loop counters without device kernels go to the CPU by soft placement.
Runs in a child process, as the other plugin tests do.
"""

from __future__ import annotations

import textwrap

from .test_demo_device_runtime import build, run_child

SCRIPT = textwrap.dedent(
    """
    import contextlib, io, sys
    import numpy as np
    import modtensor as tf
    from modtensor.framework.protos import config_pb2
    from modtensor.plugin import load_library

    load_library(sys.argv[1])
    w = (np.arange(9, dtype=np.float32).reshape(3, 3) - 4.0) / 10.0

    @tf.function
    def inner(v):
        return tf.nn.relu(tf.matmul(v, tf.constant(w)) + 0.5)

    def program(x, n):
        y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * 2.0, lambda: x - 1.0)
        _, z = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, inner(v) * 0.5 + v), [0, y])
        return z

    x = np.array([[1.0, -2.0, 3.0]], np.float32)
    expected = program(tf.constant(x), tf.constant(4)).numpy()  # eagerly, on the CPU
    fn = tf.function(program)
    with tf.device("/MY_DEVICE:0"):
        got = fn(tf.constant(x), tf.constant(4))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5)
    print("lowered ok")

    g = tf.Graph()
    with g.as_default(), tf.device("/MY_DEVICE:0"):
        px = tf.compat.v1.placeholder(tf.float32, [1, 3], name="x")
        pn = tf.compat.v1.placeholder(tf.int32, [], name="n")
        out = program(px, pn)
    config = config_pb2.ConfigProto(allow_soft_placement=True, log_device_placement=True)
    config.experimental.disable_functional_ops_lowering = True
    log = io.StringIO()
    with tf.compat.v1.Session(graph=g, config=config) as sess, contextlib.redirect_stdout(log):
        value = sess.run(out, {px: x, pn: 4})
    np.testing.assert_allclose(value, expected, rtol=1e-5)
    lines = log.getvalue().splitlines()
    loop = [line for line in lines if line.startswith("while: (StatelessWhile)")]
    assert loop and loop[0].endswith("device:MY_DEVICE:0"), lines
    matmuls = [line for line in lines if "MatMul: (" in line]  # the nested function's body, in the loop body
    assert matmuls and all(line.endswith("device:MY_DEVICE:0") for line in matmuls), matmuls
    print("functional ok")
    """
)


def test_conds_loops_and_calls_run_on_the_plugin_device(build_plugin):
    out = run_child(SCRIPT, build(build_plugin, "MY_DEVICE"))
    assert out.strip().splitlines()[0] == "lowered ok" and out.strip().endswith("functional ok"), out
