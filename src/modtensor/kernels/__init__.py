"""Kernels: the numerics behind ops, one package per device type (``cpu`` is numpy)."""
