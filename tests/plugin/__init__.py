"""Tests of native and Python plugins (issue 4)."""
