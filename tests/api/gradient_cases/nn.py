"""Gradient cases: nn (format: tests/api/gradient_cases/__init__.py).

Activations (and their backward ops' own gradients, for second order), softmaxes, bias, the
cross entropies and L2 loss, Conv2D and depthwise convolutions (strides, dilations, SAME /
VALID / EXPLICIT padding, NHWC and NCHW), max and average pooling, fused batch norm (training
and inference), and the composites a training step differentiates: a 2-layer MLP with a sparse
cross entropy and a small conv net with bias, relu, max pooling and batch norm.

Float64 where TF's CPU kernels have it (checked by central differences too), float32 otherwise
(fused batch norm). TF's CPU kernels take NHWC only and refuse dilated Conv2D backprops and
grouped ones: for those forms ``tf_fn`` gives TF the same math in forms its CPU runs (transposes
around an NHWC op; a dilated conv through ``with_space_to_batch``; groups as separate convs).
"""

F64, F32 = "float64", "float32"
NCHW_IN = "tf.transpose({}, [0, 2, 3, 1])"
NCHW_OUT = "tf.transpose({}, [0, 3, 1, 2])"


def _nchw(expr: str) -> str:
    return NCHW_OUT.format(expr)


def _nhwc_list(values: list[int]) -> list[int]:
    return [values[0], values[2], values[3], values[1]]


