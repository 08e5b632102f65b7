"""CPU kernels of NonMaxSuppressionV3/V4/V5 and CombinedNonMaxSuppression: TensorFlow's greedy (and Soft-NMS) selection.

Candidates above ``score_threshold`` are taken best score first (the lower index first among equal scores); a hard
NMS candidate is kept unless its IoU with a kept box exceeds ``iou_threshold``; Soft-NMS (V5, ``soft_nms_sigma``
> 0) decays its score by ``exp(-0.5 / sigma * iou^2)`` per kept box, newest first, and puts it back while it stays
above the threshold, as TF's kernel does. IoUs are computed in float32 from corners in any order; scores keep the
input's precision. CombinedNonMaxSuppression runs the same hard selection per image and class and merges the
classes' kept boxes by score. Errors carry TF's texts.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str

__all__ = ["CPU_TYPE_CONSTRAINTS", "OP_FUNCTIONS"]

_INT32_MAX = 2**31 - 1


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


def _corners(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float32 corners ``[ymin, xmin, ymax, xmax]`` of boxes given by any two opposite corners, and their areas."""
    b = boxes.astype(np.float32)
    corners = np.stack([np.minimum(b[:, 0], b[:, 2]), np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 0], b[:, 2]),
                        np.maximum(b[:, 1], b[:, 3])], axis=1)  # fmt: skip
    return corners, (corners[:, 2] - corners[:, 0]) * (corners[:, 3] - corners[:, 1])


def _hard_select(corners: np.ndarray, areas: np.ndarray, order: Iterable[int], limit: int, iou_threshold: Any,
                 t: type = np.float32) -> list[int]:  # fmt: skip
    """TF's greedy hard NMS over candidates in pop ``order``: keep one unless its IoU (cast to ``t``) with a kept box
    exceeds ``iou_threshold``; stop at ``limit`` kept boxes. Shared by V3-V5 and CombinedNonMaxSuppression."""
    selected: list[int] = []
    for index in order:
        if len(selected) >= limit:
            break
        if selected and np.any(_iou(corners, areas, index, np.asarray(selected, np.int64)).astype(t) > iou_threshold):
            continue
        selected.append(int(index))
    return selected


