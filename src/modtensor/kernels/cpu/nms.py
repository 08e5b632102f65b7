"""CPU kernels of NonMaxSuppressionV3/V4/V5: TensorFlow's greedy (and Soft-NMS) selection.

Candidates above ``score_threshold`` are taken best score first (the lower index first among equal scores); a hard
NMS candidate is kept unless its IoU with a kept box exceeds ``iou_threshold``; Soft-NMS (V5, ``soft_nms_sigma``
> 0) decays its score by ``exp(-0.5 / sigma * iou^2)`` per kept box, newest first, and puts it back while it stays
above the threshold, as TF's kernel does. IoUs are computed in float32 from corners in any order; scores keep the
input's precision. Errors carry TF's texts.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str

__all__ = ["CPU_TYPE_CONSTRAINTS", "OP_FUNCTIONS"]


def _check(boxes: np.ndarray, scores: np.ndarray, max_output_size: np.ndarray, iou: np.ndarray, score: np.ndarray,
           rank_note: bool) -> None:  # fmt: skip
    size = np.asarray(max_output_size)
    if size.ndim != 0:
        note = f" (Shape must be rank 0 but is rank {size.ndim})" if rank_note else ""
        raise invalid_argument(f"max_output_size must be 0-D, got shape {shape_str(size.shape)}{note}")
    if np.asarray(iou).ndim != 0:
        note = f" (Shape must be rank 0 but is rank {np.asarray(iou).ndim})" if rank_note else ""
        raise invalid_argument(f"iou_threshold must be 0-D, got shape {shape_str(np.asarray(iou).shape)}{note}")
    if not 0 <= float(iou) <= 1:
        raise invalid_argument("iou_threshold must be in [0, 1]")
    if np.asarray(score).ndim != 0:
        raise invalid_argument(f"score_threshold must be 0-D, got shape {shape_str(np.asarray(score).shape)}")


def _check_boxes(boxes: np.ndarray, scores: np.ndarray) -> None:
    if boxes.ndim != 2:
        raise invalid_argument(f"boxes must be 2-D{shape_str(boxes.shape)} (Shape must be rank 2 but is rank "
                               f"{boxes.ndim})")  # fmt: skip
    if boxes.shape[1] != 4:
        raise invalid_argument(f"boxes must have 4 columns (Dimension must be 4 but is {boxes.shape[1]})")
    if scores.ndim != 1:
        raise invalid_argument(f"scores must be 1-D{shape_str(scores.shape)} (Shape must be rank 1 but is rank "
                               f"{scores.ndim})")  # fmt: skip
    if scores.shape[0] != boxes.shape[0]:
        raise invalid_argument(f"scores has incompatible shape (Dimensions must be equal, but are {boxes.shape[0]} "
                               f"and {scores.shape[0]})")  # fmt: skip


def _iou(corners: np.ndarray, areas: np.ndarray, i: int, others: np.ndarray) -> np.ndarray:
    """float32 IoUs of box ``i`` with boxes ``others`` (0 where either area is not positive), as TF's IOU."""
    y0, x0, y1, x1 = corners[i]
    ys0, xs0, ys1, xs1 = corners[others].T
    inter = np.maximum(np.minimum(y1, ys1) - np.maximum(y0, ys0), np.float32(0)) * np.maximum(
        np.minimum(x1, xs1) - np.maximum(x0, xs0), np.float32(0)
    )
    with np.errstate(all="ignore"):
        iou = inter / (areas[i] + areas[others] - inter)
    return np.where((areas[i] <= 0) | (areas[others] <= 0), np.float32(0), iou).astype(np.float32)


