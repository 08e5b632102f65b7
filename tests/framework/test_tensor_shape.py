"""TensorShape and Dimension behave and print as TensorFlow 2's (outputs read from TF 2.21)."""

from __future__ import annotations

import pickle

import pytest

from modtensor.framework.protos import tensor_shape_pb2
from modtensor.framework.tensor_shape import (
    Dimension,
    TensorShape,
    as_shape,
    dimension_at_index,
    dimension_value,
    unknown_shape,
)


def test_printing() -> None:
    assert repr(TensorShape([2, None])) == "TensorShape([2, None])"
    assert str(TensorShape([2, None])) == "(2, None)"
    assert (str(TensorShape(None)), repr(TensorShape(None))) == ("<unknown>", "TensorShape(None)")
    assert (str(TensorShape([])), repr(TensorShape([]))) == ("()", "TensorShape([])")
    assert str(TensorShape([3])) == "(3,)"
    assert (repr(Dimension(3)), str(Dimension(None)), repr(Dimension(None))) == ("Dimension(3)", "?", "Dimension(None)")


def test_views() -> None:
    s = TensorShape([2, None])
    assert (s.rank, s.ndims, s[0], s[1], s[-1]) == (2, 2, 2, None, None)
    assert [d.value for d in s.dims] == [2, None] and all(isinstance(d, Dimension) for d in s.dims)
    assert s[0:1] == TensorShape([2]) and s.as_list() == [2, None] and list(s) == [2, None]
    assert len(s) == 2 and bool(s) and bool(TensorShape([])) and not bool(TensorShape(None))
    assert TensorShape(3) == TensorShape([3])
    assert TensorShape([Dimension(2), None]) == [2, None]
    u = TensorShape(None)
    assert u.rank is None and u.dims is None and u[0] is None
    assert u[1:3] == TensorShape([None, None]) and u[1:].rank is None
    with pytest.raises(ValueError, match=r"as_list\(\) is not defined on an unknown TensorShape"):
        u.as_list()
    with pytest.raises(ValueError, match="Cannot take the length of shape with unknown rank"):
        len(u)
    with pytest.raises(ValueError, match="Cannot iterate over a shape with unknown rank"):
        iter(u)
    with pytest.raises(IndexError):
        _ = s[5]


def test_num_elements_and_fully_defined() -> None:
    assert TensorShape([2, 3]).num_elements() == 6 and TensorShape([]).num_elements() == 1
    assert TensorShape([2, None]).num_elements() is None and TensorShape(None).num_elements() is None
    assert TensorShape([2, 3]).is_fully_defined() and not TensorShape([0, None]).is_fully_defined()
    with pytest.raises(ValueError, match=r"Shape \(2, None\) is not fully defined"):
        TensorShape([2, None]).assert_is_fully_defined()


def test_merge_and_compatibility() -> None:
    assert TensorShape([2, None]).merge_with([None, 3]) == TensorShape([2, 3])
    assert TensorShape([2, 3]).merge_with(None) == TensorShape([2, 3])
    assert TensorShape(None).merge_with([1]) == TensorShape([1])
    with pytest.raises(ValueError, match=r"Shapes \(2, 3\) and \(2, 4\) are not compatible"):
        TensorShape([2, 3]).merge_with([2, 4])
    with pytest.raises(ValueError, match=r"Shapes \(2, 3\) and \(2, 3, 4\) are not compatible"):
        TensorShape([2, 3]).merge_with([2, 3, 4])
    assert TensorShape([2, 3]).is_compatible_with([2, None]) and TensorShape([2]).is_compatible_with(None)
    assert not TensorShape([2, 3]).is_compatible_with([3, 3])
    with pytest.raises(ValueError, match=r"Shapes \(2, 3\) and \(3, 3\) are incompatible"):
        TensorShape([2, 3]).assert_is_compatible_with(TensorShape([3, 3]))
    assert TensorShape([2]).most_specific_compatible_shape([3]) == TensorShape([None])
    assert TensorShape([2]).most_specific_compatible_shape([3, 4]) == TensorShape(None)
    assert TensorShape([2, 3]).is_subtype_of([None, 3]) and not TensorShape([None, 3]).is_subtype_of([2, 3])
    assert TensorShape([2, 3]).most_specific_common_supertype([[2, 4]]) == TensorShape([2, None])


