"""TensorFlow's kernel-registration semantics for plugins, checked against TensorFlow's own outcomes.

tests/golden/plugin_semantics/kernel_semantics.json holds what TensorFlow 2.21 does with the same
two libraries (tools/make_golden_kernel_semantics.py): a kernel for an op not registered yet, second
kernels for an op and device type that already have one (priority decides; the same priority fails
at lookup, not at registration), and a C++ op library registering its ops from a static initializer.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import modtensor as tf
from modtensor.plugin import load_library, loaded_plugins
from modtensor.plugin.loader import unload_native_library
from modtensor.runtime.kernel_registry import global_kernel_registry

from .kernel_semantics_scenario import X, run_scenario
from .support import CSRC, REPO

GOLDEN = json.loads((REPO / "tests/golden/plugin_semantics/kernel_semantics.json").read_text())
SAME_PRIORITY = "Multiple OpKernel registrations match NodeDef at the same priority"


@pytest.fixture(scope="module")
def outcomes(build_plugin):
    kernels = build_plugin("kernel_semantics")
    late_op = build_plugin("late_op", sources=[CSRC / "late_op.cc"], flags=["-std=c++17"], compiler="g++")
    try:
        result = run_scenario(tf, load_library, str(kernels), str(late_op))
        records = {r.path: r for r in loaded_plugins()}
        kernels_record, late_op_record = records[str(kernels)], records[str(late_op)]
        kernels_record_count = len(kernels_record.kernels)
    finally:  # the plugin's Relu kernel makes every Relu ambiguous: never leave it to other tests
        unload_native_library(kernels)
        unload_native_library(late_op)
    return result, kernels_record, late_op_record, kernels_record_count


def _equal(ours, theirs) -> bool:
    if isinstance(theirs, dict) and "error" in theirs:
        return isinstance(ours, dict) and ours.get("error") == theirs["error"]
    return ours == theirs


def test_registrations_report_ok_as_in_tensorflow(outcomes):
    result, kernels, _, count = outcomes
    assert result["registration_failures"] == GOLDEN["registration_failures"] == 0
    assert kernels.loaded and count == 6  # all kept, none rolled back


STEPS = ["relu6_priority_-1", "relu_same_priority", "late_op/float", "late_op/duplicate_kernels"]


@pytest.mark.parametrize("step", STEPS)
def test_eager_function_and_session_choose_the_kernel_tensorflow_chooses(outcomes, step):
    result, _, _, _ = outcomes
    for mode in ("eager", "function", "session"):
        assert _equal(result[step][mode], GOLDEN[step][mode]), (step, mode, result[step][mode], GOLDEN[step][mode])


def test_same_priority_fails_at_lookup_with_tensorflows_message(outcomes):
    result, _, _, _ = outcomes
    for step, node in (("relu_same_priority", "Relu"), ("late_op/duplicate_kernels", "MtSemDup")):
        assert result[step]["eager"]["message"].startswith(f"{SAME_PRIORITY} '{{{{node {node}}}}}': ")
        assert GOLDEN[step]["eager"]["message"].startswith(f"{SAME_PRIORITY} '{{{{node {node}}}}}': ")


def test_a_higher_priority_plugin_kernel_wins(outcomes):
    result, _, _, _ = outcomes
    assert result["before/elu"] == GOLDEN["before/elu"]
    for mode in ("function", "session"):
        assert result["elu_priority_1"][mode] == GOLDEN["elu_priority_1"][mode] == [2.0, 2.0]
    # TensorFlow's eager kernel cache keeps the Elu kernel it chose before the plugin loaded
    # (GOLDEN: the built-in's values); modtensor's cache notices the new kernel.
    assert GOLDEN["elu_priority_1"]["eager"] == GOLDEN["before/elu"]["eager"]
    assert result["elu_priority_1"]["eager"] == [2.0, 2.0]


def test_ops_registered_by_static_initializers_get_wrappers(outcomes):
    result, _, late_op, _ = outcomes
    assert result["late_op/wrappers"] == GOLDEN["late_op/wrappers"] == ["mt_sem_dup", "mt_sem_late"]
    assert late_op.loaded and sorted(late_op.ops) == ["MtSemDup", "MtSemLate"]
    assert late_op.entry_points == {"<load time>": "registered from static initializers"}
    assert result["late_op/double"]["error"] == GOLDEN["late_op/double"]["error"] == "NotFoundError"
    assert result["late_op/double"]["message"].startswith("Could not find device for node: {{node MtSemLate}}")


def test_the_eager_cache_notices_a_kernel_unloaded_after_it_was_filled(build_plugin):
    kernels = build_plugin("kernel_semantics")
    builtin = tf.nn.elu(tf.constant(X)).numpy()
    load_library(kernels)
    try:
        np.testing.assert_array_equal(tf.nn.elu(tf.constant(X)).numpy(), [2.0, 2.0])
    finally:
        unload_native_library(kernels)
    np.testing.assert_array_equal(tf.nn.elu(tf.constant(X)).numpy(), builtin)
    assert not any(r.source == str(kernels) for r in global_kernel_registry().kernels_for_op("Elu"))