def _select(boxes: np.ndarray, scores: np.ndarray, max_output_size: Any, iou_threshold: Any, score_threshold: Any,
            sigma: Any = 0.0) -> tuple[list[int], list[Any]]:  # fmt: skip
    """TF's DoNonMaxSuppressionOp: the kept indices and their (decayed) scores."""
    limit = int(max_output_size)
    if limit < 0:
        raise invalid_argument("output size must be non-negative")
    t = scores.dtype.type
    iou_threshold, score_threshold, sigma = t(iou_threshold), t(score_threshold), t(sigma)
    b = boxes.astype(np.float32)
    corners = np.stack([np.minimum(b[:, 0], b[:, 2]), np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 0], b[:, 2]),
                        np.maximum(b[:, 1], b[:, 3])], axis=1)  # fmt: skip
    areas = (corners[:, 2] - corners[:, 0]) * (corners[:, 3] - corners[:, 1])
    soft = sigma > 0
    scale = t(-0.5) / sigma if soft else t(0)
    heap = [(-float(s), i, s, 0) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(heap)
    selected: list[int] = []
    kept_scores: list[Any] = []
    while len(selected) < limit and heap:
        _, index, score, begin = heapq.heappop(heap)
        original = score
        if not soft:
            if begin < len(selected):
                sims = _iou(corners, areas, index, np.asarray(selected[begin:], np.int64))
                if np.any(sims.astype(t) > iou_threshold):
                    continue
            selected.append(index)
            kept_scores.append(score)
            continue
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = t(_iou(corners, areas, index, np.asarray([selected[j]], np.int64))[0])
            score = t(score * t(np.exp(t(scale * sim * sim))))
            if score <= score_threshold:
                break
        if score == original:
            selected.append(index)
            kept_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(heap, (-float(score), index, score, len(selected)))
    return selected, kept_scores


def non_max_suppression_v3(boxes: np.ndarray, scores: np.ndarray, max_output_size: np.ndarray,
                           iou_threshold: np.ndarray, score_threshold: np.ndarray) -> np.ndarray:  # fmt: skip
    """NonMaxSuppressionV3: the indices of the boxes kept, best first."""
    boxes, scores = np.asarray(boxes), np.asarray(scores)
    _check(boxes, scores, max_output_size, iou_threshold, score_threshold, rank_note=True)
    _check_boxes(boxes, scores)
    selected, _ = _select(boxes, scores, max_output_size, iou_threshold, score_threshold)
    return np.asarray(selected, np.int32)


def non_max_suppression_v4(boxes: np.ndarray, scores: np.ndarray, max_output_size: np.ndarray,
                           iou_threshold: np.ndarray, score_threshold: np.ndarray,
                           pad_to_max_output_size: bool = False) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """NonMaxSuppressionV4: V3's indices (zero-padded to ``max_output_size`` if asked) and how many are real."""
    boxes, scores = np.asarray(boxes), np.asarray(scores)
    _check(boxes, scores, max_output_size, iou_threshold, score_threshold, rank_note=False)
    _check_boxes(boxes, scores)
    selected, _ = _select(boxes, scores, max_output_size, iou_threshold, score_threshold)
    valid = len(selected)
    if pad_to_max_output_size:
        selected = selected + [0] * (int(max_output_size) - valid)
    return np.asarray(selected, np.int32), np.array(valid, np.int32)


def non_max_suppression_v5(boxes: np.ndarray, scores: np.ndarray, max_output_size: np.ndarray,
                           iou_threshold: np.ndarray, score_threshold: np.ndarray, soft_nms_sigma: np.ndarray,
                           pad_to_max_output_size: bool = False) -> tuple[np.ndarray, ...]:  # fmt: skip
    """NonMaxSuppressionV5: the kept indices, their scores (decayed by Soft-NMS) and how many are real."""
    boxes, scores = np.asarray(boxes), np.asarray(scores)
    _check(boxes, scores, max_output_size, iou_threshold, score_threshold, rank_note=False)
    sigma = np.asarray(soft_nms_sigma)
    if sigma.ndim != 0:
        raise invalid_argument(f"soft_nms_sigma must be 0-D, got shape {shape_str(sigma.shape)}")
    if float(sigma) < 0:
        raise invalid_argument("soft_nms_sigma_val must be >= 0")
    _check_boxes(boxes, scores)
    selected, kept = _select(boxes, scores, max_output_size, iou_threshold, score_threshold, sigma)
    valid = len(selected)
    if pad_to_max_output_size:
        selected = selected + [0] * (int(max_output_size) - valid)
        kept = kept + [0] * (int(max_output_size) - valid)
    return np.asarray(selected, np.int32), np.asarray(kept, scores.dtype), np.array(valid, np.int32)


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "NonMaxSuppressionV3": non_max_suppression_v3,
    "NonMaxSuppressionV4": non_max_suppression_v4,
    "NonMaxSuppressionV5": non_max_suppression_v5,
}
# TF 2.21's CPU kernels constrain T only (T_threshold is free)
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {op: {"T": "float16 float32"} for op in OP_FUNCTIONS}
