"""Array ops: shape inference a graph builder relies on (constants, reshaping, joining, slicing, gathering)."""

from __future__ import annotations

import numpy as np
import pytest

from modtensor.framework import errors
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import full_type_pb2
from modtensor.framework.tensor_proto import make_tensor_proto


def i32(*values: int) -> np.ndarray:
    return np.array(values, np.int32)


def scalar(value: int) -> np.ndarray:
    return np.array(value, np.int32)


def test_const_and_placeholders(run) -> None:
    assert run("Const", [], value=make_tensor_proto(np.zeros((2, 0, 3), np.float32))) == [[2, 0, 3]]
    assert run("Placeholder", [], dtype=np.float32) == [None]
    assert run("Placeholder", [], dtype=np.float32, shape=[None, 3]) == [[None, 3]]
    assert run("PlaceholderWithDefault", [[2, 3]], dtype=np.float32, shape=[None, 3]) == [[None, 3]]
    with pytest.raises(errors.InvalidArgumentError, match="Dimension 1 in both shapes must be equal"):
        run("PlaceholderWithDefault", [[2, 3]], dtype=np.float32, shape=[2, 4])


def test_identity_family_passes_shapes_through(run) -> None:
    assert run("Identity", [[None, 3]]) == [[None, 3]]
    assert run("IdentityN", [[2], None, []], T=[np.float32, np.int32, np.float32]) == [[2], None, []]
    assert run("Shape", [[2, None, 4]]) == [[3]]
    assert run("Shape", [None]) == [[None]]
    assert run("ShapeN", [[2, 3], None], N=2) == [[2], [None]]
    assert run("Size", [[2, 3]]) == [[]]


def test_shape_op_def_carries_tf_full_type() -> None:
    output = global_registry().get("Shape").op_def.output_arg[0]
    assert output.experimental_full_type.type_id == full_type_pb2.TFT_SHAPE_TENSOR
    assert output.experimental_full_type.args[0].s == "out_type"


def test_reshape_infers_the_minus_one(run, run_handles) -> None:
    assert run("Reshape", [[2, 3], i32(-1, 2)]) == [[3, 2]]
    assert run("Reshape", [[None, 3], i32(-1, 6)]) == [[None, 6]]
    assert run("Reshape", [[2, 3], [2]]) == [[None, None]]  # shape not constant: only its length is known
    # One unknown dim on each side with equal known products: the output reuses the input's dim.
    x = run_handles("Reshape", [[None, 3], i32(3, -1)])[0]
    assert x.dims[1].value is None
    with pytest.raises(errors.InvalidArgumentError) as info:
        run("Reshape", [[2, 3], i32(5)])
    assert info.value.message.startswith("Cannot reshape a tensor with 6 elements to shape [5] (5 elements)")
    assert "for '{{node reshape}} = Reshape[T=DT_FLOAT, Tshape=DT_INT32]()' with input shapes: [2,3], [1]" in (
        info.value.message
    )
    with pytest.raises(errors.InvalidArgumentError, match="Invalid value in tensor used for shape: -2"):
        run("Reshape", [[2, 3], i32(-2, 3)])


def test_transpose(run) -> None:
    assert run("Transpose", [[2, 3, 4], i32(2, 0, 1)]) == [[4, 2, 3]]
    assert run("Transpose", [None, [3]]) == [[None, None, None]]
    with pytest.raises(errors.InvalidArgumentError, match="perm dim 3 is out of range of input rank 2"):
        run("Transpose", [[2, 3], i32(1, 3)])


def test_concat_pack_unpack(run) -> None:
    assert run("ConcatV2", [[2, 3], [2, None], scalar(1)], N=2) == [[2, None]]
    assert run("ConcatV2", [[2, 3], [5, 3], scalar(-2)], N=2) == [[7, 3]]
    assert run(
        "ConcatV2",
        [
            [2, 3],
            None,
            [],
        ],
        N=2,
    ) == [[None, None]]
    with pytest.raises(errors.InvalidArgumentError, match=r"Can't concatenate scalars \(use tf.stack instead\)"):
        run("ConcatV2", [[], [], scalar(0)], N=2)
    assert run("Pack", [[2, None], [None, 3]], N=2, axis=1) == [[2, 2, 3]]
    with pytest.raises(errors.InvalidArgumentError, match=r"Invalid axis: 3; must be in \[-2,2\)"):
        run("Pack", [[2], [2]], N=2, axis=3)
    with pytest.raises(errors.InvalidArgumentError, match="From merging shape 0 with other shapes."):
        run("Pack", [[2], [3]], N=2)
    assert run("Unpack", [[3, 2]], num=2, axis=-1) == [[3], [3]]
    with pytest.raises(errors.InvalidArgumentError, match="Dimension must be 3 but is 2"):
        run("Unpack", [[2, 2]], num=3)


def test_split_and_split_v(run) -> None:
    assert run("Split", [scalar(1), [4, 6]], num_split=3) == [[4, 2]] * 3
    with pytest.raises(errors.InvalidArgumentError, match="Number of ways to split should evenly divide"):
        run("Split", [scalar(1), [4, 6]], num_split=4)
    assert run("SplitV", [[4, 6], i32(1, -1), scalar(1)], num_split=2, Tlen=np.int32) == [[4, 1], [4, 5]]
    with pytest.raises(errors.InvalidArgumentError, match="size_splits can only have one -1"):
        run("SplitV", [[4, 6], i32(-1, -1), scalar(1)], num_split=2, Tlen=np.int32)