def _select(boxes: np.ndarray, scores: np.ndarray, max_output_size: Any, iou_threshold: Any, score_threshold: Any,
            sigma: Any = 0.0) -> tuple[list[int], list[Any]]:  # fmt: skip
    """TF's DoNonMaxSuppressionOp: the kept indices and their (decayed) scores."""
    limit = int(max_output_size)
    if limit < 0:
        raise invalid_argument("output size must be non-negative")
    t = scores.dtype.type
    iou_threshold, score_threshold, sigma = t(iou_threshold), t(score_threshold), t(sigma)
    corners, areas = _corners(boxes)
    if not sigma > 0:
        # TF's queue pops the best score first, the lower index first among equal scores
        candidates = np.flatnonzero(scores > score_threshold)
        order = candidates[np.argsort(-scores[candidates], kind="stable")]
        selected = _hard_select(corners, areas, order, limit, iou_threshold, t)
        return selected, [scores[i] for i in selected]
    scale = t(-0.5) / sigma
    heap = [(-float(s), i, s, 0) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(heap)
    selected = []
    kept_scores: list[Any] = []
    while len(selected) < limit and heap:
        _, index, score, begin = heapq.heappop(heap)
        original = score
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


# --------------------------------------------------------------------------- CombinedNonMaxSuppression
# TF's per-class queue compares scores only and its final std::sort is not stable, so among equal scores the order
# is the one libstdc++'s heap and introsort happen to give: both are replayed below (only when scores tie).


def _stl_adjust_heap(heap: list, hole: int, length: int, value: Any, less: Callable[[Any, Any], bool]) -> None:
    """libstdc++'s ``__adjust_heap``: sift the hole at ``hole`` down to a leaf, then push ``value`` up from there."""
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(heap[child], heap[child - 1]):
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    _stl_push_heap(heap, hole, top, value, less)


def _stl_push_heap(heap: list, hole: int, top: int, value: Any, less: Callable[[Any, Any], bool]) -> None:
    """libstdc++'s ``__push_heap``: move ``value`` up from ``hole`` while its parent is less."""
    parent = (hole - 1) // 2
    while hole > top and less(heap[parent], value):
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value


def _stl_queue_pops(keys: np.ndarray, items: np.ndarray) -> Iterator[int]:
    """``items`` in the order a ``std::priority_queue`` comparing ``keys`` only pops them, pushed in turn."""

    def less(a: int, b: int) -> bool:
        return bool(keys[a] < keys[b])

    heap: list[int] = []
    for item in range(len(items)):
        heap.append(item)
        _stl_push_heap(heap, len(heap) - 1, 0, item, less)
    while heap:
        top = heap[0]
        if len(heap) > 1:
            last = heap[-1]
            heap[-1] = top
            _stl_adjust_heap(heap, 0, len(heap) - 1, last, less)
        heap.pop()
        yield int(items[top])


def _stl_sort(values: list, less: Callable[[Any, Any], bool]) -> None:
    """libstdc++'s ``std::sort`` (introsort, median-of-three pivots, final insertion sort) of ``values`` in place."""

    def unguarded_linear_insert(last: int) -> None:
        value = values[last]
        while less(value, values[last - 1]):
            values[last] = values[last - 1]
            last -= 1
        values[last] = value

    def heap_sort(first: int, last: int) -> None:
        part = values[first:last]
        length = len(part)
        for parent in range((length - 2) // 2, -1, -1):
            _stl_adjust_heap(part, parent, length, part[parent], less)
        for end in range(length - 1, 0, -1):
            value = part[end]
            part[end] = part[0]
            _stl_adjust_heap(part, 0, end, value, less)
        values[first:last] = part

    def introsort(first: int, last: int, depth: int) -> None:
        while last - first > 16:
            if depth == 0:
                heap_sort(first, last)
                return
            depth -= 1
            a, b, c = first + 1, first + (last - first) // 2, last - 1
            if less(values[a], values[b]):
                median = b if less(values[b], values[c]) else c if less(values[a], values[c]) else a
            else:
                median = a if less(values[a], values[c]) else c if less(values[b], values[c]) else b
            values[first], values[median] = values[median], values[first]
            lo, hi = first + 1, last
            while True:
                while less(values[lo], values[first]):
                    lo += 1
                hi -= 1
                while less(values[first], values[hi]):
                    hi -= 1
                if lo >= hi:
                    break
                values[lo], values[hi] = values[hi], values[lo]
                lo += 1
            introsort(lo, last, depth)
            last = lo

    n = len(values)
    if n < 2:
        return
    introsort(0, n, 2 * (n.bit_length() - 1))
    for i in range(1, min(n, 16)):  # __insertion_sort of the first 16, then the unguarded rest
        if less(values[i], values[0]):
            values.insert(0, values.pop(i))
        else:
            unguarded_linear_insert(i)
    for i in range(16, n):
        unguarded_linear_insert(i)


def _stl_sorted_by_score(scores: np.ndarray) -> np.ndarray:
    """The positions of ``scores`` as TF's ``std::sort`` with ``b.score < a.score`` orders them (best first)."""
    slots = list(range(len(scores)))
    _stl_sort(slots, lambda i, j: bool(scores[j] < scores[i]))
    return np.asarray(slots, np.int64)


def _scalar(value: np.ndarray, what: str) -> np.ndarray:
    value = np.asarray(value)
    if value.ndim != 0:
        raise invalid_argument(f"{what} must be 0-D, got shape {shape_str(value.shape)}")
    return value


def combined_non_max_suppression(boxes: np.ndarray, scores: np.ndarray, max_output_size_per_class: np.ndarray,
                                 max_total_size: np.ndarray, iou_threshold: np.ndarray, score_threshold: np.ndarray,
                                 pad_per_class: bool = False,
                                 clip_boxes: bool = True) -> tuple[np.ndarray, ...]:  # fmt: skip
    """CombinedNonMaxSuppression: per image and class, greedy NMS of ``boxes [batch, n, q, 4]`` (shared by all
    classes when q == 1) by ``scores [batch, n, classes]``; each image's kept boxes best score first, at most
    ``max_total_size`` (or ``max_output_size_per_class * classes`` with ``pad_per_class``), zero-padded."""
    boxes, scores = np.asarray(boxes, np.float32), np.asarray(scores, np.float32)
    # TF 2.21's order of checks; where its kernel reads a dimension a rank-0 tensor or scores of rank < 3 lack,
    # it aborts the process (a CHECK in dim_size): the rank errors it would report are raised there instead
    if boxes.ndim == 0:
        raise invalid_argument(f"boxes must be 4-D{shape_str(boxes.shape)}")
    if scores.ndim == 0:
        raise invalid_argument(f"scores must be 3-D{shape_str(scores.shape)}")
    if boxes.shape[0] != scores.shape[0]:
        raise invalid_argument("boxes and scores must have same batch size")
    per_class = int(_scalar(max_output_size_per_class, "max_size_per_class"))
    if per_class <= 0:
        raise invalid_argument("max_size_per_class must be positive")
    total = int(_scalar(max_total_size, "max_total_size"))
    if total <= 0:
        raise invalid_argument("max_total_size must be > 0")
    iou = np.float32(_scalar(iou_threshold, "iou_threshold"))
    threshold = np.float32(_scalar(score_threshold, "score_threshold"))
    if not 0 <= iou <= 1:
        raise invalid_argument("iou_threshold must be in [0, 1]")
    if scores.ndim < 3:
        raise invalid_argument(f"scores must be 3-D{shape_str(scores.shape)}")
    num_classes = scores.shape[2]
    if boxes.ndim != 4:
        raise invalid_argument(f"boxes must be 4-D{shape_str(boxes.shape)}")
    batch, num_boxes, q, _ = boxes.shape
    if q not in (1, num_classes):
        raise invalid_argument("third dimension of boxes must be either 1 or num classes")
    if boxes.shape[3] != 4:
        raise invalid_argument("boxes must have 4 columns")
    if scores.ndim != 3:
        raise invalid_argument(f"scores must be 3-D{shape_str(scores.shape)}")
    if scores.shape[1] != num_boxes:
        raise invalid_argument("scores has incompatible shape")
    size_per_class = min(per_class, num_boxes)
    if size_per_class * num_classes > _INT32_MAX:
        raise invalid_argument("size_per_class * num_classes causes overflow")
    out_size = min(total, min(_INT32_MAX, per_class * num_classes)) if pad_per_class else total
    nmsed_boxes = np.zeros((batch, out_size, 4), np.float32)
    nmsed_scores = np.zeros((batch, out_size), np.float32)
    nmsed_classes = np.zeros((batch, out_size), np.float32)
    valid = np.zeros((batch,), np.int32)
    for b in range(batch):
        # TF's result slots: class c's k-th kept box at k + size_per_class * c, unused slots (-1, -inf, -1)
        slot_box = np.full(size_per_class * num_classes, -1, np.int64)
        slot_score = np.full(size_per_class * num_classes, -np.inf, np.float32)
        for c in range(num_classes):
            corners, areas = _corners(boxes[b, :, c if q > 1 else 0])
            class_scores = scores[b, :, c]
            candidates = np.flatnonzero(class_scores > threshold)
            keys = class_scores[candidates]
            if len(np.unique(keys)) == len(keys):
                order: Iterable[int] = candidates[np.argsort(-keys, kind="stable")]
            else:
                order = _stl_queue_pops(keys, candidates)
            kept = _hard_select(corners, areas, order, size_per_class, iou)
            first = c * size_per_class
            slot_box[first : first + len(kept)] = kept
            slot_score[first : first + len(kept)] = class_scores[kept]
        real = np.flatnonzero(slot_box >= 0)
        if len(np.unique(slot_score[real])) == len(real):
            ranked = real[np.argsort(-slot_score[real], kind="stable")]
        else:
            ranked = _stl_sorted_by_score(slot_score)
        count = min(out_size if pad_per_class else total, len(real))
        ranked = ranked[:count]
        valid[b] = count
        classes = ranked // size_per_class if size_per_class else ranked
        picked = boxes[b, slot_box[ranked], classes if q > 1 else 0]
        if clip_boxes:  # std::max(std::min(v, 1), 0): NaN and -0.0 stay
            picked = np.where(np.float32(1) < picked, np.float32(1), picked)
            picked = np.where(picked < np.float32(0), np.float32(0), picked)
        nmsed_boxes[b, :count] = picked
        nmsed_scores[b, :count] = slot_score[ranked]
        nmsed_classes[b, :count] = classes
    return nmsed_boxes, nmsed_scores, nmsed_classes, valid


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "NonMaxSuppressionV3": non_max_suppression_v3,
    "NonMaxSuppressionV4": non_max_suppression_v4,
    "NonMaxSuppressionV5": non_max_suppression_v5,
    "CombinedNonMaxSuppression": combined_non_max_suppression,
}
# TF 2.21's CPU kernels constrain T only (T_threshold is free); CombinedNonMaxSuppression is float only, no attr
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    op: {"T": "float16 float32"} for op in OP_FUNCTIONS if op.startswith("NonMaxSuppressionV")
}
