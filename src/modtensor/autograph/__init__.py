"""``modtensor.autograph`` (TensorFlow's ``tf.autograph``): converting Python control flow into graph control flow.

``modtensor.function`` converts the functions it traces by default; these functions
show and control that conversion: ``to_code`` (the converted source), ``to_graph`` (the
converted function), ``trace`` (print at trace time), ``set_verbosity``, and
``experimental.do_not_convert`` / ``experimental.Feature`` / ``experimental.set_loop_options``.
"""

from __future__ import annotations

from modtensor.api.autograph import set_verbosity, to_code, to_graph, trace
from modtensor.autograph import experimental

__all__ = ["experimental", "set_verbosity", "to_code", "to_graph", "trace"]
