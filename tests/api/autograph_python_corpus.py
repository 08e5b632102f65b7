"""Python functions with control flow on Python values: AutoGraph's conversion must not change what they do.

``tests/api/test_autograph_python.py`` runs each function converted and unconverted on
the same arguments and compares results, exceptions and side effects. The functions
cover every statement the conversion rewrites (if/elif/else, while, for, break,
continue, return in all positions, conditional and boolean expressions, try/with,
closures, nested functions, lambdas, comprehensions, global/nonlocal, del, walrus).
"""

# ruff: noqa: SIM108, SIM105, B007, B905 - the functions keep the statement forms AutoGraph converts

from __future__ import annotations

import contextlib
import functools

COUNTER = 0


def early_return(x):
    if x > 3:
        return "big"
    elif x > 1:
        return "medium"
    return "small"


def return_in_else(x):
    if x < 0:
        y = -x
    else:
        return x * 10
    return y


def no_return(x):
    if x:
        x = x + 1


def return_none_sometimes(x):
    if x > 0:
        return x


def while_with_break(n):
    i = 0
    total = 0
    while True:
        i += 1
        if i > n:
            break
        if i % 3 == 0:
            continue
        total += i
    return total, i


def for_with_break_continue(items):
    out = []
    for item in items:
        if item is None:
            continue
        if item == "stop":
            break
        out.append(item)
    else_marker = "done"
    return out, else_marker


def nested_loops(n):
    pairs = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if (i + j) % 2:
                continue
            pairs.append((i, j))
    return pairs


def return_inside_loops(grid, target):
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            if value == target:
                return r, c
    return None


def return_inside_while(n):
    k = 0
    while k < 100:
        k += 1
        if k * k > n:
            return k
    return -1


def variable_defined_in_loop(n):
    for i in range(n):
        last = i * 2
    return last


def undefined_after_empty_loop(n):
    for i in range(n):
        last = i
    return last


def conditionally_defined(flag):
    if flag:
        value = 1
    return value


def loop_target_used_after(n):
    for i in range(n):
        pass
    return i


def tuple_targets(pairs):
    total = 0
    for a, (b, c) in pairs:
        total += a * b - c
    return total


def dict_iteration(d):
    keys = []
    for k in d:
        keys.append(k)
    for k, v in d.items():
        keys.append(v)
    return keys


def conditional_expression(x):
    return "pos" if x > 0 else ("zero" if x == 0 else "neg")


def boolean_operators(a, b):
    return (a and b), (a or b), (not a), (a and not b or b)


def short_circuit(values):
    calls = []

    def probe(v):
        calls.append(v)
        return v

    result = probe(values[0]) and probe(values[1]) or probe(values[2])
    return result, calls


def chained_comparisons(x):
    return 0 < x < 10, 0 <= x <= 5 < 7


def chained_with_call(x):
    seen = []

    def middle():
        seen.append(1)
        return 5

    return x < middle() < 10, seen


def try_except_finally(x):
    log = []
    try:
        if x == 0:
            raise ZeroDivisionError("zero")
        log.append(10 / x)
    except ZeroDivisionError as e:
        log.append(str(e))
        return log
    else:
        log.append("else")
    finally:
        log.append("finally")
    return log


def return_in_try_finally(x):
    log = []
    try:
        if x:
            return "early"
        log.append("body")
    finally:
        log.append("cleanup")
    return log


def with_statement(x):
    log = []

    @contextlib.contextmanager
    def ctx(name):
        log.append(f"enter {name}")
        yield name
        log.append(f"exit {name}")

    with ctx("a") as a:
        if x:
            log.append(a)
            return log
        log.append("not x")
    return log


def closures(n):
    fns = []
    for i in range(n):
        fns.append(lambda i=i: i * i)
    total = 0
    for f in fns:
        total += f()
    return total


def closure_reads_later(n):
    def current():
        return value

    value = 0
    for i in range(n):
        value = i
    return current()


def nested_function_with_control_flow(xs):
    def classify(v):
        if v < 0:
            return "neg"
        while v > 10:
            v -= 10
        return v

    return [classify(v) for v in xs]


