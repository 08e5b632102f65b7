"""Control-flow programs run twice: by TensorFlow (to record golden results) and by modtensor (to check them).

Each ``program_*`` takes the module to use as ``tf`` and returns JSON-able results: values
of ``tf.cond``/``tf.case``/``tf.switch_case``/``tf.while_loop`` eagerly and in ``tf.function``,
tracing counts, the op types of traced graphs and of their library functions, the attrs
TF sets on the functional ops, and error classes and messages.
``tools/make_golden_control_flow.py`` runs them with TensorFlow 2.21 into
``tests/golden/control_flow/programs.json``; ``tests/api/test_control_flow.py`` runs them
with ``import modtensor as tf`` and compares. This file imports neither.
"""

from __future__ import annotations

import collections
import importlib.util
from pathlib import Path
from typing import Any

import numpy as np

_spec = importlib.util.spec_from_file_location("function_programs", Path(__file__).with_name("function_programs.py"))
_helpers = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(_helpers)  # type: ignore[union-attr]
encode = _helpers.encode
error = _helpers.error
static_shape = _helpers.static_shape

Point = collections.namedtuple("Point", ["x", "y"])


def first_line(e: BaseException) -> dict[str, str]:
    """An error's class and the first line of its message."""
    return {"type": type(e).__name__, "line": str(e).splitlines()[0] if str(e) else ""}


def core_line(e: BaseException) -> dict[str, str]:
    """A trace-time error's class and first message line, without TF's AutoGraph "in user code:" frames."""
    name = type(e).__name__
    lines = str(e).splitlines()
    if lines and lines[0].strip() == "in user code:":
        for line in lines[1:]:
            text = line.strip()
            if text.startswith(name + ": "):
                return {"type": name, "line": text[len(name) + 2 :]}
    return first_line(e)


def line_with(e: BaseException, marker: str) -> dict[str, str]:
    """An error's class and the message line holding ``marker`` (runtime errors carry node context)."""
    line = next((x.strip() for x in str(e).splitlines() if marker in x), str(e))
    return {"type": type(e).__name__, "line": line}


def graph_ops(graph_def: Any) -> dict[str, Any]:
    """The op types of a GraphDef and of each of its library functions (sorted: names may differ)."""
    # NoOps come from automatic control dependencies, which are not what these programs check.
    return {
        "ops": sorted(n.op for n in graph_def.node if n.op != "NoOp"),
        "functions": sorted(sorted(n.op for n in f.node_def if n.op != "NoOp") for f in graph_def.library.function),
        "signatures": sorted(
            [len(f.signature.input_arg), len(f.signature.output_arg), bool(f.signature.is_stateful)]
            for f in graph_def.library.function
        ),
    }


def functional_attrs(graph_def: Any, op_types: tuple[str, ...]) -> list[dict[str, Any]]:
    """The attrs of the functional ops of a GraphDef: names, types and shapes, not function names."""
    found = []
    for node in graph_def.node:
        if node.op not in op_types:
            continue
        attrs: dict[str, Any] = {"op": node.op, "keys": sorted(node.attr)}
        for key in sorted(node.attr):
            value = node.attr[key]
            kind = value.WhichOneof("value")
            if kind == "b":
                attrs[key] = value.b
            elif kind == "i":
                attrs[key] = value.i
            elif kind == "type":
                attrs[key] = int(value.type)
            elif kind == "list" and key == "output_shapes":
                attrs[key] = [None if s.unknown_rank else [d.size for d in s.dim] for s in value.list.shape]
            elif kind == "list" and value.list.type:
                attrs[key] = [int(t) for t in value.list.type]
        found.append(attrs)
    return found


# ============================================================================ tf.cond


