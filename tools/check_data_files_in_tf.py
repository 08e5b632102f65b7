"""Files modtensor writes read in TensorFlow: TFRecords (plain, GZIP, ZLIB) of tf.train.Example protos.

    /work/tfvenv/bin/python tools/check_data_files_in_tf.py [--modtensor-python .venv/bin/python]

Runs modtensor (in its own venv, a subprocess) to write the files into a temporary folder,
then reads them with TensorFlow and checks records and parsed features; prints one line per
file and exits non-zero on any difference.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

ROOT = pathlib.Path(__file__).resolve().parent.parent

WRITER = """
import sys
import modtensor as tf
folder = sys.argv[1]
for suffix, options in (("", None), (".gz", "GZIP"), (".zlib", "ZLIB")):
    with tf.io.TFRecordWriter(f"{folder}/mt{suffix}.tfrecord", options=options) as writer:
        for i in range(5):
            feature = {
                "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                "vec": tf.train.Feature(float_list=tf.train.FloatList(value=[i, i + 0.5])),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"n%d" % i])),
            }
            example = tf.train.Example(features=tf.train.Features(feature=feature))
            writer.write(example.SerializeToString())
"""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modtensor-python", default=str(ROOT / ".venv" / "bin" / "python"))
    args = parser.parse_args()
    import tensorflow as tf

    failures = 0
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([args.modtensor_python, "-c", WRITER, folder], check=True, cwd=ROOT)
        features = {
            "id": tf.io.FixedLenFeature([], tf.int64),
            "vec": tf.io.FixedLenFeature([2], tf.float32),
            "name": tf.io.FixedLenFeature([], tf.string),
        }
        for suffix, compression in (("", None), (".gz", "GZIP"), (".zlib", "ZLIB")):
            path = f"{folder}/mt{suffix}.tfrecord"
            ds = tf.data.TFRecordDataset(path, compression_type=compression)
            parsed = [tf.io.parse_single_example(r, features) for r in ds]
            ok = [int(p["id"]) for p in parsed] == list(range(5)) and all(
                list(p["vec"].numpy()) == [i, i + 0.5] and p["name"].numpy() == b"n%d" % i
                for i, p in enumerate(parsed)
            )
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {pathlib.Path(path).name}: {len(parsed)} records read by TensorFlow")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
