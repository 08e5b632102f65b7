"""Randomly generated Python programs behave the same converted and unconverted.

A seeded generator writes functions of nested ``if``/``elif``/``else``, ``while``,
``for``, ``break``, ``continue``, ``return``, conditional expressions and boolean
operators over Python ints, some variables defined on only some paths. Each runs
as Python and converted (as ``modtensor.function`` converts it); results and the kind of
error (an unbound variable, a failed operation) must agree. This exercises the
analysis that decides which variables a converted statement carries.
"""

from __future__ import annotations

import importlib.util
import inspect
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from modtensor.api.autograph import tf_convert
from tests.api import autograph_stand_ins as stand_ins

VARIABLES = ("a", "b", "c", "d")


class _Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.loop_counter = 0

    def expr(self, depth: int = 0) -> str:
        r = self.rng.random()
        if depth > 1 or r < 0.3:
            return str(self.rng.randint(0, 5))
        if r < 0.6:
            return self.rng.choice(VARIABLES)
        if r < 0.8:
            op = self.rng.choice(["+", "-", "*", "%"])
            right = self.expr(depth + 1)
            if op == "%":
                right = f"({right} or 1)"
            return f"({self.expr(depth + 1)} {op} {right})"
        return f"({self.expr(depth + 1)} if {self.cond(depth + 1)} else {self.expr(depth + 1)})"

    def cond(self, depth: int = 0) -> str:
        r = self.rng.random()
        if depth > 1 or r < 0.6:
            return f"{self.rng.choice(VARIABLES)} {self.rng.choice(['>', '<', '==', '!='])} {self.rng.randint(0, 4)}"
        if r < 0.8:
            return f"({self.cond(depth + 1)} {self.rng.choice(['and', 'or'])} {self.cond(depth + 1)})"
        return f"not {self.cond(depth + 1)}"

    def block(self, indent: int, depth: int, in_loop: bool) -> list[str]:
        lines: list[str] = []
        for _ in range(self.rng.randint(1, 3)):
            lines += self.statement(indent, depth, in_loop)
        return lines

    def statement(self, indent: int, depth: int, in_loop: bool) -> list[str]:
        pad = "    " * indent
        r = self.rng.random()
        if depth >= 3 or r < 0.35:
            var = self.rng.choice(VARIABLES)
            if self.rng.random() < 0.3:
                return [f"{pad}{var} += {self.expr()}"]
            return [f"{pad}{var} = {self.expr()}"]
        if r < 0.5 and in_loop:
            return [f"{pad}if {self.cond()}:", f"{pad}    {self.rng.choice(['break', 'continue'])}"]
        if r < 0.55:
            return [f"{pad}if {self.cond()}:", f"{pad}    return {self.expr()}"]
        if r < 0.75:
            lines = [f"{pad}if {self.cond()}:"] + self.block(indent + 1, depth + 1, in_loop)
            if self.rng.random() < 0.3:
                lines += [f"{pad}elif {self.cond()}:"] + self.block(indent + 1, depth + 1, in_loop)
            if self.rng.random() < 0.5:
                lines += [f"{pad}else:"] + self.block(indent + 1, depth + 1, in_loop)
            return lines
        self.loop_counter += 1
        if r < 0.88:
            target = self.rng.choice(VARIABLES + ("i",))
            return [f"{pad}for {target} in range({self.rng.randint(0, 3)}):"] + self.block(indent + 1, depth + 1, True)
        counter = f"w{self.loop_counter}"
        return [
            f"{pad}{counter} = 0",
            f"{pad}while {counter} < 3 and ({self.cond()}):",
            f"{pad}    {counter} += 1",
        ] + self.block(indent + 1, depth + 1, True)

    def function(self, name: str) -> str:
        params = self.rng.sample(VARIABLES, self.rng.randint(1, 3))
        # Most other variables start defined; the rest are defined on some paths only.
        body = [f"    {v} = {self.rng.randint(0, 3)}" for v in VARIABLES if v not in params and self.rng.random() < 0.8]
        body += self.block(1, 0, False)
        returned = ", ".join(VARIABLES)
        return "\n".join([f"def {name}({', '.join(params)}):"] + body + [f"    return ({returned})", ""])


def _program_module(tmp_path: Path, count: int, seed: int) -> Any:
    generator = _Generator(seed)
    source = "\n\n".join(generator.function(f"program_{i}") for i in range(count))
    path = tmp_path / f"random_programs_{seed}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _outcome(fn: Any, args: tuple[int, ...]) -> Any:
    try:
        return ("ok", fn(*args))
    except NameError:  # an unbound variable: Python's and the converted code's texts differ
        return ("unbound",)
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        metadata = getattr(e, "ag_error_metadata", None)
        return ("raised", type(e).__name__, str(e) if metadata is None else metadata.cause_message.split(": ", 1)[1])


@pytest.mark.parametrize("seed", range(4))
def test_random_programs_behave_the_same_converted(tmp_path: Path, seed: int) -> None:
    module = _program_module(tmp_path, 60, seed)
    rng = random.Random(seed)
    checked = 0
    for name in sorted(n for n in vars(module) if n.startswith("program_")):
        fn = getattr(module, name)
        converted = tf_convert(fn)
        arity = fn.__code__.co_argcount
        for _ in range(3):
            args = tuple(rng.randint(0, 4) for _ in range(arity))
            expected = _outcome(fn, args)
            assert _outcome(converted, args) == expected, f"{name}{args}\n{inspect.getsource(fn)}"
            checked += 1
    assert checked == 180


# ============================================================================ tensor programs


