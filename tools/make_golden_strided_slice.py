"""Golden StridedSlice results from TensorFlow: random slice specs (every mask, negative and zero strides, specs
longer or shorter than the input's rank, mask bits past the entries) on small inputs, with TF's output shape and
values or its error message.

Run with TensorFlow installed (a scratch venv, never modtensor's own):

    python tools/make_golden_strided_slice.py tests/golden/strided_slice/cases.json
"""

from __future__ import annotations

import json
import random
import sys

import numpy as np

CASES = 600
SEED = 20261206


def random_case(rng: random.Random) -> dict:
    """One slice spec on an input of up to rank 5 (dims 0-5), entries up to rank + 1."""
    rank = rng.randint(0, 5)
    shape = [rng.randint(0, 5) for _ in range(rank)]
    n = rng.randint(0, rank + 2)
    masks = [rng.getrandbits(n + 1) if rng.random() < 0.5 else 0 for _ in range(5)]
    if rng.random() < 0.7:
        masks[2] &= -masks[2]  # mostly at most one ellipsis
    return {
        "shape": shape,
        "begin": [rng.randint(-7, 7) for _ in range(n)],
        "end": [rng.randint(-7, 7) for _ in range(n)],
        "strides": [rng.choice([1, 1, 1, 2, 3, -1, -2, 0]) for _ in range(n)],
        "masks": masks,
        "index": rng.choice(["int32", "int64"]),
    }


def main(path: str) -> None:
    import tensorflow as tf

    rng = random.Random(SEED)
    cases = []
    for _ in range(CASES):
        case = random_case(rng)
        x = np.arange(int(np.prod(case["shape"])), dtype=np.float32).reshape(case["shape"])
        spec = [np.array(case[k], case["index"]) for k in ("begin", "end", "strides")]
        m = case["masks"]
        try:
            y = tf.strided_slice(x, *spec, begin_mask=m[0], end_mask=m[1], ellipsis_mask=m[2], new_axis_mask=m[3],
                                 shrink_axis_mask=m[4]).numpy()  # fmt: skip
            case["out_shape"] = list(y.shape)
            case["out"] = [int(v) for v in y.ravel()]
        except tf.errors.InvalidArgumentError as e:
            case["error"] = e.message.split("} ", 1)[-1].split(" [Op:")[0]
        cases.append(case)
    with open(path, "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