CASES: dict[str, dict] = {
    # ------------------------------------------------------------------ activations
    "relu": {"fn": "lambda tf, x: tf.nn.relu(x)", "inputs": [(F64, [3, 4])], "second_order": True},
    "relu_f32": {"fn": "lambda tf, x: tf.nn.relu(x)", "inputs": [(F32, [2, 5])], "second_order": True},
    "relu6": {"fn": "lambda tf, x: tf.nn.relu6(x * 5.0)", "inputs": [(F64, [3, 4])], "second_order": True},
    "elu": {"fn": "lambda tf, x: tf.nn.elu(x)", "inputs": [(F64, [3, 4])], "second_order": True},
    "elu_f32": {"fn": "lambda tf, x: tf.nn.elu(x) * x", "inputs": [(F32, [2, 5])], "second_order": True},
    "leaky_relu": {"fn": "lambda tf, x: tf.nn.leaky_relu(x)", "inputs": [(F64, [3, 4])], "second_order": True},
    "leaky_relu_alpha": {
        "fn": "lambda tf, x: tf.nn.leaky_relu(x, alpha=0.35) * x",
        "inputs": [(F64, [3, 4])],
        "second_order": True,
    },
    "softplus": {"fn": "lambda tf, x: tf.nn.softplus(x * 3.0)", "inputs": [(F64, [3, 4])], "second_order": True},
    "softplus_f32": {"fn": "lambda tf, x: tf.nn.softplus(x)", "inputs": [(F32, [2, 5])], "second_order": True},
    "activation_chain": {
        "fn": "lambda tf, x: tf.nn.elu(tf.nn.relu6(x * 4.0) - tf.nn.leaky_relu(x, 0.1)) "
        "+ tf.nn.softplus(tf.nn.relu(x))",
        "inputs": [(F64, [4, 3])],
        "second_order": True,
    },
    # the backward ops themselves (their gradients serve second and third derivatives)
    "relu_grad_op": {
        "fn": "lambda tf, dy, x: tf.raw_ops.ReluGrad(gradients=dy, features=x) * dy",
        "inputs": [(F64, [3, 4]), (F64, [3, 4])],
        "second_order": True,
    },
    "relu6_grad_op": {
        "fn": "lambda tf, dy, x: tf.raw_ops.Relu6Grad(gradients=dy, features=x * 5.0) * dy",
        "inputs": [(F64, [3, 4]), (F64, [3, 4])],
        "second_order": True,
    },
    "elu_grad_op": {
        "fn": "lambda tf, dy, x: tf.raw_ops.EluGrad(gradients=dy, outputs=tf.nn.elu(x)) * dy",
        "inputs": [(F64, [3, 4]), (F64, [3, 4])],
        "second_order": True,
    },
    "leaky_relu_grad_op": {
        "fn": "lambda tf, dy, x: tf.raw_ops.LeakyReluGrad(gradients=dy, features=x, alpha=0.3) * dy",
        "inputs": [(F64, [3, 4]), (F64, [3, 4])],
        "second_order": True,
    },
    "softplus_grad_op": {
        "fn": "lambda tf, dy, x: tf.raw_ops.SoftplusGrad(gradients=dy, features=x) * dy",
        "inputs": [(F64, [3, 4]), (F64, [3, 4])],
        "second_order": True,
    },
    # ------------------------------------------------------------------ softmax
    "softmax": {"fn": "lambda tf, x: tf.nn.softmax(x)", "inputs": [(F64, [3, 5])], "second_order": True},
    "softmax_f32": {"fn": "lambda tf, x: tf.nn.softmax(x)", "inputs": [(F32, [2, 4])], "second_order": True},
    "softmax_rank3": {"fn": "lambda tf, x: tf.nn.softmax(x) * x", "inputs": [(F64, [2, 3, 4])]},
    "softmax_axis0": {"fn": "lambda tf, x: tf.nn.softmax(x, axis=0)", "inputs": [(F64, [3, 4])]},
    "log_softmax": {"fn": "lambda tf, x: tf.nn.log_softmax(x)", "inputs": [(F64, [3, 5])], "second_order": True},
    "log_softmax_rank3": {"fn": "lambda tf, x: tf.nn.log_softmax(x)", "inputs": [(F64, [2, 2, 4])]},
    "log_softmax_axis0": {"fn": "lambda tf, x: tf.nn.log_softmax(x, axis=0)", "inputs": [(F64, [3, 4])]},
    # ------------------------------------------------------------------ bias
    "bias_add": {"fn": "lambda tf, x, b: tf.nn.bias_add(x, b)", "inputs": [(F64, [2, 3, 4]), (F64, [4])]},
    "bias_add_2d": {"fn": "lambda tf, x, b: tf.nn.bias_add(x, b) * x", "inputs": [(F64, [3, 4]), (F64, [4])]},
    "bias_add_nchw": {
        "fn": "lambda tf, x, b: tf.nn.bias_add(x, b, data_format='NCHW')",
        "inputs": [(F64, [2, 3, 2, 2]), (F64, [3])],
    },
    "bias_add_nchw_second_order": {
        "fn": "lambda tf, x, b: tf.square(tf.nn.bias_add(x, b, data_format='NCHW'))",
        "inputs": [(F64, [2, 3, 2, 2]), (F64, [3])],
        "second_order": True,
    },
    "bias_add_f32": {
        "fn": "lambda tf, x, b: tf.nn.bias_add(x, b)",
        "inputs": [(F32, [2, 2, 2, 3]), (F32, [3])],
        "second_order": True,
    },
    "bias_add_grad_op": {
        "fn": "lambda tf, g: tf.raw_ops.BiasAddGrad(out_backprop=g) * 2.0",
        "inputs": [(F64, [2, 3, 4])],
    },
    "bias_add_grad_op_nchw": {
        "fn": "lambda tf, g: tf.raw_ops.BiasAddGrad(out_backprop=g, data_format='NCHW')",
        "inputs": [(F64, [2, 3, 2, 2])],
    },
    # ------------------------------------------------------------------ losses
    # labels are distributions (rows summing to 1): the op's gradient assumes so
    "softmax_xent": {
        "fn": "lambda tf, labels, logits: tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(labels), "
        "logits=logits)",
        "inputs": [(F64, [3, 4]), (F64, [3, 4])],
        "second_order": True,
    },
    "softmax_xent_f32": {
        "fn": "lambda tf, labels, logits: tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(labels), "
        "logits=logits)",
        "inputs": [(F32, [2, 5]), (F32, [2, 5])],
    },
    "softmax_xent_rank3": {
        "fn": "lambda tf, labels, logits: tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(labels), "
        "logits=logits)",
        "inputs": [(F64, [2, 2, 3]), (F64, [2, 2, 3])],
    },
    "sparse_softmax_xent": {
        "fn": "lambda tf, logits, labels: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)",
        "inputs": [(F64, [4, 5]), ("int32", [4])],
        "second_order": True,
    },
    "sparse_softmax_xent_int64_f32": {
        "fn": "lambda tf, logits, labels: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)",
        "inputs": [(F32, [3, 5]), ("int64", [3])],
        "second_order": True,
    },
    "sparse_softmax_xent_rank3": {
        "fn": "lambda tf, logits, labels: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)",
        "inputs": [(F64, [2, 3, 5]), ("int32", [2, 3])],
    },
    # both outputs of the raw op: the backprop output's gradient (TF's grad_grad path)
    "sparse_softmax_xent_raw_both_outputs": {
        "fn": "lambda tf, logits, labels: list(tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits, "
        "labels=labels))",
        "inputs": [(F64, [3, 4]), ("const", [0, 3, 1], "int32")],
    },
    # (TF's gradient gives the labels nothing through the backprop output: only the logits are compared)
    "softmax_xent_raw_backprop_only": {
        "fn": "lambda tf, logits, labels: tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=labels)[1]",
        "inputs": [(F64, [3, 4]), (F64, [3, 4])],
        "wrt": [0],
    },
    "l2_loss": {"fn": "lambda tf, x: tf.nn.l2_loss(x)", "inputs": [(F64, [3, 4])], "second_order": True},
    "l2_loss_f32": {"fn": "lambda tf, x: tf.nn.l2_loss(x * x)", "inputs": [(F32, [5])], "second_order": True},
}

