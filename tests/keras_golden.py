"""The compact golden Keras models (tests/golden/keras_models): weight recipes and the loader that expands them.

A frozen keras.applications GraphDef is 10-115 MB, nearly all of it weights. The committed
form keeps the GraphDef with every weight ``Const`` emptied (dtype and shape kept) and a
recipe per weight, ``{"seed", "offset", "scale"}``: the values are ``offset + scale * u``
with ``u`` uniform in [-1, 1) from a counter-based hash (splitmix64) of the element index
and the seed, computed with integer numpy arithmetic, so every numpy version on every
machine regenerates the same float32 bits. ``tools/make_golden_keras_models.py`` sets the
Keras weights from these recipes before freezing, then computes TF's outputs on the
GraphDef this module rebuilds; the tests rebuild it the same way. Inputs come from
recipes too. No TensorFlow here.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np

GOLDEN = Path(__file__).resolve().parent / "golden" / "keras_models"

_GOLDEN_RATIO = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def uniform(count: int, seed: int) -> np.ndarray:
    """``count`` float32 values uniform in [-1, 1): splitmix64 of (seed, index), top 24 bits, exact in float32."""
    with np.errstate(over="ignore"):
        z = np.arange(count, dtype=np.uint64) + np.uint64(seed) * _GOLDEN_RATIO
        z += _GOLDEN_RATIO
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z ^= z >> np.uint64(31)
    top = (z >> np.uint64(40)).astype(np.float32)  # 24 bits: exactly representable
    return top * np.float32(2.0**-23) - np.float32(1.0)


def regenerate(recipe: dict[str, Any]) -> np.ndarray:
    """The array a recipe ``{"shape", "dtype", "seed", "offset", "scale"}`` (optionally clipped to ``min``/``max``)
    describes: float32 math, floored for integer dtypes, then cast."""
    shape = tuple(recipe["shape"])
    count = int(np.prod(shape, dtype=np.int64))
    values = np.float32(recipe["offset"]) + np.float32(recipe["scale"]) * uniform(count, int(recipe["seed"]))
    dtype = np.dtype(recipe.get("dtype", "float32"))
    if dtype.kind in "iu":
        values = np.floor(values)
    if "min" in recipe or "max" in recipe:
        values = np.clip(values, recipe.get("min"), recipe.get("max"))
    return values.astype(dtype).reshape(shape)


def manifest() -> dict[str, Any]:
    """``manifest.json``: per model its inputs, outputs, op types, sizes and whether it is slow."""
    return json.loads((GOLDEN / "manifest.json").read_text())


def graph_def_bytes(name: str) -> bytes:
    """The full frozen GraphDef of model ``name`` (serialized), weights regenerated from their recipes."""
    from modtensor.framework.protos import graph_pb2

    return full_graph_def(name, graph_pb2.GraphDef).SerializeToString(deterministic=True)


def full_graph_def(name: str, graph_def_class: Any) -> Any:
    """The model's GraphDef (as ``graph_def_class``, modtensor's or TF's) with every recipe Const filled in."""
    graph_def = graph_def_class()
    graph_def.ParseFromString(gzip.decompress((GOLDEN / f"{name}.pb.gz").read_bytes()))
    recipes = json.loads((GOLDEN / f"{name}.weights.json").read_text())
    by_name = {node.name: node for node in graph_def.node}
    for node_name, recipe in recipes.items():
        tensor = by_name[node_name].attr["value"].tensor
        tensor.tensor_content = regenerate(recipe).tobytes()
    return graph_def


def inputs(name: str, batch: int) -> dict[str, np.ndarray]:
    """The model's inputs at ``batch`` (tensor name -> array), from the manifest's input recipes."""
    info = manifest()["models"][name]
    feeds = {}
    for spec in info["inputs"]:
        recipe = dict(spec["recipe"], shape=[batch if d is None else d for d in spec["feed_shape"]])
        recipe["seed"] = int(recipe["seed"]) + batch
        if spec["dtype"] == "string":  # the vocabulary's strings in turn, from a seeded start
            words = np.array([w.encode() for w in spec["vocabulary"]], dtype=object)
            count = int(np.prod(recipe["shape"], dtype=np.int64))
            picks = (np.arange(count) + int(recipe["seed"])) % len(words)
            feeds[spec["name"]] = words[picks].reshape(recipe["shape"])
        else:
            feeds[spec["name"]] = regenerate(dict(recipe, dtype=spec["dtype"]))
    return feeds


def outputs(name: str, batch: int) -> dict[str, np.ndarray]:
    """TensorFlow's outputs for :func:`inputs` at ``batch`` (tensor name -> array)."""
    info = manifest()["models"][name]
    with np.load(GOLDEN / f"{name}.outputs.npz") as data:
        return {spec["name"]: data[f"b{batch}/{spec['name']}"] for spec in info["outputs"]}


def relative_error(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| / max |want|: the error relative to the output's scale."""
    want64 = want.astype(np.float64)
    scale = float(np.max(np.abs(want64))) if want.size else 1.0
    error = float(np.max(np.abs(np.asarray(got, dtype=np.float64) - want64))) if want.size else 0.0
    return error / scale if scale else error
