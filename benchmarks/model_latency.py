"""End-to-end latency of TensorFlow-exported models through ``Session.run``, modtensor beside TensorFlow.

Models: the golden models (``examples/models``); the Keras models of
``tests/golden/keras_models`` (the keras.applications set and a transformer encoder exported by
``tools/make_golden_keras_models.py``, expanded to full frozen graphs with ``tests/keras_golden.py``;
``--no-keras`` leaves them out); and every folder named in ``MODTENSOR_BENCH_MODELS``
(``os.pathsep``-separated, each with a ``manifest.json`` in the format of
``examples/models/manifest.json``).
Each ``NAME.pb`` is imported into a fresh graph with the TensorFlow API (``compat.v1.GraphDef``,
``import_graph_def``, ``compat.v1.Session``) and run on the recorded inputs of ``NAME.io.npz``
at each recorded batch size. modtensor's outputs are checked against TF's recorded ones first
(max |error| over max |TF's output|, per output).

TensorFlow runs in a subprocess (``benchmarks/tf_worker.py``) with the interpreter of
``MODTENSOR_TF_PYTHON`` (default ``/work/tfvenv/bin/python`` when it exists), so modtensor
never imports it; without one the TensorFlow column is empty and the note says why. The
samples of both are interleaved in time (modtensor, TensorFlow, modtensor, ...), so a burst
of outside load hits both; the times are medians. The note adds the CPU time per call (all
threads, user + system) of both: on a machine shared with other jobs the wall time depends on
how much of the cores each process gets, the CPU time measures the work itself.

Whole processes of the same build can differ by more than the gap being measured (on the
2-core VM a process of NASNetMobile lands at 74-78 or at 113-131 ms per batch-8 call and stays
there). ``--processes N`` repeats the whole measurement in N fresh pairs of processes (one
modtensor, one TensorFlow each) and reports the median over the pairs, with the range of the
pairs' ratios in the note.

    python benchmarks/model_latency.py [--quick] [--only NAME ...] [--processes N]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import Environment, Row  # noqa: E402

HERE = Path(__file__).resolve().parent
MODELS = HERE.parent / "examples" / "models"
BENCHMARK = "model latency (Session.run)"
DEFAULT_TF_PYTHON = "/work/tfvenv/bin/python"


def model_folders() -> list[Path]:
    """The golden models' folder, then those of ``MODTENSOR_BENCH_MODELS``."""
    extra = [Path(p) for p in os.environ.get("MODTENSOR_BENCH_MODELS", "").split(os.pathsep) if p]
    return [MODELS, *extra]


def keras_folder(scratch: Path, only: list[str] | None = None) -> Path | None:
    """The Keras golden models written out as frozen .pb files, inputs and TF's outputs, with a manifest."""
    tests = HERE.parent / "tests"
    if not (tests / "keras_golden.py").exists():
        return None
    sys.path.insert(0, str(tests))
    import keras_golden

    from modtensor.framework.protos import graph_pb2

    folder = scratch / "keras_models"
    folder.mkdir(exist_ok=True)
    models = {}
    for name, info in sorted(keras_golden.manifest()["models"].items()):
        if (only and name not in only) or any(i["dtype"] == "string" for i in info["inputs"]):
            continue
        (folder / f"{name}.pb").write_bytes(
            keras_golden.full_graph_def(name, graph_pb2.GraphDef).SerializeToString(deterministic=True)
        )
        arrays = {}
        for batch in info["batches"]:
            arrays.update({f"b{batch}/in/{k}": v for k, v in keras_golden.inputs(name, batch).items()})
            arrays.update({f"b{batch}/out/{k}": v for k, v in keras_golden.outputs(name, batch).items()})
        np.savez(folder / f"{name}.io.npz", **arrays)
        models[name] = {
            "inputs": [{"name": i["name"]} for i in info["inputs"]],
            "outputs": [{"name": o["name"]} for o in info["outputs"]],
            "batches": info["batches"],
            "num_nodes": info["nodes"],
        }
    (folder / "manifest.json").write_text(json.dumps({"models": models}))
    return folder


def tf_python() -> str | None:
    """The interpreter that runs TensorFlow's side, or None."""
    path = os.environ.get("MODTENSOR_TF_PYTHON") or (DEFAULT_TF_PYTHON if Path(DEFAULT_TF_PYTHON).exists() else "")
    return path or None