def test_rank_checks() -> None:
    s = TensorShape([2, 3])
    assert s.with_rank(2) is not None and TensorShape(None).with_rank(2) == TensorShape([None, None])
    assert s.with_rank_at_least(1) is s and s.with_rank_at_most(2) is s
    with pytest.raises(ValueError, match=r"Shape \(2, 3\) must have rank 3"):
        s.with_rank(3)
    with pytest.raises(ValueError, match=r"Shape \(2, 3\) must have rank at least 3"):
        s.with_rank_at_least(3)
    with pytest.raises(ValueError, match=r"Shape \(2, 3\) must have rank at most 1"):
        s.with_rank_at_most(1)
    with pytest.raises(ValueError, match=r"Shape \(2, 3\) must have rank 3"):
        s.assert_has_rank(3)
    with pytest.raises(ValueError, match=r"Shapes \(2, 3\) and \(1,\) must have the same rank"):
        s.assert_same_rank([1])
    TensorShape(None).assert_has_rank(4)


def test_concatenate() -> None:
    assert TensorShape([2, 3]).concatenate([4]) == TensorShape([2, 3, 4])
    assert TensorShape(None).concatenate([4]) == TensorShape(None)
    assert TensorShape([1, 2]) + TensorShape([3]) == TensorShape([1, 2, 3])
    assert [1] + TensorShape([3]) == TensorShape([1, 3])


def test_equality_and_hash() -> None:
    assert TensorShape([2, None]) == TensorShape([2, None]) and TensorShape(None) == TensorShape(None)
    assert TensorShape([2, 3]) == [2, 3] and TensorShape([2, 3]) == (2, 3)
    assert TensorShape([2, 3]) != [2, 4] and TensorShape([2]) != "x"
    assert len({TensorShape([2, 3]), TensorShape((2, 3)), TensorShape([2, None])}) == 2
    assert pickle.loads(pickle.dumps(TensorShape([2, None]))) == TensorShape([2, None])


def test_proto_conversion() -> None:
    proto = TensorShape([2, None]).as_proto()
    assert [d.size for d in proto.dim] == [2, -1] and not proto.unknown_rank
    assert TensorShape(None).as_proto().unknown_rank
    assert TensorShape([]).as_proto() == tensor_shape_pb2.TensorShapeProto()
    assert as_shape(proto) == TensorShape([2, None])
    assert as_shape(tensor_shape_pb2.TensorShapeProto(unknown_rank=True)).rank is None
    named = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=3, name="batch")])
    assert as_shape(named) == TensorShape([3])


def test_constructor_errors() -> None:
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        TensorShape([-1])
    with pytest.raises(TypeError, match="Dimension value must be integer or None"):
        TensorShape([2.5])
    with pytest.raises(TypeError, match="Dimension value must be integer or None"):
        TensorShape([2.0])
    with pytest.raises(TypeError, match="string"):
        TensorShape("ab")


def test_dimension_arithmetic_and_comparison() -> None:
    assert Dimension(3) == 3 and (Dimension(None) == 3) is None and (Dimension(3) != None) is None  # noqa: E711
    assert Dimension(3) + Dimension(None) == Dimension(None) or (Dimension(3) + Dimension(None)).value is None
    assert (Dimension(3) // 2).value == 1 and (Dimension(4) % 3).value == 1 and (2 * Dimension(3)).value == 6
    assert (Dimension(3) < 2) is False and (Dimension(None) < 2) is None
    assert Dimension(3).merge_with(None).value == 3
    with pytest.raises(ValueError, match="Dimensions 3 and 4 are not compatible"):
        Dimension(3).merge_with(4)
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        Dimension(4) - 5
    assert int(Dimension(5)) == 5 and [0, 1, 2][Dimension(1)] == 1
    with pytest.raises(TypeError, match="unknown Dimension"):
        int(Dimension(None))


def test_module_helpers() -> None:
    assert unknown_shape() == TensorShape(None) and unknown_shape(2) == TensorShape([None, None])
    assert as_shape([1, 2]) == TensorShape([1, 2]) and as_shape(None).rank is None
    s = TensorShape([1])
    assert as_shape(s) is s
    assert dimension_value(Dimension(3)) == 3 and dimension_value(None) is None and dimension_value(4) == 4
    assert dimension_at_index(TensorShape(None), 3).value is None and dimension_at_index([5, 6], 1).value == 6
