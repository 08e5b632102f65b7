"""Export Keras LSTM and GRU models with TensorFlow 2.21, frozen both ways, into the golden model set.

Run with the TensorFlow scratch venv (TensorFlow is never a modtensor dependency):

    /work/tfvenv/bin/python tools/make_golden_rnn_models.py [--out examples/models]

Each model is a small Keras 3 network (an LSTM or a GRU layer over a sequence of 6 steps
of 5 features, then a Dense layer), seeded weights, traced with ``tf.function`` for inputs
``[None, 6, 5]`` and frozen with TensorFlow's ``convert_variables_to_constants_v2``:

- ``lower_control_flow=True`` (``lstm_lowered``, ``gru_lowered``): the Keras RNN loop
  becomes v1 control flow (Enter/Merge/Switch/LoopCond/NextIteration/Exit) in the graph,
  its state carried in TensorLists;
- ``lower_control_flow=False`` (``lstm_functional``, ``gru_functional``): a functional
  ``While`` node whose ``cond``/``body`` are functions of the graph's library.

For every model ``NAME`` the files are those of ``tools/make_golden_models.py`` (``.pb``,
``.pbtxt``, ``.shapes.json``, ``.fed_shapes.json``, ``.io.npz``), and the models' entries
in ``manifest.json`` are added or replaced (the other models' entries are left as they are).
Weights, inputs and outputs are the same on every run; the files are not byte-stable, as
TensorFlow's freezing names the loop functions with process-wide counters
(``..._while_body_frozen_1443``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework import convert_to_constants  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_golden_models as base  # noqa: E402

STEPS, FEATURES, UNITS, CLASSES = 6, 5, 8, 3
SEED = base.BASE_SEED + 100
MODELS = {
    "lstm_lowered": ("LSTM", True),
    "lstm_functional": ("LSTM", False),
    "gru_lowered": ("GRU", True),
    "gru_functional": ("GRU", False),
}


def build_keras_model(kind: str, rng: np.random.Generator):
    import keras

    keras.utils.set_random_seed(SEED)
    layer = getattr(keras.layers, kind)(UNITS, name=kind.lower())
    model = keras.Sequential([keras.Input((STEPS, FEATURES)), layer, keras.layers.Dense(CLASSES, name="dense")])
    for weight in model.weights:  # seeded weights of a readable size, the same for every run
        weight.assign(rng.uniform(-0.5, 0.5, weight.shape).astype(np.float32))
    return model


def frozen(kind: str, lower: bool, rng: np.random.Generator) -> tf.compat.v1.GraphDef:
    model = build_keras_model(kind, rng)
    spec = tf.TensorSpec([None, STEPS, FEATURES], tf.float32, name="sequence")
    concrete = tf.function(lambda sequence: model(sequence)).get_concrete_function(spec)
    frozen_fn = convert_to_constants.convert_variables_to_constants_v2(concrete, lower_control_flow=lower)
    graph_def = frozen_fn.graph.as_graph_def()
    # The freezer's node order varies from run to run: sort nodes (and function bodies) by name first. TF's
    # import then orders the graph (a lowered loop differently from the file), so the fixture is the GraphDef
    # as TF gives it back after import: a fixed point of import -> as_graph_def, what the golden tests expect.
    nodes = sorted(graph_def.node, key=lambda n: n.name)
    del graph_def.node[:]
    graph_def.node.extend(nodes)
    for function in graph_def.library.function:
        body = sorted(function.node_def, key=lambda n: n.name)
        del function.node_def[:]
        function.node_def.extend(body)
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    return graph.as_graph_def()


class _Spec:
    """The graph's feed and fetch, what ``make_golden_models`` needs to describe and run a model."""

    def __init__(self, graph: tf.Graph, graph_def: tf.compat.v1.GraphDef):
        # (The lowered graphs also hold placeholders nothing reads, ``unused_control_flow_input_N``.)
        self.inputs = [graph.get_tensor_by_name("sequence:0")]
        self.outputs = [graph.get_tensor_by_name("Identity:0")]

    def make_feeds(self, batch: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return {self.inputs[0].name: rng.standard_normal((batch, STEPS, FEATURES)).astype(np.float32)}


def export(name: str, out_dir: Path) -> dict:
    kind, lower = MODELS[name]
    rng = np.random.default_rng(SEED + list(MODELS).index(name))
    graph_def = frozen(kind, lower, rng)
    (out_dir / f"{name}.pb").write_bytes(graph_def.SerializeToString(deterministic=True))
    tf.io.write_graph(graph_def, str(out_dir), f"{name}.pbtxt", as_text=True)
    shapes, imported = base.static_shapes(graph_def)
    base.check_tf_round_trip(name, graph_def, imported)
    (out_dir / f"{name}.shapes.json").write_text(json.dumps(shapes, indent=1, sort_keys=True) + "\n")
    spec = _Spec(imported, graph_def)
    fed = base.fed_shapes(graph_def, spec)
    (out_dir / f"{name}.fed_shapes.json").write_text(json.dumps(fed, indent=1, sort_keys=True) + "\n")
    arrays = base.run_model(imported, spec, rng)
    with open(out_dir / f"{name}.io.npz", "wb") as f:
        np.savez_compressed(f, **arrays)
    base._normalise_zip(out_dir / f"{name}.io.npz")
    how = "lower_control_flow=True: v1 loop" if lower else "lower_control_flow=False: functional While"
    return {
        "description": f"Keras {kind}({UNITS}) over [None, {STEPS}, {FEATURES}] + Dense({CLASSES}), frozen with "
        f"convert_variables_to_constants_v2({how}, TensorList state)",
        "files": [f"{name}.{ext}" for ext in ("pb", "pbtxt", "shapes.json", "fed_shapes.json", "io.npz")],
        "inputs": [base.tensor_info(t) for t in spec.inputs],
        "outputs": [base.tensor_info(t) for t in spec.outputs],
        "batches": list(base.BATCHES),
        "npz_keys": "b{batch}/in/{tensor name} for inputs, b{batch}/out/{tensor name} for outputs",
        "op_types": sorted({n.op for n in graph_def.node}),
        "function_op_types": sorted({n.op for f in graph_def.library.function for n in f.node_def}),
        "attrs_by_op": base._attrs_by_op(graph_def),
        "num_nodes": len(graph_def.node),
        "pb_bytes": (out_dir / f"{name}.pb").stat().st_size,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "examples" / "models"))
    args = parser.parse_args(argv)
    out_dir = Path(args.out)
    manifest_path = out_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for name in MODELS:
        manifest["models"][name] = export(name, out_dir)
        info = manifest["models"][name]
        print(f"{name}: {info['num_nodes']} nodes, {info['pb_bytes']} bytes, ops {info['op_types']}")
    manifest["models"] = dict(sorted(manifest["models"].items()))
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
