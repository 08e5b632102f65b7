"""Gradients of image ops (TensorFlow's rules)."""

from __future__ import annotations
