"""Gradient cases, one module per op family, replayed against TensorFlow 2.21's gradients.

Each module defines ``CASES: dict[str, dict]``, plain data shared by the TF generator
(``tools/make_golden_gradients.py``, run in the TF scratch venv) and the tests
(``tests/api/test_gradients_golden.py``). A case:

- ``fn``: the source of ``lambda tf, *inputs: ...`` (``tf`` is TensorFlow or modtensor);
  it returns a tensor or a list of tensors.
- ``tf_fn`` (optional): the source TF runs instead of ``fn``, where TF's CPU kernels lack the form
  ``fn`` uses (NCHW convolutions and pooling, dilated or grouped Conv2D backprops): the same math
  through forms TF's CPU runs (transposes around the NHWC op, ...), so the same numbers.
- ``inputs``: ``[(dtype, shape), ...]`` random inputs (standard normal; ints in [0, 5)),
  or ``("const", value, dtype)`` fixed values; ``"positive"`` (input indices) makes those
  inputs ``abs(x) + 0.5``; ``"unit"`` (indices) maps them into (-0.9, 0.9).
- ``wrt`` (optional): indices of the inputs to differentiate (default: every floating input).
- ``numeric`` (optional, default True): also check modtensor's gradient by central
  differences, in float64 (set False for ops with kinks at random points, or non-float64 ops).
- ``second_order`` (optional): also compare d/dx <grad, v> (the gradient of the gradient).
- ``modes`` (optional): subset of ``("eager", "function", "graph")`` to run (default all).
- ``rtol``/``atol`` (optional): tolerances against TF's numbers (default 1e-5 / 1e-6; float64 1e-10).
"""

FAMILIES = ("core", "math", "nn", "image", "array", "linalg", "control_flow", "functions")
