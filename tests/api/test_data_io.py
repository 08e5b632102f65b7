"""TFRecord files and tf.train.Example parsing against TensorFlow 2.21: files TF wrote (plain, GZIP, ZLIB) read
here with TF's records and parse results (tests/golden/data/*.tfrecord, parse.json by tools/make_golden_data.py);
files written here are byte-equal to TF's (tools/check_data_files_in_tf.py reads them back with TF)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import errors

from .data_golden import encode

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "data"
PARSE = json.loads((GOLDEN / "parse.json").read_text())


def _features() -> dict:
    return {
        "id": tf.io.FixedLenFeature([], tf.int64),
        "label": tf.io.FixedLenFeature([2], tf.float32),
        "name": tf.io.FixedLenFeature([], tf.string),
        "missing": tf.io.FixedLenFeature([], tf.int64, default_value=7),
        "tokens": tf.io.VarLenFeature(tf.int64),
        "frames": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True, default_value=0.0),
    }


def _plain(parsed: dict) -> dict:
    return {
        k: (v.indices, v.values, v.dense_shape) if isinstance(v, tf.SparseTensor) else v for k, v in parsed.items()
    }


@pytest.mark.parametrize(("suffix", "compression"), [("", None), (".gz", "GZIP"), (".zlib", "ZLIB")])
def test_reads_files_tensorflow_wrote(suffix: str, compression: str | None) -> None:
    path = str(GOLDEN / f"examples{suffix}.tfrecord")
    records = [r for r in tf.data.TFRecordDataset(path, compression_type=compression).as_numpy_iterator()]
    assert len(records) == 4
    parsed = [tf.io.parse_single_example(r, _features()) for r in records]
    assert [encode(_plain(p)) for p in parsed] == PARSE["single"]


def test_parse_example_batch_matches_tensorflow() -> None:
    records = list(tf.data.TFRecordDataset(str(GOLDEN / "examples.tfrecord")).as_numpy_iterator())
    assert encode(_plain(tf.io.parse_example(records, _features()))) == PARSE["batch"]


def test_parse_in_dataset_map_matches_tensorflow() -> None:
    ds = tf.data.TFRecordDataset([str(GOLDEN / "examples.gz.tfrecord")], compression_type="GZIP")
    features = {"id": tf.io.FixedLenFeature([], tf.int64), "label": tf.io.FixedLenFeature([2], tf.float32)}
    mapped = ds.map(lambda r: tf.io.parse_single_example(r, features))
    assert encode(mapped.batch(3)) == PARSE["dataset"]


@pytest.mark.parametrize(
    ("key", "features", "index"),
    [
        ("required", {"absent": tf.io.FixedLenFeature([], tf.int64)}, 0),
        ("type", {"id": tf.io.FixedLenFeature([], tf.float32)}, 1),
        ("size", {"label": tf.io.FixedLenFeature([3], tf.float32)}, 1),
    ],
)
def test_parse_errors_match_tensorflow(key: str, features: dict, index: int) -> None:
    records = list(tf.data.TFRecordDataset(str(GOLDEN / "examples.tfrecord")).as_numpy_iterator())
    with pytest.raises(errors.InvalidArgumentError) as info:
        tf.io.parse_single_example(records[index], features)
    name, message = PARSE["errors"][key]
    assert name == "InvalidArgumentError"
    ours = str(info.value).split("}} ", 1)[-1].split(" [Op:")[0]
    theirs = message.split("}} ", 1)[-1].split(" [Op:")[0]
    assert ours == theirs


def test_written_file_is_byte_equal_to_tensorflows(tmp_path: Path) -> None:
    path = tmp_path / "raw.tfrecord"
    with tf.io.TFRecordWriter(str(path)) as writer:
        for record in (b"", b"a", b"hello world", bytes(range(256)) * 3):
            writer.write(record)
    assert path.read_bytes() == (GOLDEN / "raw.tfrecord").read_bytes()


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_files_round_trip(tmp_path: Path, compression: str) -> None:
    path = str(tmp_path / "c.tfrecord")
    records = [b"x" * i for i in range(50)]
    with tf.io.TFRecordWriter(path, options=tf.io.TFRecordOptions(compression)) as writer:
        for record in records:
            writer.write(record)
    assert list(tf.data.TFRecordDataset(path, compression_type=compression).as_numpy_iterator()) == records


def test_corrupt_record_is_data_loss(tmp_path: Path) -> None:
    data = bytearray((GOLDEN / "raw.tfrecord").read_bytes())
    data[20] ^= 0xFF
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(bytes(data))
    with pytest.raises(errors.DataLossError, match="corrupted record"):
        list(tf.data.TFRecordDataset(str(path)).as_numpy_iterator())


def test_missing_file_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(errors.NotFoundError, match="No such file"):
        list(tf.data.TFRecordDataset(str(tmp_path / "absent.tfrecord")).as_numpy_iterator())


def test_example_protos_have_tensorflows_wire_format() -> None:
    records = list(tf.data.TFRecordDataset(str(GOLDEN / "examples.tfrecord")).as_numpy_iterator())
    example = tf.train.Example.FromString(records[2])
    assert list(example.features.feature["tokens"].int64_list.value) == [0, 1]
    assert example.features.feature["name"].bytes_list.value[0] == b"ex2"
    rebuilt = tf.train.Example(
        features=tf.train.Features(feature={"id": tf.train.Feature(int64_list=tf.train.Int64List(value=[5]))})
    )
    assert tf.io.parse_single_example(rebuilt.SerializeToString(), {"id": tf.io.FixedLenFeature([], tf.int64)})[
        "id"
    ].numpy() == np.int64(5)
