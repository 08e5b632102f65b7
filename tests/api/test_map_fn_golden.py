"""``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr`` give TensorFlow 2.21's values and errors.

The cases are tests/golden/tensor_list/map_fn.json, written by tools/make_golden_tensor_list.py.
"""

from __future__ import annotations

import logging

import pytest

from modtensor.api import functional_ops

from .tensor_list_golden import check_case, load

CASES = load("map_fn")

# TF logs through its "tensorflow" Python logger (printed as "WARNING:tensorflow:..."); modtensor logs the same
# text on its "modtensor" logger.
_TF_LOG_PREFIX = "WARNING:tensorflow:"


@pytest.mark.parametrize("mode", ["eager"])
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_map_fn_program_matches_tensorflow(
    case_id: str, mode: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(functional_ops, "_warned_parallel_iterations", False)  # TF warns once per process
    with caplog.at_level(logging.WARNING, logger="modtensor"):
        got = check_case(CASES, case_id, mode, capture=True)
    want = CASES[case_id][mode].get("stderr", "")
    logged = [line.removeprefix(_TF_LOG_PREFIX) for line in want.splitlines() if line.startswith(_TF_LOG_PREFIX)]
    printed = "".join(line + "\n" for line in want.splitlines() if not line.startswith(_TF_LOG_PREFIX))
    assert [r.getMessage() for r in caplog.records if r.name == "modtensor"] == logged
    assert got.get("stderr", "") == printed
