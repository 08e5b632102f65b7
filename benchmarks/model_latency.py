"""End-to-end latency of the golden TensorFlow-exported models (``examples/models``) through Session.run.

Each model's ``NAME.pb`` is imported into a fresh graph with the TensorFlow API
(``compat.v1.GraphDef``, ``import_graph_def``, ``compat.v1.Session``), the same code for
modtensor and for TensorFlow, and run on the recorded inputs of ``NAME.io.npz`` at
batch 1 and 8. modtensor's outputs are checked against TF's recorded ones first.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from timing import Environment, Row, measure_interleaved

MODELS = Path(__file__).resolve().parent.parent / "examples" / "models"
BENCHMARK = "model latency (Session.run)"


def _session(tf: ModuleType, pb: bytes) -> Any:
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(pb)
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    return tf.compat.v1.Session(graph=graph)


def _max_error(outputs: list[Any], expected: list[np.ndarray]) -> float:
    """Max abs error relative to the output's scale (max |expected|, at least 1), over all outputs."""
    worst = 0.0
    for got, want in zip(outputs, expected, strict=True):
        got = np.asarray(got)
        if want.dtype.kind in "biu":
            worst = max(worst, float(np.any(got != want)))
            continue
        scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
        worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - want))) / scale if want.size else 0.0)
    return worst


def run(env: Environment) -> list[Row]:
    """One row per model and batch: Session.run latency for modtensor and (when installed) TensorFlow."""
    import modtensor

    manifest = json.loads((MODELS / "manifest.json").read_text())
    rows = []
    for name, model in sorted(manifest["models"].items()):
        pb = (MODELS / f"{name}.pb").read_bytes()
        io = np.load(MODELS / f"{name}.io.npz")
        fetches = [o["name"] for o in model["outputs"]]
        mt_session = _session(modtensor, pb)
        tf_session = _session(env.tensorflow, pb) if env.tensorflow is not None else None
        for batch in model["batches"]:
            feeds = {i["name"]: io[f"b{batch}/in/{i['name']}"] for i in model["inputs"]}
            expected = [io[f"b{batch}/out/{f}"] for f in fetches]
            error = _max_error(mt_session.run(fetches, feed_dict=feeds), expected)
            times = measure_interleaved(
                {
                    "modtensor": lambda s=mt_session, f=feeds, o=fetches: s.run(o, feed_dict=f),
                    "tensorflow": None
                    if tf_session is None
                    else lambda s=tf_session, f=feeds, o=fetches: s.run(o, feed_dict=f),
                },
                repeats=env.repeats,
            )
            note = f"{model['num_nodes']} nodes; max rel. error vs TF {error:.1e}"
            rows.append(
                Row(BENCHMARK, f"{name}, batch {batch}", times["modtensor"], None, times["tensorflow"], note=note)
            )
        mt_session.close()
        if tf_session is not None:
            tf_session.close()
    return rows
