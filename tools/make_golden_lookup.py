"""Record what TensorFlow's ``tf.lookup`` tables build and compute.

    /work/tfvenv/bin/python tools/make_golden_lookup.py

Writes ``tests/golden/lookup/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets, ids ``lookup_...``, read by
``tests/api/test_lookup_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py`` writes (OpDefs,
CPU kernel constraints, shape cases) for the hash-table ops: StaticHashTable from tensors and text files (whole
lines, line numbers, columns, vocabulary sizes, offsets), StaticVocabularyTable's out-of-vocabulary buckets,
MutableHashTable of scalars and of tensors (insert, lookup, remove, export), TF1 graphs with
``tables_initializer``, and TF's errors. The vocabulary files are written by the snippets themselves, under the
system's temporary folder with fixed names.
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

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "lookup"
OPS = [
    "HashTableV2", "AnonymousHashTable", "MutableHashTableV2", "MutableHashTableOfTensorsV2",
    "AnonymousMutableHashTable", "AnonymousMutableHashTableOfTensors", "InitializeTableV2",
    "InitializeTableFromTextFileV2", "LookupTableFindV2", "LookupTableInsertV2", "LookupTableRemoveV2",
    "LookupTableSizeV2", "LookupTableExportV2", "LookupTableImportV2",
]  # fmt: skip

KV = "tf.lookup.KeyValueTensorInitializer(['a', 'b', 'c'], [7, 8, 9])"
STATIC = f"t = tf.lookup.StaticHashTable({KV}, -1)\n"
SORTED = ("def sorted_export(t):\n    k, v = t.export()\n"
          "    order = tf.argsort(k) if k.dtype != tf.string else "
          "tf.argsort(tf.strings.to_hash_bucket_fast(k, 2**62))\n"
          "    return [tf.gather(k, order), tf.gather(v, order)]\n")  # exports in a fixed order: TF's is its hash map's
VOCAB = ("import os, tempfile\n"
         "path = os.path.join(tempfile.gettempdir(), 'modtensor_lookup_golden_vocab.txt')\n"
         "open(path, 'w').write('apple\\t3\\tx\\nbanana\\t5\\ty\\ncherry\\t7\\tz\\n')\n")  # fmt: skip
GRAPH_RUN = ("g = tf.Graph()\n"
             "with g.as_default():\n"
             "    t = tf.lookup.StaticHashTable({init}, {default})\n"
             "    out = t.lookup(tf.constant({keys}))\n"
             "    size = t.size()\n"
             "    init = tf.compat.v1.tables_initializer()\n"
             "with tf.compat.v1.Session(graph=g) as s:\n"
             "    {before}s.run(init)\n"
             "    r = s.run([out, size])\n"
             "[tf.constant(r[0]), tf.constant(r[1])]")  # fmt: skip

CASES: list[tuple[str, str, str]] = [
    # StaticHashTable from tensors
    ("lookup_static_basic", f"{STATIC}t.lookup(tf.constant(['a', 'x', 'c', '']))", "e"),
    ("lookup_static_getitem", f"{STATIC}t[tf.constant([['a', 'b'], ['c', 'd']])]", "e"),
    ("lookup_static_size", f"{STATIC}t.size()", "e"),
    ("lookup_static_export", f"{SORTED}{STATIC}sorted_export(t)", "e"),
    ("lookup_static_default", f"{STATIC}t.default_value", "e"),
    ("lookup_static_dtypes", f"{STATIC}[tf.constant(t.key_dtype.name), tf.constant(t.value_dtype.name)]", "e"),
    ("lookup_static_int_keys",
     "t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(tf.constant([1, 5, 9], tf.int64), "
     "tf.constant([0.5, 1.5, 2.5])), -1.0)\nt.lookup(tf.constant([9, 2, 1], tf.int64))", "e"),
    ("lookup_static_int32_keys",
     "t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1, 5], [10, 20]), 0)\n"
     "t.lookup(tf.constant([[5], [6]]))", "e"),
    ("lookup_static_string_values",
     "t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(tf.constant([0, 1], tf.int64), "
     "['zero', 'one']), 'UNK')\nt.lookup(tf.constant([1, 2, 0], tf.int64))", "e"),
    ("lookup_static_scalar_key", f"{STATIC}t.lookup(tf.constant('b'))", "e"),
    ("lookup_static_empty_keys", f"{STATIC}t.lookup(tf.constant([], tf.string))", "e"),
    ("lookup_static_ragged", f"{STATIC}r = t.lookup(tf.strings.split(tf.constant(['a b', 'c x y', ''])))\n"
     "[r.flat_values, r.row_splits]", "e"),
    ("lookup_static_sparse",
     f"{STATIC}r = t.lookup(tf.SparseTensor([[0, 1], [2, 0]], ['c', 'q'], [3, 2]))\n"
     "[r.indices, r.values, r.dense_shape]",
     "e"),
    ("lookup_static_wrong_key_dtype", f"{STATIC}t.lookup(tf.constant([1, 2]))", "e"),
    ("lookup_static_default_not_scalar",
     f"t = tf.lookup.StaticHashTable({KV}, [-1, -2])\nt.lookup(tf.constant(['a']))", "e"),
    ("lookup_static_duplicate_same",
     "t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(['a', 'a', 'b'], [1, 1, 2]), 0)\n"
     "[t.size(), t.lookup(tf.constant(['a', 'b']))]", "e"),
    ("lookup_static_duplicate_different",
     "t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(['a', 'a'], [1, 2]), 0)\nt.size()", "e"),
    ("lookup_static_size_mismatch",
     "t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(['a', 'b'], [1, 2, 3]), 0)\nt.size()", "e"),
    ("lookup_static_keys_rank",
     "t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([['a']], [[1]]), 0)\nt.size()", "e"),
    ("lookup_static_in_function",
     f"{STATIC}f = tf.function(lambda x: t.lookup(x) * 2)\nf(tf.constant(['c', 'q']))", "e"),
    ("lookup_static_map",
     f"{STATIC}ds = tf.data.Dataset.from_tensor_slices(['b', 'a', 'z']).map(t.lookup)\n"
     "tf.stack(list(ds))", "e"),
    ("lookup_static_anonymous",
     f"t = tf.lookup.StaticHashTable({KV}, -1, experimental_is_anonymous=True)\nt.lookup(tf.constant(['b']))", "e"),
    ("lookup_static_name_eager", f"{STATIC}tf.constant(str(t.name))", "e"),
    # (a table from tensors gets a random shared_name in a graph: the graph cases use files and mutable tables)
    ("lookup_static_graph",
     "init = tf.lookup.TextFileInitializer('/vocab/words.txt', tf.string, 0, tf.int64, 1, vocab_size=4)\n"
     "t = tf.lookup.StaticHashTable(init, -1, name='vocab')\n[t.lookup(tf.constant(['a'])), t.size()]", "g"),
    ("lookup_static_graph_ph",
     "init = tf.lookup.TextFileInitializer('/vocab/words.txt', tf.string, -2, tf.int64, -1)\n"
     "t = tf.lookup.StaticHashTable(init, -1)\nt.lookup(ph(tf.string, [None, 3]))", "g"),
    ("lookup_vocab_graph",
     "init = tf.lookup.TextFileInitializer('/vocab/words.txt', tf.string, 0, tf.int64, -1, value_index_offset=2)\n"
     "t = tf.lookup.StaticVocabularyTable(init, 3)\nt.lookup(ph(tf.string, [None]))", "g"),
    # TF1 graphs and sessions
    ("lookup_session", GRAPH_RUN.format(init=KV, default=-1, keys="['c', 'zz', 'a']", before=""), "e"),
    ("lookup_session_uninitialized",
     "g = tf.Graph()\nwith g.as_default():\n"
     f"    t = tf.lookup.StaticHashTable({KV}, -1)\n    out = t.lookup(tf.constant(['c']))\n"
     "with tf.compat.v1.Session(graph=g) as s:\n    try:\n        s.run(out)\n        found = 'no error'\n"
     "    except tf.errors.OpError as e:\n"
     "        found = type(e).__name__ + ': ' + str('Table not initialized.' in e.message)\ntf.constant(found)", "e"),
    ("lookup_tables_initializer_empty",
     "g = tf.Graph()\nwith g.as_default():\n    init = tf.compat.v1.tables_initializer()\n"
     "tf.constant(init.type)", "e"),
    # text files
    ("lookup_text_whole_line",
     f"{VOCAB}init = tf.lookup.TextFileInitializer(path, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, "
     "tf.lookup.TextFileIndex.LINE_NUMBER)\nt = tf.lookup.StaticHashTable(init, -1)\n"
     "[t.lookup(tf.constant(['banana\\t5\\ty', 'apple'])), t.size()]", "e"),
    ("lookup_text_columns",
     f"{VOCAB}init = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, 1)\n"
     "t = tf.lookup.StaticHashTable(init, -1)\nt.lookup(tf.constant(['cherry', 'apple', 'kiwi']))", "e"),
    ("lookup_text_string_values",
     f"{VOCAB}init = tf.lookup.TextFileInitializer(path, tf.int64, 1, tf.string, 2)\n"
     "t = tf.lookup.StaticHashTable(init, '?')\nt.lookup(tf.constant([5, 7, 4], tf.int64))", "e"),
    ("lookup_text_line_number_keys",
     f"{VOCAB}init = tf.lookup.TextFileInitializer(path, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER, tf.string, "
     "0)\nt = tf.lookup.StaticHashTable(init, '?')\nt.lookup(tf.constant([2, 0, 3], tf.int64))", "e"),
    ("lookup_text_float_values",
     "import os, tempfile\npath = os.path.join(tempfile.gettempdir(), 'modtensor_lookup_golden_floats.txt')\n"
     "open(path, 'w').write('apple 0.25\\nbanana -1e3\\n')\n"
     "init = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.float32, 1, delimiter=' ')\n"
     "t = tf.lookup.StaticHashTable(init, -1.0)\nt.lookup(tf.constant(['banana', 'apple', 'x']))", "e"),
    ("lookup_text_vocab_size",
     f"{VOCAB}init = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, "
     "tf.lookup.TextFileIndex.LINE_NUMBER, vocab_size=2)\nt = tf.lookup.StaticHashTable(init, -1)\n"
     "[t.lookup(tf.constant(['apple', 'banana', 'cherry'])), t.size()]", "e"),
    ("lookup_text_vocab_size_too_big",
     f"{VOCAB}init = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, "
     "tf.lookup.TextFileIndex.LINE_NUMBER, vocab_size=5)\nt = tf.lookup.StaticHashTable(init, -1)\nt.size()", "e"),
    ("lookup_text_offset",
     f"{VOCAB}init = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, "
     "tf.lookup.TextFileIndex.LINE_NUMBER, value_index_offset=10)\nt = tf.lookup.StaticHashTable(init, -1)\n"
     "t.lookup(tf.constant(['cherry', 'apple']))", "e"),
    ("lookup_text_delimiter",
     "import os, tempfile\npath = os.path.join(tempfile.gettempdir(), 'modtensor_lookup_golden_csv.txt')\n"
     "open(path, 'w').write('1,one\\n2,two\\n')\n"
     "init = tf.lookup.TextFileInitializer(path, tf.int64, 0, tf.string, 1, delimiter=',')\n"
     "t = tf.lookup.StaticHashTable(init, 'none')\nt.lookup(tf.constant([2, 3], tf.int64))", "e"),
    ("lookup_text_bad_column",
     f"{VOCAB}init = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, 4)\n"
     "t = tf.lookup.StaticHashTable(init, -1)\nt.size()", "e"),
    ("lookup_text_bad_number",
     f"{VOCAB}init = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, 2)\n"
     "t = tf.lookup.StaticHashTable(init, -1)\nt.size()", "e"),
    ("lookup_text_missing_file",
     "init = tf.lookup.TextFileInitializer('/nonexistent/modtensor_vocab.txt', tf.string, 0, tf.int64, 1)\n"
     "t = tf.lookup.StaticHashTable(init, -1)\nt.size()", "e"),
    ("lookup_text_bad_key_index",
     "tf.lookup.TextFileInitializer('v.txt', tf.string, -3, tf.int64, 1)", "e"),
    ("lookup_text_line_number_dtype",
     "tf.lookup.TextFileInitializer('v.txt', tf.string, tf.lookup.TextFileIndex.LINE_NUMBER, tf.int64, 1)", "e"),
    ("lookup_text_no_filename", "tf.lookup.TextFileInitializer('', tf.string, 0, tf.int64, 1)", "e"),
    ("lookup_text_bad_vocab_size", "tf.lookup.TextFileInitializer('v.txt', tf.string, 0, tf.int64, 1, vocab_size=0)",
     "e"),
    ("lookup_text_empty_lines",
     "import os, tempfile\npath = os.path.join(tempfile.gettempdir(), 'modtensor_lookup_golden_blank.txt')\n"
     "open(path, 'w').write('a\\n\\nb\\n')\n"
     "init = tf.lookup.TextFileInitializer(path, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, "
     "tf.lookup.TextFileIndex.LINE_NUMBER)\nt = tf.lookup.StaticHashTable(init, -1)\n"
     "[t.lookup(tf.constant(['a', 'b', ''])), t.size()]", "e"),
    # StaticVocabularyTable
    ("lookup_vocab_oov",
     "init = tf.lookup.KeyValueTensorInitializer(['emerson', 'lake', 'palmer'], tf.constant([0, 1, 2], tf.int64))\n"
     "t = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=5)\n"
     "[t.lookup(tf.constant(['palmer', 'crimnson', 'king', 'tarkus', 'black', 'moon'])), t.size()]", "e"),
    ("lookup_vocab_int",
     "init = tf.lookup.KeyValueTensorInitializer(tf.constant([42, 7], tf.int64), tf.constant([0, 1], tf.int64))\n"
     "t = tf.lookup.StaticVocabularyTable(init, 3, lookup_key_dtype=tf.int32)\n"
     "t.lookup(tf.constant([7, 42, 5, -1]))", "e"),
    ("lookup_vocab_ragged",
     "init = tf.lookup.KeyValueTensorInitializer(['a', 'b'], tf.constant([0, 1], tf.int64))\n"
     "r = tf.lookup.StaticVocabularyTable(init, 2).lookup(tf.strings.split(tf.constant(['a b', 'b c d'])))\n"
     "[r.flat_values, r.row_splits]", "e"),
    ("lookup_vocab_no_initializer",
     "t = tf.lookup.StaticVocabularyTable(None, 4)\n[t.lookup(tf.constant(['x', 'y'])), t.size()]", "e"),
    ("lookup_vocab_zero_buckets", f"tf.lookup.StaticVocabularyTable({KV}, 0)", "e"),
    ("lookup_vocab_bad_values", f"tf.lookup.StaticVocabularyTable({KV}, 2)", "e"),
    ("lookup_vocab_file",
     f"{VOCAB}init = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, "
     "tf.lookup.TextFileIndex.LINE_NUMBER)\nt = tf.lookup.StaticVocabularyTable(init, 2)\n"
     "t.lookup(tf.constant([['banana', 'durian'], ['apple', 'fig']]))", "e"),
    # MutableHashTable
    ("lookup_mutable_basic",
     "t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)\n"
     "t.insert(tf.constant(['a', 'b', 'c']), tf.constant([1, 2, 3], tf.int64))\n"
     "t.insert(tf.constant(['b']), tf.constant([20], tf.int64))\n"
     "t.remove(tf.constant(['c', 'zz']))\n[t.lookup(tf.constant(['a', 'b', 'c'])), t.size()]", "e"),
    ("lookup_mutable_export",
     f"{SORTED}t = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, 0.0)\n"
     "t.insert(tf.constant([5, 1, 3], tf.int64), [0.5, 0.1, 0.3])\nsorted_export(t)", "e"),
    ("lookup_mutable_empty_export",
     "t = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, 0.0)\nlist(t.export()) + [t.size()]", "e"),
    ("lookup_mutable_2d_keys",
     "t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int32, 0)\n"
     "t.insert(['x', 'y'], [1, 2])\nt.lookup([['x', 'q'], ['y', 'x']])", "e"),
    ("lookup_mutable_dynamic_default",
     "t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int32, 0)\n"
     "t.insert(['x'], [1])\nt.lookup(tf.constant(['x', 'q', 'r']), dynamic_default_values=tf.constant([7, 8, 9]))",
     "e"),
    ("lookup_mutable_tensors",
     "t = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, -1.0])\n"
     "t.insert(tf.constant([3, 4], tf.int64), [[1.0, 2.0], [3.0, 4.0]])\n"
     "[t.lookup(tf.constant([4, 5, 3], tf.int64)), t.size()]", "e"),
    ("lookup_mutable_tensors_export",
     f"{SORTED}t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int32, [0, 0, 0])\n"
     "t.insert(['q', 'p'], [[1, 2, 3], [4, 5, 6]])\nsorted_export(t)", "e"),
    ("lookup_mutable_wrong_value_shape",
     "t = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, -1.0])\n"
     "t.insert(tf.constant([3], tf.int64), [[1.0, 2.0, 3.0]])", "e"),
    ("lookup_mutable_count_mismatch",
     "t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)\n"
     "t.insert(tf.constant(['a', 'b']), tf.constant([1], tf.int64))", "e"),
    ("lookup_mutable_remove_wrong_dtype",
     "t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)\nt.remove(tf.constant([1]))", "e"),
    ("lookup_mutable_in_function",
     "t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)\n"
     "@tf.function\ndef count(words):\n    t.insert(words, tf.range(tf.size(words, out_type=tf.int64)))\n"
     "    return t.lookup(tf.constant(['b', 'c']))\ncount(tf.constant(['a', 'b']))", "e"),
    ("lookup_mutable_graph",
     "t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1, name='counts')\n"
     "[t.lookup(tf.constant(['a'])), t.size()]", "g"),
    # the raw ops
    ("lookup_raw_find_uninitialized",
     "h = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int32, shared_name='raw_uninit')\n"
     "tf.raw_ops.LookupTableFindV2(table_handle=h, keys=tf.constant(['a']), default_value=0)", "e"),
    ("lookup_raw_size_uninitialized",
     "h = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int32, shared_name='raw_size')\n"
     "tf.raw_ops.LookupTableSizeV2(table_handle=h)", "e"),
    ("lookup_raw_export_uninitialized",
     "h = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int32, shared_name='raw_export')\n"
     "tf.raw_ops.LookupTableExportV2(table_handle=h, Tkeys=tf.string, Tvalues=tf.int32)", "e"),
    ("lookup_raw_initialize_twice",
     "h = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int32, shared_name='raw_twice')\n"
     "tf.raw_ops.InitializeTableV2(table_handle=h, keys=['a'], values=[1])\n"
     "tf.raw_ops.InitializeTableV2(table_handle=h, keys=['b'], values=[2])\n"
     "tf.raw_ops.LookupTableFindV2(table_handle=h, keys=tf.constant(['a', 'b']), default_value=0)", "e"),
    ("lookup_raw_initialize_twice_bigger",
     "h = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int32, shared_name='raw_twice_big')\n"
     "tf.raw_ops.InitializeTableV2(table_handle=h, keys=['a'], values=[1])\n"
     "tf.raw_ops.InitializeTableV2(table_handle=h, keys=['a', 'b'], values=[1, 2])", "e"),
    ("lookup_raw_shared",
     "h1 = tf.raw_ops.HashTableV2(key_dtype=tf.int64, value_dtype=tf.int64, shared_name='raw_shared')\n"
     "tf.raw_ops.InitializeTableV2(table_handle=h1, keys=tf.constant([1], tf.int64), values=tf.constant([2], "
     "tf.int64))\nh2 = tf.raw_ops.HashTableV2(key_dtype=tf.int64, value_dtype=tf.int64, shared_name='raw_shared')\n"
     "tf.raw_ops.LookupTableSizeV2(table_handle=h2)", "e"),
    ("lookup_raw_shared_wrong_types",
     "h1 = tf.raw_ops.HashTableV2(key_dtype=tf.int64, value_dtype=tf.int64, shared_name='raw_shared_types')\n"
     "h2 = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64, shared_name='raw_shared_types')\n"
     "tf.raw_ops.LookupTableSizeV2(table_handle=h2)", "e"),
    ("lookup_raw_find_wrong_dtype",
     "h = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int32, shared_name='raw_dtype')\n"
     "tf.raw_ops.InitializeTableV2(table_handle=h, keys=['a'], values=[1])\n"
     "tf.raw_ops.LookupTableFindV2(table_handle=h, keys=tf.constant([1]), default_value=0)", "e"),
    ("lookup_raw_find_wrong_default_dtype",
     "h = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int32, shared_name='raw_ddtype')\n"
     "tf.raw_ops.InitializeTableV2(table_handle=h, keys=['a'], values=[1])\n"
     "tf.raw_ops.LookupTableFindV2(table_handle=h, keys=tf.constant(['a']), default_value=0.5)", "e"),
    ("lookup_raw_insert_static",
     "h = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int32, shared_name='raw_insert_static')\n"
     "tf.raw_ops.LookupTableInsertV2(table_handle=h, keys=['a'], values=[1])", "e"),
    ("lookup_raw_remove_static",
     "h = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int32, shared_name='raw_remove_static')\n"
     "tf.raw_ops.InitializeTableV2(table_handle=h, keys=['a'], values=[1])\n"
     "tf.raw_ops.LookupTableRemoveV2(table_handle=h, keys=['a'])", "e"),
    ("lookup_raw_mutable_import",
     f"{SORTED}h = tf.raw_ops.MutableHashTableV2(key_dtype=tf.int64, value_dtype=tf.int64, shared_name='raw_imp')\n"
     "tf.raw_ops.LookupTableInsertV2(table_handle=h, keys=tf.constant([1, 2], tf.int64), "
     "values=tf.constant([1, 2], tf.int64))\n"
     "tf.raw_ops.LookupTableImportV2(table_handle=h, keys=tf.constant([5, 6, 7], tf.int64), "
     "values=tf.constant([50, 60, 70], tf.int64))\n"
     "k, v = tf.raw_ops.LookupTableExportV2(table_handle=h, Tkeys=tf.int64, Tvalues=tf.int64)\n"
     "o = tf.argsort(k)\n[tf.gather(k, o), tf.gather(v, o)]", "e"),
    ("lookup_raw_mutable_find_default_shape",
     "h = tf.raw_ops.MutableHashTableV2(key_dtype=tf.int64, value_dtype=tf.int64, shared_name='raw_defshape')\n"
     "tf.raw_ops.LookupTableFindV2(table_handle=h, keys=tf.constant([1], tf.int64), "
     "default_value=tf.constant([1, 2], tf.int64))", "e"),
    ("lookup_raw_unsupported_types",
     "tf.raw_ops.HashTableV2(key_dtype=tf.float32, value_dtype=tf.int32, shared_name='raw_float_keys')", "e"),
    ("lookup_raw_anonymous",
     "h = tf.raw_ops.AnonymousHashTable(key_dtype=tf.int32, value_dtype=tf.float32)\n"
     "tf.raw_ops.InitializeTableV2(table_handle=h, keys=[3], values=[0.5])\n"
     "tf.raw_ops.LookupTableFindV2(table_handle=h, keys=tf.constant([3, 4]), default_value=-1.0)", "e"),
    ("lookup_raw_graph",
     "h = tf.raw_ops.MutableHashTableOfTensorsV2(key_dtype=tf.int64, value_dtype=tf.float32, value_shape=[2])\n"
     "tf.raw_ops.LookupTableFindV2(table_handle=h, keys=ph(tf.int64, [None, 4]), default_value=tf.zeros([2]))", "g"),
]  # fmt: skip


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape cases) of the lookup-table ops."""
    P, C, U, shape_case = breadth.P, breadth.C, breadth.U, breadth.shape_case
    breadth.begin(OUT / "ops", "tools/make_golden_lookup.py", OPS)
    shape_case("HashTableV2", key_dtype="string", value_dtype="int64")
    shape_case("MutableHashTableV2", key_dtype="string", value_dtype="int64")
    shape_case("MutableHashTableOfTensorsV2", key_dtype="int64", value_dtype="float32", value_shape=[2, U])
    shape_case("AnonymousHashTable", key_dtype="string", value_dtype="int64")
    shape_case("AnonymousMutableHashTable", key_dtype="int32", value_dtype="float64")
    shape_case("AnonymousMutableHashTableOfTensors", key_dtype="int64", value_dtype="float32", value_shape=[3])
    for keys in (P([4], "string"), P([U, 3], "string"), P(None, "string")):
        shape_case("LookupTableFindV2", P([], "resource"), keys, P([], "int64"))
    shape_case("LookupTableFindV2", P([2], "resource"), P([4], "string"), P([], "int64"))
    shape_case("LookupTableSizeV2", P([], "resource"))
    shape_case("LookupTableSizeV2", P([3], "resource"))
    shape_case("LookupTableExportV2", P([], "resource"), Tkeys="string", Tvalues="int64")
    shape_case("InitializeTableV2", P([], "resource"), P([3], "string"), P([3], "int64"))
    shape_case("InitializeTableV2", P([], "resource"), P([3], "string"), P([4], "int64"))
    shape_case("InitializeTableV2", P([], "resource"), P([3, 1], "string"), P([3, 1], "int64"))
    shape_case("LookupTableImportV2", P([], "resource"), P([U], "string"), P([5], "int64"))
    shape_case("LookupTableImportV2", P([], "resource"), P([2], "int64"), P([2, 3], "float32"))
    shape_case("LookupTableImportV2", P([], "resource"), P([3], "int64"), P([4, 2], "float32"))
    shape_case("LookupTableImportV2", P([], "resource"), P([3, 1], "int64"), P([3, 1], "float32"))
    shape_case("LookupTableInsertV2", P([], "resource"), P([U, 2], "string"), P([4], "int64"))
    shape_case("LookupTableRemoveV2", P([], "resource"), P([], "string"))
    shape_case("LookupTableRemoveV2", P([], "resource"), P([U], "string"))
    shape_case("InitializeTableFromTextFileV2", P([], "resource"), P([], "string"), key_index=-2, value_index=-1)
    shape_case("InitializeTableFromTextFileV2", P([], "resource"), P([1], "string"), key_index=0, value_index=1)
    del C
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return 0


