"""The built-in passes leave what TensorFlow 2.15's Grappler leaves on the TF-comparable golden models.

tests/golden/itex/tf215_itex_partitions.json's ``builtin_ops`` (tools/make_golden_itex.py): the op
types of TF 2.15's optimized graphs with the config ITEX's optimizer asks for (remapping and the
layout optimizer off) and plugin optimizers off, i.e. the graph a plugin optimizer gets. A plugin's
fusions depend on it (tests/plugin/test_itex.py), so modtensor's built-in passes must leave the same
ops: batch-norm Muls folded into the Conv2D filters, StopGradient and x + ZerosLike(x) gone, shape
arithmetic, Pack/Unpack and x * 0 folded (a random x still runs), an Add tree as one AddN, ...
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

import numpy as np
import pytest

from modtensor.framework.protos import graph_pb2
from modtensor.runtime import graph_execution

from .support import RC

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "examples" / "models"
MANIFEST = json.loads((MODELS / "manifest.json").read_text())["models"]
GOLDEN = json.loads((ROOT / "tests/golden/itex/tf215_itex_partitions.json").read_text())["models"]
TF_COMPARABLE = sorted(name for name, record in GOLDEN.items() if "builtin_ops" in record)
TRANSFERS = {"_Arg", "_Retval", "_Recv", "_Send"}


def _compile(name: str) -> tuple[graph_execution.CompiledGraph, dict, list[str]]:
    info = MANIFEST[name]
    graph_def = graph_pb2.GraphDef.FromString((MODELS / f"{name}.pb").read_bytes())
    io = np.load(MODELS / f"{name}.io.npz")
    batch = info["batches"][-1]
    feeds = {i["name"]: io[f"b{batch}/in/{i['name']}"] for i in info["inputs"]}
    fetches = [o["name"] for o in info["outputs"]]
    options = graph_execution.ExecutionOptions(rewrite_options=RC(remapping=RC.OFF, layout_optimizer=RC.OFF))
    compiled = graph_execution.compile_graph(graph_def, list(feeds), fetches, options=options)
    want = {f: io[f"b{batch}/out/{f}"] for f in fetches}
    return compiled, feeds, want


def test_the_four_tf_comparable_models_are_recorded() -> None:
    assert TF_COMPARABLE == ["mlp", "mobilenet_block", "scopes_and_control", "small_cnn"]


@pytest.mark.parametrize("name", TF_COMPARABLE)
def test_builtin_passes_leave_the_ops_tensorflows_grappler_leaves(name: str) -> None:
    compiled, feeds, want = _compile(name)
    try:
        fed = {f.split(":")[0] for f in feeds}  # TF's partition graphs have an _Arg in their place
        ops = collections.Counter(
            n.op for n in compiled.optimization.graph_def.node if n.op not in TRANSFERS and n.name not in fed
        )
        expected = {op: n for op, n in GOLDEN[name]["builtin_ops"].items() if op not in TRANSFERS}
        assert dict(ops) == expected
        outputs = compiled.run(list(feeds.values()))
    finally:
        compiled.close()
    for (fetch, value), got in zip(want.items(), outputs, strict=True):
        np.testing.assert_allclose(got, value, rtol=1e-5, atol=1e-5, err_msg=fetch)


def test_mobilenet_batch_norm_scales_fold_into_the_convolutions_and_leave_a_bias_add() -> None:
    compiled, _, _ = _compile("mobilenet_block")
    try:
        nodes = {n.name: n for n in compiled.optimization.graph_def.node}
    finally:
        compiled.close()
    conv = nodes["block_1/expand/bn/mul"]  # the Mul's name now names the Conv2D (TF's MulConvPushDown)
    assert conv.op == "Conv2D" and conv.input[1] == "block_1/expand/Conv2D/merged_input"
    assert nodes["block_1/expand/Conv2D/merged_input"].op == "Const"
    assert list(nodes["block_1/expand/bn/add"].input) == ["block_1/expand/bn/mul", "block_1/expand/bn/offset"]
    assert nodes["block_1/depthwise/bn/mul"].op == "Mul"  # not a Conv2D/Conv3D: stays


def test_scopes_and_control_folds_shapes_and_keeps_the_random_op_that_fed_a_zero_product() -> None:
    compiled, _, _ = _compile("scopes_and_control")
    try:
        nodes = {n.name: n for n in compiled.optimization.graph_def.node}
    finally:
        compiled.close()
    folded = nodes["shapes/stack_plus_noise"]  # Pack(Unpack(Fill(Pack(Rank(x), 3)))) + uniform * 0
    assert folded.op == "Const" and "^shapes/uniform" in folded.input
    assert nodes["shapes/uniform"].op == "RandomUniform"
    sliced = nodes["shapes/strided_slice"]  # Range(0, Rank(x) + 3)[1:...]: folded, after x as Rank(x) was
    assert sliced.op == "Const" and any(t.startswith("^") for t in sliced.input)
    add_n = nodes["math/ArithmeticOptimizer/AddOpsRewrite_mix"]
    assert add_n.op == "AddN" and list(add_n.input) == ["math/Erfc", "math/Mul", "math/OnesLike"]
    assert {"math/StopGradient", "math/ZerosLike", "math/mix"}.isdisjoint(nodes)