def nonlocal_counter(n):
    count = 0

    def bump():
        nonlocal count
        count += 1

    for _ in range(n):
        if count < 3:
            bump()
    return count


def global_update(n):
    global COUNTER
    for _ in range(n):
        if n > 1:
            COUNTER += 1
    return COUNTER


def comprehensions(n):
    squares = [i * i for i in range(n) if i % 2 == 0]
    table = {i: [j for j in range(i)] for i in range(n)}
    gen = sum(x for x in range(n) if x > 1)
    return squares, table, gen


def walrus(values):
    found = []
    for v in values:
        if (doubled := v * 2) > 4:
            found.append(doubled)
    return found, doubled


def deletion(x):
    y = x
    if x > 1:
        del y
        y = "redefined"
    return y


def augmented_attributes(n):
    class Box:
        def __init__(self):
            self.value = 0
            self.items = {"k": 0}

    box = Box()
    for i in range(n):
        box.value += i
        if i % 2:
            box.items["k"] += 1
    return box.value, box.items["k"]


def while_else_free_loop(n):
    i = n
    while i > 0 and i % 7 != 0:
        i -= 1
    return i


def recursion(n):
    if n <= 1:
        return 1
    return n * recursion(n - 1)


def star_args(*args, scale=1, **kwargs):
    total = 0
    for a in args:
        total += a * scale
    for k in sorted(kwargs):
        if kwargs[k]:
            total += len(k)
    return total


def default_args(x, y=10, *, z=100):
    if x > y:
        return x
    return y + z


def calls_partial(x):
    add = functools.partial(lambda a, b: a + b, 5)
    return add(x)


def builtins_used(xs):
    return len(xs), abs(-3), int("7"), float(2), list(range(3)), sorted(xs), list(zip(xs, xs)), max(xs), min(xs)


def string_formatting(n):
    parts = []
    i = 0
    while i < n:
        parts.append(f"{i}:{'even' if i % 2 == 0 else 'odd'}")
        i += 1
    return ",".join(parts)


