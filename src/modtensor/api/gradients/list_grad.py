"""Gradients of list ops (TensorFlow's rules)."""

from __future__ import annotations
