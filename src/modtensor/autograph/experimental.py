"""``modtensor.autograph.experimental`` (TensorFlow's ``tf.autograph.experimental``)."""

from __future__ import annotations

from modtensor.api.autograph import Feature, do_not_convert, set_loop_options

__all__ = ["Feature", "do_not_convert", "set_loop_options"]
