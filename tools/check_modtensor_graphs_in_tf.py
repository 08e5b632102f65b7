"""Check that GraphDefs written by modtensor load and run in TensorFlow, with TF's own results.

The evidence for the promise "a GraphDef written by modtensor loads in TensorFlow". One
file, two roles, because modtensor and TensorFlow live in different virtualenvs:

    # both steps (the default): export with modtensor's venv into a temp dir, then check with TF
    /tmp/tfvenv/bin/python tools/check_modtensor_graphs_in_tf.py [--modtensor-python /tmp/mtdev/bin/python]

    # step 1 alone (modtensor venv): import each golden .pb into a modtensor Graph and write
    # Graph.as_graph_def() with graph_io.write_graph_def as OUT/NAME.pb and OUT/NAME.pbtxt
    /tmp/mtdev/bin/python tools/check_modtensor_graphs_in_tf.py export --out DIR

    # step 2 alone (TF venv): load every DIR/NAME.pb and DIR/NAME.pbtxt into TensorFlow
    /tmp/tfvenv/bin/python tools/check_modtensor_graphs_in_tf.py check --graphs DIR

The check imports each file into a fresh ``tf.Graph`` (TF validates every node against its
own OpDefs there), compares TF's static shapes with ``NAME.shapes.json``, runs it on the
inputs of ``NAME.io.npz`` and compares with TensorFlow's saved outputs, then prints a report.
Exit status 0 only if every graph passes. Nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "examples" / "models"
DEFAULT_MODTENSOR_PYTHON = "/tmp/mtdev/bin/python"
RTOL, ATOL = 1e-5, 1e-6


def _model_names(golden: Path) -> list[str]:
    return list(json.loads((golden / "manifest.json").read_text())["models"])


# --------------------------------------------------------------------------- export (modtensor venv)


def export(golden: Path, out: Path) -> int:
    """Import each golden GraphDef into modtensor and write what ``as_graph_def()`` gives back."""
    import importlib

    from modtensor.framework import graph, graph_io, importer

    importlib.import_module("modtensor.ops")  # registers the standard ops

    out.mkdir(parents=True, exist_ok=True)
    for name in _model_names(golden):
        g = graph.Graph()
        with g.as_default():
            importer.import_graph_def(graph_io.read_graph_def(golden / f"{name}.pb"), name="")
        graph_def = g.as_graph_def()
        graph_io.write_graph_def(graph_def, out / f"{name}.pb")
        graph_io.write_graph_def(graph_def, out / f"{name}.pbtxt")
        print(f"exported {name}: {len(graph_def.node)} nodes -> {out / name}.pb, .pbtxt")
    return 0


# --------------------------------------------------------------------------- check (TF venv)


def _load_in_tf(path: Path):
    import tensorflow as tf
    from google.protobuf import text_format

    graph_def = tf.compat.v1.GraphDef()
    if path.suffix == ".pbtxt":
        text_format.Parse(path.read_text(), graph_def)
    else:
        graph_def.ParseFromString(path.read_bytes())
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    return graph_def, graph


def _check_one(golden: Path, name: str, path: Path, manifest: dict) -> tuple[list[str], int]:
    """Problems found for one modtensor-written file (empty when TF loads and runs it as the
    golden), and the number of nodes TF imported."""
    import numpy as np
    import tensorflow as tf

    try:
        graph_def, graph = _load_in_tf(path)
    except Exception as exc:  # report any TF refusal, keep checking the other files
        return [f"TF could not import it: {type(exc).__name__}: {exc}"], 0
    problems: list[str] = []
    original = tf.compat.v1.GraphDef()
    original.ParseFromString((golden / f"{name}.pb").read_bytes())
    if sorted(n.name for n in graph_def.node) != sorted(n.name for n in original.node):
        problems.append("node names differ from the golden GraphDef")

    expected_shapes = json.loads((golden / f"{name}.shapes.json").read_text())
    for op in graph.get_operations():
        for i, out in enumerate(op.outputs):
            key = f"{op.name}:{i}"
            got = {"shape": out.shape.as_list() if out.shape.rank is not None else None, "dtype": out.dtype.name}
            if expected_shapes.get(key) != got:
                problems.append(f"TF static shape of {key}: expected {expected_shapes.get(key)}, got {got}")

    arrays = np.load(golden / f"{name}.io.npz")
    outputs = [o["name"] for o in manifest["models"][name]["outputs"]]
    with tf.compat.v1.Session(graph=graph) as sess:
        for batch in manifest["models"][name]["batches"]:
            prefix = f"b{batch}/in/"
            feeds = {k[len(prefix) :]: arrays[k] for k in arrays.files if k.startswith(prefix)}
            results = sess.run(outputs, feed_dict=feeds)
            for tname, value in zip(outputs, results, strict=True):
                want = arrays[f"b{batch}/out/{tname}"]
                if want.shape != np.shape(value) or not np.allclose(value, want, rtol=RTOL, atol=ATOL):
                    diff = (
                        np.max(np.abs(np.asarray(value, np.float64) - want)) if want.shape == np.shape(value) else "-"
                    )
                    problems.append(
                        f"batch {batch} output {tname}: differs from TF's saved output (max abs diff {diff})"
                    )
    return problems, len(graph_def.node)


def check(golden: Path, graphs: Path) -> int:
    """Load each modtensor-written graph in TF, compare shapes and outputs, print a report."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    manifest = json.loads((golden / "manifest.json").read_text())
    print(f"TensorFlow {tf.__version__}: loading GraphDefs written by modtensor from {graphs}")
    failures = 0
    for name in manifest["models"]:
        for suffix in (".pb", ".pbtxt"):
            path = graphs / f"{name}{suffix}"
            if not path.exists():
                print(f"  MISSING {path.name}")
                failures += 1
                continue
            problems, nodes = _check_one(golden, name, path, manifest)
            status = "ok  " if not problems else "FAIL"
            detail = f"{nodes} nodes imported, static shapes = TF's, outputs at batches 1 and 8 match"
            print(f"  {status} {path.name}: " + (detail if not problems else problems[0]))
            for extra in problems[1:10]:
                print(f"         {extra}")
            if len(problems) > 10:
                print(f"         ... and {len(problems) - 10} more")
            failures += bool(problems)
    print(
        "all modtensor-written GraphDefs load and run in TensorFlow" if not failures else f"{failures} file(s) failed"
    )
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", type=Path, default=GOLDEN, help="golden fixtures dir (manifest.json, .pb, .npz)")
    parser.add_argument("--modtensor-python", default=DEFAULT_MODTENSOR_PYTHON, help="python of the modtensor venv")
    sub = parser.add_subparsers(dest="step")
    p_export = sub.add_parser("export", help="modtensor venv: write round-tripped GraphDefs into --out")
    p_export.add_argument("--out", type=Path, required=True)
    p_check = sub.add_parser("check", help="TF venv: load the GraphDefs in --graphs into TensorFlow")
    p_check.add_argument("--graphs", type=Path, required=True)
    args = parser.parse_args(argv)

    if args.step == "export":
        return export(args.golden, args.out)
    if args.step == "check":
        return check(args.golden, args.graphs)
    with tempfile.TemporaryDirectory(prefix="modtensor-graphs-") as tmp:
        cmd = [args.modtensor_python, __file__, "--golden", str(args.golden), "export", "--out", tmp]
        done = subprocess.run(cmd, check=False)
        if done.returncode:
            print(f"export with {args.modtensor_python} failed (exit {done.returncode})", file=sys.stderr)
            return done.returncode
        return check(args.golden, Path(tmp))


if __name__ == "__main__":
    sys.exit(main())