def write_saved_models() -> None:
    """SavedModels holding tables (``saved_models/``): a tf.Module with a static table, a vocabulary-file table
    (its file an asset) and a mutable table, and a Keras text model (StringLookup -> Embedding -> Dense), with
    TF's results of calling them after ``tf.saved_model.load`` in ``saved_models/expected.json``."""
    import json
    import shutil
    import tempfile

    import keras
    import numpy as np
    import tensorflow as tf

    out = OUT / "saved_models"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as scratch:
        vocab = Path(scratch) / "colors.txt"
        vocab.write_text("red\ngreen\nblue\n")

        class Tables(tf.Module):
            def __init__(self) -> None:
                super().__init__()
                init = tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], tf.constant([1.5, 2.5, 3.5]))
                self.static = tf.lookup.StaticHashTable(init, -1.0)
                file_init = tf.lookup.TextFileInitializer(str(vocab), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
                                                          tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)  # fmt: skip
                self.colors = tf.lookup.StaticVocabularyTable(file_init, num_oov_buckets=2)
                self.counts = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, 0)
                self.counts.insert(tf.constant(["seen"]), tf.constant([7], tf.int64))

            @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="words")])
            def __call__(self, words: tf.Tensor) -> dict:
                return {"static": self.static.lookup(words), "colors": self.colors.lookup(words),
                        "counts": self.counts.lookup(words), "sizes": tf.stack([self.static.size(),
                        self.colors.size(), self.counts.size()])}  # fmt: skip

            @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="words")])
            def count(self, words: tf.Tensor) -> tf.Tensor:
                self.counts.insert(words, self.counts.lookup(words) + 1)
                return self.counts.size()

        tables = Tables()
        tf.saved_model.save(tables, str(out / "module"), signatures={"serving_default": tables.__call__})

    words = ["a", "green", "seen", "purple", "c", "blue"]
    loaded = tf.saved_model.load(str(out / "module"))
    as_lists = lambda d: {k: v.numpy().tolist() for k, v in sorted(d.items())}  # noqa: E731
    first = as_lists(loaded(tf.constant(words)))
    counted = int(loaded.count(tf.constant(["seen", "new", "new"])).numpy())
    second = as_lists(loaded.signatures["serving_default"](words=tf.constant(words)))

    keras.utils.set_random_seed(11)
    inputs = keras.Input(shape=(4,), dtype="string", name="tokens")
    ids = keras.layers.StringLookup(vocabulary=["the", "cat", "sat", "on", "mat"], num_oov_indices=1)(inputs)
    x = keras.layers.Embedding(7, 3)(ids)
    x = keras.layers.GlobalAveragePooling1D()(x)
    outputs = keras.layers.Dense(2, activation="softmax")(x)
    model = keras.Model(inputs, outputs)
    model.export(str(out / "keras_text"), verbose=False)
    tokens = np.array([["the", "cat", "sat", "down"], ["a", "mat", "on", "the"]], dtype=object)
    keras_loaded = tf.saved_model.load(str(out / "keras_text"))
    expected = {
        "tf_version": tf.__version__,
        "module": {"words": words, "first": first, "count": counted, "second": second},
        "keras_text": {"tokens": tokens.tolist(), "serve": keras_loaded.serve(tf.constant(tokens)).numpy().tolist(),
                       "model": model(tf.constant(tokens)).numpy().tolist()},  # fmt: skip
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print("wrote", out)


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_lookup.py")
    write_saved_models()
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
