"""Lookup-table speed beside TensorFlow, eagerly: a 20,000-word vocabulary (StaticHashTable and
StaticVocabularyTable with 100 out-of-vocabulary buckets) looked up with 100,000 string keys and with 64, a
MutableHashTable insert of 10,000 int64 keys, and a tf.data map that splits sentences and looks their words up.

Outputs are checked against TF's first (equal). The NumPy column times a Python dict lookup of the same keys
(``[d.get(k, -1) for k in keys]`` into an int64 array), the floor of modtensor's scalar-value kernel.

    PYTHONPATH=src /work/tfvenv/bin/python benchmarks/lookup_tables.py [--quick]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import Environment, Row, measure_interleaved  # noqa: E402

BENCHMARK = "tf.lookup (eager)"
VOCAB = 20_000


def _words() -> dict[str, Any]:
    rng = np.random.default_rng(5)
    vocab = np.array([f"w{i}".encode() for i in range(VOCAB)], dtype=object)
    queries = np.array([f"w{i}".encode() for i in rng.integers(0, int(VOCAB * 1.2), 100_000)], dtype=object)
    sentences = [b" ".join(queries[i : i + 12]) for i in range(0, 12 * 512, 12)]
    return {"vocab": vocab, "queries": queries, "few": queries[:64], "sentences": np.array(sentences, dtype=object),
            "int_keys": rng.integers(0, 1 << 40, 10_000)}  # fmt: skip


def _cases(tf: Any, w: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    ids = np.arange(VOCAB, dtype=np.int64)
    static = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(w["vocab"], ids), -1)
    vocab = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(w["vocab"], ids), 100)
    mutable = tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, -1)
    queries, few = tf.constant(w["queries"]), tf.constant(w["few"])
    int_keys = tf.constant(w["int_keys"])
    data = tf.data.Dataset.from_tensor_slices(w["sentences"]).map(lambda s: vocab.lookup(tf.strings.split(s)))

    def pipeline() -> Any:
        return [x for x in data]

    return {
        "StaticHashTable, 100,000 keys": lambda: static.lookup(queries),
        "StaticHashTable, 64 keys": lambda: static.lookup(few),
        "StaticVocabularyTable (100 buckets), 100,000 keys": lambda: vocab.lookup(queries),
        "MutableHashTable insert, 10,000 int64 keys": lambda: mutable.insert(int_keys, int_keys),
        "tf.data map: split + vocabulary lookup, 512 sentences": pipeline,
    }


def _numpy(w: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    table = {k: i for i, k in enumerate(w["vocab"].tolist())}

    def lookup(keys: np.ndarray) -> np.ndarray:
        return np.array([table.get(k, -1) for k in keys.tolist()], dtype=np.int64)

    return {"StaticHashTable, 100,000 keys": lambda: lookup(w["queries"]),
            "StaticHashTable, 64 keys": lambda: lookup(w["few"])}  # fmt: skip


def _value(result: Any) -> Any:
    if isinstance(result, list):
        return [np.asarray(r.numpy()).tolist() for r in result]
    return None if result is None else np.asarray(result.numpy()).tolist()


def run(env: Environment) -> list[Row]:
    """One row per case: modtensor's, the dict floor's and TensorFlow's seconds per call, outputs checked first."""
    import modtensor

    w = _words()
    mt = _cases(modtensor, w)
    tf = _cases(env.tensorflow, w) if env.tensorflow else {}
    floor = _numpy(w)
    rows = []
    for case, fn in mt.items():
        note = ""
        if case in tf and not case.startswith("MutableHashTable"):
            note = "output equal to TF's" if _value(fn()) == _value(tf[case]()) else "OUTPUT DIFFERS FROM TF's"
        times = measure_interleaved({"mt": fn, "np": floor.get(case), "tf": tf.get(case)},
                                    repeats=5 if env.quick else 15)  # fmt: skip
        rows.append(Row(BENCHMARK, case, times["mt"], times["np"], times["tf"], note=note))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run standalone and print the rows (``benchmarks/run.py`` prints them in the common table)."""
    from run import run_standalone

    return run_standalone(run, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
