"""Record what TensorFlow's file functions do: ``tf.io.gfile``, ``tf.io.matching_files`` and
``tf.data.Dataset.list_files``.

    /work/tfvenv/bin/python tools/make_golden_file_io.py

Writes ``tests/golden/file_io/``: ``eager_cases.json`` and ``graph_cases.json`` (snippets, ids ``fileio_...``, read
by ``tests/api/test_file_io_golden.py``). Each eager snippet makes its own files in a fresh temporary directory and
returns what does not depend on where that is (base names, contents, sizes, errors with the directory cut out), so
the records replay on any machine. ``ops/`` holds MatchingFiles' OpDef and shape cases (its results depend on the
machine's files, so it has no kernel cases; the snippets cover it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_breadth  # noqa: E402, F401  (its scalar-bytes encoding of eager values)
import make_golden_frontend_ops as base  # noqa: E402
import make_golden_op_breadth as breadth  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "file_io"

# a fresh directory d with a.txt ("hello\nworld\n"), b.txt, c.csv, .hidden.txt and sub/d.txt
SETUP = (
    "import os, tempfile\nd = tempfile.mkdtemp()\n"
    "for n, text in [('a.txt', 'hello\\nworld\\n'), ('b.txt', 'b'), ('c.csv', '1,2\\n'), ('.hidden.txt', 'h')]:\n"
    "    with tf.io.gfile.GFile(os.path.join(d, n), 'w') as f:\n        f.write(text)\n"
    "tf.io.gfile.makedirs(os.path.join(d, 'sub'))\n"
    "with tf.io.gfile.GFile(os.path.join(d, 'sub', 'd.txt'), 'wb') as f:\n    f.write(b'\\x00\\x01')\n"
)


def names(expr: str) -> str:
    """``expr`` (paths) as a string tensor of the paths relative to d."""
    return f"tf.constant([os.path.relpath(os.fsdecode(p), d) for p in {expr}], tf.string)"


def error(call: str) -> str:
    """``call``'s error class and text with d cut out, as a string tensor (or 'no error')."""
    return (f"try:\n    {call}\n    r = 'no error'\nexcept Exception as e:\n"
            f"    r = type(e).__name__ + ': ' + str(e).replace(d, '<d>')\ntf.constant(r)")  # fmt: skip


