"""Math ops: broadcasting, Select, matrix products, reductions, arg ops, Range."""

from __future__ import annotations

import numpy as np
import pytest

from modtensor.framework import errors
from modtensor.framework.op_registry import global_registry


def scalar(value, dtype=np.int32) -> np.ndarray:
    return np.array(value, dtype)


def test_binary_ops_broadcast(run) -> None:
    assert run("AddV2", [[2, 1], [1, 3]]) == [[2, 3]]
    assert run("Mul", [[None, 3], [2, 1]]) == [[2, 3]]
    assert run("Less", [None, [2]]) == [None]
    with pytest.raises(errors.InvalidArgumentError) as info:
        run("Sub", [[2, 3], [2, 4]])
    assert info.value.message.startswith(
        "Dimensions must be equal, but are 3 and 4 for '{{node sub}} = Sub[T=DT_FLOAT]"
    )


def test_equal_without_incompatible_shape_error_gives_a_scalar(run) -> None:
    assert run("Equal", [[2, 3], [2, 4]], incompatible_shape_error=False) == [[]]
    with pytest.raises(errors.InvalidArgumentError, match="Dimensions must be equal"):
        run("NotEqual", [[2, 3], [2, 4]])


def test_flags_of_standard_ops() -> None:
    registry = global_registry()
    assert registry.get("AddV2").op_def.is_commutative and registry.get("AddV2").op_def.is_aggregate
    assert not registry.get("Sub").op_def.is_commutative
    assert registry.get("RandomUniform").op_def.is_stateful
    assert not registry.get("Add").op_def.is_stateful


def test_select_and_select_v2(run) -> None:
    assert run("Select", [[2], [2, 3], [2, None]]) == [[2, 3]]
    with pytest.raises(errors.InvalidArgumentError, match=r"Dimension 0 in both shapes must be equal, but are 3 and 2"):
        run("Select", [[3], [2, 3], [2, 3]])
    assert run("SelectV2", [[2, 1], [1, 3], [2, 3]]) == [[2, 3]]


def test_matmul_and_batch_matmul(run) -> None:
    assert run("MatMul", [[3, 2], [3, 4]], transpose_a=True) == [[2, 4]]
    with pytest.raises(errors.InvalidArgumentError, match="Dimensions must be equal, but are 3 and 4"):
        run("MatMul", [[2, 3], [4, 5]])
    assert run("BatchMatMulV2", [[5, 1, 2, 3], [7, 3, 4]]) == [[5, 7, 2, 4]]
    assert run("BatchMatMulV2", [[None, 2, 3], [3, 4]]) == [[None, 2, 4]]
    with pytest.raises(errors.InvalidArgumentError, match="Shape must be at least rank 2 but is rank 1"):
        run("BatchMatMulV2", [[3], [3, 4]])


def test_reductions(run) -> None:
    axes = np.array([0, -1], np.int32)
    assert run("Sum", [[2, 3, 4], axes]) == [[3]]
    assert run("Mean", [[2, 3, 4], axes], keep_dims=True) == [[1, 3, 1]]
    assert run("Max", [[2, 3, 4], [1]], keep_dims=True) == [[None, None, None]]
    assert run("All", [[2, 3], [1]]) == [None]
    with pytest.raises(errors.InvalidArgumentError, match="Invalid reduction dimension 3 for input with 3 dimensions."):
        run("Prod", [[2, 3, 4], np.array([3], np.int32)])


def test_arg_max_and_arg_min(run) -> None:
    assert run("ArgMax", [[2, 3, 4], scalar(-1)]) == [[2, 3]]
    assert run("ArgMin", [[2, 3, 4], []]) == [[None, None]]
    assert run("ArgMax", [[5], scalar(0)]) == [[]]
    with pytest.raises(errors.InvalidArgumentError, match=r"Dimension \(3\) must be in the range \[-3, 3\)"):
        run("ArgMax", [[2, 3, 4], scalar(3)])


def test_range(run) -> None:
    assert run("Range", [scalar(10), scalar(0), scalar(-3)]) == [[4]]
    assert run(
        "Range", [scalar(0.0, np.float32), scalar(1.0, np.float32), scalar(0.3, np.float32)], Tidx=np.float32
    ) == [[4]]
    assert run("Range", [scalar(0), [], scalar(1)]) == [[None]]
    with pytest.raises(errors.InvalidArgumentError, match="Requires start <= limit when delta > 0: 5/1"):
        run("Range", [scalar(5), scalar(1), scalar(1)])
    with pytest.raises(errors.InvalidArgumentError, match="Requires delta != 0"):
        run("Range", [scalar(0), scalar(4), scalar(0)])
    with pytest.raises(errors.InvalidArgumentError, match="Shape must be rank 0 but is rank 1\n\t for 'start'"):
        run("Range", [np.array([0], np.int32), scalar(4), scalar(1)])


def test_add_n_merges_all_inputs(run) -> None:
    assert run("AddN", [[2, None], [None, 3], [2, 3]], N=3) == [[2, 3]]
    with pytest.raises(errors.InvalidArgumentError, match="From merging shape 0 with other shapes."):
        run("AddN", [[2, 3], [3, 2]], N=2)
