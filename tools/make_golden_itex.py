"""Record what Intel Extension for TensorFlow does to the golden models under TensorFlow: tests/golden/itex/.

Run in a scratch venv with TensorFlow 2.15 and ITEX's CPU wheel (the versions ITEX 2.15 supports):
    python -m venv /tmp/itex && /tmp/itex/bin/pip install tensorflow-cpu==2.15.0 \\
        intel-extension-for-tensorflow-lib==2.15.0.0.0
    /tmp/itex/bin/python tools/make_golden_itex.py mlp mobilenet_block scopes_and_control small_cnn \\
        transformer_encoder
(the models the golden holds; no names: every model of the manifest). For each model of
examples/models/ it runs a v1 Session (ITEX loads from tensorflow-plugins/ at import) and writes
the op types of the partition graphs and the largest difference from the TF 2.21
outputs in the model's .io.npz. A model TF 2.15 cannot run (its GraphDef uses TF 2.21 attrs ITEX's
layout pass looks up in TF 2.15's OpDefs and aborts on) runs in a child process and is recorded as such.

``builtin_ops`` is what TF's built-in Grappler passes leave for ITEX's optimizer: the same Session with
plugin optimizers off, the passes ITEX's config turns off (remapping, layout optimizer) off, the
classic graph optimizer (its constant folding and CSE after partitioning) at L0 and oneDNN's op
rewrites off (TF_ENABLE_ONEDNN_OPTS=0), so the partition graphs are Grappler's output with TF's op names.
tests/plugin/test_itex.py and tests/grappler/test_tf_parity.py check modtensor against this.
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
MODELS = REPO / "examples" / "models"
OUT = REPO / "tests" / "golden" / "itex" / "tf215_itex_partitions.json"


def run_model(name: str, builtin: bool = False) -> dict:
    import numpy as np
    import tensorflow as tf
    from tensorflow.core.protobuf import rewriter_config_pb2

    info = json.loads((MODELS / "manifest.json").read_text())["models"][name]
    graph_def = tf.compat.v1.GraphDef.FromString((MODELS / f"{name}.pb").read_bytes())
    io = np.load(MODELS / f"{name}.io.npz")
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    batch = info["batches"][-1]
    feeds = {i["name"]: io[f"b{batch}/in/{i['name']}"] for i in info["inputs"]}
    fetches = [o["name"] for o in info["outputs"]]
    config = tf.compat.v1.ConfigProto()
    if builtin:
        off = rewriter_config_pb2.RewriterConfig.OFF
        rewrite = config.graph_options.rewrite_options
        rewrite.use_plugin_optimizers = rewrite.remapping = rewrite.layout_optimizer = off
        classic = config.graph_options.optimizer_options
        classic.opt_level = tf.compat.v1.OptimizerOptions.L0
        classic.do_constant_folding = classic.do_common_subexpression_elimination = False
    meta = tf.compat.v1.RunMetadata()
    with tf.compat.v1.Session(graph=graph, config=config) as sess:
        out = sess.run(fetches, feeds, tf.compat.v1.RunOptions(output_partition_graphs=True), meta)
    errors = [
        float(np.max(np.abs(np.asarray(o, np.float64) - io[f"b{batch}/out/{n}"].astype(np.float64))))
        if np.size(o)
        else 0.0
        for o, n in zip(out, fetches, strict=False)
    ]
    ops = collections.Counter(n.op for g in meta.partition_graphs for n in g.node)
    return {"batch": batch, "max_abs_error_vs_tf221": max(errors), "ops": dict(sorted(ops.items()))}


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] in ("--one", "--builtin"):
        print(json.dumps(run_model(sys.argv[2], builtin=sys.argv[1] == "--builtin")))
        return
    import tensorflow as tf

    result = {"about": "TF + ITEX CPU on examples/models, written by tools/make_golden_itex.py",
              "tensorflow": tf.__version__, "models": {}}  # fmt: skip
    for name in sorted(sys.argv[1:] or json.loads((MODELS / "manifest.json").read_text())["models"]):
        done = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True)
        if done.returncode == 0:
            result["models"][name] = json.loads(done.stdout.strip().splitlines()[-1])
            env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS="0")
            builtin = subprocess.run([sys.executable, __file__, "--builtin", name], capture_output=True, text=True,
                                     env=env, check=True)  # fmt: skip
            result["models"][name]["builtin_ops"] = json.loads(builtin.stdout.strip().splitlines()[-1])["ops"]
        else:
            fatal = [line for line in done.stderr.splitlines() if "] " in line and " F " in line[:40]]
            result["models"][name] = {"failed": (fatal or done.stderr.splitlines()[-1:])[0].split("] ", 1)[-1]}
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
