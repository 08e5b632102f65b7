"""While loops and conds whose bodies run on a plugged device (the example device plugin), with TF's results.

The v1 control-flow graphs TensorFlow 2.21 exported (tests/golden/v1_control_flow/) are imported
under ``tf.device('/MY_DEVICE:0')``: float32 work goes to the plugin device, int32 loop counters
(no device kernels) stay on the CPU with soft placement, so every loop's frame spans two devices.
The partitioner gives the device its own control loop (``_cloop*`` nodes driven by the LoopCond
received from the CPU), and the results equal TensorFlow's. Runs in a child process, as the
other plugin tests do (the plugin's device types stay registered in the process that loads it).
"""

from __future__ import annotations

import textwrap

from .test_demo_device_runtime import build, run_child

SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    import numpy as np
    import modtensor as tf
    from modtensor.framework.protos import config_pb2, graph_pb2
    from modtensor.plugin import load_library

    load_library(sys.argv[1])
    golden = Path("tests/golden/v1_control_flow")
    cases = json.loads((golden / "cases.json").read_text())["programs"]
    spanning = []
    for name, program in sorted(cases.items()):
        graph_def = graph_pb2.GraphDef.FromString((golden / f"{name}.pb").read_bytes())
        g = tf.Graph()
        with g.as_default(), tf.device("/MY_DEVICE:0"):
            tf.import_graph_def(graph_def, name="")
        config = config_pb2.ConfigProto(allow_soft_placement=True)
        with tf.compat.v1.Session(graph=g, config=config) as sess:
            for run in program["runs"]:
                feeds = {k: np.asarray(v["value"], v["dtype"]).reshape(v["shape"]) for k, v in run["feeds"].items()}
                if "error" in run:
                    try:
                        sess.run(program["fetch_names"], feeds)
                    except tf.errors.OpError as e:
                        assert run["error"]["message"] in e.message, (name, e.message)
                    else:
                        raise AssertionError(f"{name}: no error")
                    continue
                options = tf.compat.v1.RunOptions(output_partition_graphs=True)
                metadata = tf.compat.v1.RunMetadata()
                got = sess.run(program["fetch_names"], feeds, options=options, run_metadata=metadata)
                for value, expected in zip(got, run["fetches"]):
                    want = np.asarray(expected["value"], expected["dtype"]).reshape(expected["shape"])
                    np.testing.assert_allclose(value, want, rtol=1e-5, err_msg=name)
                devices = {n.device.rsplit("/", 1)[-1] for p in metadata.partition_graphs for n in p.node}
                loops = [n.name for p in metadata.partition_graphs for n in p.node if n.name.startswith("_cloop")]
                if loops and "device:MY_DEVICE:0" in devices:
                    spanning.append(name)
    print("spanning", sorted(set(spanning)))
    """
)


def test_loops_spanning_cpu_and_the_plugin_device_match_tensorflow(build_plugin):
    out = run_child(SCRIPT, build(build_plugin, "MY_DEVICE"))
    spanning = out.strip().split("spanning ", 1)[1]
    # Loops whose float work is on the device and whose counters are on the CPU got control loops.
    for name in ("while_counter", "while_invariant_capture", "while_parallel_matrix", "cond_in_while"):
        assert name in spanning, out
