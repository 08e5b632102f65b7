"""import_graph_def with TensorFlow 2.21's semantics: prefixes, input_map, return_elements, errors, shapes.

Expected names and messages are those TF 2.21 gives for the same GraphDefs.
"""

from __future__ import annotations

import pytest
from google.protobuf import text_format

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.framework import dtypes, errors
from modtensor.framework.graph import Graph
from modtensor.framework.importer import import_graph_def
from modtensor.framework.op_def_library import apply_op, apply_op_outputs
from modtensor.framework.protos import function_pb2, graph_pb2, op_def_pb2

FLOAT = 'attr { key: "T" value { type: DT_FLOAT } }'
PH = 'op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }'


def parse(text: str) -> graph_pb2.GraphDef:
    return text_format.Parse(text, graph_pb2.GraphDef())


def small_graph_def() -> graph_pb2.GraphDef:
    """x -> y = x + x; z = identity(x) after ^y (what TF exports for that construction)."""
    g = Graph()
    with g.as_default():
        x = apply_op_outputs("Placeholder", dtype=dtypes.float32, shape=[2, 3], name="x")
        y = apply_op_outputs("AddV2", x=x, y=x, name="y")
        with g.control_dependencies([y]):
            apply_op("Identity", input=x, name="z")
    return g.as_graph_def()


def imported(graph_def, graph=None, **kwargs):
    graph = graph or Graph()
    with graph.as_default():
        result = import_graph_def(graph_def, **kwargs)
    return graph, result


def summary(graph):
    return [(o.name, [i.name for i in o.inputs], [c.name for c in o.control_inputs]) for o in graph.get_operations()]


def test_default_prefix_is_import_and_empty_name_keeps_names():
    graph, result = imported(small_graph_def())
    assert result is None
    assert summary(graph) == [
        ("import/x", [], []),
        ("import/y", ["import/x:0", "import/x:0"], []),
        ("import/z", ["import/x:0"], ["import/y"]),
    ]
    graph, _ = imported(small_graph_def(), name="")
    assert [o.name for o in graph.get_operations()] == ["x", "y", "z"]
    assert graph.get_tensor_by_name("y:0").shape.as_list() == [2, 3]
    graph, _ = imported(small_graph_def(), name="x/")
    assert [o.name for o in graph.get_operations()] == ["x/x", "x/y", "x/z"]


def test_prefixes_are_made_unique_like_name_scopes():
    g = Graph()
    with g.as_default():
        apply_op("NoOp", name="import")
        import_graph_def(small_graph_def())
        import_graph_def(small_graph_def(), name="import")
        import_graph_def(small_graph_def(), name="foo")
        apply_op("NoOp", name="foo_1")
        import_graph_def(small_graph_def(), name="foo")
        with g.name_scope("outer"):
            import_graph_def(small_graph_def())
        assert apply_op("NoOp", name="import_2").name == "import_2_1"
    prefixes = sorted({o.name.rsplit("/", 1)[0] for o in g.get_operations() if "/" in o.name})
    assert prefixes == ["foo", "foo_2", "import_1", "import_2", "outer/import"]


def test_empty_prefix_renames_clashing_nodes_and_marks_names_used():
    g = Graph()
    with g.as_default():
        import_graph_def(small_graph_def(), name="")
        import_graph_def(small_graph_def(), name="")
        assert [o.name for o in g.get_operations()] == ["x", "y", "z", "x_1", "y_1", "z_1"]
        assert summary(g)[4] == ("y_1", ["x_1:0", "x_1:0"], [])
        assert apply_op("NoOp", name="x").name == "x_2"


def test_nodes_in_any_order_keep_graph_def_order_when_possible():
    text = f'node {{ name: "b" op: "Identity" input: "a" {FLOAT} }} node {{ name: "a" {PH} }} node {{ name: "c" {PH} }}'
    graph, _ = imported(parse(text), name="")
    assert [o.name for o in graph.get_operations()] == ["a", "b", "c"]


def test_input_map_and_return_elements():
    g = Graph()
    with g.as_default():
        p = apply_op_outputs("Placeholder", dtype=dtypes.float32, shape=[2, 3], name="p")
        n = apply_op("NoOp", name="n")
        z, y, x = import_graph_def(
            small_graph_def(), input_map={"x:0": p, "^y": n}, return_elements=["z", "y:0", "x:0"]
        )
        assert (z.name, y.name, x.name) == ("import/z", "import/y:0", "import/x:0")
        assert [t.name for t in z.inputs] == ["p:0"] and [c.name for c in z.control_inputs] == ["n"]
        assert [t.name for t in y.op.inputs] == ["p:0", "p:0"]
        (z2,) = import_graph_def(small_graph_def(), input_map={"x": p}, return_elements=["z:0"])
        assert [t.name for t in z2.op.inputs] == ["p:0"]