class _TensorGenerator(_Generator):
    """Programs TensorFlow can stage: every variable defined up front, bool conditions, small int arithmetic,
    ``return`` only at the end, loops over ``range`` (unrolled) and ``tf.range`` or tensor ``while`` (staged)."""

    def expr(self, depth: int = 0) -> str:
        r = self.rng.random()
        if depth > 1 or r < 0.3:
            return str(self.rng.randint(0, 5))
        if r < 0.6:
            return self.rng.choice(VARIABLES)
        if r < 0.85:
            return f"(({self.expr(depth + 1)} {self.rng.choice(['+', '-'])} {self.expr(depth + 1)}) % 7)"
        return f"({self.expr(depth + 1)} if {self.cond(depth + 1)} else {self.expr(depth + 1)})"

    def statement(self, indent: int, depth: int, in_loop: bool) -> list[str]:
        pad = "    " * indent
        r = self.rng.random()
        if depth >= 3 or r < 0.4:
            var = self.rng.choice(VARIABLES)
            if self.rng.random() < 0.3:
                return [f"{pad}{var} += {self.expr()}", f"{pad}{var} = {var} % 7"]
            return [f"{pad}{var} = tf.identity({self.expr()})"]  # a tensor, as TF needs for loop conditions
        if r < 0.55 and in_loop:
            # break on a tensor condition only in staged loops (TF refuses it in a Python loop)
            jump = self.rng.choice(["break", "continue"]) if in_loop == "staged" else "continue"
            return [f"{pad}if {self.cond()}:", f"{pad}    {jump}"]
        if r < 0.75:
            lines = [f"{pad}if {self.cond()}:"] + self.block(indent + 1, depth + 1, in_loop)
            if self.rng.random() < 0.3:
                lines += [f"{pad}elif {self.cond()}:"] + self.block(indent + 1, depth + 1, in_loop)
            if self.rng.random() < 0.5:
                lines += [f"{pad}else:"] + self.block(indent + 1, depth + 1, in_loop)
            return lines
        self.loop_counter += 1
        if r < 0.85:
            return [f"{pad}for _ in range({self.rng.randint(0, 3)}):"] + self.block(indent + 1, depth + 1, "python")
        if r < 0.92:
            counter = f"i{self.loop_counter}"
            return [f"{pad}for {counter} in tf.range({self.rng.randint(0, 3)}):"] + self.block(
                indent + 1, depth + 1, "staged"
            )
        counter = f"w{self.loop_counter}"
        return [
            f"{pad}{counter} = 0",
            f"{pad}while {counter} < 3 and ({self.cond()}):",
            f"{pad}    {counter} += 1",
        ] + self.block(indent + 1, depth + 1, "staged")

    def function(self, name: str) -> str:
        body = [f"    {v} = {v} % 7" for v in VARIABLES]
        body += self.block(1, 0, False)
        return "\n".join([f"def {name}({', '.join(VARIABLES)}):"] + body + [f"    return ({', '.join(VARIABLES)})", ""])


def _has_control_flow() -> bool:
    import modtensor as tf

    return hasattr(tf, "cond") and hasattr(tf, "while_loop")


@pytest.fixture
def staged_eagerly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Eager tf.cond / tf.while_loop: modtensor's own when it has them, else the stand-ins."""
    if not _has_control_flow():
        stand_ins.install(monkeypatch)


class _PythonRange:
    """``tf.range`` and ``tf.identity`` for the Python run of a tensor program."""

    range = staticmethod(range)
    identity = staticmethod(lambda value: value)


def _tensor_program_module(tmp_path: Path, count: int, seed: int) -> Any:
    generator = _TensorGenerator(seed)
    source = "import modtensor as tf\n\n\n" + "\n\n".join(generator.function(f"program_{i}") for i in range(count))
    path = tmp_path / f"random_tensor_programs_{seed}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _python_result(fn: Any, args: tuple[int, ...]) -> Any:
    globals_ = fn.__globals__
    real = globals_["tf"]
    globals_["tf"] = _PythonRange
    try:
        return fn(*args)
    finally:
        globals_["tf"] = real


@pytest.mark.parametrize("seed", range(2))
def test_random_tensor_programs_eagerly_match_python(tmp_path: Path, seed: int, staged_eagerly: Any) -> None:
    """Eager tensors through the converted code (tf.cond/tf.while_loop run eagerly) give Python's numbers."""
    import modtensor as tf

    module = _tensor_program_module(tmp_path, 40, seed)
    rng = random.Random(seed)
    for name in sorted(n for n in vars(module) if n.startswith("program_")):
        fn = getattr(module, name)
        converted = tf.autograph.to_graph(fn)
        for _ in range(2):
            args = tuple(rng.randint(0, 4) for _ in VARIABLES)
            expected = _python_result(fn, args)
            actual = converted(*[tf.constant(a) for a in args])
            assert tuple(int(v) for v in actual) == expected, f"{name}{args}\n{inspect.getsource(fn)}"


@pytest.mark.parametrize("seed", range(2))
def test_random_tensor_programs_in_function_match_python(tmp_path: Path, seed: int) -> None:
    """The same programs in ``tf.function``: staged tf.cond / tf.while_loop give Python's numbers."""
    import modtensor as tf

    module = _tensor_program_module(tmp_path, 30, seed)
    rng = random.Random(seed)
    for name in sorted(n for n in vars(module) if n.startswith("program_")):
        fn = getattr(module, name)
        staged = tf.function(fn)
        for _ in range(2):
            args = tuple(rng.randint(0, 4) for _ in VARIABLES)
            expected = _python_result(fn, args)
            actual = staged(*[tf.constant(a) for a in args])
            assert tuple(int(v) for v in actual) == expected, f"{name}{args}\n{inspect.getsource(fn)}"