def exception_propagates(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    return x


def raise_in_loop(xs):
    for x in xs:
        if x == 3:
            raise KeyError(x)
    return "ok"


def generator_consumer(n):
    def gen():
        for i in range(n):
            yield i * 2

    total = 0
    for v in gen():
        if v > 6:
            break
        total += v
    return total


def locals_and_eval(x):
    y = x + 1
    if y > 0:
        z = eval("y * 2")
    else:
        z = 0
    return z, sorted(k for k in locals() if not k.startswith("_"))


class Base:
    def describe(self):
        return "base"


class Child(Base):
    def describe(self):
        parts = [super().describe()]
        for i in range(2):
            if i:
                parts.append("child")
        return "+".join(parts)


def method_super():
    return Child().describe()


def elif_chain(x):
    if x == 0:
        r = "a"
    elif x == 1:
        r = "b"
    elif x == 2:
        r = "c"
    else:
        r = "d"
    return r


def loop_var_modified_in_nested_if(n):
    acc = []
    for i in range(n):
        if i % 2:
            tmp = i * 10
        else:
            tmp = -i
        acc.append(tmp)
    return acc


def break_in_nested_if_in_while(xs):
    i = 0
    while i < len(xs):
        if xs[i] < 0:
            if xs[i] < -10:
                break
            i += 2
            continue
        i += 1
    return i


def try_defines_then_loop(x):
    try:
        y = 10 // x
    except ZeroDivisionError:
        pass
    for i in range(2):
        y = i
    return y


def nonlocal_modified_in_loop_through_closure(n):
    total = 0

    def add(v):
        nonlocal total
        total += v

    i = 0
    while i < n:
        add(i)
        i += 1
    return total


def loop_else_free_search(items, target):
    found = False
    for item in items:
        if item == target:
            found = True
            break
    return found


def shadowed_builtins(n):
    len_ = len
    total = 0
    for range_value in range(n):
        if len_([range_value]) == 1:
            total += range_value
    return total


def match_statement(value):
    match value:
        case [x, y]:
            result = x + y
        case {"k": v}:
            result = v
        case _:
            result = None
    return result


def conditional_del_and_reassign(flag):
    data = [1, 2]
    if flag:
        data = data + [3]
    for _ in range(2):
        if len(data) > 2:
            data = data[:-1]
    return data


def nested_break_flags(n):
    hits = []
    for i in range(n):
        for j in range(n):
            if i * j > 4:
                break
            hits.append(i * j)
        else_like = i
        if else_like > 2:
            break
    return hits


def return_from_nested_function_loop(values):
    def first_even():
        for v in values:
            if v % 2 == 0:
                return v
        return None

    result = first_even()
    while result is not None and result > 10:
        result -= 10
    return result


CASES = [
    (early_return, [(5,), (2,), (0,)]),
    (return_in_else, [(-3,), (4,)]),
    (no_return, [(0,), (2,)]),
    (return_none_sometimes, [(1,), (-1,)]),
    (while_with_break, [(10,), (0,)]),
    (for_with_break_continue, [([1, None, 2, "stop", 3],), ([],)]),
    (nested_loops, [(4,)]),
    (return_inside_loops, [([[1, 2], [3, 4]], 3), ([[1]], 9)]),
    (return_inside_while, [(50,), (100000,)]),
    (variable_defined_in_loop, [(3,)]),
    (undefined_after_empty_loop, [(2,), (0,)]),
    (conditionally_defined, [(True,), (False,)]),
    (loop_target_used_after, [(3,), (0,)]),
    (tuple_targets, [([(1, (2, 3)), (4, (5, 6))],)]),
    (dict_iteration, [({"a": 1, "b": 2},)]),
    (conditional_expression, [(3,), (0,), (-2,)]),
    (boolean_operators, [(0, 1), (2, 0), (None, [1]), ("", "")]),
    (short_circuit, [((0, 1, 2),), ((1, 0, 3),), ((1, 2, 3),)]),
    (chained_comparisons, [(3,), (11,), (6,)]),
    (chained_with_call, [(1,), (7,)]),
    (try_except_finally, [(0,), (4,)]),
    (return_in_try_finally, [(1,), (0,)]),
    (with_statement, [(1,), (0,)]),
    (closures, [(4,)]),
    (closure_reads_later, [(5,)]),
    (nested_function_with_control_flow, [([-1, 5, 37],)]),
    (nonlocal_counter, [(5,)]),
    (comprehensions, [(5,)]),
    (walrus, [([1, 3, 5],)]),
    (deletion, [(0,), (5,)]),
    (augmented_attributes, [(5,)]),
    (while_else_free_loop, [(20,), (3,)]),
    (recursion, [(5,)]),
    (star_args, [(1, 2, 3), (1,), ((1, 2),)]),
    (default_args, [(1,), (20,)]),
    (calls_partial, [(1,)]),
    (builtins_used, [([3, 1, 2],)]),
    (string_formatting, [(4,)]),
    (exception_propagates, [(1,), (-1,)]),
    (raise_in_loop, [([1, 2],), ([1, 3],)]),
    (generator_consumer, [(10,)]),
    (locals_and_eval, [(1,), (-5,)]),
    (method_super, [()]),
    (elif_chain, [(0,), (1,), (2,), (3,)]),
    (loop_var_modified_in_nested_if, [(4,)]),
    (break_in_nested_if_in_while, [([1, -2, 3, -20, 5],), ([1, 2],)]),
    (try_defines_then_loop, [(0,), (5,)]),
    (nonlocal_modified_in_loop_through_closure, [(4,)]),
    (loop_else_free_search, [([1, 2, 3], 2), ([1], 5)]),
    (shadowed_builtins, [(4,)]),
    (match_statement, [([1, 2],), ({"k": 3},), (7,)]),
    (conditional_del_and_reassign, [(True,), (False,)]),
    (nested_break_flags, [(5,)]),
    (return_from_nested_function_loop, [([1, 3, 24, 5],), ([1, 3],)]),
]

# Called with keyword arguments too: (function, args, kwargs).
KEYWORD_CASES = [
    (star_args, (1, 2), {"scale": 3, "aa": True, "b": False}),
    (default_args, (1,), {"z": 5}),
]
