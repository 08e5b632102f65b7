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


# Inside tf.function these two differ from TF only in what TF's Python logs: the deprecation warning of
# map_fn's `dtype` argument (not logged here), and the ERROR with a Python traceback of TF's paths that a
# write of the wrong dtype logs at trace time. Their values and errors are compared all the same.
_FUNCTION_LOG_ONLY = {"map_dtype_alias", "map_wrong_dtype"}


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_map_fn_program_matches_tensorflow(
    case_id: str, mode: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    if mode == "function" and case_id in _FUNCTION_LOG_ONLY:
        check_case(CASES, case_id, mode)
        return
    monkeypatch.setattr(functional_ops, "_warned_parallel_iterations", False)  # TF warns once per process
    with caplog.at_level(logging.WARNING, logger="modtensor"):
        got = check_case(CASES, case_id, mode, capture=True)
    want = CASES[case_id][mode].get("stderr", "")
    logged = [line.removeprefix(_TF_LOG_PREFIX) for line in want.splitlines() if line.startswith(_TF_LOG_PREFIX)]
    printed = "".join(line + "\n" for line in want.splitlines() if not line.startswith(_TF_LOG_PREFIX))
    assert [r.getMessage() for r in caplog.records if r.name == "modtensor"] == logged
    assert got.get("stderr", "") == printed
