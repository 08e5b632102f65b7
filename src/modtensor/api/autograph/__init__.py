"""AutoGraph: Python control flow in ``modtensor.function`` becomes graph control flow, as in TensorFlow 2.21.

The user-facing names are re-exported by ``modtensor.autograph``. The pieces:
``source`` (finding a function's AST), ``converters/`` (the source passes), ``analysis``
(liveness and definedness for them), ``conversion`` (passes -> compiled function, cached),
``operators/`` and ``runtime`` (what converted code calls), ``impl`` (``converted_call`` and
the public entry points), ``errors`` ("in user code:" messages).
"""

from __future__ import annotations

from modtensor.api.autograph.ag_logging import set_verbosity
from modtensor.api.autograph.config import ConversionOptions, Feature
from modtensor.api.autograph.impl import converted_call, do_not_convert, tf_convert, to_code, to_graph
from modtensor.api.autograph.operators.directives import set_loop_options

__all__ = [
    "ConversionOptions",
    "Feature",
    "converted_call",
    "do_not_convert",
    "set_loop_options",
    "set_verbosity",
    "tf_convert",
    "to_code",
    "to_graph",
    "trace",
]


def trace(*args: object) -> None:
    """Print ``args`` when the code runs in Python, i.e. at trace time (TF's ``tf.autograph.trace``)."""
    print(*args)