# ---------------------------------------------------------------------- convolutions

# name: x NHWC shape, filter shape, strides, padding (a string or explicit NHWC pairs), dilations
CONV_FORMS = {
    "same": ([1, 5, 5, 2], [3, 3, 2, 3], 1, "SAME", 1),
    "valid": ([2, 5, 4, 2], [3, 2, 2, 3], 1, "VALID", 1),
    "same_stride2": ([1, 6, 5, 2], [3, 3, 2, 2], 2, "SAME", 1),
    "valid_strides_2_1": ([1, 6, 5, 2], [2, 3, 2, 2], [2, 1], "VALID", 1),
    "explicit": ([1, 4, 5, 2], [3, 3, 2, 2], 1, [[0, 0], [1, 2], [0, 1], [0, 0]], 1),
    "explicit_stride2": ([1, 5, 5, 1], [2, 3, 1, 2], 2, [[0, 0], [2, 1], [1, 1], [0, 0]], 1),
    "one_by_one": ([2, 3, 3, 3], [1, 1, 3, 2], 1, "VALID", 1),
}


def _conv_call(x: str, w: str, strides: object, padding: object, dilations: object, data_format: str) -> str:
    if data_format == "NCHW" and isinstance(padding, list):
        padding = [padding[0], padding[3], padding[1], padding[2]]
    return (f"tf.nn.conv2d({x}, {w}, {strides!r}, {padding!r}, data_format={data_format!r}, "
            f"dilations={dilations!r})")  # fmt: skip


for _name, (_x, _w, _s, _p, _d) in CONV_FORMS.items():
    CASES[f"conv2d_{_name}"] = {
        "fn": f"lambda tf, x, w: {_conv_call('x', 'w', _s, _p, _d, 'NHWC')}",
        "inputs": [(F64, _x), (F64, _w)],
        "second_order": True,
    }
    CASES[f"conv2d_{_name}_nchw"] = {
        "fn": f"lambda tf, x, w: {_conv_call('x', 'w', _s, _p, _d, 'NCHW')}",
        "tf_fn": f"lambda tf, x, w: {_nchw(_conv_call(NCHW_IN.format('x'), 'w', _s, _p, _d, 'NHWC'))}",
        "inputs": [(F64, [_x[0], _x[3], _x[1], _x[2]]), (F64, _w)],
        "second_order": True,
    }
