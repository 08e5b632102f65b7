"""Record what TensorFlow's non-max suppression builds and computes: ``tf.image.non_max_suppression`` and
``non_max_suppression_with_scores`` (hard and Soft-NMS).

    /work/tfvenv/bin/python tools/make_golden_nms.py

Writes ``tests/golden/nms/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets, ids ``nms_...``, read by
``tests/api/test_nms_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py`` writes (OpDefs, CPU
kernel constraints, shape and kernel cases) for NonMaxSuppressionV3/V4/V5: random boxes with corners in either
order, equal scores, degenerate boxes, every threshold, padding, half precision, Soft-NMS, and TF's errors.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_breadth  # noqa: E402, F401  (its scalar-bytes encoding of eager values)
import make_golden_frontend_ops as base  # noqa: E402
import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "nms"
OPS = ["NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5"]

BOXES = ("tf.constant([[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, -0.1, 1.0, 0.9], [0.0, 10.0, 1.0, 11.0], "
         "[0.0, 10.1, 1.0, 11.1], [1.0, 101.0, 0.0, 100.0]])")  # fmt: skip
SCORES = "tf.constant([0.9, 0.75, 0.6, 0.95, 0.5, 0.3])"

CASES: list[tuple[str, str, str]] = [
    ("nms_basic", f"tf.image.non_max_suppression({BOXES}, {SCORES}, 3, 0.5)", "ge"),
    ("nms_score_threshold", f"tf.image.non_max_suppression({BOXES}, {SCORES}, 6, 0.5, 0.55, name='nms')", "ge"),
    ("nms_all", f"tf.image.non_max_suppression({BOXES}, {SCORES}, 10, 1.0)", "e"),
    ("nms_with_scores", f"tf.image.non_max_suppression_with_scores({BOXES}, {SCORES}, 6, 0.5)", "ge"),
    ("nms_soft", f"tf.image.non_max_suppression_with_scores({BOXES}, {SCORES}, 6, 1.0, 0.1, soft_nms_sigma=0.5)",
     "e"),
    ("nms_ph", "tf.image.non_max_suppression(ph(tf.float32, [None, 4]), ph(tf.float32, [None]), 5)", "g"),
    ("nms_bad_iou", f"tf.image.non_max_suppression({BOXES}, {SCORES}, 3, 1.5)", "e"),
    ("nms_bad_boxes", f"tf.image.non_max_suppression(tf.zeros([6, 3]), {SCORES}, 3)", "ge"),
    ("nms_negative_size", f"tf.image.non_max_suppression({BOXES}, {SCORES}, -1)", "e"),
    ("nms_gather",
     f"boxes = {BOXES}\ntf.gather(boxes, tf.image.non_max_suppression(boxes, {SCORES}, 2, 0.3))", "e"),
]  # fmt: skip


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape and kernel cases) of the NMS ops."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    breadth.begin(OUT / "ops", "tools/make_golden_nms.py", OPS)
    rng = np.random.default_rng(20261206)
    centers = rng.uniform(0, 10, (60, 2))
    sizes = rng.uniform(0.5, 3, (60, 2))
    boxes = np.concatenate([centers - sizes / 2, centers + sizes / 2], axis=1).astype(np.float32)
    boxes[::3] = boxes[::3][:, [2, 3, 0, 1]]  # corners the other way round
    boxes[5] = [1, 1, 1, 4]  # no area
    scores = rng.uniform(0, 1, 60).astype(np.float32)
    scores[10:14] = 0.5  # equal scores: the lower index first
    f32 = np.float32
    for limit, iou, score in ((20, 0.5, -np.inf), (60, 0.3, 0.2), (5, 0.0, 0.0), (60, 1.0, 0.9), (0, 0.5, 0.0)):
        kernel_case("NonMaxSuppressionV3", boxes, scores, np.int32(limit), f32(iou), f32(score))
        for pad in (False, True):
            kernel_case("NonMaxSuppressionV4", boxes, scores, np.int32(limit), f32(iou), f32(score),
                        pad_to_max_output_size=pad)  # fmt: skip
    for sigma, iou, score in ((0.0, 0.4, 0.1), (0.5, 1.0, 0.05), (0.1, 0.6, 0.3), (2.0, 1.0, 0.0)):
        kernel_case("NonMaxSuppressionV5", boxes, scores, np.int32(25), f32(iou), f32(score), f32(sigma))
        kernel_case("NonMaxSuppressionV5", boxes, scores, np.int32(70), f32(iou), f32(score), f32(sigma),
                    pad_to_max_output_size=True)  # fmt: skip
    h = np.float16
    kernel_case("NonMaxSuppressionV3", boxes.astype(h), scores.astype(h), np.int32(15), h(0.5), h(0.1))
    kernel_case("NonMaxSuppressionV3", boxes, scores, np.int32(15), h(0.5), h(0.1))
    kernel_case("NonMaxSuppressionV5", boxes.astype(h), scores.astype(h), np.int32(15), h(0.5), h(0.1), h(0.5))
    kernel_case("NonMaxSuppressionV3", np.zeros((0, 4), f32), np.zeros((0,), f32), np.int32(3), f32(0.5), f32(0))
    for bad in (
        (boxes[:, :3], scores, np.int32(3), f32(0.5), f32(0)), (boxes, scores[:5], np.int32(3), f32(0.5), f32(0)),
        (boxes, scores, np.int32(3), f32(-0.1), f32(0)), (boxes, scores, np.array([3], np.int32), f32(0.5), f32(0)),
        (boxes, scores, np.int32(-2), f32(0.5), f32(0)), (boxes[None], scores, np.int32(3), f32(0.5), f32(0)),
        (boxes, scores[None], np.int32(3), f32(0.5), f32(0)),
    ):  # fmt: skip
        kernel_case("NonMaxSuppressionV3", *bad)
    kernel_case("NonMaxSuppressionV5", boxes, scores, np.int32(3), f32(0.5), f32(0), f32(-1))
    shape_case("NonMaxSuppressionV3", P([U, 4], "float32"), P([U], "float32"), P([], "int32"), P([], "float32"),
               P([], "float32"))  # fmt: skip
    shape_case("NonMaxSuppressionV3", P([5, 3], "float32"), P([5], "float32"), P([], "int32"), P([], "float32"),
               P([], "float32"))  # fmt: skip
    shape_case("NonMaxSuppressionV3", P([5, 4], "float32"), P([6], "float32"), P([], "int32"), P([], "float32"),
               P([], "float32"))  # fmt: skip
    shape_case("NonMaxSuppressionV4", P([U, 4], "float32"), P([U], "float32"), C(7, "int32"), P([], "float32"),
               P([], "float32"), pad_to_max_output_size=True)  # fmt: skip
    shape_case("NonMaxSuppressionV4", P([U, 4], "float32"), P([U], "float32"), C(7, "int32"), P([], "float32"),
               P([], "float32"))  # fmt: skip
    shape_case("NonMaxSuppressionV5", P([U, 4], "float32"), P([U], "float32"), C(9, "int32"), P([], "float32"),
               P([], "float32"), P([], "float32"), pad_to_max_output_size=True)  # fmt: skip
    shape_case("NonMaxSuppressionV5", P([U, 4], "float32"), P([U], "float32"), P([], "int32"), P([], "float32"),
               P([], "float32"), P([2], "float32"))  # fmt: skip
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_nms.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
