"""The native CPU kernel library (csrc/cpu_kernels) is -Wall -Wextra clean and clean under AddressSanitizer.

The shim and the library are rebuilt with -fsanitize=address; a Python process with the
ASan runtime preloaded loads that shim (MODTENSOR_SHIM_LIBRARY) and that library as a
plugin (the built-in one turned off), then runs the kernel cases of
test_native_cpu_kernels.py through it: every convolution, depthwise, fused, matmul,
pooling, pad, binary, concat, unary, reduction, softmax,
transpose, einsum, resize, select, layer-norm, random, cast, gather/scatter,
segment-sum, top-k and strided-slice case, with one and two threads and the portable GEMM.
Any ASan report fails the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
INCLUDE = REPO / "include"
SOURCES = sorted((REPO / "csrc" / "cpu_kernels").glob("*.c"))
ASAN_FLAGS = ["-fsanitize=address", "-fno-omit-frame-pointer", "-g", "-O1"]

DRIVER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    from modtensor.plugin import load_library
    load_library(sys.argv[2])
    from modtensor.runtime import context
    from tests.kernels import test_native_cpu_kernels as t
    import ctypes
    lib = ctypes.CDLL(sys.argv[2])
    cases = 0
    for threads in (1, 2):
        context.set_intra_op_parallelism_threads(threads)
        lib.modtensor_cpu_kernels_set_num_threads(threads)
        for generic in (0, 1) if threads == 2 else (0,):
            lib.modtensor_cpu_kernels_force_generic_gemm(generic)
            for case in t.CONV_CASES:
                for nchw in (False, True):
                    t.test_conv2d_matches_numpy(case, nchw); cases += 1
            for case in t.DEPTHWISE_CASES:
                t.test_depthwise_matches_numpy(case, False); cases += 1
            for act in t.ACTIVATIONS:
                t.test_fused_conv2d_bias_add_activation_matches_numpy(act, False); cases += 1
            t.test_fused_conv2d_bias_add_add_matches_numpy(["Relu"])
            for ops in (["BiasAdd", "Add", "Relu"], ["BiasAdd", "Elu"]):
                t.test_fused_conv2d_on_border_blocks_matches_numpy(ops)
                t.test_fused_pointwise_conv2d_over_rows_4_kib_apart_matches_numpy(ops)
            t.test_fused_conv2d_batch_norm_matches_numpy(["Relu6"])
            t.test_fused_depthwise_matches_numpy(["Relu6"])
            for act in ([], ["Relu6"], ["Elu"]):
                t.test_fused_depthwise_over_many_channels_matches_numpy(act)
            for shape in t.MATMUL_SHAPES:
                for ta in (False, True):
                    for tb in (False, True):
                        t.test_matmul_matches_numpy(shape, ta, tb); cases += 1
            for ops in t.FUSED_MATMUL_OPS:
                t.test_fused_matmul_matches_numpy(ops); cases += 1
            for shapes in t.BATCH_CASES:
                t.test_batch_matmul_matches_numpy(shapes, (True, False)); cases += 1
            for case in t.POOL_CASES:
                for op in ("MaxPool", "AvgPool"):
                    t.test_pooling_matches_numpy(case, True, op); cases += 1
            t.test_max_pool_explicit_padding_and_depth_pooling_match_numpy()
            for op in ("Relu", "Sigmoid", "Tanh", "Elu"):
                t.test_activations_match_numpy_with_special_values(op); cases += 1
            for shapes in t.BINARY_SHAPES:
                t.test_broadcasting_binary_ops_match_numpy("Mul", shapes); cases += 1
            for case in t.CONCAT_CASES:
                t.test_concat_matches_numpy(case); cases += 1
            t.test_pad_matches_numpy((2, 5, 5, 3), [[0, 0], [1, 1], [0, 2], [0, 0]], __import__("numpy").int64)
            for case in t.ERROR_CASES:
                t.test_errors_match_the_numpy_kernels(case); cases += 1
            for op in ("Neg", "Sqrt", "Rsqrt", "Exp", "Log", "Erf", "Erfc", "Round"):
                t.test_unary_ops_match_numpy(op); cases += 1
            for case in t.REDUCE_CASES:
                for op in ("Sum", "Max", "Prod"):
                    t.test_reductions_match_numpy(case, op, op == "Max"); cases += 1
            for shape in ((3, 17), (2, 4, 130), (0, 3), (2, 0)):
                t.test_softmax_matches_numpy("LogSoftmax", shape); cases += 1
            for case in t.TRANSPOSE_CASES:
                t.test_transpose_matches_numpy(case, __import__("numpy").int64); cases += 1
            for perm in ((0, 0), (0, 2), (1,)):
                t.test_transpose_errors_match_numpy(perm)
            for case in t.EINSUM_CASES:
                t.test_einsum_matches_numpy(case); cases += 1
            t.test_einsum_errors_match_numpy()
            for op, mode in t.RESIZE_CASES:
                for sizes in (((2, 7, 9, 3), (13, 5)), ((1, 1, 1, 3), (3, 2)), ((1, 30, 20, 1), (7, 45))):
                    t.test_resize_matches_numpy(op, mode, sizes); cases += 1
            t.test_resize_errors_match_numpy()
            for shapes in (((2, 1), (1, 3), (2, 3)), ((), (4, 5), (5,)), ((0, 3), (1, 3), (3,))):
                t.test_select_v2_matches_numpy(shapes); cases += 1
            t.test_select_v2_error_matches_numpy()
            for case in t.LAYER_NORM_CASES:
                t.test_layer_norm_matches_numpy(case); cases += 1
            for case in t.LAYER_NORM_ERRORS:
                t.test_layer_norm_errors_match_numpy(case)
            for case in t.RANDOM_CASES:
                t.test_random_kernels_continue_tensorflows_stream_bit_for_bit(case); cases += 1
            t.test_random_kernels_check_the_shape_and_leave_half_types_to_numpy()
            for case in t.GATHER_CASES:
                t.test_gather_nd_matches_numpy(case, __import__("numpy").float32); cases += 1
            for case in t.SCATTER_CASES:
                for op in ("ScatterNd", "TensorScatterUpdate", "TensorScatterAdd"):
                    t.test_scatter_ops_match_numpy(case, op); cases += 1
            t.test_unsorted_segment_sum_matches_numpy(__import__("numpy").float32)
            t.test_strided_slice_replays_tensorflow(True); cases += 1
            t.test_strided_slice_identity_and_large_slices_on_one_and_two_threads()
            for case in t.TOP_K_CASES:
                t.test_top_k_matches_numpy(case, __import__("numpy").float32); cases += 1
            for case in t.INDEXING_ERRORS:
                t.test_indexing_errors_match_the_numpy_kernels(case)
            for src in ("uint8", "int16", "int64", "bool"):
                t.test_cast_to_float32_matches_numpy(getattr(__import__("numpy"), src if src != "bool" else "bool_"))
                cases += 1
    t.test_concurrent_ops_from_several_threads_give_the_same_results()
    print("cases", cases, flush=True)
    """
)