CASES: list[tuple[str, str, str]] = [
    # glob, listdir and walk list a directory in the file system's order, as TF does: sorted here to replay anywhere
    ("fileio_glob", SETUP + names("sorted(tf.io.gfile.glob(os.path.join(d, '*')))"), "e"),
    ("fileio_glob_list",
     SETUP + names("tf.io.gfile.glob([os.path.join(d, '*.csv'), os.path.join(d, 's*', '*'), os.path.join(d, 'a*')])"),
     "e"),
    ("fileio_glob_none", SETUP + names("tf.io.gfile.glob(os.path.join(d, '*.zip'))"), "e"),
    ("fileio_listdir", SETUP + "tf.constant(sorted(tf.io.gfile.listdir(d)))", "e"),
    ("fileio_walk",
     SETUP + "tf.constant([os.path.relpath(t, d) + ':' + ','.join(sorted(s)) + ':' + ','.join(sorted(f)) for t, s, f "
     "in tf.io.gfile.walk(d)])", "e"),
    ("fileio_walk_bottom_up",
     SETUP + "tf.constant([os.path.relpath(t, d) for t, s, f in tf.io.gfile.walk(d, topdown=False)])", "e"),
    ("fileio_exists_isdir",
     SETUP + "tf.constant([tf.io.gfile.exists(os.path.join(d, 'a.txt')), tf.io.gfile.exists(os.path.join(d, 'z')), "
     "tf.io.gfile.isdir(os.path.join(d, 'sub')), tf.io.gfile.isdir(os.path.join(d, 'a.txt'))])", "e"),
    ("fileio_stat",
     SETUP + "s = tf.io.gfile.stat(os.path.join(d, 'a.txt'))\n"
     "tf.constant([s.length, int(s.is_directory), int(tf.io.gfile.stat(d).is_directory), int(s.mtime_nsec > 0)])",
     "e"),
    ("fileio_gfile_read",
     SETUP + "f = tf.io.gfile.GFile(os.path.join(d, 'a.txt'))\n"
     "tf.constant([f.read(3), f.readline(), ''.join(f.readlines()), str(f.tell()), str(f.size())])", "e"),
    ("fileio_gfile_binary",
     SETUP + "with tf.io.gfile.GFile(os.path.join(d, 'sub', 'd.txt'), 'rb') as f:\n    data = f.read()\n"
     "tf.constant(data)", "e"),
    ("fileio_gfile_iterate", SETUP + "tf.constant(list(tf.io.gfile.GFile(os.path.join(d, 'a.txt'))))", "e"),
    ("fileio_gfile_append",
     SETUP + "with tf.io.gfile.GFile(os.path.join(d, 'b.txt'), 'a') as f:\n    f.write('c')\n"
     "tf.constant(tf.io.gfile.GFile(os.path.join(d, 'b.txt')).read())", "e"),
    ("fileio_gfile_seek",
     SETUP + "f = tf.io.gfile.GFile(os.path.join(d, 'a.txt'), 'rb')\nf.seek(6)\ntf.constant(f.read(5))", "e"),
    ("fileio_copy_rename",
     SETUP + "tf.io.gfile.copy(os.path.join(d, 'a.txt'), os.path.join(d, 'e.txt'))\n"
     "tf.io.gfile.rename(os.path.join(d, 'b.txt'), os.path.join(d, 'f.txt'))\n"
     "tf.io.gfile.copy(os.path.join(d, 'c.csv'), os.path.join(d, 'e.txt'), overwrite=True)\n"
     "tf.constant(sorted(tf.io.gfile.listdir(d)) + [tf.io.gfile.GFile(os.path.join(d, 'e.txt')).read()])", "e"),
    ("fileio_remove_rmtree",
     SETUP + "tf.io.gfile.remove(os.path.join(d, 'a.txt'))\ntf.io.gfile.rmtree(os.path.join(d, 'sub'))\n"
     "tf.io.gfile.mkdir(os.path.join(d, 'new'))\ntf.io.gfile.mkdir(os.path.join(d, 'new'))\n"
     "tf.constant(sorted(tf.io.gfile.listdir(d)))", "e"),
    ("fileio_err_read_missing", SETUP + error("tf.io.gfile.GFile(os.path.join(d, 'zz')).read()"), "e"),
    ("fileio_err_listdir_missing", SETUP + error("tf.io.gfile.listdir(os.path.join(d, 'zz'))"), "e"),
    ("fileio_err_remove_missing", SETUP + error("tf.io.gfile.remove(os.path.join(d, 'zz'))"), "e"),
    ("fileio_err_stat_missing", SETUP + error("tf.io.gfile.stat(os.path.join(d, 'zz'))"), "e"),
    ("fileio_err_rmtree_missing", SETUP + error("tf.io.gfile.rmtree(os.path.join(d, 'zz'))"), "e"),
    ("fileio_err_rename_exists",
     SETUP + error("tf.io.gfile.rename(os.path.join(d, 'a.txt'), os.path.join(d, 'b.txt'))"), "e"),
    ("fileio_err_copy_exists", SETUP + error("tf.io.gfile.copy(os.path.join(d, 'a.txt'), os.path.join(d, 'b.txt'))"),
     "e"),
    ("fileio_err_mkdir_no_parent", SETUP + error("tf.io.gfile.mkdir(os.path.join(d, 'x', 'y'))"), "e"),
    ("fileio_matching_files", SETUP + names("tf.io.matching_files(os.path.join(d, '*.txt')).numpy()"), "e"),
    ("fileio_matching_files_list",
     SETUP + names("tf.io.matching_files([os.path.join(d, '*.csv'), os.path.join(d, '[ab].txt')]).numpy()"), "e"),
    ("fileio_matching_files_nested", SETUP + names("tf.io.matching_files(os.path.join(d, '*', '*.txt')).numpy()"),
     "e"),
    ("fileio_matching_files_none", SETUP + "tf.io.matching_files(os.path.join(d, '*.zip'))", "e"),
    ("fileio_matching_files_matrix", "tf.io.matching_files([['a', 'b']])", "e"),
    ("fileio_matching_files_graph", "tf.io.matching_files(ph(tf.string, [None]), name='mf')", "g"),
    ("fileio_matching_files_graph_scalar", "tf.io.matching_files('/no/such/*.txt')", "g"),
    ("fileio_list_files", SETUP + names("[x.numpy() for x in tf.data.Dataset.list_files(os.path.join(d, '*'), "
                                        "shuffle=False)]"), "e"),  # fmt: skip
    ("fileio_list_files_seeded",
     SETUP + "for i in range(9):\n    tf.io.gfile.GFile(os.path.join(d, f'x{i}.dat'), 'w').write('x')\n"
     + names("[x.numpy() for x in tf.data.Dataset.list_files(os.path.join(d, 'x*.dat'), seed=7)]"), "e"),
    ("fileio_list_files_none", SETUP + error("tf.data.Dataset.list_files(os.path.join(d, '*.zip'))"), "e"),
    ("fileio_list_files_map",
     SETUP + "ds = tf.data.Dataset.list_files(os.path.join(d, '*.txt'), shuffle=False).map(tf.io.read_file)\n"
     "tf.stack(list(ds))", "e"),
]  # fmt: skip


def write_op_goldens() -> int:
    """MatchingFiles' OpDef and shape cases."""
    P, U, shape_case = breadth.P, breadth.U, breadth.shape_case
    breadth.begin(OUT / "ops", "tools/make_golden_file_io.py", ["MatchingFiles"])
    shape_case("MatchingFiles", P([], "string"))
    shape_case("MatchingFiles", P([U], "string"))
    shape_case("MatchingFiles", P([2, 2], "string"))
    shape_case("MatchingFiles", P(None, "string"))
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return 0


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_file_io.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
