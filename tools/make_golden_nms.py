"""Record what TensorFlow's non-max suppression builds and computes: ``tf.image.non_max_suppression``,
``non_max_suppression_with_scores`` (hard and Soft-NMS) and ``combined_non_max_suppression``.

    /work/tfvenv/bin/python tools/make_golden_nms.py

Writes ``tests/golden/nms/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets, ids ``nms_...``, read by
``tests/api/test_nms_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py`` writes (OpDefs, CPU
kernel constraints, shape and kernel cases) for NonMaxSuppressionV3/V4/V5: random boxes with corners in either
order, equal scores, degenerate boxes, every threshold, padding, half precision, Soft-NMS, and TF's errors; and for
CombinedNonMaxSuppression: boxes shared by the classes (q == 1) or per class, scores tied within and across classes
(TF's heap and std::sort order), thresholds, ``pad_per_class``, ``clip_boxes``, small totals and TF's errors.
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
OPS = ["NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5", "CombinedNonMaxSuppression"]

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

# CombinedNonMaxSuppression: two images, five boxes, three classes (q == 1, or per-class boxes shifted per class)
CBOXES = ("tf.constant([[[[0.0, 0.0, 0.5, 0.5]], [[0.05, 0.0, 0.55, 0.5]], [[0.6, 0.6, 1.2, 1.1]], "
          "[[-0.2, 0.3, 0.4, 0.9]], [[0.5, 0.5, 0.0, 0.0]]], [[[0.1, 0.1, 0.3, 0.3]], [[0.1, 0.1, 0.3, 0.3]], "
          "[[0.0, 0.0, 1.0, 1.0]], [[0.4, 0.4, 0.9, 0.9]], [[0.45, 0.4, 0.95, 0.9]]]])")  # fmt: skip
CSCORES = ("tf.constant([[[0.9, 0.1, 0.3], [0.8, 0.7, 0.2], [0.4, 0.6, 0.95], [0.5, 0.5, 0.5], [0.2, 0.9, 0.05]], "
           "[[0.3, 0.6, 0.6], [0.35, 0.6, 0.1], [0.7, 0.2, 0.6], [0.1, 0.85, 0.4], [0.05, 0.8, 0.6]]])")  # fmt: skip
CQBOXES = f"tf.tile({CBOXES}, [1, 1, 3, 1]) + tf.reshape(tf.range(3.0) * 0.1, [1, 1, 3, 1])"
COMBINED = "tf.image.combined_non_max_suppression"
CASES += [
    ("nms_combined_basic", f"{COMBINED}({CBOXES}, {CSCORES}, 2, 5)", "ge"),
    ("nms_combined_per_class_boxes", f"{COMBINED}({CQBOXES}, {CSCORES}, 3, 8, 0.4, name='combined')", "ge"),
    ("nms_combined_pad_per_class", f"{COMBINED}({CBOXES}, {CSCORES}, 2, 20, pad_per_class=True)", "ge"),
    ("nms_combined_no_clip", f"{COMBINED}({CBOXES}, {CSCORES}, 3, 6, 0.3, 0.15, clip_boxes=False)", "ge"),
    ("nms_combined_score_threshold", f"{COMBINED}({CBOXES}, {CSCORES}, 4, 4, 0.5, 0.55)", "e"),
    ("nms_combined_fields",
     f"r = {COMBINED}({CBOXES}, {CSCORES}, 2, 3, pad_per_class=True)\n"
     "(r.valid_detections, r.nmsed_classes, r[1], tf.constant(len(r)))", "e"),
    ("nms_combined_ph",
     f"{COMBINED}(ph(tf.float32, [None, None, 1, 4]), ph(tf.float32, [None, None, 3]), 4, 10)", "g"),
    ("nms_combined_ph_pad",
     f"{COMBINED}(ph(tf.float32, [None, 7, 3, 4]), ph(tf.float32, [None, 7, 3]), 2, 10, pad_per_class=True)", "g"),
    ("nms_combined_ph_size",
     f"{COMBINED}(ph(tf.float32, [2, 7, 1, 4]), ph(tf.float32, [2, 7, 3]), ph(tf.int32, []), 10, "
     "pad_per_class=True)", "g"),
    ("nms_combined_bad_q", f"{COMBINED}(tf.zeros([2, 5, 2, 4]), {CSCORES}, 2, 5)", "ge"),
    ("nms_combined_bad_total", f"{COMBINED}({CBOXES}, {CSCORES}, 2, 0)", "ge"),
    ("nms_combined_bad_per_class", f"{COMBINED}({CBOXES}, {CSCORES}, 0, 4, pad_per_class=True)", "ge"),
    ("nms_combined_bad_iou", f"{COMBINED}({CBOXES}, {CSCORES}, 2, 4, 1.5)", "e"),
    ("nms_combined_int64_total", f"{COMBINED}({CBOXES}, {CSCORES}, 2, 2**31)", "ge"),
    ("nms_combined_gradient",
     f"b = {CBOXES}\ntf.gradients({COMBINED}(b, {CSCORES}, 2, 5).nmsed_boxes, b)", "g"),
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
    combined_cases()
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def _boxes(rng: np.random.Generator, shape: tuple[int, ...], spread: float = 1.0) -> np.ndarray:
    """Random ``[..., 4]`` boxes around centres in [0, spread), some corners the other way round."""
    centers = rng.uniform(0, spread, (*shape, 2))
    sizes = rng.uniform(0.05, 0.4, (*shape, 2))
    boxes = np.concatenate([centers - sizes / 2, centers + sizes / 2], axis=-1).astype(np.float32)
    flip = rng.uniform(0, 1, shape) < 0.25
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    return boxes


def combined_cases() -> None:
    """CombinedNonMaxSuppression's kernel and shape cases."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    op, f32, i32 = "CombinedNonMaxSuppression", np.float32, np.int32
    rng = np.random.default_rng(20261207)
    shared = _boxes(rng, (2, 30, 1))  # q == 1
    per_class = _boxes(rng, (2, 30, 4))  # q == num_classes
    scores = rng.uniform(0, 1, (2, 30, 4)).astype(f32)
    for boxes in (shared, per_class):
        for size, total, iou, thr, pad, clip in (
            (10, 20, 0.5, -np.inf, False, True), (5, 40, 0.3, 0.2, False, False), (3, 8, 0.7, 0.5, True, True),
            (50, 200, 1.0, 0.0, True, False), (4, 3, 0.0, 0.1, False, True), (2, 100, 0.5, 0.95, True, True),
            (30, 1, 0.5, 0.0, False, False),
        ):  # fmt: skip
            kernel_case(op, boxes, scores, i32(size), i32(total), f32(iou), f32(thr), pad_per_class=pad,
                        clip_boxes=clip)  # fmt: skip
    # equal scores within a class and across classes, more kept boxes than std::sort's insertion threshold (16)
    tie_boxes = _boxes(rng, (2, 60, 1), spread=3.0)
    tie_scores = (rng.integers(1, 5, (2, 60, 5)) / 4).astype(f32)
    for size, total, pad in ((12, 60, False), (40, 300, True), (5, 7, False)):
        kernel_case(op, tie_boxes, tie_scores, i32(size), i32(total), f32(0.5), f32(0.0), pad_per_class=pad)
    many = _boxes(rng, (1, 200, 8), spread=4.0)
    many_scores = (rng.integers(0, 6, (1, 200, 8)) / 8).astype(f32)
    kernel_case(op, many, many_scores, i32(100), i32(700), f32(0.6), f32(0.05), clip_boxes=False)
    same = np.tile(np.array([[[[0.1, 0.1, 0.4, 0.4]], [[0.5, 0.5, 0.9, 0.9]]]], f32), (1, 10, 1, 1))
    kernel_case(op, same, np.full((1, 20, 3), 0.5, f32), i32(8), i32(30), f32(0.5), f32(0.0))
    # coordinates outside [0, 1], -0.0 and degenerate boxes, clipped or not
    odd = np.array([[[[-0.0, 0.2, 1.5, -0.3]], [[2.0, 2.0, 3.0, 3.0]], [[0.3, 0.3, 0.3, 0.8]],
                     [[-1.0, -1.0, -0.5, 0.5]]]], f32)  # fmt: skip
    odd_scores = np.array([[[0.9, 0.2], [0.8, 0.3], [0.7, 0.4], [0.6, 0.5]]], f32)
    for clip in (True, False):
        kernel_case(op, odd, odd_scores, i32(4), i32(8), f32(0.5), f32(0.0), clip_boxes=clip)
    kernel_case(op, shared[:, :0], scores[:, :0], i32(3), i32(5), f32(0.5), f32(0.0))  # no boxes
    kernel_case(op, shared[:, :0], scores[:, :0], i32(3), i32(5), f32(0.5), f32(0.0), pad_per_class=True)
    kernel_case(op, shared, scores[:, :, :0], i32(3), i32(5), f32(0.5), f32(0.0))  # no classes
    kernel_case(op, shared, scores[:, :, :0], i32(3), i32(5), f32(0.5), f32(0.0), pad_per_class=True)
    kernel_case(op, shared[:1], scores[:1], i32(3), i32(4), f32(np.nan), f32(0.0))
    args = (i32(3), i32(5), f32(0.5), f32(0.0))
    for bad in (
        (shared[0], scores, *args), (shared, scores[0], *args), (per_class[:, :, :3], scores, *args),
        (np.zeros((2, 30, 1, 3), f32), scores, *args), (shared, scores[:, :29], *args), (shared[:1], scores, *args),
        (shared, scores, np.array([3], i32), i32(5), f32(0.5), f32(0.0)),
        (shared, scores, i32(0), i32(5), f32(0.5), f32(0.0)), (shared, scores, i32(-1), i32(5), f32(0.5), f32(0.0)),
        (shared, scores, i32(3), np.array([5], i32), f32(0.5), f32(0.0)),
        (shared, scores, i32(3), i32(0), f32(0.5), f32(0.0)),
        (shared, scores, i32(3), i32(5), np.array([0.5], f32), f32(0.0)),
        (shared, scores, i32(3), i32(5), f32(0.5), np.array([0.0], f32)),
        (shared, scores, i32(3), i32(5), f32(1.5), f32(0.0)), (shared, scores, i32(3), i32(5), f32(-0.5), f32(0.0)),
        # TF 2.21 checks the batch sizes, the scalars, then the boxes' and the scores' ranks
        (shared[:, :, 0], scores, *args), (shared[..., None], scores, *args), (shared[:, 0, 0], scores, *args),
        (shared, scores[..., None], *args), (per_class[:, :, :3], scores[..., None], *args),
        (np.zeros((2, 30, 1, 3), f32), scores[:, :29], *args), (shared[:, :, 0], scores, i32(0), i32(5), f32(0.5),
                                                                f32(0.0)),
        (shared[..., None], scores, i32(3), i32(5), f32(2.0), f32(0.0)),
    ):  # fmt: skip
        kernel_case(op, *bad)
    scalars = (P([], "int32"), P([], "int32"), P([], "float32"), P([], "float32"))
    shape_case(op, P([U, U, U, U], "float32"), P([U, U, U], "float32"), *scalars)
    shape_case(op, P(None, "float32"), P(None, "float32"), *scalars, pad_per_class=True)
    shape_case(op, P([2, 7, 1, 4], "float32"), P([U, U, 3], "float32"), C(4, "int32"), C(10, "int32"),
               P([], "float32"), P([], "float32"))  # fmt: skip
    for per, total in ((4, 10), (2, 10), (0, 10)):
        shape_case(op, P([2, 7, 3, 4], "float32"), P([2, 7, 3], "float32"), C(per, "int32"), C(total, "int32"),
                   P([], "float32"), P([], "float32"), pad_per_class=True)  # fmt: skip
    shape_case(op, P([2, 7, 3, 4], "float32"), P([2, 7, 3], "float32"), P([], "int32"), C(10, "int32"),
               P([], "float32"), P([], "float32"), pad_per_class=True)  # fmt: skip
    shape_case(op, P([2, 7, 1, 4], "float32"), P([2, 7, U], "float32"), C(2, "int32"), C(10, "int32"),
               P([], "float32"), P([], "float32"), pad_per_class=True)  # fmt: skip
    shape_case(op, P([2, 7, 1, 4], "float32"), P([2, 7, 3], "float32"), C(2, "int32"), P([], "int32"),
               P([], "float32"), P([], "float32"), pad_per_class=True)  # fmt: skip
    for boxes, scores_shape, per, total in (
        ([2, 7, 2, 4], [2, 7, 3], 2, 10), ([2, 7, U, 4], [2, 7, 3], 2, 0), ([2, 7, 1, 4], [2, 7, 3], 2, -1),
        ([2, 7, 1], [2, 7, 3], 2, 10), ([2, 7, 1, 5], [2, 7, 3], 2, 10), ([3, 7, 1, 4], [2, 7, 3], 2, 10),
        ([2, 6, 1, 4], [2, 7, 3], 2, 10), ([2, 7, 1, 4], [2, 7], 2, 10), ([2, 7, 1, 4], [2, 7, 3], -2, 10),
    ):  # fmt: skip
        shape_case(op, P(boxes, "float32"), P(scores_shape, "float32"), C(per, "int32"), C(total, "int32"),
                   P([], "float32"), P([], "float32"))  # fmt: skip
    shape_case(op, P([2, 7, 1, 4], "float32"), P([2, 7, 3], "float32"), C(0, "int32"), C(10, "int32"),
               P([], "float32"), P([], "float32"), pad_per_class=True)  # fmt: skip
    shape_case(op, P([2, 7, 1, 4], "float32"), P([2, 7, 3], "float32"), P([1], "int32"), C(10, "int32"),
               P([], "float32"), P([], "float32"))  # fmt: skip
    shape_case(op, P([2, 7, 1, 4], "float32"), P([2, 7, 3], "float32"), C(2, "int32"), C(10, "int32"),
               P([2], "float32"), P([], "float32"))  # fmt: skip


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_nms.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
