"""GraphDef files: binary and text, detected by content; semantic comparison of GraphDefs."""

from __future__ import annotations

import pytest
from google.protobuf import text_format

from modtensor.framework.graph_io import graph_def_diff, graph_def_equal, read_graph_def, write_graph_def
from modtensor.framework.protos import graph_pb2
from modtensor.framework.tensor_proto import make_tensor_proto

TEXT = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Identity" input: "x" input: "^c" input: "^b" attr { key: "T" value { type: DT_FLOAT } } }
versions { producer: 2474 }
"""


def _graph_def(text: str = TEXT) -> graph_pb2.GraphDef:
    return text_format.Parse(text, graph_pb2.GraphDef())


@pytest.mark.parametrize("filename", ["g.pb", "g.pbtxt", "g.bin", "g.txt"])
def test_write_then_read_round_trips_either_format(tmp_path, filename):
    path = write_graph_def(_graph_def(), tmp_path / "sub" / filename)
    assert read_graph_def(path) == _graph_def()
    is_text = filename.endswith((".pbtxt", ".txt"))
    assert (b"node {" in (tmp_path / "sub" / filename).read_bytes()) == is_text


def test_format_is_detected_from_content_not_the_name(tmp_path):
    text_in_pb = tmp_path / "actually_text.pb"
    write_graph_def(_graph_def(), text_in_pb, as_text=True)
    binary_in_pbtxt = tmp_path / "actually_binary.pbtxt"
    write_graph_def(_graph_def(), binary_in_pbtxt, as_text=False)
    assert read_graph_def(text_in_pb) == read_graph_def(binary_in_pbtxt) == _graph_def()


def test_unreadable_file_error_names_the_file(tmp_path):
    bad = tmp_path / "broken.pbtxt"
    bad.write_text("node { name: ")
    with pytest.raises(ValueError, match=r"Cannot read a GraphDef from '.*broken.pbtxt': it parses neither"):
        read_graph_def(bad)
    with pytest.raises(FileNotFoundError):
        read_graph_def(tmp_path / "missing.pb")


def test_write_accepts_a_graph_and_rejects_other_things(tmp_path):
    class FakeGraph:
        def as_graph_def(self):
            return _graph_def()

    assert read_graph_def(write_graph_def(FakeGraph(), tmp_path / "g.pb")) == _graph_def()
    with pytest.raises(TypeError, match="needs a GraphDef or a Graph"):
        write_graph_def("nope", tmp_path / "g.pb")


def test_graph_def_diff_ignores_order_and_tensor_encoding():
    a = _graph_def()
    b = graph_pb2.GraphDef()
    b.versions.CopyFrom(a.versions)
    b.node.extend(reversed(a.node))
    del b.node[0].input[1:]
    b.node[0].input.extend(["^b", "^c"])  # control inputs in another order
    assert graph_def_equal(a, b)
    c1, c2 = _graph_def(), _graph_def()
    c1.node[0].attr["value"].tensor.CopyFrom(make_tensor_proto([1.0, 1.0]))
    packed = make_tensor_proto([1.0, 1.0])
    packed.ClearField("tensor_content")
    packed.float_val.append(1.0)  # "last value fills the shape" encoding of the same tensor
    c2.node[0].attr["value"].tensor.CopyFrom(packed)
    assert graph_def_equal(c1, c2)


def test_graph_def_diff_reports_each_difference():
    a, b = _graph_def(), _graph_def()
    b.node[1].device = "/device:GPU:0"
    b.node[1].attr["T"].type = 3
    b.node.add(name="extra", op="NoOp")
    b.versions.producer = 1
    diffs = graph_def_diff(a, b)
    assert diffs == [
        "node 'extra' only in the second GraphDef",
        "node 'y': device differ: '' vs '/device:GPU:0'",
        "node 'y': attr 'T' differs: type: DT_FLOAT vs type: DT_INT32",
        "versions differ: producer: 2474 vs producer: 1",
    ]
    assert graph_def_diff(a, b, ignore_attrs={"T"}, compare_versions=False) == diffs[:2]
