"""Image ops that gradient functions use (backward ops and helpers).

OpDefs equal TensorFlow 2.21's (tests/golden/gradient_ops/op_defs.pbtxt); shape functions follow TF's.
"""

from __future__ import annotations