class TensorFlowWorker:
    """A TensorFlow subprocess (tf_worker.py) that loads models and times Session.run on request."""

    def __init__(self, python: str):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        self.process = subprocess.Popen(
            [python, str(HERE / "tf_worker.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )

    def ask(self, **request: Any) -> dict:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the TensorFlow worker stopped")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, BrokenPipeError, OSError):
            self.ask(op="quit")
        self.process.wait(timeout=30)


def _session(tf: Any, pb: bytes) -> Any:
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(pb)
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    return tf.compat.v1.Session(graph=graph)


def relative_error(outputs: list[Any], expected: list[np.ndarray]) -> float:
    """Max over outputs of max |got - TF's| / max |TF's| (integer outputs: 0 or 1 for any difference)."""
    worst = 0.0
    for got, want in zip(outputs, expected, strict=True):
        got = np.asarray(got)
        if want.dtype.kind in "biu":
            worst = max(worst, float(np.any(got != want)))
        elif want.size:
            scale = float(np.max(np.abs(want))) or 1.0
            worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - want))) / scale)
    return worst


def _cpu_seconds() -> float:
    """CPU time of this process, all threads (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _number(fn: Any, target_s: float) -> int:
    start = time.perf_counter()
    fn()
    return max(1, int(target_s / max(time.perf_counter() - start, 1e-6)))


def run(env: Environment, only: list[str] | None = None, keras: bool = False) -> list[Row]:
    """One row per model and batch: Session.run latency of modtensor and (when available) TensorFlow.

    modtensor runs with its own kernels: binary TensorFlow plugins installed in the venv (ITEX, measured by
    itex_models.py) are left out unless MODTENSOR_NO_TF_PLUGINS is set to 0.
    """
    os.environ.setdefault("MODTENSOR_NO_TF_PLUGINS", "1")
    import modtensor

    python = tf_python()
    worker = TensorFlowWorker(python) if python is not None else None
    rows = []
    scratch = Path(tempfile.mkdtemp(prefix="mt_bench_"))
    folders = model_folders()
    if keras:
        found = keras_folder(scratch, only)
        folders += [found] if found is not None else []
    try:
        for folder in folders:
            manifest = json.loads((folder / "manifest.json").read_text())
            for name, model in sorted(manifest["models"].items()):
                if only and name not in only:
                    continue
                rows += _model_rows(env, modtensor, worker, folder, name, model, scratch)
    finally:
        if worker is not None:
            worker.close()
    return rows


def _model_rows(env: Environment, modtensor: Any, worker: TensorFlowWorker | None, folder: Path, name: str,
                model: dict, scratch: Path) -> list[Row]:  # fmt: skip
    pb_path = folder / f"{name}.pb"
    io = np.load(folder / f"{name}.io.npz")
    fetches = [o["name"] for o in model["outputs"]]
    try:
        session = _session(modtensor, pb_path.read_bytes())
        batch = model["batches"][0]
        session.run(fetches, feed_dict={i["name"]: io[f"b{batch}/in/{i['name']}"] for i in model["inputs"]})
    except Exception as e:  # noqa: BLE001 - a model modtensor cannot run yet is a row saying why
        reason = str(e).splitlines()[0][:160]
        return [Row(BENCHMARK, f"{name}", None, None, None, note=f"does not run: {type(e).__name__}: {reason}")]
    if worker is not None:
        worker.ask(op="load", name=name, pb=str(pb_path), outputs=fetches)
    rows = []
    for batch in model["batches"]:
        feeds = {i["name"]: io[f"b{batch}/in/{i['name']}"] for i in model["inputs"]}
        expected = [io[f"b{batch}/out/{f}"] for f in fetches]
        error = relative_error(session.run(fetches, feed_dict=feeds), expected)
        run_mt = lambda s=session, f=feeds: s.run(fetches, feed_dict=f)  # noqa: E731
        for _ in range(2):
            run_mt()
        target = 0.05 if env.quick else 0.2
        number_mt = _number(run_mt, target)
        mt_samples, tf_samples = [], []
        if worker is not None:
            paths = {}
            for key, value in feeds.items():
                path = scratch / f"{name}_{batch}_{len(paths)}.npy"
                np.save(path, value)
                paths[key] = str(path)
            worker.ask(op="feed", name=name, batch=batch, feeds=paths)
            once = worker.ask(op="time", name=name, batch=batch, number=1)["seconds"]
            number_tf = max(1, int(target / max(once, 1e-6)))
        repeats = 5 if env.quick else 11
        mt_cpu, tf_cpu = [], []
        for _ in range(repeats):
            start, cpu = time.perf_counter(), _cpu_seconds()
            for _ in range(number_mt):
                run_mt()
            mt_samples.append((time.perf_counter() - start) / number_mt)
            mt_cpu.append((_cpu_seconds() - cpu) / number_mt)
            if worker is not None:
                answer = worker.ask(op="time", name=name, batch=batch, number=number_tf)
                tf_samples.append(answer["seconds"])
                tf_cpu.append(answer["cpu_seconds"])
        mt_s = statistics.median(mt_samples)
        tf_s = statistics.median(tf_samples) if tf_samples else None
        note = f"{model.get('num_nodes', '?')} nodes; max rel. error vs TF {error:.1e}"
        if tf_samples:
            note += (
                f"; best-of ratio {min(mt_samples) / min(tf_samples):.2f}x; CPU time per call "
                f"{statistics.median(mt_cpu) * 1e3:.3g} / {statistics.median(tf_cpu) * 1e3:.3g} ms = "
                f"{statistics.median(mt_cpu) / max(statistics.median(tf_cpu), 1e-9):.2f}x"
            )
        else:
            note += "; TensorFlow not run (set MODTENSOR_TF_PYTHON to an interpreter with TensorFlow)"
        rows.append(Row(BENCHMARK, f"{name}, batch {batch}", mt_s, None, tf_s, note=note))
    session.close()
    return rows


def combine_processes(runs: list[list[Row]]) -> list[Row]:
    """One row per case from several process pairs: the median over the pairs of each side's time.

    The note keeps the first pair's note (nodes, error against TF) and adds how many pairs ran and the
    spread of their modtensor / TF ratios.
    """
    combined = []
    for case_rows in zip(*runs, strict=True):
        first = case_rows[0]
        mt = [r.modtensor_s for r in case_rows if r.modtensor_s is not None]
        tf = [r.tensorflow_s for r in case_rows if r.tensorflow_s is not None]
        if not mt:
            combined.append(first)
            continue
        note = first.note.split("; best-of ratio")[0]
        ratios = sorted(
            r.modtensor_s / r.tensorflow_s for r in case_rows if r.modtensor_s is not None and r.tensorflow_s
        )
        if ratios:
            note += (
                f"; {len(case_rows)} process pairs, their ratios {ratios[0]:.2f}-{ratios[-1]:.2f}x "
                f"(median {statistics.median(ratios):.2f}x)"
            )
        combined.append(
            dataclasses.replace(
                first,
                modtensor_s=statistics.median(mt),
                tensorflow_s=statistics.median(tf) if tf else None,
                note=note,
            )
        )
    return combined


def _in_fresh_processes(count: int, argv: list[str]) -> list[Row]:
    """Run this script ``count`` times with ``argv`` (each a fresh modtensor and TF process) and combine the rows."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="mt_latency_") as scratch:
        for i in range(count):
            out = Path(scratch) / f"rows_{i}.json"
            subprocess.run([sys.executable, __file__, *argv, "--rows-json", str(out)], check=True)
            runs.append([Row(**r) for r in json.loads(out.read_text())])
            print(f"process pair {i + 1} of {count} done", file=sys.stderr, flush=True)
    return combine_processes(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", action="append", help="model name (repeatable)")
    parser.add_argument("--no-keras", action="store_true", help="leave the Keras golden models out")
    parser.add_argument("--processes", type=int, default=1, metavar="N",
                        help="repeat in N fresh process pairs and report the median (default 1)")  # fmt: skip
    parser.add_argument("--rows-json", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.processes < 1:
        parser.error(f"--processes must be at least 1, got {args.processes}")
    from run import format_table

    if args.processes > 1:
        argv = (["--quick"] if args.quick else []) + (["--no-keras"] if args.no_keras else [])
        argv += [a for name in args.only or [] for a in ("--only", name)]
        rows = _in_fresh_processes(args.processes, argv)
    else:
        rows = run(Environment(tensorflow=None, quick=args.quick), only=args.only, keras=not args.no_keras)
    if args.rows_json is not None:
        args.rows_json.write_text(json.dumps([dataclasses.asdict(r) for r in rows]))
        return
    print(format_table(rows, tensorflow_installed=tf_python() is not None))


if __name__ == "__main__":
    main()