_DILATED = (
    "tf.nn.with_space_to_batch(x, [2, 2], '{}', lambda inp, num_spatial_dims, padding: tf.nn.conv2d(inp, w, 1, "
    "padding), filter_shape=[3, 3])"
)
CASES.update(
    {
        "conv2d_f32": {
            "fn": "lambda tf, x, w: tf.nn.conv2d(x, w, 2, 'SAME')",
            "inputs": [(F32, [2, 6, 6, 3]), (F32, [3, 3, 3, 4])],
            "second_order": True,
        },
        "conv2d_dilated_valid": {
            "fn": "lambda tf, x, w: tf.nn.conv2d(x, w, 1, 'VALID', dilations=2)",
            "tf_fn": f"lambda tf, x, w: {_DILATED.format('VALID')}",
            "inputs": [(F64, [1, 7, 6, 2]), (F64, [3, 2, 2, 2])],
            "second_order": True,
        },
        "conv2d_dilated_same": {
            "fn": "lambda tf, x, w: tf.nn.conv2d(x, w, 1, 'SAME', dilations=2)",
            "tf_fn": f"lambda tf, x, w: {_DILATED.format('SAME')}",
            "inputs": [(F64, [1, 6, 6, 2]), (F64, [3, 3, 2, 2])],
        },
        "conv2d_dilated_nchw": {
            "fn": "lambda tf, x, w: tf.nn.conv2d(x, w, 1, 'VALID', data_format='NCHW', dilations=2)",
            "tf_fn": "lambda tf, x, w: tf.transpose(tf.nn.with_space_to_batch(tf.transpose(x, [0, 2, 3, 1]), [2, 2], "
            "'VALID', lambda inp, num_spatial_dims, padding: tf.nn.conv2d(inp, w, 1, padding)), [0, 3, 1, 2])",
            "inputs": [(F64, [1, 2, 7, 6]), (F64, [3, 2, 2, 2])],
        },
        "conv2d_grouped": {
            "fn": "lambda tf, x, w: tf.nn.conv2d(x, w, 1, 'SAME')",
            "tf_fn": "lambda tf, x, w: tf.concat([tf.nn.conv2d(x[..., :2], w[..., :2], 1, 'SAME'), "
            "tf.nn.conv2d(x[..., 2:], w[..., 2:], 1, 'SAME')], -1)",
            "inputs": [(F64, [1, 4, 4, 4]), (F64, [3, 3, 2, 4])],
        },
        # the conv backprops as forward ops (their gradients are a forward conv and the other backprop)
        "conv2d_backprop_input_op": {
            "fn": "lambda tf, w, dy: tf.raw_ops.Conv2DBackpropInput(input_sizes=[1, 5, 5, 2], filter=w, "
            "out_backprop=dy, strides=[1, 2, 2, 1], padding='SAME')",
            "inputs": [(F64, [3, 3, 2, 3]), (F64, [1, 3, 3, 3])],
            "second_order": True,
        },
        "conv2d_backprop_filter_op": {
            "fn": "lambda tf, x, dy: tf.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=[2, 3, 2, 3], "
            "out_backprop=dy, strides=[1, 1, 1, 1], padding='VALID')",
            "inputs": [(F64, [1, 4, 5, 2]), (F64, [1, 3, 3, 3])],
            "second_order": True,
        },
        # the filter alone, the input alone (the other one is a constant: its gradient is skipped)
        "conv2d_wrt_filter": {
            "fn": "lambda tf, x, w: tf.nn.conv2d(x, w, 1, 'SAME')",
            "inputs": [(F64, [1, 4, 4, 2]), (F64, [2, 2, 2, 3])],
            "wrt": [1],
        },
        "conv2d_wrt_input": {
            "fn": "lambda tf, x, w: tf.nn.conv2d(x, w, 1, 'VALID')",
            "inputs": [(F64, [1, 4, 4, 2]), (F64, [2, 2, 2, 3])],
            "wrt": [0],
        },
    }
)

# ---------------------------------------------------------------------- depthwise convolutions

DEPTHWISE_FORMS = {  # name: x NHWC, filter, strides, padding, dilations
    "same": ([1, 5, 5, 2], [3, 3, 2, 2], 1, "SAME", None),
    "valid_stride2": ([2, 6, 5, 2], [3, 2, 2, 1], 2, "VALID", None),
    "explicit": ([1, 4, 4, 3], [2, 2, 3, 2], 1, [[0, 0], [1, 0], [0, 1], [0, 0]], None),
    "dilated": ([1, 6, 6, 2], [2, 2, 2, 2], 1, "VALID", [2, 2]),
}


def _depthwise_call(x: str, w: str, strides: int, padding: object, dilations: object, data_format: str) -> str:
    stride_list = [1, 1, strides, strides] if data_format == "NCHW" else [1, strides, strides, 1]
    if data_format == "NCHW" and isinstance(padding, list):
        padding = [padding[0], padding[3], padding[1], padding[2]]
    return (f"tf.nn.depthwise_conv2d({x}, {w}, {stride_list!r}, {padding!r}, data_format={data_format!r}, "
            f"dilations={dilations!r})")  # fmt: skip