def program_cond_eager(tf: Any) -> dict[str, Any]:
    """Eager cond runs the chosen Python function now; any predicate with a truth value picks it."""
    calls: list[str] = []

    def yes():
        calls.append("true")
        return tf.constant([1.0, 2.0]) * 2.0

    def no():
        calls.append("false")
        return tf.constant([1.0, 2.0]) - 1.0

    results = {
        "tensor_true": encode(tf.cond(tf.constant(True), yes, no)),
        "tensor_false": encode(tf.cond(tf.constant(False), yes, no)),
        "python_bool": encode(tf.cond(True, yes, no)),
        "int_pred": encode(tf.cond(tf.constant(3), yes, no)),
        "zero_pred": encode(tf.cond(tf.constant(0.0), yes, no)),
        "nested": encode(tf.cond(tf.constant(True), lambda: {"a": (1, tf.constant(2.0))}, lambda: {"a": (3, 4.0)})),
        "singleton_v2": encode(tf.cond(tf.constant(True), lambda: [tf.constant(1)], lambda: [tf.constant(2)])),
        "singleton_v1": encode(
            tf.compat.v1.cond(tf.constant(True), lambda: [tf.constant(1)], lambda: [tf.constant(2)])
        ),
        "mixed_python": encode(tf.cond(tf.constant(False), lambda: 1, lambda: "text")),
    }
    errors = {}
    for label, call in {
        "not_callable": lambda: tf.cond(tf.constant(True), 1, no),
        "false_not_callable": lambda: tf.cond(tf.constant(True), yes, 2),
        "missing_true": lambda: tf.compat.v1.cond(tf.constant(True)),
        "both_true_and_fn1": lambda: tf.compat.v1.cond(tf.constant(True), yes, no, fn1=yes),
    }.items():
        try:
            call()
            errors[label] = None
        except Exception as e:  # noqa: BLE001 - recorded for comparison
            errors[label] = error(e)
    return {"results": results, "calls": calls, "errors": errors}


def program_cond_function(tf: Any) -> dict[str, Any]:
    """cond in tf.function: one StatelessIf (If with a stateful branch) calling two branch functions."""
    traced: list[str] = []

    @tf.function
    def f(x, flag):
        traced.append("f")
        y = tf.cond(flag, lambda: x * 2.0, lambda: x - 1.0)
        z = tf.cond(x[0] > 0.0, lambda: (y, tf.reduce_sum(y)), lambda: (y * 0.0, tf.constant(-1.0)))
        return y, z

    x = tf.constant([1.0, 2.0, 3.0])
    outputs = [encode(f(x, tf.constant(True))), encode(f(-x, tf.constant(False))), encode(f(x, tf.constant(False)))]
    cf = f.get_concrete_function(x, tf.constant(True))
    gd = cf.graph.as_graph_def()

    @tf.function
    def g(x):
        return tf.cond(x > 0.0, lambda: x + tf.random.uniform([], seed=1) * 0.0, lambda: x)

    g_out = [encode(g(tf.constant(2.0))), encode(g(tf.constant(-2.0)))]
    g_gd = g.get_concrete_function(tf.constant(2.0)).graph.as_graph_def()

    @tf.function
    def shapes(x, flag):
        return tf.cond(flag, lambda: tf.concat([x, x], 0), lambda: x)

    s_cf = shapes.get_concrete_function(tf.TensorSpec([2, 3]), tf.TensorSpec([], tf.bool))
    return {
        "outputs": outputs,
        "traced": traced,
        "graph": graph_ops(gd),
        "attrs": functional_attrs(gd, ("If", "StatelessIf")),
        "output_shapes": [static_shape(t) for t in cf.outputs],
        "stateful_branch": {"outputs": g_out, "graph": graph_ops(g_gd), "attrs": functional_attrs(g_gd, ("If",))},
        "merged_shape": static_shape(s_cf.outputs[0]),
        "merged_attrs": functional_attrs(s_cf.graph.as_graph_def(), ("If", "StatelessIf")),
    }