def test_squeeze_and_expand_dims(run) -> None:
    assert run("Squeeze", [[1, 2, 1, 3]]) == [[2, 3]]
    assert run("Squeeze", [[1, None, 2]]) == [None]  # an unknown dim might be 1
    assert run("Squeeze", [[None, 1]], squeeze_dims=[0]) == [[1]]
    with pytest.raises(
        errors.InvalidArgumentError, match=r"Can not squeeze dim\[1\], expected a dimension of 1, got 2"
    ):
        run("Squeeze", [[1, 2]], squeeze_dims=[1])
    with pytest.raises(errors.InvalidArgumentError, match=r"squeeze_dims\[0\] not in \[-2,2\)"):
        run("Squeeze", [[1, 2]], squeeze_dims=[2])
    assert run("ExpandDims", [[2, 3], scalar(-1)]) == [[2, 3, 1]]
    with pytest.raises(errors.InvalidArgumentError, match=r"dim 3 not in the interval \[-3, 2\]"):
        run("ExpandDims", [[2, 3], scalar(3)])


def test_fill_tile_pad_range_of_constants(run) -> None:
    assert run("Fill", [i32(2, 3), []]) == [[2, 3]]
    with pytest.raises(errors.InvalidArgumentError, match="Fill dimensions must be >= 0"):
        run("Fill", [i32(2, -1), []])
    assert run("Tile", [[2, None], i32(3, 2)]) == [[6, None]]
    assert run("Tile", [[2, 3], [2]]) == [[None, None]]
    assert run("Pad", [[2, None], np.array([[1, 1], [2, 0]], np.int32)]) == [[4, None]]
    assert run("Pad", [None, [3, 2]]) == [[None, None, None]]
    with pytest.raises(errors.InvalidArgumentError, match="Paddings must be non-negative"):
        run("Pad", [[2], np.array([[1, -1]], np.int32)])


def test_slice(run) -> None:
    assert run("Slice", [[4, 5], i32(1, 2), i32(2, -1)], Index=np.int32) == [[2, 3]]
    assert run("Slice", [[4, None], i32(1, 2), i32(-1, -1)], Index=np.int32) == [[3, None]]
    assert run("Slice", [[4, 5], [2], [2]], Index=np.int32) == [[None, None]]
    with pytest.raises(errors.InvalidArgumentError, match="Negative dimension size caused by subtracting 5 from 4"):
        run("Slice", [[4, 5], i32(5, 0), i32(-1, -1)], Index=np.int32)


def test_strided_slice_masks(run) -> None:
    # x[1:5, 2:10:3]
    assert run("StridedSlice", [[10, 20], i32(1, 2), i32(5, 10), i32(1, 3)], Index=np.int32) == [[4, 3]]
    # x[..., 1] on [10, 20, 30]
    args = [[10, 20, 30], i32(0, 1), i32(0, 2), i32(1, 1)]
    assert run("StridedSlice", args, Index=np.int32, ellipsis_mask=1, shrink_axis_mask=2) == [[10, 20]]
    # x[:, tf.newaxis, :]
    args = [[10, 20], i32(0, 0, 0), i32(0, 0, 0), i32(1, 1, 1)]
    assert run("StridedSlice", args, Index=np.int32, new_axis_mask=2, begin_mask=5, end_mask=5) == [[10, 1, 20]]
    # x[::-1] on an unknown dim stays unknown; begin not constant gives unknown dims
    assert run("StridedSlice", [[None], i32(0), i32(0), i32(-1)], Index=np.int32, begin_mask=1, end_mask=1) == [[None]]
    assert run("StridedSlice", [[10, 20], [2], [2], i32(1, 1)], Index=np.int32) == [[None, None]]
    with pytest.raises(errors.InvalidArgumentError, match="slice index 10 of dimension 0 out of bounds."):
        run("StridedSlice", [[10, 20], i32(10), i32(11), i32(1)], Index=np.int32, shrink_axis_mask=1)


def test_gather_and_one_hot(run) -> None:
    assert run("GatherV2", [[5, 6, 7], [2, 3], scalar(1)], Tindices=np.int32, Taxis=np.int32) == [[5, 2, 3, 7]]
    assert run("GatherV2", [[5, 6, 7], [5, 3], scalar(1)], Tindices=np.int32, Taxis=np.int32, batch_dims=1) == [
        [5, 3, 7]
    ]
    assert run("GatherV2", [[5, 6, 7], [2, 3], []], Tindices=np.int32, Taxis=np.int32) == [[None] * 4]
    with pytest.raises(errors.InvalidArgumentError, match="Shape must be at least rank 4 but is rank 3"):
        run("GatherV2", [[5, 6, 7], [2], scalar(3)], Tindices=np.int32, Taxis=np.int32)
    assert run("OneHot", [[2, 3], scalar(5), [], []], axis=0) == [[5, 2, 3]]
    assert run("OneHot", [[2, 3], [], [], []]) == [[2, 3, None]]
    with pytest.raises(errors.InvalidArgumentError, match="axis must be >= -1"):
        run("OneHot", [[2, 3], scalar(5), [], []], axis=-2)