def test_input_map_refines_shapes_and_checks_types():
    text = f'node {{ name: "a" {PH} }} node {{ name: "b" op: "Identity" input: "a" {FLOAT} }}'
    g = Graph()
    with g.as_default():
        p = apply_op_outputs("Placeholder", dtype=dtypes.float32, shape=[7], name="p")
        (b,) = import_graph_def(parse(text), input_map={"a:0": p}, return_elements=["b:0"])
        assert b.shape.as_list() == [7]
        q = apply_op_outputs("Placeholder", dtype=dtypes.int32, name="q")
        with pytest.raises(ValueError, match=r"^Input 0 of node import_1/b was passed int32 from q:0 incompatible "
                           r"with expected float.$"):  # fmt: skip
            import_graph_def(parse(text), input_map={"a:0": q})


def test_control_dependencies_scope_applies_to_every_imported_node():
    text = (
        f'node {{ name: "a" {PH} }} node {{ name: "b" op: "Identity" input: "a" input: "^a" {FLOAT} }} '
        'node { name: "c" op: "NoOp" input: "^b" }'
    )
    g = Graph()
    with g.as_default():
        p = apply_op_outputs("Placeholder", dtype=dtypes.float32, name="p")
        with g.control_dependencies([p]):
            import_graph_def(parse(text), input_map={"a:0": p})
    assert [(n.name, list(n.input)) for n in g.as_graph_def().node] == [
        ("p", []),
        ("import/a", ["^p"]),
        ("import/b", ["p", "^import/a", "^p"]),
        ("import/c", ["^import/b", "^p"]),
    ]


def test_devices_attrs_and_output_shapes():
    text = (
        'node { name: "b" op: "Identity" input: "a" device: "/device:GPU:0" ' + FLOAT + " "
        'attr { key: "_class" value { list { s: "loc:@a" } } } '
        'attr { key: "_output_shapes" value { list { shape { dim { size: 7 } } } } } } '
        f'node {{ name: "a" {PH} }}'
    )
    g = Graph()
    with g.as_default(), g.device("/job:w"):
        import_graph_def(parse(text))
    b = g.get_operation_by_name("import/b")
    assert b.device == "/job:w/device:GPU:0" and g.get_operation_by_name("import/a").device == "/job:w"
    assert b.get_attr("_class") == [b"loc:@import/a"]
    assert b.outputs[0].shape.as_list() == [7]  # refined by _output_shapes ...
    assert "_output_shapes" not in b.node_def.attr  # ... which TF drops on import
    assert g.get_operation_by_name("import/a").get_attr("shape").unknown_rank  # default attr added


def test_inconsistent_output_shapes_are_rejected():
    text = (
        'node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } '
        'attr { key: "shape" value { shape { dim { size: 7 } } } } '
        'attr { key: "_output_shapes" value { list { shape { dim { size: 8 } } } } } }'
    )
    with pytest.raises(ValueError, match=r"^Node 'a' has an _output_shapes attribute inconsistent with the GraphDef "
                       r"for output #0: Dimension 0 in both shapes must be equal, but are 7 and 8."):  # fmt: skip
        imported(parse(text), name="")