def program_cond_captures_and_nesting(tf: Any) -> dict[str, Any]:
    """Branches capture outside tensors (different ones per branch) and nest conds and loops."""

    @tf.function
    def f(x, a, b, outside):
        def outer_true():
            return tf.cond(a, lambda: x * outside, lambda: x + b)

        def outer_false():
            return tf.while_loop(lambda v: v < 100.0, lambda v: v * 3.0, [x])[0]

        return tf.cond(x > 1.0, outer_true, outer_false)

    ten = tf.constant(10.0)
    values = [
        encode(f(tf.constant(2.0), tf.constant(True), tf.constant(5.0), ten)),
        encode(f(tf.constant(2.0), tf.constant(False), tf.constant(5.0), ten)),
        encode(f(tf.constant(0.5), tf.constant(False), tf.constant(5.0), ten)),
    ]
    gd = f.get_concrete_function(tf.constant(2.0), tf.constant(True), tf.constant(5.0), ten).graph.as_graph_def()
    return {"values": values, "graph": graph_ops(gd), "attrs": functional_attrs(gd, ("If", "StatelessIf"))}


def program_cond_errors(tf: Any) -> dict[str, Any]:
    """Trace-time errors of cond: branches of different dtypes, structures, counts; a Python bool predicate."""
    cases = {
        "different_dtypes": lambda x: tf.cond(x > 0, lambda: x, lambda: tf.cast(x, tf.int32)),
        "different_structures": lambda x: tf.cond(x > 0, lambda: (x, x), lambda: [x, x]),
        "different_lengths": lambda x: tf.cond(x > 0, lambda: (x, x), lambda: (x,)),
        "dict_vs_tensor": lambda x: tf.cond(x > 0, lambda: {"a": x}, lambda: x),
        "python_bool_pred": lambda x: tf.cond(True, lambda: x, lambda: x),
        "none_vs_tensor": lambda x: tf.cond(x > 0, lambda: None, lambda: x),
    }
    results = {}
    for label, body in cases.items():
        fn = tf.function(body)
        try:
            results[label] = {"ok": encode(fn(tf.constant(1.0)))}
        except Exception as e:  # noqa: BLE001 - recorded for comparison
            results[label] = core_line(e)
    return results


def program_cond_non_boolean_predicate(tf: Any) -> dict[str, Any]:
    """Non-boolean predicates in a function: TF's If converts numbers (non-zero is true); strings too."""

    @tf.function
    def f(p, x):
        return tf.cond(p, lambda: x + 1.0, lambda: x - 1.0)

    results = {}
    for label, pred in {
        "int_one": tf.constant(1),
        "int_zero": tf.constant(0),
        "float": tf.constant(0.5),
        "vector_true": tf.constant([True]),
    }.items():
        try:
            results[label] = encode(f(pred, tf.constant(1.0)))
        except Exception as e:  # noqa: BLE001 - recorded for comparison
            results[label] = first_line(e)
    return results


# ============================================================================ tf.switch_case and tf.case


def program_switch_case(tf: Any) -> dict[str, Any]:
    """switch_case: the branch by index, the last (or default) out of range; Case/StatelessCase in functions."""
    branches = [lambda: tf.constant(10), lambda: tf.constant(20), lambda: tf.constant(30)]
    eager = [encode(tf.switch_case(tf.constant(i), branches)) for i in (-1, 0, 1, 2, 3)]
    eager_default = [encode(tf.switch_case(tf.constant(i), branches[:2], default=lambda: 99)) for i in (0, 5)]

    @tf.function
    def f(i, x):
        return tf.switch_case(i, {0: lambda: x * 2.0, 1: lambda: x + 100.0, 2: lambda: -x})

    in_function = [encode(f(tf.constant(i), tf.constant([1.0, 2.0]))) for i in (-3, 0, 1, 2, 7)]
    gd = f.get_concrete_function(tf.constant(0), tf.constant([1.0, 2.0])).graph.as_graph_def()
    errors = {}
    for label, call in {
        "python_int_index": lambda: tf.switch_case(1, branches),
        "float_index": lambda: tf.switch_case(tf.constant(1.0), branches),
        "empty": lambda: tf.switch_case(tf.constant(0), []),
        "bad_keys": lambda: tf.switch_case(tf.constant(0), {0: branches[0], 2: branches[1]}),
        "not_pairs": lambda: tf.switch_case(tf.constant(0), [(0, branches[0]), 1]),
    }.items():
        try:
            call()
            errors[label] = None
        except Exception as e:  # noqa: BLE001 - recorded for comparison
            errors[label] = error(e)
    return {
        "eager": eager,
        "eager_default": eager_default,
        "in_function": in_function,
        "graph": graph_ops(gd),
        "attrs": functional_attrs(gd, ("Case", "StatelessCase")),
        "errors": errors,
    }


