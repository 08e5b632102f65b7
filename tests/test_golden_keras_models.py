"""Keras models exported and frozen by TensorFlow 2.21 run in modtensor with TF's outputs (batch 1 and 8).

The fixtures (tests/golden/keras_models, written by tools/make_golden_keras_models.py) are
compact: the frozen GraphDef without its weights plus a recipe per weight, which
``keras_golden`` expands with numpy into exactly the weights TF computed its outputs with.
The small models always run; the keras.applications set is the ``slow`` group, which CI
runs as well (``-m "not slow"`` skips it while developing).
"""

from __future__ import annotations

import functools

import keras_golden
import numpy as np
import pytest

from modtensor.framework import graph as graph_lib
from modtensor.framework import importer
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import graph_pb2
from modtensor.runtime.kernel_registry import DEFAULT_DEVICE_TYPE, global_kernel_registry
from modtensor.runtime.session import Session

MANIFEST = keras_golden.manifest()
MODELS = MANIFEST["models"]
TOLERANCE = 1e-5  # max |modtensor - TF| relative to the output's largest magnitude


def _params() -> list:
    return [
        pytest.param(name, marks=[pytest.mark.slow] if info["slow"] else []) for name, info in sorted(MODELS.items())
    ]


@functools.lru_cache(maxsize=1)
def _graph_def(name: str) -> graph_pb2.GraphDef:
    return keras_golden.full_graph_def(name, graph_pb2.GraphDef)


def test_fixtures_are_compact_and_describe_every_model() -> None:
    total = sum(info["committed_bytes"] for info in MODELS.values())
    assert total < 4_000_000, f"the committed keras models take {total} bytes"
    assert sum(info["frozen_bytes"] for info in MODELS.values()) > 10 * total
    for name, info in MODELS.items():
        assert info["inputs"] and info["outputs"] and info["batches"] == [1, 8], name


def test_weight_recipes_are_pinned() -> None:
    # The recipe's definition, pinned: a change would silently change every fixture's weights.
    assert keras_golden.uniform(4, 0).tolist() == [0.7666215896606445, 0.13312304019927979, 0.1823793649673462,
                                                   -0.773099422454834]  # fmt: skip
    recipe = {"shape": [2, 3], "dtype": "float32", "seed": 7, "offset": 1.0, "scale": 0.5}
    values = keras_golden.regenerate(recipe)
    assert values.dtype == np.float32 and values.shape == (2, 3) and np.all((values >= 0.5) & (values < 1.5))
    ids = keras_golden.regenerate(
        {"shape": [1000], "dtype": "int32", "seed": 3, "offset": 5.0, "scale": 10.0, "min": 0}
    )
    assert ids.min() == 0 and ids.max() == 14 and np.mean(ids == 0) > 0.2


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_op_is_registered_with_a_cpu_kernel(name: str) -> None:
    ops, kernels = global_registry(), global_kernel_registry()
    for op in MODELS[name]["ops"]:
        assert op in ops, f"{name}: op {op} is not registered"
        if op not in ("PartitionedCall", "StatefulPartitionedCall"):  # inlined before running
            served = {k.kernel_def.device_type for k in kernels.kernels_for_op(op)}
            assert served & {"CPU", DEFAULT_DEVICE_TYPE}, f"{name}: {op}"  # DEFAULT: NoOp, control flow


@pytest.mark.parametrize("name", _params())
def test_model_matches_tensorflow_through_session_run(name: str) -> None:
    info = MODELS[name]
    graph = graph_lib.Graph()
    with graph.as_default():
        importer.import_graph_def(_graph_def(name), name="")
    outputs = [t["name"] for t in info["outputs"]]
    with Session(graph=graph) as sess:
        for batch in info["batches"]:
            got = sess.run(outputs, keras_golden.inputs(name, batch))
            wants = keras_golden.outputs(name, batch)
            for tensor, value in zip(outputs, got, strict=True):
                want = wants[tensor]
                value = np.asarray(value)
                assert (value.dtype, value.shape) == (want.dtype, want.shape), (name, batch, tensor)
                if want.dtype.kind != "f":
                    np.testing.assert_array_equal(value, want, err_msg=f"{name} batch {batch} {tensor}")
                    continue
                error = keras_golden.relative_error(value, want)
                assert error <= TOLERANCE, f"{name} batch {batch} {tensor}: relative error {error:.3g}"


def test_cli_runs_the_transformer_with_tensorflows_outputs(tmp_path, capsys) -> None:
    from modtensor.cli.main import main

    name = "transformer_encoder"
    path = tmp_path / f"{name}.pb"
    path.write_bytes(keras_golden.graph_def_bytes(name))
    (tensor,) = [t["name"] for t in MODELS[name]["outputs"]]
    args = ["run", str(path), "--save", str(tmp_path / "out"), "--output", tensor]
    for feed, value in keras_golden.inputs(name, 8).items():
        np.save(tmp_path / "tokens.npy", value)
        args += ["--input", f"{feed.split(':')[0]}={tmp_path / 'tokens.npy'}"]
    assert main(args) == 0
    assert f"{tensor}: float32[8, 10]" in capsys.readouterr().out
    got = np.load(tmp_path / "out" / (tensor.replace(":", "_") + ".npy"))
    assert keras_golden.relative_error(got, keras_golden.outputs(name, 8)[tensor]) <= TOLERANCE
