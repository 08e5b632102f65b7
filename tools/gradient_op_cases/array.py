"""Backward ops of array gradients: BroadcastGradientArgs, StridedSliceGrad, MirrorPadGrad, InvertPermutation,
ConcatOffset."""

from __future__ import annotations

import numpy as np

OPS = ["BroadcastGradientArgs", "StridedSliceGrad", "MirrorPadGrad", "InvertPermutation", "ConcatOffset"]

# (input shape, begin, end, strides, masks) of StridedSlice specs whose gradient StridedSliceGrad computes.
_SLICES = [
    ((5, 6), [1, 0], [4, 6], [1, 2], {}),
    ((5, 6), [-1, 5], [0, 0], [-1, -2], {}),
    ((5, 6), [0, 2], [0, 0], [1, 1], {"begin_mask": 1, "end_mask": 3}),
    ((4, 3, 2), [1], [2], [1], {"shrink_axis_mask": 1}),
    ((4, 3, 2), [0, 1], [0, 2], [1, 1], {"ellipsis_mask": 1, "shrink_axis_mask": 2}),
    ((4, 3, 2), [0, 0, 1], [0, 0, 3], [1, 1, 1], {"new_axis_mask": 2, "ellipsis_mask": 1}),
    ((4, 3, 2), [2, 0, 0], [4, 0, 0], [1, 1, 1], {"new_axis_mask": 4, "end_mask": 2}),
    ((3, 4), [5, -9], [9, 9], [1, 1], {}),
    ((6,), [1], [6], [3], {}),
]


