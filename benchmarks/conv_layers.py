"""Per-layer convolution timing: every Conv2D / DepthwiseConv2dNative shape of a few Keras models, modtensor's native
kernel beside TensorFlow's own op on the same shape.

    # 1. the shapes (TensorFlow's interpreter reads the frozen graphs modtensor writes):
    python benchmarks/conv_layers.py write-graphs DIR
    /work/tfvenv/bin/python benchmarks/conv_layers.py shapes DIR            # -> DIR/shapes.json
    # 2. timings, one engine per process (run them one after the other, not at once):
    python benchmarks/conv_layers.py time DIR --engine modtensor --batch 1  # -> DIR/modtensor_b1.json
    /work/tfvenv/bin/python benchmarks/conv_layers.py time DIR --engine tf --batch 1
    # 3. the table, ranked by (modtensor - TF) x occurrences, CPU time:
    python benchmarks/conv_layers.py report DIR --batch 1

Convolutions run as _FusedConv2D [BiasAdd, Relu] (the common fused form of these models; a `Pad` before a VALID
convolution becomes EXPLICIT padding, as both optimizers fold it), depthwise ones plain. Times are per call: the
minimum over rounds of (wall, process CPU) averaged over enough calls for ~0.2 s.
"""

from __future__ import annotations

import argparse
import collections
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

MODELS = ["resnet50", "xception", "inception_v3", "nasnet_mobile", "mobilenet_v2"]


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def measure(fn, budget: float = 0.2, rounds: int = 5) -> tuple[float, float]:
    for _ in range(2):
        fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-6)
    calls = max(1, min(200, int(budget / one)))
    best_w, best_c = float("inf"), float("inf")
    for _ in range(rounds):
        w0, c0 = time.perf_counter(), cpu()
        for _ in range(calls):
            fn()
        best_w = min(best_w, (time.perf_counter() - w0) / calls)
        best_c = min(best_c, (cpu() - c0) / calls)
    return best_w, best_c


def write_graphs(folder: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    import keras_golden

    from modtensor.framework.protos import graph_pb2

    folder.mkdir(parents=True, exist_ok=True)
    for name in MODELS:
        gd = keras_golden.full_graph_def(name, graph_pb2.GraphDef)
        (folder / f"{name}.pb").write_bytes(gd.SerializeToString())


def shapes(folder: Path) -> None:
    import tensorflow as tf

    out = {}
    for name in MODELS:
        gd = tf.compat.v1.GraphDef()
        gd.ParseFromString((folder / f"{name}.pb").read_bytes())
        size = 299 if name in ("xception", "inception_v3") else 224
        g = tf.Graph()
        with g.as_default():
            x = tf.compat.v1.placeholder(tf.float32, [1, size, size, 3])
            tf.import_graph_def(gd, input_map={"images:0": x}, name="")
        count: collections.Counter = collections.Counter()
        for op in g.get_operations():
            if op.type not in ("Conv2D", "DepthwiseConv2dNative"):
                continue
            xin, w = op.inputs[0], op.inputs[1]
            pad = op.get_attr("padding").decode()
            explicit = list(op.get_attr("explicit_paddings")) if op.type == "Conv2D" else []
            if xin.op.type == "Pad" and pad == "VALID":
                p = tf.get_static_value(xin.op.inputs[1])
                if p is not None:
                    pad, explicit, xin = "EXPLICIT", [int(v) for v in p.reshape(-1)], xin.op.inputs[0]
            key = (op.type, tuple(xin.shape.as_list()[1:]), tuple(w.shape.as_list()), op.get_attr("strides")[1], pad,
                   tuple(explicit), op.get_attr("dilations")[1])  # fmt: skip
            count[key] += 1
        out[name] = [[list(k), v] for k, v in count.items()]
    (folder / "shapes.json").write_text(json.dumps(out))


def unique_shapes(folder: Path) -> dict:
    data = json.loads((folder / "shapes.json").read_text())
    total: collections.Counter = collections.Counter()
    where: dict = collections.defaultdict(set)
    for model, rows in data.items():
        for key, n in rows:
            k = json.dumps(key)
            total[k] += n
            where[k].add(model)
    return {k: (n, sorted(where[k])) for k, n in total.items()}


def arrays(key: list, batch: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    op, xs, ws = key[0], key[1], key[2]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, *xs), dtype=np.float32)
    w = (rng.standard_normal(ws, dtype=np.float32) / np.sqrt(ws[0] * ws[1] * ws[2])).astype(np.float32)
    b = rng.standard_normal(ws[3] * (ws[2] if op == "DepthwiseConv2dNative" else 1), dtype=np.float32)
    return x, w, b


