"""``modtensor.sparse``: TensorFlow's ``tf.sparse`` names (``SparseTensor`` and its functions)."""

from modtensor.api.sparse_ops import (
    SparseTensor,
    add,
    concat,
    expand_dims,
    fill_empty_rows,
    from_dense,
    reduce_sum,
    reorder,
    reshape,
    retain,
    segment_mean,
    segment_sqrt_n,
    segment_sum,
    slice,  # noqa: A004
    sparse_dense_matmul,
    to_dense,
    to_indicator,
    transpose,
)

__all__ = [
    "SparseTensor", "add", "concat", "expand_dims", "fill_empty_rows", "from_dense", "reduce_sum", "reorder",
    "reshape", "retain", "segment_mean", "segment_sqrt_n", "segment_sum", "slice", "sparse_dense_matmul",
    "to_dense", "to_indicator", "transpose",
]  # fmt: skip
