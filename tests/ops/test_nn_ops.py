"""NN ops: BiasAdd, activations, Conv2D, DepthwiseConv2dNative and pooling shapes."""

from __future__ import annotations

import pytest

from modtensor.framework import errors


def test_bias_add_and_activations(run) -> None:
    assert run("BiasAdd", [[2, 3, 4, None], [5]]) == [[2, 3, 4, 5]]
    assert run("BiasAdd", [[2, None, 4, 5], [3]], data_format="NCHW") == [[2, 3, 4, 5]]
    with pytest.raises(errors.InvalidArgumentError, match="Dimensions must be equal, but are 3 and 4"):
        run("BiasAdd", [[2, 3], [4]])
    for op in ("Relu", "Relu6", "Elu", "Softplus", "LeakyRelu"):
        assert run(op, [[None, 3]]) == [[None, 3]]
    with pytest.raises(errors.InvalidArgumentError, match="Shape must be at least rank 1 but is rank 0"):
        run("Softmax", [[]])


def test_conv2d_padding_strides_dilations_formats(run) -> None:
    w = [3, 3, 3, 8]
    assert run("Conv2D", [[1, 5, 5, 3], w], strides=[1, 1, 1, 1], padding="VALID") == [[1, 3, 3, 8]]
    assert run("Conv2D", [[2, 7, 9, 3], w], strides=[1, 2, 3, 1], padding="SAME") == [[2, 4, 3, 8]]
    assert run("Conv2D", [[2, 9, 9, 3], w], strides=[1, 1, 1, 1], padding="VALID", dilations=[1, 2, 2, 1]) == [
        [2, 5, 5, 8]
    ]
    assert run("Conv2D", [[2, 3, 7, 9], w], strides=[1, 1, 2, 2], padding="SAME", data_format="NCHW") == [[2, 8, 4, 5]]
    explicit = [0, 0, 1, 2, 3, 0, 0, 0]
    assert run("Conv2D", [[2, 7, 9, 3], w], strides=[1, 1, 1, 1], padding="EXPLICIT", explicit_paddings=explicit) == [
        [2, 8, 10, 8]
    ]
    with pytest.raises(errors.InvalidArgumentError, match=r"Depth of input \(5\) is not a multiple of input depth"):
        run("Conv2D", [[2, 7, 9, 5], w], strides=[1, 1, 1, 1], padding="VALID")


def test_depthwise_conv2d(run) -> None:
    w = [3, 3, 3, 2]
    assert run("DepthwiseConv2dNative", [[1, 5, 5, 3], w], strides=[1, 2, 2, 1], padding="SAME") == [[1, 3, 3, 6]]
    assert run(
        "DepthwiseConv2dNative", [[1, 3, 5, 5], w], strides=[1, 1, 1, 1], padding="VALID", data_format="NCHW"
    ) == [[1, 6, 3, 3]]
    with pytest.raises(errors.InvalidArgumentError, match="Dimensions must be equal, but are 4 and 3"):
        run("DepthwiseConv2dNative", [[1, 5, 5, 4], w], strides=[1, 1, 1, 1], padding="VALID")
    with pytest.raises(errors.InvalidArgumentError, match="stride attribute to contain 4 values, but got: 3"):
        run("DepthwiseConv2dNative", [[1, 5, 5, 3], w], strides=[1, 1, 1], padding="VALID")


def test_pooling(run) -> None:
    args = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1]}
    assert run("MaxPool", [[1, 5, 5, 3]], padding="VALID", **args) == [[1, 2, 2, 3]]
    assert run("AvgPool", [[1, 5, 5, 3]], padding="SAME", **args) == [[1, 3, 3, 3]]
    assert run("MaxPool", [None], padding="SAME", **args) == [[None, None, None, None]]
    with pytest.raises(errors.InvalidArgumentError, match="Negative dimension size caused by subtracting 2 from 1"):
        run("MaxPool", [[1, 1, 5, 3]], padding="VALID", ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1])
