"""tf.data programs run by TF 2.21 (tools/make_golden_data.py) and by modtensor (tests/api/test_data_golden.py).

Each program takes the framework module (``tensorflow`` or ``modtensor``) and returns a
Dataset (recorded: element_spec repr, repr, cardinality, the elements) or any other value;
an exception is recorded as its class name and message. Programs are small and seeded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

PROGRAMS: dict[str, Callable[[Any], Any]] = {}


def program(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    PROGRAMS[fn.__name__] = fn
    return fn


@program
def range_stop(tf: Any) -> Any:
    return tf.data.Dataset.range(5)


@program
def range_start_stop_step(tf: Any) -> Any:
    return tf.data.Dataset.range(10, 2, -3)


@program
def range_int32(tf: Any) -> Any:
    return tf.data.Dataset.range(1, 8, 2, output_type=tf.int32)


@program
def from_tensors_tuple(tf: Any) -> Any:
    return tf.data.Dataset.from_tensors(([1, 2], 3.5, "s"))


@program
def from_tensor_slices_dict(tf: Any) -> Any:
    return tf.data.Dataset.from_tensor_slices({"a": [[1, 2], [3, 4], [5, 6]], "b": [b"x", b"y", b"z"]})


@program
def from_tensor_slices_scalar_error(tf: Any) -> Any:
    return tf.data.Dataset.from_tensor_slices(1.0)


@program
def map_tuple_unpack(tf: Any) -> Any:
    ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [10.0, 20.0, 30.0]))
    return ds.map(lambda a, b: (tf.cast(a, tf.float32) + b, a * 2))


@program
def map_dict(tf: Any) -> Any:
    ds = tf.data.Dataset.from_tensor_slices({"x": [1, 2, 3]})
    return ds.map(lambda d: {"y": d["x"] * 10, "z": tf.cast(d["x"], tf.float32) / 2})


@program
def map_list_result_is_tuple(tf: Any) -> Any:
    return tf.data.Dataset.range(3).map(lambda x: [x, x + 1])


@program
def map_parallel_autotune(tf: Any) -> Any:
    return tf.data.Dataset.range(20).map(lambda x: x * x, num_parallel_calls=tf.data.AUTOTUNE)


@program
def map_parallel_deterministic(tf: Any) -> Any:
    return tf.data.Dataset.range(12).map(lambda x: x + 1, num_parallel_calls=3, deterministic=True)


@program
def map_captured(tf: Any) -> Any:
    c = tf.constant([1, 2, 3], tf.int64)
    return tf.data.Dataset.range(3).map(lambda x: x * c)


@program
def map_none_error(tf: Any) -> Any:
    return tf.data.Dataset.range(3).map(lambda x: None)


@program
def filter_even(tf: Any) -> Any:
    return tf.data.Dataset.range(10).filter(lambda x: x % 2 == 0)


@program
def filter_bad_predicate(tf: Any) -> Any:
    return tf.data.Dataset.range(10).filter(lambda x: x)


@program
def batch_remainder(tf: Any) -> Any:
    return tf.data.Dataset.range(7).batch(3)


@program
def batch_drop_remainder(tf: Any) -> Any:
    return tf.data.Dataset.range(7).batch(3, drop_remainder=True)


@program
def batch_nested(tf: Any) -> Any:
    return tf.data.Dataset.from_tensor_slices(([[1, 2], [3, 4], [5, 6]], [1.0, 2.0, 3.0])).batch(2)


@program
def batch_then_unbatch(tf: Any) -> Any:
    return tf.data.Dataset.range(5).batch(2).unbatch()


@program
def batch_zero_error(tf: Any) -> Any:
    return list(tf.data.Dataset.range(5).batch(0).as_numpy_iterator())


@program
def padded_batch_default(tf: Any) -> Any:
    ds = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill(tf.expand_dims(x, 0), x))
    return ds.padded_batch(2)


@program
def padded_batch_shapes_values(tf: Any) -> Any:
    ds = tf.data.Dataset.range(1, 4).map(
        lambda x: (tf.fill(tf.expand_dims(x, 0), x), tf.fill(tf.stack([x, 2]), tf.cast(x, tf.float32)))
    )
    return ds.padded_batch(2, padded_shapes=([4], [None, 2]), padding_values=(tf.constant(-1, tf.int64), 0.5))


@program
def padded_batch_incompatible(tf: Any) -> Any:
    ds = tf.data.Dataset.from_tensors([1, 2, 3])
    return ds.padded_batch(2, padded_shapes=[2])


@program
def shuffle_seeded(tf: Any) -> Any:
    return tf.data.Dataset.range(30).shuffle(10, seed=42)


@program
def shuffle_repeat_reshuffles(tf: Any) -> Any:
    return tf.data.Dataset.range(8).shuffle(4, seed=3).repeat(3)


@program
def shuffle_fixed_order_each_epoch(tf: Any) -> Any:
    return tf.data.Dataset.range(8).shuffle(8, seed=9, reshuffle_each_iteration=False).repeat(2)


@program
def shuffle_global_seed(tf: Any) -> Any:
    tf.random.set_seed(1234)
    return tf.data.Dataset.range(16).shuffle(16)


@program
def shuffle_zero_buffer_error(tf: Any) -> Any:
    return list(tf.data.Dataset.range(5).shuffle(0).as_numpy_iterator())


@program
def repeat_take_skip(tf: Any) -> Any:
    return tf.data.Dataset.range(3).repeat(3).skip(2).take(5)


@program
def repeat_forever_take(tf: Any) -> Any:
    return tf.data.Dataset.range(2).repeat().take(5)


@program
def take_all_skip_all(tf: Any) -> Any:
    return tf.data.Dataset.range(4).take(-1).concatenate(tf.data.Dataset.range(4).skip(-1))


@program
def prefetch_autotune(tf: Any) -> Any:
    return tf.data.Dataset.range(6).map(lambda x: x * 3).prefetch(tf.data.AUTOTUNE)


@program
def zip_nested(tf: Any) -> Any:
    a = tf.data.Dataset.range(4)
    b = tf.data.Dataset.range(10, 13)
    return tf.data.Dataset.zip((a, {"b": b}))


@program
def zip_list_error(tf: Any) -> Any:
    return tf.data.Dataset.zip([tf.data.Dataset.range(2), tf.data.Dataset.range(2)])


@program
def concatenate_datasets(tf: Any) -> Any:
    return tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(10, 12))


@program
def concatenate_incompatible(tf: Any) -> Any:
    return tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensors(1.0))


@program
def cache_memory_twice(tf: Any) -> Any:
    ds = tf.data.Dataset.range(4).map(lambda x: x + 100).cache()
    return ds.concatenate(ds)


@program
def interleave_cycle_block(tf: Any) -> Any:
    ds = tf.data.Dataset.range(1, 5)
    return ds.interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=2)


@program
def interleave_parallel(tf: Any) -> Any:
    ds = tf.data.Dataset.range(1, 6)
    return ds.interleave(
        lambda x: tf.data.Dataset.range(x * 10, x * 10 + x), cycle_length=3, block_length=1, num_parallel_calls=2
    )


@program
def flat_map_ranges(tf: Any) -> Any:
    return tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x))


@program
def enumerate_start(tf: Any) -> Any:
    return tf.data.Dataset.from_tensor_slices([b"a", b"b", b"c"]).enumerate(start=5)


@program
def reduce_sum(tf: Any) -> Any:
    return tf.data.Dataset.range(5).reduce(tf.constant(0, tf.int64), lambda s, x: s + x).numpy()


@program
def reduce_structure(tf: Any) -> Any:
    initial = (tf.constant(0, tf.int64), tf.constant(1, tf.int64))
    result = tf.data.Dataset.range(1, 4).reduce(initial, lambda s, x: (s[0] + x, s[1] * x))
    return [r.numpy() for r in result]


@program
def scan_running_sum(tf: Any) -> Any:
    return tf.data.Dataset.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10 + x))


@program
def take_while_less(tf: Any) -> Any:
    return tf.data.Dataset.range(10).take_while(lambda x: x < 4)


@program
def cardinalities(tf: Any) -> Any:
    ds = tf.data.Dataset.range(10)
    return [
        int(d.cardinality())
        for d in (
            ds,
            ds.batch(3),
            ds.batch(3, drop_remainder=True),
            ds.repeat(),
            ds.repeat(2),
            ds.filter(lambda x: x > 2),
            ds.take(3),
            ds.skip(4),
            ds.repeat().take(7),
            ds.map(lambda x: x),
            ds.shuffle(3),
            ds.prefetch(1),
            ds.batch(2).unbatch(),
            tf.data.Dataset.zip((ds, ds.take(4))),
            ds.concatenate(ds),
            ds.flat_map(lambda x: tf.data.Dataset.range(x)),
            ds.repeat().filter(lambda x: x > 2),
        )
    ]


@program
def len_of_dataset(tf: Any) -> Any:
    return len(tf.data.Dataset.range(7).batch(2))


@program
def len_infinite(tf: Any) -> Any:
    return len(tf.data.Dataset.range(7).repeat())


@program
def len_unknown(tf: Any) -> Any:
    return len(tf.data.Dataset.range(7).filter(lambda x: x > 2))


@program
def iterator_out_of_range(tf: Any) -> Any:
    it = iter(tf.data.Dataset.range(1))
    first = next(it).numpy()
    try:
        next(it)
    except StopIteration:
        return [int(first), "StopIteration"]
    return [int(first)]


@program
def get_next_out_of_range(tf: Any) -> Any:
    it = iter(tf.data.Dataset.range(1))
    it.get_next()
    return it.get_next()


@program
def get_next_as_optional(tf: Any) -> Any:
    it = iter(tf.data.Dataset.range(1))
    a = it.get_next_as_optional()
    b = it.get_next_as_optional()
    return [bool(a.has_value()), int(a.get_value()), bool(b.has_value())]


@program
def function_iteration(tf: Any) -> Any:
    ds = tf.data.Dataset.range(5).map(lambda x: x * 2)

    @tf.function
    def f() -> Any:
        it = iter(ds)
        return next(it) + next(it) + next(it)

    return int(f())


@program
def function_builds_dataset(tf: Any) -> Any:
    @tf.function
    def f() -> Any:
        d = tf.data.Dataset.range(6).map(lambda x: x + 1).batch(2)
        it = iter(d)
        return next(it), next(it), d.reduce(tf.constant(0, tf.int64), lambda s, x: s + tf.reduce_sum(x))

    return [t.numpy() for t in f()]


@program
def function_end_of_sequence(tf: Any) -> Any:
    @tf.function
    def f() -> Any:
        it = iter(tf.data.Dataset.range(1))
        next(it)
        return next(it)

    return f()


@program
def options_roundtrip(tf: Any) -> Any:
    options = tf.data.Options()
    options.deterministic = False
    options.threading.private_threadpool_size = 2
    ds = tf.data.Dataset.range(3).with_options(options)
    return [ds.options().deterministic, ds.options().threading.private_threadpool_size, list(ds.as_numpy_iterator())]


@program
def reprs(tf: Any) -> Any:
    ds = tf.data.Dataset.range(3)
    return [
        repr(x)
        for x in (
            ds.map(lambda x: x),
            ds.map(lambda x: x, num_parallel_calls=2),
            ds.batch(2),
            ds.shuffle(2),
            ds.filter(lambda x: x > 0),
            ds.take(1),
            ds.skip(1),
            ds.repeat(),
            ds.prefetch(1),
            ds.cache(),
            tf.data.Dataset.from_tensor_slices([1]),
            tf.data.Dataset.from_tensors(1),
            tf.data.Dataset.zip((ds, ds)),
            ds.concatenate(ds),
            ds.interleave(lambda x: ds),
            ds.flat_map(lambda x: ds),
            ds.batch(2).unbatch(),
        )
    ]


def _pairs() -> Any:
    for i in range(4):
        yield i, [float(i)] * i


@program
def from_generator_signature(tf: Any) -> Any:
    spec = (tf.TensorSpec((), tf.int32), tf.TensorSpec((None,), tf.float32))
    return tf.data.Dataset.from_generator(_pairs, output_signature=spec).repeat(2)


@program
def from_generator_types(tf: Any) -> Any:
    return tf.data.Dataset.from_generator(lambda: iter([b"a", b"bc"]), output_types=tf.string)


@program
def from_generator_bad_shape(tf: Any) -> Any:
    ds = tf.data.Dataset.from_generator(lambda: iter([[1, 2]]), output_signature=tf.TensorSpec((3,), tf.int64))
    return list(ds.as_numpy_iterator())


@program
def numpy_function_in_map(tf: Any) -> Any:
    return tf.data.Dataset.range(4).map(lambda x: tf.numpy_function(lambda v: v * 3, [x], tf.int64))


# ----------------------------------------------------------------------------- window


def _windows(ds: Any) -> Any:
    """The windows of ``ds`` as lists of values (a window is a dataset, or a structure of datasets)."""
    out = []
    for window in ds:
        if isinstance(window, tuple):
            out.append(tuple(list(w.as_numpy_iterator()) for w in window))
        elif isinstance(window, dict):
            out.append({k: list(w.as_numpy_iterator()) for k, w in window.items()})
        else:
            out.append(list(window.as_numpy_iterator()))
    return out


@program
def window_default_shift(tf: Any) -> Any:
    ds = tf.data.Dataset.range(7).window(3)
    return [repr(ds), repr(ds.element_spec), ds.cardinality(), _windows(ds)]


@program
def window_shift_stride_drop(tf: Any) -> Any:
    ds = tf.data.Dataset.range(7)
    cases = [(3, None, 1, True), (3, 1, 1, False), (3, 2, 2, False), (3, 2, 2, True), (2, 4, 1, False),
             (2, 4, 1, True), (4, 1, 3, False), (5, 5, 1, True), (8, 3, 1, False)]  # fmt: skip
    out = []
    for size, shift, stride, drop in cases:
        windows = ds.window(size, shift, stride, drop)
        out.append([windows.cardinality(), _windows(windows)])
    return out


@program
def window_flat_map_batch(tf: Any) -> Any:
    return tf.data.Dataset.range(7).window(3, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(3))


@program
def window_tuple_elements(tf: Any) -> Any:
    ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [b"a", b"b", b"c"])).window(2)
    batched = ds.flat_map(lambda a, b: tf.data.Dataset.zip((a, b)).batch(2))
    return [repr(ds.element_spec), _windows(ds), batched]


@program
def window_dict_elements(tf: Any) -> Any:
    ds = tf.data.Dataset.from_tensor_slices({"x": [1, 2, 3], "y": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]}).window(2, 1)
    return [repr(ds.element_spec), _windows(ds), ds.flat_map(lambda w: tf.data.Dataset.zip(w).batch(2))]


@program
def window_inner_dataset(tf: Any) -> Any:
    window = next(iter(tf.data.Dataset.range(5).window(3)))
    return [repr(window), repr(window.element_spec), window.cardinality(), list(window.batch(2).as_numpy_iterator())]


@program
def window_map_reduce(tf: Any) -> Any:
    ds = tf.data.Dataset.range(5).window(2)
    return ds.map(lambda w: w.reduce(tf.constant(0, tf.int64), lambda s, x: s + x))


@program
def window_cardinalities(tf: Any) -> Any:
    r = tf.data.Dataset.range(7)
    return [
        r.repeat().window(2).cardinality(),
        r.filter(lambda x: x > 0).window(2).cardinality(),
        tf.data.Dataset.range(0).window(2).cardinality(),
        _windows(tf.data.Dataset.range(0).window(2)),
    ]


@program
def window_size_zero(tf: Any) -> Any:
    return tf.data.Dataset.range(3).window(0)


@program
def window_shift_zero(tf: Any) -> Any:
    return tf.data.Dataset.range(3).window(2, shift=0)


@program
def window_stride_negative(tf: Any) -> Any:
    return tf.data.Dataset.range(3).window(2, stride=-1)


@program
def window_in_function(tf: Any) -> Any:
    @tf.function
    def f() -> Any:
        ds = tf.data.Dataset.range(6).window(3, 2).flat_map(lambda w: w.batch(3))
        it = iter(tf.data.Dataset.range(6).window(2).flat_map(lambda w: w))
        first = next(it) + next(it) * 10 + next(it) * 100
        return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + tf.reduce_sum(x)), first

    return f()
