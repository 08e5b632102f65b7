"""TensorFlow's side of the model benchmarks, run in a subprocess with TensorFlow's interpreter.

Reads one JSON request per line on stdin and answers one JSON line on stdout:

- ``{"op": "load", "name": N, "pb": PATH, "outputs": [...]}``: import the frozen GraphDef into a
  fresh graph and open a ``tf.compat.v1.Session`` on it;
- ``{"op": "feed", "name": N, "batch": B, "feeds": {tensor: npy path}}``: remember the feeds;
- ``{"op": "time", "name": N, "batch": B, "number": K}``: run the session K times, answer the
  seconds per call;
- ``{"op": "train", "name": N, "sizes": [F, H, C], "batch": B, "mode": M}``: build the training
  example's step (``examples/train_mlp.py`` run with ``import tensorflow as tf``, by
  ``training.py``) for that MLP and batch (``mode`` ``eager`` or ``function``), run it once and
  answer that first step's loss;
- ``{"op": "time_step", "name": N, "number": K}``: run that train step K times, answer the
  seconds per step;
- ``{"op": "chain", "value": [...]}``: build ``graph_overhead.py``'s 1000-op chain with TensorFlow
  as a Session over a v1 graph (step name ``chain_session``) and as a ``tf.function``
  (``chain_function``), run each once and answer both outputs; ``time_step`` times them;
- ``{"op": "while_loop"}``: build ``while_loop.py``'s loop with TensorFlow in its three forms (steps
  ``while_fn``, ``while_session``, ``while_kernel``), run each once and answer their results;
  ``time_step`` times them;
- ``{"op": "quit"}``.

modtensor never imports TensorFlow: the benchmark talks to this process instead, so both
run the same GraphDef bytes on the same inputs, their samples interleaved in time.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def _cpu_seconds() -> float:
    """CPU time of this process, all threads (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _train_step(request: dict) -> tuple:
    """The example's train step with TensorFlow (built by benchmarks/training.py): ``(step, first loss)``."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from training import load_example, make_step

    step = make_step(load_example("tensorflow"), tuple(request["sizes"]), request["batch"], request["mode"])
    return step, float(step())


def _chain_steps(value: list) -> dict:
    """graph_overhead.py's chain with TensorFlow: ``{"chain_session": call, "chain_function": call}``."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import graph_overhead

    array = np.asarray(value, np.float32)
    _session, run = graph_overhead._session_runner(tf, array)
    return {"chain_session": run, "chain_function": graph_overhead._function_runner(tf, array)}


def _while_steps() -> dict:
    """while_loop.py's loop with TensorFlow: ``{"while_fn": call, "while_session": call, "while_kernel": call}``."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import while_loop

    steps = while_loop.runners(tf)
    return steps


def _pipeline_step(training: bool) -> object:
    """data_pipeline.py's parallel epoch with TensorFlow (one call = one epoch), bare or feeding a training step."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import data_pipeline

    if training:
        return data_pipeline._training_epoch(tf)
    return data_pipeline._epoch(data_pipeline._pipeline(tf, True))


def main() -> None:
    sessions: dict[str, tuple[tf.compat.v1.Session, list[str]]] = {}
    steps: dict[str, object] = {}
    feeds: dict[tuple[str, int], dict[str, np.ndarray]] = {}
    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        if op == "quit":
            break
        if op == "load":
            graph_def = tf.compat.v1.GraphDef()
            with open(request["pb"], "rb") as f:
                graph_def.ParseFromString(f.read())
            graph = tf.Graph()
            with graph.as_default():
                tf.import_graph_def(graph_def, name="")
            sessions[request["name"]] = (tf.compat.v1.Session(graph=graph), request["outputs"])
            answer: dict = {"ok": True, "version": tf.__version__}
        elif op == "feed":
            feeds[(request["name"], request["batch"])] = {k: np.load(v) for k, v in request["feeds"].items()}
            session, outputs = sessions[request["name"]]
            session.run(outputs, feed_dict=feeds[(request["name"], request["batch"])])  # warm-up
            answer = {"ok": True}
        elif op == "time":
            session, outputs = sessions[request["name"]]
            feed = feeds[(request["name"], request["batch"])]
            start, cpu = time.perf_counter(), _cpu_seconds()
            for _ in range(request["number"]):
                session.run(outputs, feed_dict=feed)
            answer = {
                "seconds": (time.perf_counter() - start) / request["number"],
                "cpu_seconds": (_cpu_seconds() - cpu) / request["number"],
            }
        elif op == "train":
            steps[request["name"]], loss = _train_step(request)
            answer = {"ok": True, "loss": loss, "version": tf.__version__}
        elif op == "chain":
            chain = _chain_steps(request["value"])
            steps.update(chain)
            answer = {name: np.asarray(call()).tolist() for name, call in chain.items()}
            answer["version"] = tf.__version__
        elif op == "while_loop":
            loops = _while_steps()
            steps.update(loops)
            answer = {name: [float(np.asarray(v)) for v in call()] for name, call in loops.items()}
            answer["version"] = tf.__version__
        elif op in ("pipeline", "pipeline_train"):
            steps[request["name"]] = _pipeline_step(op == "pipeline_train")
            answer = {"elements": steps[request["name"]](), "version": tf.__version__}  # type: ignore[operator]
        elif op == "time_step":
            step = steps[request["name"]]
            start, cpu = time.perf_counter(), _cpu_seconds()
            for _ in range(request["number"]):
                step()  # type: ignore[operator]
            answer = {
                "seconds": (time.perf_counter() - start) / request["number"],
                "cpu_seconds": (_cpu_seconds() - cpu) / request["number"],
            }
        else:
            answer = {"error": f"unknown request {op!r}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