def program_case_with_default(tf: Any) -> dict[str, Any]:
    """tf.case with a default: the first true predicate's function, else the default (nested conds in graphs)."""

    def pick(x):
        return tf.case(
            [(x < 0.0, lambda: tf.constant(-1.0)), (x < 10.0, lambda: x * 2.0)],
            default=lambda: tf.constant(1000.0),
        )

    f = tf.function(pick)
    values = [encode(pick(tf.constant(v))) for v in (-5.0, 3.0, 50.0)]
    traced = [encode(f(tf.constant(v))) for v in (-5.0, 3.0, 50.0)]
    gd = f.get_concrete_function(tf.constant(1.0)).graph.as_graph_def()
    errors = {}
    for label, call in {
        "not_a_list": lambda: tf.case(5, default=lambda: 1),
        "not_pairs": lambda: tf.case([tf.constant(True)], default=lambda: 1),
        "python_pred": lambda: tf.case([(True, lambda: 1)], default=lambda: 2),
        "int_pred": lambda: tf.case([(tf.constant(1), lambda: 1)], default=lambda: 2),
    }.items():
        try:
            call()
            errors[label] = None
        except Exception as e:  # noqa: BLE001 - recorded for comparison
            errors[label] = error(e)
    return {"values": values, "traced": traced, "graph": graph_ops(gd), "errors": errors}


def _assertion(e: BaseException, mode: str) -> str:
    """An eager Assert's message, or a function's "assertion failed: ..." text (without the node context)."""
    text = str(e)
    if mode == "eager":
        return text
    line = next((x for x in text.splitlines() if "assertion failed" in x), text)
    return line[line.index("assertion failed") :] if "assertion failed" in line else line


def program_case_without_default(tf: Any) -> dict[str, Any]:
    """tf.case without a default (the last pair is it, guarded by Asserts) and with exclusive=True."""

    def pick(x, exclusive):
        return tf.case([(x > 2, lambda: tf.constant(1)), (x > 5, lambda: tf.constant(2))], exclusive=exclusive)

    def three(x):
        pairs = [(x > 2, lambda: tf.constant(1)), (x > 5, lambda: tf.constant(2)), (x > 8, lambda: tf.constant(3))]
        return tf.case(pairs, exclusive=True)

    results: dict[str, Any] = {}
    for label, fn in {"plain": lambda x: pick(x, False), "exclusive": lambda x: pick(x, True), "three": three}.items():
        traced = tf.function(fn)
        for v in (0, 3, 7, 9):
            for mode, call in (("eager", fn), ("function", traced)):
                try:
                    results[f"{label}/{mode}/{v}"] = encode(call(tf.constant(v)))
                except Exception as e:  # noqa: BLE001 - recorded for comparison
                    results[f"{label}/{mode}/{v}"] = {"type": type(e).__name__, "message": _assertion(e, mode)}
    gd = tf.function(three).get_concrete_function(tf.constant(1)).graph.as_graph_def()
    return {"results": results, "graph": graph_ops(gd)}