@pytest.mark.parametrize(
    ("text", "kwargs", "error", "message"),
    [
        ('node { name: "a" op: "Nope" }', {}, errors.NotFoundError, "Op type not registered 'Nope'"),
        (f'node {{ name: "a" op: "Identity" input: "b" {FLOAT} }}', {}, ValueError,
         "Node 'a': Unknown input node 'b'"),
        (f'node {{ name: "a" op: "Identity" input: "b:1" {FLOAT} }} node {{ name: "b" {PH} }}', {}, ValueError,
         "Node 'a': Connecting to invalid output 1 of source node b which has 1 outputs."),
        (f'node {{ name: "a" op: "Identity" input: "b" {FLOAT} }} node {{ name: "b" op: "Identity" input: "a" '
         f"{FLOAT} }}", {}, ValueError, "2 nodes in a cycle"),
        ('node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_INT32 } } } '
         f'node {{ name: "b" {PH} }}', {}, ValueError,
         "Input 0 of node import/a was passed float from import/b:0 incompatible with expected int32."),
        ('node { name: "a" op: "Placeholder" }', {}, ValueError,
         "NodeDef missing attr 'dtype' from Op<name=Placeholder; signature= -> output:dtype"),
        (f'node {{ name: "a" {PH} }} node {{ name: "a" {PH} }}', {}, ValueError, "Node 'a' is not unique"),
        ('node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } '
         'attr { key: "shape" value { shape { dim { size: 2 } } } } } '
         f'node {{ name: "m" op: "MatMul" input: "a" input: "a" {FLOAT} }}', {}, ValueError,
         "Shape must be rank 2 but is rank 1 for '{{node import/m}} = MatMul[T=DT_FLOAT, grad_a=false, grad_b=false, "
         "transpose_a=false, transpose_b=false](import/a, import/a)' with input shapes: [2], [2]."),
        (f'node {{ name: "a" {PH} }}', {"return_elements": ["nope"]}, ValueError,
         "Requested return node 'nope' not found in graph def"),
        (f'node {{ name: "a" {PH} }}', {"return_elements": ["nope:0"]}, ValueError,
         "Requested return tensor 'nope:0' not found in graph def"),
        (f'node {{ name: "a" {PH} }}', {"return_elements": ["a:3"]}, ValueError,
         "Invalid return output 3 of node 'a', which has 1 output(s)"),
        (f'node {{ name: "a" {PH} }}', {"name": "bad name"}, ValueError, "'bad name' is not a valid root scope name"),
        (f'node {{ name: "a" {PH} }}', {"input_map": {1: None}}, TypeError,
         "All keys for argument `input_map` must be strings. Obtained keys: [1]"),
        (f'node {{ name: "a" {PH} }}', {"input_map": {"a:": None}}, ValueError,
         "Cannot convert 'a:' to a tensor name."),
    ],
)  # fmt: skip
def test_errors_match_tensorflow(text, kwargs, error, message):
    with pytest.raises(error) as info:
        imported(parse(text), **kwargs)
    assert str(info.value).startswith(message), str(info.value)


def test_unknown_op_error_also_names_the_node():
    with pytest.raises(errors.NotFoundError, match="while importing node 'a'"):
        imported(parse('node { name: "a" op: "Nope" }'))


def test_unused_input_map_keys_are_an_error():
    g = Graph()
    with g.as_default():
        p = apply_op_outputs("Placeholder", dtype=dtypes.float32, name="p")
        with pytest.raises(ValueError, match=r"^Attempted to map inputs that were not found in graph_def: \[nope:0\]$"):
            import_graph_def(small_graph_def(), input_map={"nope:0": p})
        with pytest.raises(TypeError, match="must be a Tensor"):
            import_graph_def(small_graph_def(), input_map={"x:0": 3})


def test_non_graph_def_is_a_type_error():
    with pytest.raises(TypeError, match="Argument `graph_def` must be a GraphDef proto."):
        imported("nope")


def test_function_library_is_carried_over_and_exported():
    graph_def = small_graph_def()
    function = function_pb2.FunctionDef()
    function.signature.name = "my_fn"
    graph_def.library.function.append(function)
    graph_def.library.gradient.add(function_name="my_fn", gradient_func="my_fn_grad")
    graph, _ = imported(graph_def, name="")
    assert graph._is_function("my_fn")
    exported = graph.as_graph_def()
    assert [f.signature.name for f in exported.library.function] == ["my_fn"]
    assert exported.library.gradient[0].gradient_func == "my_fn_grad"


def test_round_trip_changes_nothing():
    graph_def = small_graph_def()
    graph, _ = imported(graph_def, name="")
    assert graph.as_graph_def() == graph_def


def test_producer_op_list_strips_attrs_unknown_here_that_had_the_producers_default():
    text = f'node {{ name: "a" {PH} attr {{ key: "new_attr" value {{ i: 5 }} }} }}'
    producer = op_def_pb2.OpList()
    op = producer.op.add(name="Placeholder")
    op.attr.add(name="new_attr", type="int").default_value.i = 5
    graph, _ = imported(parse(text), name="", producer_op_list=producer)
    assert "new_attr" not in graph.get_operation_by_name("a").node_def.attr
    with pytest.raises(ValueError, match="NodeDef mentions attr 'new_attr' not in"):
        imported(parse(text), name="")


def test_failed_import_leaves_the_graph_as_it_was():
    text = (
        f'node {{ name: "a" {PH} attr {{ key: "shape" value {{ shape {{ dim {{ size: 2 }} }} }} }} }} '
        f'node {{ name: "m" op: "MatMul" input: "a" input: "a" {FLOAT} }}'
    )
    graph_def = parse(text)
    graph_def.library.function.add().signature.name = "f"
    g = Graph()
    with g.as_default():
        p = apply_op_outputs("Placeholder", dtype=dtypes.float32, name="p")
        with pytest.raises(ValueError, match="Shape must be rank 2"):
            import_graph_def(graph_def, input_map={})
    assert g.get_operations() == [p.op] and p.consumers() == [] and not g._is_function("f")
