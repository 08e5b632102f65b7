"""Gradients of linalg ops (TensorFlow's rules)."""

from __future__ import annotations
