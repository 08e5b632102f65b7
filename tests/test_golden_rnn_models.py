"""Keras LSTM and GRU models exported by TensorFlow 2.21 run with TensorFlow's outputs (<= 1e-5 relative).

``tools/make_golden_rnn_models.py`` froze each model with ``convert_variables_to_constants_v2`` both
ways: ``*_lowered`` (``lower_control_flow=True``: a v1 loop - Enter/Merge/Switch/LoopCond/
NextIteration/Exit - whose state is in TensorLists) and ``*_functional`` (``lower_control_flow=False``:
a ``While`` node calling ``cond``/``body`` functions of the graph's library). Each runs through
``Session.run`` at batch 1 and 8; the functional ones also with lowering off, so the While kernel runs
the library functions itself. (``tests/test_cli_run.py`` runs them through ``modtensor run``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework.protos import config_pb2, graph_pb2

MODELS = Path(__file__).resolve().parents[1] / "examples" / "models"
MANIFEST = json.loads((MODELS / "manifest.json").read_text())["models"]
RNN_MODELS = ["gru_functional", "gru_lowered", "lstm_functional", "lstm_lowered"]


def _graph(name: str) -> tf.Graph:
    graph_def = graph_pb2.GraphDef.FromString((MODELS / f"{name}.pb").read_bytes())
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    return graph


def _run(name: str, config: config_pb2.ConfigProto | None = None) -> None:
    info = MANIFEST[name]
    arrays = np.load(MODELS / f"{name}.io.npz")
    graph = _graph(name)
    (inp,) = [t["name"] for t in info["inputs"]]
    (out,) = [t["name"] for t in info["outputs"]]
    with tf.compat.v1.Session(graph=graph, config=config) as sess:
        for batch in info["batches"]:
            got = sess.run(out, {inp: arrays[f"b{batch}/in/{inp}"]})
            np.testing.assert_allclose(got, arrays[f"b{batch}/out/{out}"], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", RNN_MODELS)
def test_model_runs_in_a_session_with_tensorflows_outputs(name: str) -> None:
    ops = set(MANIFEST[name]["op_types"])
    if name.endswith("_lowered"):
        assert {"Enter", "Merge", "Switch", "LoopCond", "NextIteration", "Exit", "TensorListGetItem"} <= ops
    else:
        assert "While" in ops and "Enter" not in ops
        assert {"TensorListGetItem", "TensorListSetItem"} <= set(MANIFEST[name]["function_op_types"])
    _run(name)


@pytest.mark.parametrize("name", ["gru_functional", "lstm_functional"])
def test_functional_while_runs_through_its_kernel(name: str) -> None:
    config = config_pb2.ConfigProto()
    config.experimental.disable_functional_ops_lowering = True
    _run(name, config)
