"""Record TensorFlow's Multinomial / StatelessMultinomial: OpDefs, CPU constraints, kernel and shape cases, streams.

Writes under ``tests/golden/random_categorical/``: ``ops/`` (op-breadth goldens, as tools/make_golden_image_ops.py)
and ``streams.npz`` + ``index.json``: three Session runs of each seeded Multinomial node (the kernel's calls 0, 1
and 2, so the stream advance is recorded too), replayed by ``tests/api/test_random_categorical.py``. The cases keep
each call below the cost at which TF's thread pool splits the rows, so the files do not depend on the core count.

    /work/tfvenv/bin/python tools/make_golden_random_categorical.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "random_categorical"
OPS = ["Multinomial", "StatelessMultinomial"]
RNG = np.random.default_rng(20260801)
CALLS = (5, 3, 0, 17)  # num_samples of the calls of each node in turn (an empty call advances nothing)


def logits(dtype: str) -> np.ndarray:
    """A [4, 6] logits matrix with a -inf class, a dominant class and a row of equal logits."""
    x = RNG.standard_normal((4, 6)) * 2
    x[1, 2] = -np.inf
    x[2, 4] += 8
    x[3] = 0.5
    return x.astype(dtype)


def write_op_goldens() -> int:
    """OpDefs, CPU constraints, shape cases and first-call kernel cases of the two ops."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    breadth.OUT = OUT / "ops"
    breadth.OUT.mkdir(parents=True, exist_ok=True)
    breadth.GENERATOR = "tools/make_golden_random_categorical.py"
    breadth.OPS, breadth.KERNEL_ONLY = list(OPS), []
    breadth.SHAPE_CASES.clear()
    breadth.KERNEL_CASES.clear()
    for i, dtype in enumerate(("float32", "float64", "float16")):
        for out in ("int32", "int64"):
            seed = 10 * i + (out == "int64")
            kernel_case("Multinomial", logits(dtype), np.int32(9), seed=seed + 1, seed2=seed + 2, output_dtype=out)
            kernel_case("StatelessMultinomial", logits(dtype), np.int32(9), np.array([seed, 7], np.int64),
                        output_dtype=out)  # fmt: skip
    kernel_case("StatelessMultinomial", logits("float32"), np.int32(4), np.array([-3, 5], np.int32))
    kernel_case("Multinomial", np.full((2, 3), -np.inf, np.float32), np.int32(3), seed=4, seed2=4)
    kernel_case("Multinomial", logits("float32")[0], np.int32(3), seed=5, seed2=5)
    kernel_case("Multinomial", logits("float32"), np.int32(-1), seed=6, seed2=6)
    kernel_case("Multinomial", np.zeros((2, 0), np.float32), np.int32(2), seed=7, seed2=7)
    kernel_case("Multinomial", np.zeros((0, 3), np.float32), np.int32(2), seed=8, seed2=8)
    kernel_case("StatelessMultinomial", logits("float32"), np.int32(2), np.array([1, 2, 3], np.int64))
    for op, extra in (("Multinomial", ()), ("StatelessMultinomial", (P([2], "int64"),))):
        shape_case(op, P([3, 5]), C(7, "int32"), *extra)
        shape_case(op, P([U, 5]), P([], "int32"), *extra)
        shape_case(op, P(None), C(2, "int32"), *extra)
        shape_case(op, P([3]), C(2, "int32"), *extra)
        shape_case(op, P([3, 5]), P([2], "int32"), *extra)
    shape_case("StatelessMultinomial", P([3, 5]), C(2, "int32"), P([3], "int64"))
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def write_streams() -> None:
    """Consecutive Session runs of seeded Multinomial nodes over fed logits and num_samples."""
    arrays: dict[str, np.ndarray] = {}
    cases = []
    graph = tf.Graph()
    with graph.as_default():
        n = tf.compat.v1.placeholder(tf.int32, [], name="num_samples")
        nodes = []
        for dtype in ("float32", "float64", "float16"):
            value = logits(dtype)
            arrays[f"logits_{dtype}"] = value
            x = tf.compat.v1.placeholder(dtype, [None, None], name=f"logits_{dtype}")
            for out in ("int32", "int64"):
                for seed, seed2 in ((7, 3), (1099511627781, 34359738377)):
                    name = f"Multinomial_{dtype}_{out}_{seed}_{seed2}"
                    y = tf.raw_ops.Multinomial(logits=x, num_samples=n, seed=seed, seed2=seed2, output_dtype=out,
                                               name=name)  # fmt: skip
                    nodes.append((name, x, y))
                    cases.append({"name": name, "dtype": dtype, "output_dtype": out, "seed": seed, "seed2": seed2})
    with tf.compat.v1.Session(graph=graph) as session:
        for call, samples in enumerate(CALLS):
            feeds = {x: arrays[f"logits_{x.dtype.name}"] for _, x, _ in nodes} | {n: samples}
            values = session.run([y for _, _, y in nodes], feeds)
            for (name, _, _), value in zip(nodes, values, strict=True):
                arrays[f"{name}/call{call}"] = value
    np.savez_compressed(OUT / "streams.npz", **arrays)
    (OUT / "index.json").write_text(
        json.dumps({"tensorflow": tf.__version__, "num_samples": list(CALLS), "cases": cases}, indent=1) + "\n"
    )
    print(f"wrote {len(arrays)} arrays to {OUT}")


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    write_streams()
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
