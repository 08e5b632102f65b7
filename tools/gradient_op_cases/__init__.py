"""Per-family cases of the backward ops (tools/make_golden_gradient_ops.py imports each module).

A module defines ``OPS`` (TF op names whose OpDefs, CPU kernel constraints, shape and kernel
cases are recorded) and ``def cases(shape_case, kernel_case, rnd, P, C)`` that queues them.
"""

FAMILIES = ("array", "image", "linalg", "math", "nn")