for _name, (_x, _w, _s, _p, _d) in DEPTHWISE_FORMS.items():
    CASES[f"depthwise_{_name}"] = {
        "fn": f"lambda tf, x, w: {_depthwise_call('x', 'w', _s, _p, _d, 'NHWC')}",
        "inputs": [(F64, _x), (F64, _w)],
        "second_order": _d is None,
    }
    if _d is None:
        CASES[f"depthwise_{_name}_nchw"] = {
            "fn": f"lambda tf, x, w: {_depthwise_call('x', 'w', _s, _p, _d, 'NCHW')}",
            "tf_fn": f"lambda tf, x, w: {_nchw(_depthwise_call(NCHW_IN.format('x'), 'w', _s, _p, _d, 'NHWC'))}",
            "inputs": [(F64, [_x[0], _x[3], _x[1], _x[2]]), (F64, _w)],
        }
CASES["depthwise_f32"] = {
    "fn": "lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], 'SAME')",
    "inputs": [(F32, [2, 4, 4, 3]), (F32, [3, 3, 3, 2])],
    "second_order": True,
}

# ---------------------------------------------------------------------- pooling

POOL_FORMS = {  # name: x NHWC, ksize, strides, padding
    "valid": ([2, 4, 4, 2], 2, 2, "VALID"),
    "same": ([1, 5, 5, 2], 3, 2, "SAME"),
    "overlapping": ([1, 5, 4, 2], [3, 2], 1, "VALID"),
    "same_strides_2_1": ([1, 5, 5, 1], [2, 3], [2, 1], "SAME"),
}

for _name, (_x, _k, _s, _p) in POOL_FORMS.items():
    for _op in ("max_pool2d", "avg_pool2d"):
        _kind = _op.split("_")[0]
        _call = f"tf.nn.{_op}(x, {_k!r}, {_s!r}, {_p!r})"
        CASES[f"{_kind}_pool_{_name}"] = {
            "fn": f"lambda tf, x: {_call}",
            "inputs": [(F64, _x)],
            "second_order": True,
        }
        CASES[f"{_kind}_pool_{_name}_nchw"] = {
            "fn": f"lambda tf, x: tf.nn.{_op}(x, {_k!r}, {_s!r}, {_p!r}, data_format='NCHW')",
            "tf_fn": f"lambda tf, x: {_nchw(f'tf.nn.{_op}({NCHW_IN.format(chr(120))}, {_k!r}, {_s!r}, {_p!r})')}",
            "inputs": [(F64, [_x[0], _x[3], _x[1], _x[2]])],
            "second_order": True,
        }
