"""``modtensor.audio``: TensorFlow's ``tf.audio`` names: ``decode_wav`` and ``encode_wav``."""

from modtensor.api.audio_ops import decode_wav, encode_wav

__all__ = ["decode_wav", "encode_wav"]
