"""The golden models with Intel Extension for TensorFlow (ITEX, CPU) on modtensor, against modtensor without it
and TensorFlow 2.21 without it.

    python benchmarks/itex_models.py [--quick] [--tf-python /path/to/tf/venv/bin/python]

Run with the modtensor venv after ``bash scripts/install_itex.sh``. In this process ITEX is discovered
(``tensorflow-plugins/``) and each model runs through Session.run twice, interleaved: with ITEX's
graph optimizer (its oneDNN kernels run) and with plugin optimizers off (``use_plugin_optimizers:
OFF``: modtensor's numpy kernels). TensorFlow is timed in a child process of ``--tf-python`` with
the same harness (median of interleaved samples), so the two runtimes never share a process.
Prints a markdown table of seconds per run and ratios (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
MODELS = HERE.parent / "examples" / "models"
sys.path.insert(0, str(HERE))

from timing import measure_interleaved  # noqa: E402


def _cases() -> list[tuple[str, int, dict, list[str], bytes]]:
    manifest = json.loads((MODELS / "manifest.json").read_text())["models"]
    out = []
    for name, model in sorted(manifest.items()):
        io = np.load(MODELS / f"{name}.io.npz")
        batch = model["batches"][-1]
        feeds = {i["name"]: io[f"b{batch}/in/{i['name']}"] for i in model["inputs"]}
        fetches = [o["name"] for o in model["outputs"]]
        out.append((name, batch, feeds, fetches, (MODELS / f"{name}.pb").read_bytes()))
    return out


def _session(tf: Any, pb: bytes, config: Any = None) -> Any:
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(pb)
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    return tf.compat.v1.Session(graph=graph, config=config)


def tensorflow_times(repeats: int) -> dict[str, float]:
    """(child process of --tf-python) seconds per Session.run of each model in TensorFlow."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    times = {}
    for name, _batch, feeds, fetches, pb in _cases():
        sess = _session(tf, pb)
        times[name] = measure_interleaved({"tf": lambda s=sess, f=feeds, o=fetches: s.run(o, f)}, repeats)["tf"]
        sess.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tf-python", help="a Python with TensorFlow 2.21 (timed in a child process)")
    parser.add_argument("--tensorflow-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    repeats = 5 if args.quick else 21
    if args.tensorflow_child:
        print(json.dumps(tensorflow_times(repeats)))
        return
    import modtensor as tf
    from modtensor.framework.protos import config_pb2, rewriter_config_pb2
    from modtensor.plugin import discover_plugins, loaded_plugins

    discover_plugins()
    if not any(r.name == "libitex_cpu.so" and r.loaded for r in loaded_plugins()):
        raise SystemExit("ITEX is not installed in this venv (bash scripts/install_itex.sh) or did not load")
    off = config_pb2.ConfigProto()
    off.graph_options.rewrite_options.use_plugin_optimizers = rewriter_config_pb2.RewriterConfig.OFF
    tf_times: dict[str, float] = {}
    if args.tf_python:
        child = [args.tf_python, __file__, "--tensorflow-child"] + (["--quick"] if args.quick else [])
        done = subprocess.run(child, capture_output=True, text=True, check=True)
        tf_times = json.loads(done.stdout.strip().splitlines()[-1])
    print("| model (batch) | modtensor + ITEX | modtensor | TF 2.21 | modtensor / with ITEX | TF / with ITEX |")
    print("|---|---|---|---|---|---|")
    for name, batch, feeds, fetches, pb in _cases():
        with_itex, without = _session(tf, pb), _session(tf, pb, off)
        times = measure_interleaved(
            {
                "itex": lambda s=with_itex, f=feeds, o=fetches: s.run(o, f),
                "plain": lambda s=without, f=feeds, o=fetches: s.run(o, f),
            },
            repeats,
        )
        itex, plain, tfs = times["itex"], times["plain"], tf_times.get(name)
        tf_cells = (f"{tfs * 1e3:.2f} ms", f"{tfs / itex:.2f}x") if tfs else ("-", "-")
        cells = [f"{name} ({batch})", f"{itex * 1e3:.2f} ms", f"{plain * 1e3:.2f} ms", tf_cells[0]]
        print("| " + " | ".join([*cells, f"{plain / itex:.2f}x", tf_cells[1]]) + " |")
        with_itex.close()
        without.close()


if __name__ == "__main__":
    main()
