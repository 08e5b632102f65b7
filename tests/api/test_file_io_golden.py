"""``tf.io.gfile``, ``tf.io.matching_files`` and ``tf.data.Dataset.list_files`` against TF 2.21.

Golden snippets (tests/golden/file_io, tools/make_golden_file_io.py): each makes its files in a fresh temporary
directory and records what does not depend on where (base names, contents, sizes, TF's errors with the directory cut
out), replayed as in test_spectral_ops_golden.py. MatchingFiles' OpDef and shapes are checked in tests/ops.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import modtensor as tf
from modtensor.framework import errors

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "fileio_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "fileio_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


def test_file_urls_work_and_other_schemes_are_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("data")
    assert tf.io.gfile.GFile(f"file://{tmp_path}/x.txt").read() == "data"
    assert tf.io.gfile.exists(f"file://{tmp_path}/x.txt")
    with pytest.raises(errors.UnimplementedError, match="File system scheme 'gs' not implemented"):
        tf.io.gfile.exists("gs://bucket/x.txt")


def test_list_files_feeds_a_pipeline_inside_a_function(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"part{i}.txt").write_text(f"{i}" * (i + 1))

    @tf.function
    def total_length() -> tf.Tensor:
        files = tf.data.Dataset.list_files(str(tmp_path / "part*.txt"), shuffle=False)
        return files.map(tf.io.read_file).map(tf.strings.length).reduce(tf.constant(0), lambda a, b: a + b)

    assert int(total_length()) == 1 + 2 + 3