CASES.update(
    {
        "max_pool_explicit": {
            "fn": "lambda tf, x: tf.nn.max_pool2d(x, 2, 2, [[0, 0], [1, 0], [0, 1], [0, 0]])",
            "inputs": [(F64, [1, 5, 5, 2])],
        },
        "max_pool_explicit_nchw": {
            "fn": "lambda tf, x: tf.nn.max_pool2d(x, 2, 2, [[0, 0], [0, 0], [1, 0], [0, 1]], data_format='NCHW')",
            "tf_fn": "lambda tf, x: tf.transpose(tf.nn.max_pool2d(tf.transpose(x, [0, 2, 3, 1]), 2, 2, "
            "[[0, 0], [1, 0], [0, 1], [0, 0]]), [0, 3, 1, 2])",
            "inputs": [(F64, [1, 2, 5, 5])],
        },
        "max_pool_f32": {
            "fn": "lambda tf, x: tf.nn.max_pool2d(x, 2, 2, 'SAME')",
            "inputs": [(F32, [2, 5, 5, 3])],
            "second_order": True,
        },
        "avg_pool_f32": {
            "fn": "lambda tf, x: tf.nn.avg_pool2d(x, 3, 2, 'SAME')",
            "inputs": [(F32, [2, 5, 5, 3])],
            "second_order": True,
        },
        "max_pool_ties": {
            "fn": "lambda tf, x: tf.nn.max_pool2d(x, 2, 1, 'VALID')",
            "inputs": [("const", [[[[1.0], [3.0], [3.0]], [[3.0], [2.0], [3.0]], [[5.0], [5.0], [1.0]]]], F64)],
            "numeric": False,
        },
        # the pooling gradients as forward ops (MaxPoolGradGrad and MaxPoolGrad / AvgPool are their gradients)
        "max_pool_grad_op": {
            "fn": "lambda tf, x, g: tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=tf.nn.max_pool2d(x, 2, 2, "
            "'SAME'), grad=g, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')",
            "inputs": [(F64, [1, 5, 5, 2]), (F64, [1, 3, 3, 2])],
            "second_order": True,
        },
        "max_pool_grad_op_nchw": {
            "fn": "lambda tf, x, g: tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=tf.nn.max_pool2d(x, 2, 2, "
            "'VALID', data_format='NCHW'), grad=g, ksize=[1, 1, 2, 2], strides=[1, 1, 2, 2], padding='VALID', "
            "data_format='NCHW')",
            "tf_fn": "lambda tf, x, g: tf.transpose(tf.raw_ops.MaxPoolGrad(orig_input=tf.transpose(x, [0, 2, 3, 1]), "
            "orig_output=tf.nn.max_pool2d(tf.transpose(x, [0, 2, 3, 1]), 2, 2, 'VALID'), grad=tf.transpose(g, "
            "[0, 2, 3, 1]), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='VALID'), [0, 3, 1, 2])",
            "inputs": [(F64, [1, 2, 4, 4]), (F64, [1, 2, 2, 2])],
            "second_order": True,
        },
        "max_pool_grad_grad_op": {
            "fn": "lambda tf, x, g: tf.raw_ops.MaxPoolGradGrad(orig_input=x, orig_output=tf.nn.max_pool2d(x, 3, 1, "
            "'VALID'), grad=g, ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1], padding='VALID')",
            "inputs": [(F64, [1, 4, 5, 2]), (F64, [1, 4, 5, 2])],
            "second_order": True,
        },
        "avg_pool_grad_op": {
            "fn": "lambda tf, g: tf.raw_ops.AvgPoolGrad(orig_input_shape=[1, 5, 5, 2], grad=g, ksize=[1, 3, 3, 1], "
            "strides=[1, 2, 2, 1], padding='SAME')",
            "inputs": [(F64, [1, 3, 3, 2])],
        },
    }
)

# ---------------------------------------------------------------------- fused batch norm (float32: TF's CPU kernel)

_FBN = (
    "tf.raw_ops.{op}(x=x, scale=scale, offset=offset, mean=mean, variance=variance, epsilon=0.001, "
    "data_format={fmt!r}, is_training={training})"
)
for _op in ("FusedBatchNorm", "FusedBatchNormV3"):
    for _fmt, _shape in (("NHWC", [2, 3, 3, 4]), ("NCHW", [2, 4, 3, 3])):
        for _training in (True, False):
            _call = _FBN.format(op=_op, fmt=_fmt, training=_training)
            CASES[f"{_op}_{_fmt}_{'training' if _training else 'inference'}".lower()] = {
                "fn": f"lambda tf, x, scale, offset, mean, variance: {_call}[0]",
                "inputs": [(F32, _shape), (F32, [4]), (F32, [4]), (F32, [4]), (F32, [4])],
                "positive": [4],
                "wrt": [0, 1, 2],
            }