def _asan_runtime() -> str | None:
    try:
        found = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return None
    return found if os.path.isabs(found) and os.path.exists(found) else None


def _compile_all(flags: list[str], out: Path) -> list[Path]:
    """Compile every source of the library with ``flags`` in parallel; the objects (fails on any error)."""
    objects = [out / f"{src.stem}.o" for src in SOURCES]
    jobs = [
        subprocess.Popen(
            ["gcc", "-std=c11", "-c", "-fPIC", "-fvisibility=hidden", *flags, f"-I{INCLUDE}", str(src), "-o", str(obj)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for src, obj in zip(SOURCES, objects, strict=True)
    ]
    failures = []
    for job in jobs:
        output, _ = job.communicate()
        if job.returncode != 0:
            failures.append(output)
    assert not failures, "\n".join(failures)
    return objects


def test_sources_compile_warning_free_with_wall_wextra(tmp_path: Path) -> None:
    _compile_all(["-Wall", "-Wextra", "-Werror", "-O3"], tmp_path)


def test_kernels_run_clean_under_address_sanitizer(tmp_path: Path) -> None:
    runtime = _asan_runtime()
    if runtime is None:
        pytest.skip("gcc has no AddressSanitizer runtime (libasan.so)")
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    shim = shim_dir / "libmodtensor_framework.so"
    shim_sources = sorted((REPO / "csrc" / "shim").glob("*.c"))
    compile_c = ["gcc", "-std=c11", "-c", "-fPIC", "-fvisibility=hidden", *ASAN_FLAGS, f"-I{INCLUDE}"]
    jobs = [subprocess.Popen([*compile_c, str(s), "-o", str(shim_dir / f"{s.stem}.o")]) for s in shim_sources]
    assert all(job.wait() == 0 for job in jobs)
    subprocess.run(
        ["gcc", "-shared", *ASAN_FLAGS, "-pthread", "-Wl,-soname,libmodtensor_framework.so", "-o", str(shim),
         *(str(shim_dir / f"{s.stem}.o") for s in shim_sources)],
        check=True, capture_output=True,
    )  # fmt: skip
    objects = _compile_all([*ASAN_FLAGS, "-Wall", "-Wextra"], tmp_path)
    library = tmp_path / "libmodtensor_cpu_kernels_asan.so"
    subprocess.run(
        ["gcc", "-shared", *ASAN_FLAGS, "-pthread", "-o", str(library), *map(str, objects),
         f"-L{shim_dir}", "-l:libmodtensor_framework.so", f"-Wl,-rpath,{shim_dir}", "-lm", "-ldl"],
        check=True, capture_output=True,
    )  # fmt: skip
    env = dict(os.environ, LD_PRELOAD=runtime, MODTENSOR_SHIM_LIBRARY=str(shim), MODTENSOR_NATIVE_CPU_KERNELS="0")
    env["ASAN_OPTIONS"] = "detect_leaks=0"  # CPython's own allocations are not ours to check for leaks
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(REPO), str(library)], capture_output=True, text=True, env=env, timeout=900
    )
    assert "ERROR: AddressSanitizer" not in done.stderr, done.stderr[-6000:]
    assert done.returncode == 0, done.stderr[-6000:]
    assert done.stdout.split()[0] == "cases" and int(done.stdout.split()[1]) > 200, done.stdout
