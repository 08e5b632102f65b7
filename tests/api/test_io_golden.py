"""tf.io's decode_raw, serialize_tensor, parse_tensor, read_file and write_file give TensorFlow 2.21's results:
values, serialized TensorProto bytes (byte-equal, so files interoperate), error classes and texts
(tests/golden/data/io_programs.json by tools/make_golden_data.py; files under pytest's tmp_path)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf

from .data_golden import run
from .io_programs import PROGRAMS
from .test_data_golden import _normalize

GOLDEN = json.loads((Path(__file__).resolve().parent.parent / "golden" / "data" / "io_programs.json").read_text())
# protobuf's DebugString marks its text with a randomly chosen and spaced prefix
_DEBUG_STRING = re.compile(r"goo\.gle/debug\w*\s*")


def _record(record: dict, tmp: str) -> dict:
    record = _normalize(record)
    if "message" in record:
        message = _DEBUG_STRING.sub("goo.gle/debugstr ", record["message"].replace(tmp, "<TMP>"))
        record = {**record, "message": message}
    return record


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_program_matches_tensorflow(name: str, tmp_path: Path) -> None:
    ours = run(lambda module: PROGRAMS[name](module, str(tmp_path)), tf)
    assert _record(ours, str(tmp_path)) == _record(GOLDEN[name], "<TMP>")


def test_every_program_has_a_golden() -> None:
    assert sorted(PROGRAMS) == sorted(GOLDEN)


def test_parses_the_bytes_tensorflow_serialized() -> None:
    """TF's SerializeTensor bytes (from the golden) parse back here to the tensors they hold."""
    serialized = [item["bytes"].encode("latin-1") for item in GOLDEN["serialize_tensor_bytes"]["result"]["list"]]
    tensors = PROGRAMS["serialize_tensor_bytes"].__globals__["_tensors"](tf)
    assert len(serialized) == len(tensors)
    for data, tensor in zip(serialized, tensors, strict=True):
        parsed = tf.io.parse_tensor(data, tensor.dtype)
        assert parsed.shape == tensor.shape and parsed.dtype == tensor.dtype
        np.testing.assert_array_equal(parsed.numpy(), tensor.numpy())


def test_write_file_in_a_graph_is_an_operation(tmp_path: Path) -> None:
    path = str(tmp_path / "g.txt")
    with tf.Graph().as_default() as graph:
        op = tf.io.write_file(path, "graph")
        contents = tf.io.read_file(path)
    assert op.type == "WriteFile" and contents.shape == []
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(op)
        assert sess.run(contents) == b"graph"


def test_decode_raw_static_shapes() -> None:
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.string)])
    def f(x: tf.Tensor) -> tf.Tensor:
        raw = tf.io.decode_raw(x, tf.float32)
        padded = tf.io.decode_raw(x, tf.float32, fixed_length=8)
        assert raw.shape.as_list() == [None, 3, None] and padded.shape.as_list() == [None, 3, 2]
        return padded

    assert f(tf.constant([[b"", b"", b""]])).shape == [1, 3, 2]