CASES.update(
    {
        "fused_batch_norm_v3_all_outputs": {
            "fn": "lambda tf, x, scale, offset, mean, variance: list("
            + _FBN.format(op="FusedBatchNormV3", fmt="NHWC", training=True)
            + ")[:3]",
            "inputs": [(F32, [2, 2, 3, 3]), (F32, [3]), (F32, [3]), (F32, [3]), (F32, [3])],
            "positive": [4],
            "wrt": [0, 1, 2],
        },
        "fused_batch_norm_v3_second_order": {
            "fn": "lambda tf, x, scale, offset, mean, variance: "
            + _FBN.format(op="FusedBatchNormV3", fmt="NHWC", training=True)
            + "[0]",
            "inputs": [(F32, [2, 2, 2, 3]), (F32, [3]), (F32, [3]), (F32, [3]), (F32, [3])],
            "positive": [4],
            "wrt": [0, 1, 2],
            "second_order": True,
            "rtol": 1e-4,
            "atol": 1e-5,
        },
        "fused_batch_norm_v3_inference_second_order": {
            "fn": "lambda tf, x, scale, offset, mean, variance: "
            + _FBN.format(op="FusedBatchNormV3", fmt="NCHW", training=False)
            + "[0]",
            "inputs": [(F32, [2, 3, 2, 2]), (F32, [3]), (F32, [3]), (F32, [3]), (F32, [3])],
            "positive": [4],
            "wrt": [0, 1, 2],
            "second_order": True,
        },
        "fused_batch_norm_v3_half": {
            "fn": "lambda tf, x, scale, offset, mean, variance: "
            + _FBN.format(op="FusedBatchNormV3", fmt="NHWC", training=True)
            + "[0]",
            "inputs": [("float16", [2, 2, 2, 3]), (F32, [3]), (F32, [3]), (F32, [3]), (F32, [3])],
            "positive": [4],
            "wrt": [0, 1, 2],
        },
    }
)

# ---------------------------------------------------------------------- composites: what a training step differentiates

CASES.update(
    {
        "mlp_sparse_xent": {
            "fn": "lambda tf, x, w1, b1, w2, b2, labels: tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits("
            "labels=labels, logits=tf.nn.bias_add(tf.matmul(tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1)), w2), "
            "b2)))",
            "inputs": [
                (F64, [4, 3]),
                (F64, [3, 5]),
                (F64, [5]),
                (F64, [5, 3]),
                (F64, [3]),
                ("const", [0, 2, 1, 2], "int32"),
            ],
        },
        "mlp_sparse_xent_f32": {
            "fn": "lambda tf, x, w1, b1, w2, b2, labels: tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits("
            "labels=labels, logits=tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2)) + 0.01 * (tf.nn.l2_loss(w1) "
            "+ tf.nn.l2_loss(w2))",
            "inputs": [
                (F32, [8, 4]),
                (F32, [4, 6]),
                (F32, [6]),
                (F32, [6, 3]),
                (F32, [3]),
                ("const", [0, 2, 1, 2, 1, 0, 0, 2], "int64"),
            ],
        },
        "mlp_softmax_xent": {
            "fn": "lambda tf, x, w1, w2, y: tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, "
            "logits=tf.matmul(tf.nn.elu(tf.matmul(x, w1)), w2)))",
            "inputs": [
                (F64, [4, 3]),
                (F64, [3, 4]),
                (F64, [4, 3]),
                ("const", [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.5, 0.5, 0]], F64),
            ],
            "wrt": [0, 1, 2],
        },
        "convnet": {
            "fn": "lambda tf, x, w, b, w2, labels: tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits("
            "labels=labels, logits=tf.matmul(tf.reshape(tf.nn.max_pool2d(tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, "
            "1, 'SAME'), b)), 2, 2, 'VALID'), [2, 18]), w2)))",
            "inputs": [
                (F64, [2, 6, 6, 2]),
                (F64, [3, 3, 2, 2]),
                (F64, [2]),
                (F64, [18, 3]),
                ("const", [1, 2], "int32"),
            ],
        },
        "convnet_batch_norm": {
            "fn": "lambda tf, x, w, b, scale, offset, w2, labels: tf.reduce_mean("
            "tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=tf.matmul(tf.reshape("
            "tf.nn.max_pool2d(tf.nn.relu(tf.raw_ops.FusedBatchNormV3(x=tf.nn.bias_add(tf.nn.conv2d(x, w, 1, 'SAME'), "
            "b), scale=scale, offset=offset, mean=tf.zeros([4]), variance=tf.ones([4]), epsilon=0.001, "
            "is_training=True)[0]), 2, 2, 'VALID'), [2, 36]), w2)))",
            "inputs": [
                (F32, [2, 6, 6, 3]),
                (F32, [3, 3, 3, 4]),
                (F32, [4]),
                (F32, [4]),
                (F32, [4]),
                (F32, [36, 3]),
                ("const", [1, 2], "int64"),
            ],
            "rtol": 1e-4,
            "atol": 1e-6,
        },
        "convnet_depthwise_batch_norm_avg_pool": {
            "fn": "lambda tf, x, w, scale, offset, w2: tf.reduce_sum(tf.square(tf.matmul(tf.reshape(tf.nn.avg_pool2d("
            "tf.nn.relu6(tf.raw_ops.FusedBatchNormV3(x=tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], 'SAME'), "
            "scale=scale, offset=offset, mean=tf.zeros([4]), variance=tf.ones([4]), is_training=True)[0] * 3.0), "
            "2, 2, 'VALID'), [2, 16]), w2)))",
            "inputs": [(F32, [2, 4, 4, 2]), (F32, [3, 3, 2, 2]), (F32, [4]), (F32, [4]), (F32, [16, 2])],
            "rtol": 1e-4,
            "atol": 1e-6,
        },
    }
)

