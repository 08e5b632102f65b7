"""Neural-network backward ops: ReluGrad, BiasAddGrad, Conv2DBackpropInput/Filter, MaxPoolGrad, ...

OpDefs equal TensorFlow 2.21's (tests/golden/gradients/op_defs.pbtxt); shape functions follow TF's.
"""

from __future__ import annotations
