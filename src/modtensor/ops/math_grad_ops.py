"""Math ops that gradient functions use: the backward ops of elementwise math (SigmoidGrad, TanhGrad, ...).

OpDefs equal TensorFlow 2.21's (tests/golden/gradients/op_defs.pbtxt); shape functions follow TF's.
"""

from __future__ import annotations