# ---------------------------------------------------------------------- float16 (TF's CPU kernels compute in float32)

F16 = "float16"
CASES.update(
    {
        "relu_f16": {"fn": "lambda tf, x: tf.nn.relu(x) * x", "inputs": [(F16, [3, 4])]},
        "softmax_f16": {"fn": "lambda tf, x: tf.nn.softmax(x)", "inputs": [(F16, [2, 5])]},
        "bias_add_f16": {"fn": "lambda tf, x, b: tf.nn.bias_add(x, b)", "inputs": [(F16, [2, 3, 4]), (F16, [4])]},
        "conv2d_f16": {
            "fn": "lambda tf, x, w: tf.nn.conv2d(x, w, 1, 'SAME')",
            "inputs": [(F16, [1, 4, 4, 2]), (F16, [3, 3, 2, 2])],
        },
        "max_pool_f16": {"fn": "lambda tf, x: tf.nn.max_pool2d(x, 2, 2, 'VALID')", "inputs": [(F16, [1, 4, 4, 2])]},
        "avg_pool_f16": {"fn": "lambda tf, x: tf.nn.avg_pool2d(x, 3, 1, 'SAME')", "inputs": [(F16, [1, 4, 4, 2])]},
    }
)

# ---------------------------------------------------------------------- shapes unknown to the graph

_DYN = "tf.compat.v1.placeholder_with_default({}, {})"
CASES.update(
    {
        "conv2d_dynamic_shape": {
            "fn": f"lambda tf, x, w: tf.nn.conv2d({_DYN.format('x', '[None, None, None, 2]')}, "
            f"{_DYN.format('w', 'None')}, 2, 'SAME')",
            "inputs": [(F64, [1, 5, 4, 2]), (F64, [3, 3, 2, 2])],
            "second_order": True,
        },
        "depthwise_dynamic_shape": {
            "fn": f"lambda tf, x, w: tf.nn.depthwise_conv2d({_DYN.format('x', '[None, None, None, 2]')}, w, "
            "[1, 1, 1, 1], 'VALID')",
            "inputs": [(F64, [1, 4, 4, 2]), (F64, [2, 2, 2, 2])],
        },
        "bias_add_dynamic_shape": {
            "fn": f"lambda tf, x, b: tf.nn.bias_add({_DYN.format('x', '[None, None, 3]')}, b)",
            "inputs": [(F64, [2, 2, 3]), (F64, [3])],
        },
        "pools_dynamic_shape": {
            "fn": f"lambda tf, x: tf.nn.max_pool2d({_DYN.format('x', 'None')}, 2, 2, 'SAME') + "
            f"tf.nn.avg_pool2d({_DYN.format('x', '[None, None, None, 2]')}, 2, 2, 'SAME')",
            "inputs": [(F64, [1, 5, 5, 2])],
            "second_order": True,
        },
        "softmax_dynamic_shape": {
            "fn": f"lambda tf, x: tf.nn.log_softmax({_DYN.format('x', '[None, 4]')}) * tf.nn.softmax(x)",
            "inputs": [(F64, [3, 4])],
            "second_order": True,
        },
        "fused_batch_norm_dynamic_shape": {
            "fn": "lambda tf, x, scale, offset: tf.raw_ops.FusedBatchNormV3(x="
            + _DYN.format("x", "[None, None, None, 3]")
            + ", scale=scale, offset=offset, mean=tf.zeros([3]), variance=tf.ones([3]), is_training=True)[0]",
            "inputs": [(F32, [2, 2, 2, 3]), (F32, [3]), (F32, [3])],
        },
    }
)