def out_hw(key: list) -> tuple[int, int]:
    _, xs, ws, s, pad, explicit, d = key
    h, wd = xs[0], xs[1]
    if pad == "SAME":
        return -(-h // s), -(-wd // s)
    if pad == "EXPLICIT":
        h, wd = h + explicit[2] + explicit[3], wd + explicit[4] + explicit[5]
    kh, kw = (ws[0] - 1) * d + 1, (ws[1] - 1) * d + 1
    return (h - kh) // s + 1, (wd - kw) // s + 1


def flops(key: list, batch: int) -> float:
    oh, ow = out_hw(key)
    ws = key[2]
    if key[0] == "DepthwiseConv2dNative":
        return 2.0 * batch * oh * ow * ws[0] * ws[1] * ws[2] * ws[3]
    return 2.0 * batch * oh * ow * ws[0] * ws[1] * ws[2] * ws[3]


def modtensor_fn(key: list, batch: int):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "kernels"))
    import test_native_cpu_kernels as t

    from modtensor.framework.op_registry import global_registry
    from modtensor.runtime import device_factory
    from modtensor.runtime.op_kernel import OpKernelContext, create_kernel

    op, _, _, s, pad, explicit, d = key
    x, w, b = arrays(key, batch)
    attrs = {"T": np.float32, "strides": [1, s, s, 1], "padding": pad, "dilations": [1, d, d, 1],
             "_modtensor_const_weights": True}  # fmt: skip
    if pad == "EXPLICIT":
        attrs["explicit_paddings"] = explicit
    if op == "Conv2D":
        op = "_FusedConv2D"
        attrs.update(fused_ops=[b"BiasAdd", b"Relu"], num_args=1, TArgs=[np.float32])
        inputs = [x, w, b]
    else:
        inputs = [x, w]
    node = t._node(op, len(inputs), attrs)
    kernel = create_kernel(node, global_registry().get(op).op_def, device_factory.get_device("CPU:0"))
    assert type(kernel).__name__ == "NativeKernel"
    return lambda: kernel.run(OpKernelContext(kernel, inputs))


def tf_fn(key: list, batch: int):
    import tensorflow as tf

    op, _, _, s, pad, explicit, d = key
    x, w, b = arrays(key, batch)
    x = tf.constant(x)
    wc, bc = tf.constant(w), tf.constant(b)
    padding = pad if pad != "EXPLICIT" else [[0, 0], explicit[2:4], explicit[4:6], [0, 0]]
    if op == "Conv2D":

        @tf.function
        def f(x):
            return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, wc, s, padding, dilations=d), bc))
    else:

        @tf.function
        def f(x):
            return tf.nn.depthwise_conv2d(x, wc, [1, s, s, 1], padding, dilations=[d, d])

    return lambda: f(x)


def time_all(folder: Path, engine: str, batch: int, threads: int) -> None:
    result = {}
    if engine == "tf":
        import tensorflow as tf

        if threads:
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(1)
        y = tf.constant(np.zeros((1, 4), np.float32))
        null = tf.function(lambda v: tf.nn.relu(v))
        overhead = measure(lambda: null(y), budget=0.5)
    else:
        if threads:
            import modtensor as mt

            mt.config.threading.set_intra_op_parallelism_threads(threads)
        overhead = (0.0, 0.0)
    for k in sorted(unique_shapes(folder)):
        key = json.loads(k)
        fn = modtensor_fn(key, batch) if engine == "modtensor" else tf_fn(key, batch)
        w, c = measure(fn)
        result[k] = (max(w - overhead[0], 1e-7), max(c - overhead[1], 1e-7))
    result["overhead"] = overhead
    (folder / f"{engine}_b{batch}.json").write_text(json.dumps(result))


def report(folder: Path, batch: int, top: int) -> None:
    shapes_ = unique_shapes(folder)
    mt = json.loads((folder / f"modtensor_b{batch}.json").read_text())
    tf_ = json.loads((folder / f"tf_b{batch}.json").read_text())
    rows = []
    for k, (n, models) in shapes_.items():
        key = json.loads(k)
        fl = flops(key, batch)
        (mw, mc), (tw, tc) = mt[k], tf_[k]
        rows.append(((mc - tc) * n, key, n, models, mw, mc, tw, tc, fl))
    rows.sort(key=lambda r: -r[0])
    data = json.loads((folder / "shapes.json").read_text())
    for model, entries in data.items():
        sums = [0.0, 0.0, 0.0, 0.0]
        for key, n in entries:
            k = json.dumps(key)
            for i, v in enumerate((*mt[k], *tf_[k])):
                sums[i] += v * n
        print(
            f"{model}: conv layers modtensor wall {sums[0] * 1e3:.1f} ms CPU {sums[1] * 1e3:.1f} ms, "
            f"TF wall {sums[2] * 1e3:.1f} ms CPU {sums[3] * 1e3:.1f} ms"
        )
    print(
        f"batch {batch}: sum over layers (x occurrences) modtensor CPU {sum(r[5] * r[2] for r in rows) * 1e3:.1f} ms, "
        f"TF CPU {sum(r[7] * r[2] for r in rows) * 1e3:.1f} ms"
    )
    print(
        "| op | input | filter | s | pad | n | models | mt wall us | TF wall us | mt CPU GF/s | TF CPU GF/s | "
        "(mt-TF) CPU x n us |"
    )
    print("|---|---|---|---|---|---|---|---:|---:|---:|---:|---:|")
    for d, key, n, models, mw, mc, tw, tc, fl in rows[:top]:
        pad = key[4] if key[4] != "EXPLICIT" else "E" + str(key[5][2:6])
        print(
            f"| {key[0][:6]} | {key[1]} | {key[2]} | {key[3]} | {pad} | {n} | {','.join(m[:4] for m in models)} | "
            f"{mw * 1e6:.0f} | {tw * 1e6:.0f} | {fl / mc / 1e9:.0f} | {fl / tc / 1e9:.0f} | {d * 1e6:.0f} |"
        )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["write-graphs", "shapes", "time", "report"])
    p.add_argument("folder", type=Path)
    p.add_argument("--engine", choices=["modtensor", "tf"], default="modtensor")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--threads", type=int, default=0, help="intra-op threads (0: the default, every core)")
    a = p.parse_args()
    if a.mode == "write-graphs":
        write_graphs(a.folder)
    elif a.mode == "shapes":
        shapes(a.folder)
    elif a.mode == "time":
        time_all(a.folder, a.engine, a.batch, a.threads)
    else:
        report(a.folder, a.batch, a.top)


if __name__ == "__main__":
    main()