# ============================================================================ tf.while_loop


def program_while_eager(tf: Any) -> dict[str, Any]:
    """Eager while_loop iterates in Python; structures are kept; maximum_iterations stops early."""
    calls = {"cond": 0, "body": 0}

    def cond(i, acc):
        calls["cond"] += 1
        return i < 5

    def body(i, acc):
        calls["body"] += 1
        return i + 1, acc * 2.0

    out = tf.while_loop(cond, body, [tf.constant(0), tf.constant([1.0, 1.5])])
    limited = tf.while_loop(lambda i: i < 100, lambda i: [i + 1], [tf.constant(0)], maximum_iterations=7)
    errors = {}
    for label, call in {
        "tuple_for_list": lambda: tf.while_loop(
            lambda i: i < 100, lambda i: (i + 1,), [tf.constant(0)], maximum_iterations=7
        ),
        "scalar_for_list": lambda: tf.while_loop(lambda i: i < 10, lambda i: i + 3, [tf.constant(0)]),
        "fewer_vars": lambda: tf.while_loop(lambda i, j: i < 10, lambda i, j: [i + 3], [tf.constant(0), 1]),
    }.items():
        try:
            call()
            errors[label] = None
        except Exception as e:  # noqa: BLE001 - recorded for comparison
            errors[label] = first_line(e)
    nested = tf.while_loop(
        lambda p: p.x < 10,
        lambda p: [Point(p.x + p.y, p.y)],
        [Point(tf.constant(1), tf.constant(3))],
    )
    single_v1 = tf.compat.v1.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
    python_vars = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0))
    return {
        "out": encode(out),
        "calls": calls,
        "limited": encode(limited),
        "nested": encode(nested),
        "single_v1": encode(single_v1),
        "python_vars": encode(python_vars),
        "errors": errors,
    }


def program_while_function(tf: Any) -> dict[str, Any]:
    """while_loop in tf.function: one StatelessWhile with cond/body functions, counter and limit loop vars."""
    traced: list[str] = []

    @tf.function
    def f(x, n, scale):
        traced.append("f")
        i, y = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * scale), [0, x])
        return i, y

    three = tf.constant(3.0)
    outputs = [encode(f(tf.constant([1.0, 2.0]), tf.constant(n), three)) for n in (0, 1, 4)]
    cf = f.get_concrete_function(tf.constant([1.0, 2.0]), tf.constant(1), three)
    gd = cf.graph.as_graph_def()

    @tf.function
    def limited(n):
        return tf.while_loop(lambda i: i < n, lambda i: i + 1, [tf.constant(0)], maximum_iterations=5)

    @tf.function
    def stateful(n):
        return tf.while_loop(
            lambda i, s: i < n, lambda i, s: (i + 1, s + tf.random.uniform([], seed=2) * 0.0 + 1.0), [0, 0.0]
        )

    st_gd = stateful.get_concrete_function(tf.constant(3)).graph.as_graph_def()
    return {
        "outputs": outputs,
        "traced": traced,
        "graph": graph_ops(gd),
        "attrs": functional_attrs(gd, ("While", "StatelessWhile")),
        "limited": [encode(limited(tf.constant(n))) for n in (3, 30)],
        "stateful": {"out": encode(stateful(tf.constant(3))), "attrs": functional_attrs(st_gd, ("While",))},
    }


