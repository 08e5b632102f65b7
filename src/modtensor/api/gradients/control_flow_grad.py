"""Gradients of control-flow ops (If, Case, While and the v2 lowering helpers)."""

from __future__ import annotations
