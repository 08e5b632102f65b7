"""Fixtures for runtime tests."""

from __future__ import annotations

import pytest

from modtensor.runtime import device_factory


@pytest.fixture
def fresh_devices():
    """Device factories and device state as at process start, before and after the test."""
    device_factory.reset_devices_for_testing(keep_factories=False)
    yield
    device_factory.reset_devices_for_testing(keep_factories=False)
