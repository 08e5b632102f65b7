"""Backward ops of linalg gradients."""

from __future__ import annotations

OPS: list[str] = []


def cases(shape_case, kernel_case, rnd, P, C) -> None:  # noqa: ANN001, N803 - the tool's case makers
    pass
