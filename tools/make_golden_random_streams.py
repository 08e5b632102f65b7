"""Record TensorFlow's stateful random streams: consecutive calls of one RandomUniform / RandomStandardNormal /
TruncatedNormal kernel.

A v1 Session keeps each node's kernel between runs, so its three runs are the kernel's calls 0, 1 and 2 (TF
advances the stream by 256 blocks per output element per call). The shapes are fed, one node per (op, dtype,
seeds): ``tests/kernels/test_native_cpu_kernels.py`` replays them through modtensor's Session and requires TF's
bits (the native kernels compute Box-Muller as TF's C++ does).

    /work/tfvenv/bin/python tools/make_golden_random_streams.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "random_streams"
SHAPES = ([1027], [3, 2], [0], [5])  # the calls of each kernel in turn (an empty call advances nothing)
SEEDS = ((7, 3), (1099511627781, 34359738377))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, np.ndarray] = {}
    cases = []
    graph = tf.Graph()
    with graph.as_default():
        shape = tf.compat.v1.placeholder(tf.int32, [None], name="shape")
        nodes = []
        for op in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal"):
            for dtype in (tf.float32, tf.float64):
                for seed, seed2 in SEEDS:
                    name = f"{op}_{dtype.name}_{seed}_{seed2}"
                    fn = getattr(tf.raw_ops, op)
                    nodes.append((name, fn(shape=shape, dtype=dtype, seed=seed, seed2=seed2, name=name)))
                    cases.append({"name": name, "op": op, "dtype": dtype.name, "seed": seed, "seed2": seed2})
    with tf.compat.v1.Session(graph=graph) as session:
        for call, dims in enumerate(SHAPES):
            values = session.run([t for _, t in nodes], {shape: np.int32(dims)})
            for (name, _), value in zip(nodes, values, strict=True):
                arrays[f"{name}/call{call}"] = value
    np.savez_compressed(OUT / "streams.npz", **arrays)
    (OUT / "index.json").write_text(
        json.dumps({"tensorflow": tf.__version__, "shapes": [list(s) for s in SHAPES], "cases": cases}, indent=1)
    )
    print(f"wrote {len(arrays)} arrays to {OUT}")


if __name__ == "__main__":
    main()