def program_while_shape_invariants(tf: Any) -> dict[str, Any]:
    """Shape invariants let a loop variable change shape; without them TF refuses at trace time."""

    @tf.function
    def grow(n):
        return tf.while_loop(
            lambda i, v: i < n,
            lambda i, v: (i + 1, tf.concat([v, v], 0)),
            [tf.constant(0), tf.constant([1.0])],
            shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])],
        )

    out = grow(tf.constant(3))
    cf = grow.get_concrete_function(tf.constant(3))
    results: dict[str, Any] = {
        "grow": encode(out),
        "grow_shapes": [static_shape(t) for t in cf.outputs],
        "attrs": functional_attrs(cf.graph.as_graph_def(), ("While", "StatelessWhile")),
    }
    errors = {}
    for label, loop in {
        "shape_changes": lambda n: tf.while_loop(
            lambda i, v: i < n, lambda i, v: (i + 1, tf.concat([v, v], 0)), [tf.constant(0), tf.constant([1.0])]
        ),
        "invariant_not_a_shape": lambda n: tf.while_loop(
            lambda i: i < n, lambda i: i + 1, [tf.constant(0)], shape_invariants=[[None]]
        ),
        "invariant_too_specific": lambda n: tf.while_loop(
            lambda i, v: i < n,
            lambda i, v: (i + 1, tf.concat([v, v], 0)),
            [tf.constant(0), tf.constant([1.0])],
            shape_invariants=[tf.TensorShape([]), tf.TensorShape([1])],
        ),
        "type_changes": lambda n: tf.while_loop(lambda i: i < n, lambda i: tf.cast(i, tf.float32), [tf.constant(0)]),
        "structure_changes": lambda n: tf.while_loop(
            lambda i, j: i < n, lambda i, j: (i + 1,), [tf.constant(0), tf.constant(1)]
        ),
        "parallel_iterations_zero": lambda n: tf.while_loop(
            lambda i: i < n, lambda i: i + 1, [tf.constant(0)], parallel_iterations=0
        ),
        "cond_not_callable": lambda n: tf.while_loop(True, lambda i: i + 1, [tf.constant(0)]),
        "no_loop_vars": lambda n: tf.compat.v1.while_loop(lambda: n < 0, lambda: (), []),
    }.items():
        try:
            tf.function(loop)(tf.constant(2))
            errors[label] = None
        except Exception as e:  # noqa: BLE001 - recorded for comparison
            errors[label] = core_line(e)
    results["errors"] = errors
    return results


def program_while_runtime_error(tf: Any) -> dict[str, Any]:
    """A failing op in iteration 3 of a loop body: the error class and the kernel's message."""

    @tf.function
    def f(x):
        def body(i, acc):
            return i + 1, acc + tf.gather(x, [i])

        return tf.while_loop(lambda i, acc: i < 5, body, [tf.constant(0), tf.constant([0.0])])

    try:
        f(tf.constant([1.0, 2.0, 3.0]))
        return {"error": None}
    except Exception as e:  # noqa: BLE001 - recorded for comparison
        return {"error": line_with(e, "indices[0]")}


def program_nested_functions(tf: Any) -> dict[str, Any]:
    """A tf.function calling another: a (Stateful)PartitionedCall node and the callee in the library."""
    traces: list[str] = []

    @tf.function
    def inner(a, b):
        traces.append("inner")
        return a * b + 1.0, a

    @tf.function
    def noisy(a):
        traces.append("noisy")
        return a + tf.random.uniform([], seed=5) * 0.0

    @tf.function
    def outer(x):
        traces.append("outer")
        y, z = inner(x, 2.0)
        return y + noisy(z)

    x = tf.constant([1.0, 2.0])
    values = [encode(outer(x)), encode(outer(x * 3.0))]
    cf = outer.get_concrete_function(x)
    gd = cf.graph.as_graph_def()
    calls = functional_attrs(gd, ("PartitionedCall", "StatefulPartitionedCall"))
    return {
        "values": values,
        "traces": traces,
        "graph": graph_ops(gd),
        "calls": [{k: v for k, v in c.items() if k in ("op", "Tin", "Tout")} for c in calls],
        "output_shape": static_shape(cf.outputs[0]),
        "inner_count": inner.experimental_get_tracing_count(),
    }


