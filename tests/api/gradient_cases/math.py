"""Gradient cases: math (format: tests/api/gradient_cases/__init__.py)."""

CASES: dict[str, dict] = {}