def cases(shape_case, kernel_case, rnd, P, C) -> None:  # noqa: ANN001, N803 - the tool's case makers
    U = None  # noqa: N806
    for a, b in ([[2, 1, 3], [3]], [[1], [1]], [[1, 1], [1]], [[2, 3], [2, 3]], [[], [2, 3]], [[1, 3], [2, 1]],
                 [[5, 1], [1, 1]], [[2], [3]]):  # fmt: skip
        for dtype in (np.int32, np.int64):
            kernel_case("BroadcastGradientArgs", np.asarray(a, dtype), np.asarray(b, dtype))
    shape_case("BroadcastGradientArgs", P([U], "int32"), P([3], "int32"))
    shape_case("BroadcastGradientArgs", P([2, 2], "int32"), P([3], "int32"))

    # StridedSliceGrad: dy has the shape of the slice that StridedSlice takes with the same spec.
    import tensorflow as tf

    for shape, begin, end, strides, masks in _SLICES:
        for index in (np.int32, np.int64):
            x = np.zeros(shape, np.float32)
            sliced = tf.raw_ops.StridedSlice(input=x, begin=np.asarray(begin, index), end=np.asarray(end, index),
                                             strides=np.asarray(strides, index), **masks).shape.as_list()  # fmt: skip
            args = [np.asarray(v, index) for v in (shape, begin, end, strides)]
            kernel_case("StridedSliceGrad", *args, rnd(sliced), **masks)
            shape_case(
                "StridedSliceGrad",
                C(list(shape), index.__name__),
                P([len(begin)], index.__name__),
                P([len(begin)], index.__name__),
                P([len(begin)], index.__name__),
                P(sliced),
                **masks,
            )
    i32 = np.int32
    for dt in (np.float64, np.int32, np.complex64, np.float16):
        kernel_case("StridedSliceGrad", np.asarray([3, 4], i32), np.asarray([1, 0], i32), np.asarray([3, 4], i32),
                    np.asarray([1, 2], i32), rnd((2, 2), dt))  # fmt: skip
    kernel_case("StridedSliceGrad", np.asarray([3, 4], i32), np.asarray([1, 0], i32), np.asarray([3, 4], i32),
                np.asarray([1, 2], i32), rnd((2, 3)))  # dy of the wrong shape  # fmt: skip
    kernel_case("StridedSliceGrad", np.asarray([[3, 4]], i32), np.asarray([1], i32), np.asarray([3], i32),
                np.asarray([1], i32), rnd((2, 4)))  # fmt: skip
    kernel_case("StridedSliceGrad", np.asarray([3, 4], i32), np.asarray([1, 0], i32), np.asarray([3, 4], i32),
                np.asarray([0, 1], i32), rnd((2, 4)))  # zero stride  # fmt: skip
    shape_case("StridedSliceGrad", P([3], "int32"), P([2], "int32"), P([2], "int32"), P([2], "int32"), P([2, 2]))
    shape_case("StridedSliceGrad", P([U], "int64"), P([2], "int64"), P([2], "int64"), P([2], "int64"), P(None))
    shape_case("StridedSliceGrad", P([2, 2], "int32"), P([2], "int32"), P([2], "int32"), P([2], "int32"), P(None))

    # MirrorPadGrad: the padded tensor folded back (REFLECT and SYMMETRIC).
    for shape, pads in (
        ((9,), [[2, 3]]),
        ((6, 5), [[1, 2], [0, 2]]),
        ((5, 4, 8), [[1, 1], [1, 0], [2, 2]]),
        ((3,), [[0, 0]]),
        ((), np.zeros((0, 2))),
        ((2, 3, 4, 5, 6), [[0, 0], [1, 0], [0, 1], [1, 1], [2, 0]]),
    ):
        for mode in ("REFLECT", "SYMMETRIC"):
            for pad_type in (np.int32, np.int64):
                kernel_case("MirrorPadGrad", rnd(shape), np.asarray(pads, pad_type), mode=mode)
    for dt in (np.float64, np.int32, np.float16, np.complex128, np.uint8):
        kernel_case("MirrorPadGrad", rnd((5, 4), dt) if dt != np.uint8 else np.arange(20, dtype=dt).reshape(5, 4),
                    np.asarray([[1, 1], [1, 0]], np.int32), mode="SYMMETRIC")  # fmt: skip
    kernel_case("MirrorPadGrad", rnd((5,)), np.asarray([[2, 2]], np.int32), mode="REFLECT")  # 2 not less than 1
    kernel_case("MirrorPadGrad", rnd((5,)), np.asarray([[2, 1]], np.int32), mode="SYMMETRIC")  # 2 greater than 2?
    kernel_case("MirrorPadGrad", rnd((4,)), np.asarray([[3, 1]], np.int32), mode="SYMMETRIC")  # total not less
    kernel_case("MirrorPadGrad", rnd((5,)), np.asarray([[-1, 1]], np.int32), mode="SYMMETRIC")
    kernel_case("MirrorPadGrad", rnd((5, 3)), np.asarray([[1, 1]], np.int32), mode="SYMMETRIC")
    kernel_case("MirrorPadGrad", rnd((5,)), np.asarray([1, 1], np.int32), mode="SYMMETRIC")
    for s, pads in (([7, 5], C([[1, 2], [0, 1]])), ([U, 5], C([[1, 2], [0, 1]])), (None, C([[1, 2], [0, 1]])),
                    ([7, 5], P([2, 2], "int32")), ([7, 5], P([U, 2], "int32")), (None, P([U, U], "int32")),
                    ([7, 5], C([[1, 2]])), ([2, 5], C([[1, 2], [0, 1]])), ([7], C([[-1, 2]])),
                    ([7], P([2, 2], "int32"))):  # fmt: skip
        shape_case("MirrorPadGrad", P(s), pads, mode="REFLECT")
    shape_case("MirrorPadGrad", P([7, 5]), C([[1, 2], [0, 1]], "int64"), mode="SYMMETRIC")

    # InvertPermutation
    for perm in ([0], [2, 0, 1], [3, 1, 0, 2], [], [0, 0, 1], [0, 3, 1], [-1, 0]):
        for dt in (np.int32, np.int64):
            kernel_case("InvertPermutation", np.asarray(perm, dt))
    kernel_case("InvertPermutation", np.asarray([[0, 1]], np.int32))
    for s in ([3], [U], None, [2, 2], []):
        shape_case("InvertPermutation", P(s, "int32"))

    # ConcatOffset
    for dim, shapes in (
        (1, [[2, 3, 5], [2, 7, 5], [2, 1, 5]]),
        (0, [[2, 3], [4, 3]]),
        (-1, [[2, 3], [2, 4]]),
        (-2, [[2, 3], [4, 3]]),
        (2, [[2, 3], [2, 3]]),
        (0, [[2, 3], [4, 5]]),
        (0, [[2, 3], [4]]),
    ):
        for dt in (np.int32, np.int64):
            kernel_case("ConcatOffset", np.int32(dim), [np.asarray(s, dt) for s in shapes])
    kernel_case("ConcatOffset", np.asarray([1], np.int32), [np.asarray([2, 3], np.int32)] * 2)
    kernel_case("ConcatOffset", np.int32(0), [np.asarray([[2, 3]], np.int32)] * 2)
    shape_case("ConcatOffset", C(1), [P([3], "int32"), P([3], "int32"), P([3], "int32")])
    shape_case("ConcatOffset", P([], "int32"), [P([U], "int64"), P(None, "int64")])