def program_v1_graph_control_flow(tf: Any) -> dict[str, Any]:
    """compat.v1 graphs use control flow v2 by default: If/While nodes, run by Session."""
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None], name="x")
        n = tf.compat.v1.placeholder(tf.int32, [], name="n")
        y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * 2.0, lambda: -x)
        i, z = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v + 1.0), [tf.constant(0), y])
        c = tf.switch_case(n, [lambda: tf.constant(1.0), lambda: tf.constant(2.0)])
    ops = sorted(op.type for op in g.get_operations())
    with tf.compat.v1.Session(graph=g) as sess:
        values = [encode(v) for v in sess.run([y, i, z, c], {x: np.array([1.0, -3.0], np.float32), n: 3})]
        more = [encode(v) for v in sess.run([y, i, z, c], {x: np.array([1.0, 3.0], np.float32), n: 1})]
    return {
        "enabled": tf.compat.v1.control_flow_v2_enabled(),
        "ops": ops,
        "values": values,
        "more": more,
        "attrs": functional_attrs(g.as_graph_def(), ("If", "StatelessIf", "While", "StatelessWhile")),
    }


def program_v1_control_flow_ops(tf: Any) -> dict[str, Any]:
    """With control flow v2 disabled, v1 graphs get Switch/Merge (cond) and Enter/Exit/... (while_loop)."""
    tf.compat.v1.disable_control_flow_v2()
    try:
        g = tf.Graph()
        with g.as_default():
            x = tf.compat.v1.placeholder(tf.float32, [None], name="x")
            outside = tf.constant(3.0, name="outside")
            y = tf.compat.v1.cond(tf.reduce_sum(x) > 0.0, lambda: x * outside, lambda: -x)
            i, z = tf.compat.v1.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * outside), [tf.constant(0), y])
        cond_ops = sorted(op.type for op in g.get_operations() if op.name.startswith("cond"))
        loop_ops = sorted(op.type for op in g.get_operations() if op.name.startswith("while"))
        enters = sorted(
            (op.get_attr("is_constant"), op.get_attr("parallel_iterations"), op.get_attr("frame_name").decode())
            for op in g.get_operations()
            if op.type == "Enter"
        )
        merge_inputs = sorted(sorted(t.op.type for t in op.inputs) for op in g.get_operations() if op.type == "Merge")
        with tf.compat.v1.Session(graph=g) as sess:
            values = [
                [encode(v) for v in sess.run([y, i, z], {x: np.array(feed, np.float32)})]
                for feed in ([1.0, 2.0], [-1.0, -2.0])
            ]
        errors = {}
        with tf.Graph().as_default():
            try:
                tf.compat.v1.cond(True, lambda: 1.0, lambda: 2.0)
                errors["python_bool"] = None
            except Exception as e:  # noqa: BLE001 - recorded for comparison
                errors["python_bool"] = error(e)
            try:
                tf.compat.v1.cond(tf.constant(1.0), lambda: 1.0, lambda: 2.0)
                errors["float_pred"] = None
            except Exception as e:  # noqa: BLE001 - recorded for comparison
                errors["float_pred"] = first_line(e)
            try:
                tf.compat.v1.cond(tf.constant(True), lambda: tf.constant(1.0), lambda: tf.constant(1))
                errors["dtypes"] = None
            except Exception as e:  # noqa: BLE001 - recorded for comparison
                errors["dtypes"] = first_line(e)
        return {
            "enabled": tf.compat.v1.control_flow_v2_enabled(),
            "cond_ops": cond_ops,
            "loop_ops": loop_ops,
            "enters": [list(e) for e in enters],
            "merge_inputs": merge_inputs,
            "values": values,
            "shapes": [static_shape(y), static_shape(i), static_shape(z)],
            "errors": errors,
        }
    finally:
        tf.compat.v1.enable_control_flow_v2()


PROGRAMS = {name[len("program_") :]: fn for name, fn in sorted(globals().items()) if name.startswith("program_")}
