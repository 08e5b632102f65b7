"""The golden TensorFlow-exported models (``modtensor demo``, ``modtensor check``).

The repository's ``examples/models/`` is the one source of truth; ``setup.py`` copies it into the
package as ``modtensor/golden_models`` when the package is built, so an installed modtensor finds its
models from any directory. Run from a source checkout (nothing copied), the repository's folder is used.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["models_folder"]


def models_folder() -> Path:
    """The folder with the bundled models' ``manifest.json`` (installed copy first, then the checkout's)."""
    installed = Path(__file__).resolve().parent
    if (installed / "manifest.json").is_file():
        return installed
    checkout = Path(__file__).resolve().parents[3] / "examples" / "models"
    return checkout if (checkout / "manifest.json").is_file() else installed
