"""A native crash inside plugin code ends the process, but first names the plugin, the call, the op and the node.

tests/plugin/csrc/crash_plugin.c crashes on purpose (a NULL write or abort() in a kernel, a NULL
write in TF_InitKernel); each case runs in a child process, whose stderr must carry modtensor's
report (from the shim's signal handler) followed by faulthandler's Python stack.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from .support import REPO

SCRIPT = textwrap.dedent(
    """
    import sys
    import modtensor as tf
    lib = tf.load_op_library(sys.argv[1])
    print("copy", lib.mt_crash_copy(tf.constant([1.0, 2.0])).numpy().tolist(), flush=True)

    @tf.function
    def step(x):
        return lib.mt_crash(x, how=sys.argv[2], name="boom")

    step(tf.constant([1.0]))
    print("survived", flush=True)
    """
)


def _run(plugin, how: str, **env: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, MODTENSOR_NO_PLUGINS="1", **env)
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, str(plugin), how],
        capture_output=True, text=True, timeout=300, cwd=REPO, env=environment,
    )  # fmt: skip


@pytest.fixture(scope="module")
def crash_plugin(build_plugin):
    return build_plugin("crash_plugin")


@pytest.mark.parametrize(
    ("how", "sig", "name"), [("segv", signal.SIGSEGV, "SIGSEGV"), ("abort", signal.SIGABRT, "SIGABRT")]
)
def test_a_crashing_kernel_names_plugin_kernel_and_node_then_the_python_stack(crash_plugin, how, sig, name):
    done = _run(crash_plugin, how)
    assert done.returncode == -sig, done.stderr
    assert "copy [1.0, 2.0]" in done.stdout and "survived" not in done.stdout
    report = done.stderr[done.stderr.index("modtensor: fatal signal") :]
    assert report.startswith(f"modtensor: fatal signal {name}")
    assert f"  plugin:  {crash_plugin}\n" in report
    assert "  call:    compute of the kernel for op 'MtCrash'\n" in report
    assert "  node:    {{node boom}}\n" in report
    assert "  device:  /job:localhost/replica:0/task:0/device:CPU:0\n" in report
    # faulthandler runs after modtensor's report: the Python stack of the call that ran the kernel.
    stack = report[report.index("Fatal Python error") :]
    assert 'File "<string>", line 11 in <module>' in stack
    if how == "segv":
        assert "  address: 0x0\n" in report
        assert f"  faulting instruction in {crash_plugin}" in report


def test_a_crash_in_tf_init_kernel_names_the_entry_point(crash_plugin):
    done = _run(crash_plugin, "none", MT_CRASH_AT_LOAD="init")
    assert done.returncode == -signal.SIGSEGV, done.stderr
    report = done.stderr[done.stderr.index("modtensor: fatal signal") :]
    assert f"  plugin:  {crash_plugin}\n  call:    TF_InitKernel\n" in report
    assert f"faulting instruction in {crash_plugin} (TF_InitKernel)" in report


def test_a_crash_on_a_plugin_thread_names_the_faulting_library(crash_plugin):
    script = (
        "import sys, modtensor as tf\n"
        "lib = tf.load_op_library(sys.argv[1])\n"
        "lib.mt_crash_thread(tf.constant([1.0]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(crash_plugin)], capture_output=True, text=True, timeout=300, cwd=REPO,
        env=dict(os.environ, MODTENSOR_NO_PLUGINS="1"),
    )  # fmt: skip
    assert done.returncode == -signal.SIGSEGV
    report = done.stderr[done.stderr.index("modtensor: fatal signal") :]
    assert report.startswith(
        "modtensor: fatal signal SIGSEGV (segmentation fault) (no plugin call in progress on this thread; "
        "1 on other threads)\n"
    )
    assert f"  faulting instruction in {crash_plugin}" in report


def test_no_crash_handler_leaves_signals_alone(crash_plugin):
    done = _run(crash_plugin, "segv", MODTENSOR_NO_CRASH_HANDLER="1")
    assert done.returncode == -signal.SIGSEGV
    assert "modtensor: fatal signal" not in done.stderr


def test_plugin_calls_are_recorded_per_thread_and_nest(crash_plugin):
    from modtensor.plugin import load_library
    from modtensor.plugin.native import bridge
    from modtensor.plugin.native.crash_report import crash_handler_installed, plugin_call

    load_library(crash_plugin)
    assert crash_handler_installed()
    module = bridge()
    assert module.current_plugin_call() is None
    with plugin_call("/a.so", "outer"):
        with plugin_call("/b.so", "inner", op="Op", node="n", device="D"):
            assert module.current_plugin_call() == ("/b.so", "inner", "Op", "n", "D")
        assert module.current_plugin_call() == ("/a.so", "outer", "", "", "")
    assert module.current_plugin_call() is None


def test_a_forked_child_reports_its_own_plugin_calls(crash_plugin):
    script = textwrap.dedent(
        """
        import os, sys
        import modtensor as tf
        lib = tf.load_op_library(sys.argv[1])
        lib.mt_crash_copy(tf.constant([1.0]))  # the parent made plugin calls before forking
        pid = os.fork()
        if pid == 0:
            lib.mt_crash(tf.constant([1.0]), how="segv", name="in_child")
            os._exit(0)
        print("child", os.waitpid(pid, 0)[1], flush=True)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(crash_plugin)], capture_output=True, text=True, timeout=300, cwd=REPO,
        env=dict(os.environ, MODTENSOR_NO_PLUGINS="1"),
    )  # fmt: skip
    assert done.returncode == 0 and f"child {signal.SIGSEGV}" in done.stdout, done.stderr
    assert "call:    compute of the kernel for op 'MtCrash'" in done.stderr
