"""Settings for the whole test suite.

Binary TensorFlow plugins installed into the test venv's ``site-packages/tensorflow-plugins``
(scripts/test_itex.sh installs Intel Extension for TensorFlow there) would be discovered by every
test process and rewrite every graph; the suite runs without them, and the tests that exercise
that folder opt in by clearing ``MODTENSOR_NO_TF_PLUGINS`` in their child processes.
"""

from __future__ import annotations

import os

os.environ.setdefault("MODTENSOR_NO_TF_PLUGINS", "1")
