"""TF-named linear algebra: ``tf.einsum``, ``tf.tensordot``, ``tf.eye``, ``tf.norm`` and ``tf.linalg.*``.

Each function has TensorFlow 2's signature and builds TF's ops (``Einsum``, ``MatrixInverse``,
``Qr``, ``Svd``, ``MatrixDiagV3``, ...) or TF's composition of them (``norm``, ``trace``,
``tensordot``). ``__all__`` lists the names TF has at the top level; ``modtensor.linalg``
exports the rest.
"""

from __future__ import annotations

import collections
import re
from typing import Any, NamedTuple

import numpy as np

from modtensor.api import array_ops
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant_value, convert_to_tensor, is_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.tensor import Tensor

__all__ = ["einsum", "eye", "norm", "tensordot"]

# --------------------------------------------------------------------------- einsum


def _resolve_equation(equation: str, num_inputs: int) -> tuple[str, list[str], str]:
    """TF's ``_einsum_v2_parse_and_resolve_equation`` checks; returns (equation with '->', inputs, output)."""
    resolved = equation.replace(" ", "")
    ellipsis = "0" if "..." in equation else None
    if ellipsis:
        if ellipsis in resolved:
            raise ValueError(f'Invalid character "{ellipsis}" in equation: {equation}.')
        resolved = resolved.replace("...", ellipsis)
    allowed = "a-zA-Z" + (ellipsis or "")
    match = re.match(f"^([{allowed},]*)(->[{allowed}]*)?$", resolved)
    if not match:
        raise ValueError(f"Subscripts have incorrect format: {resolved}")
    input_labels = match.group(1).split(",")
    output_labels = match.group(2)[2:] if match.group(2) else None
    if num_inputs != len(input_labels):
        raise ValueError(f'Got {num_inputs} inputs for equation "{equation}", expecting {len(input_labels)}')
    if "->" not in resolved:
        counts = collections.Counter(match.group(1))
        output_labels = "".join(x for x in sorted(counts) if x != "," and counts[x] == 1)
    if output_labels and len(set(output_labels)) != len(output_labels):
        raise ValueError(f"Output subscripts contain a label appearing more than once: {equation}")
    for label in output_labels or "":
        if label != ellipsis and label not in set(match.group(1)):
            raise ValueError(f"Output subscripts contain the label {label} not present in the input subscripts.")
    if ellipsis and output_labels and output_labels.count(ellipsis) > 1:
        raise ValueError(f"Output subscripts contain multiple ellipsis: {equation}")
    back = (lambda s: s.replace(ellipsis, "...")) if ellipsis else (lambda s: s)
    return back(",".join(input_labels) + "->" + output_labels), [back(s) for s in input_labels], back(output_labels)


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Tensor:
    """Tensor contraction by Einstein summation (``Einsum``; more than two inputs contract left to right)."""
    name = kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(
            f"Invalid keyword arguments for einsum: {', '.join(kwargs)}. Valid arguments: name, optimize, greedy."
        )
    with op_scope(name, "einsum", list(inputs)):
        tensors = [t if is_tensor(t) else convert_to_tensor(t) for t in inputs]
        resolved, input_labels, output_labels = _resolve_equation(equation, len(tensors))
        if len(tensors) <= 2:
            return apply_op("Einsum", inputs=tensors, equation=resolved)
        current, current_labels = tensors[0], input_labels[0]
        for i in range(1, len(tensors)):
            later = set("".join(input_labels[i + 1 :]) + output_labels)
            labels = current_labels + input_labels[i]
            if i == len(tensors) - 1:
                keep = output_labels
            else:
                named = "".join(dict.fromkeys(c for c in labels.replace("...", "") if c in later))
                keep = ("..." if "..." in labels else "") + named
            current = apply_op(
                "Einsum", inputs=[current, tensors[i]], equation=f"{current_labels},{input_labels[i]}->{keep}"
            )
            current_labels = keep
        return current


# --------------------------------------------------------------------------- tensordot


def _tensordot_axes(a: Tensor, axes: Any) -> tuple[list[int], list[int]]:
    rank = a.shape.rank
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        if rank is None:
            raise NotImplementedError("tensordot with an integer `axes` needs the rank of `a` to be known statically")
        if axes > rank:
            raise ValueError(
                f"`axes` must not be larger than the number of dimensions of tensor {a}.  Received {axes}, vs "
                f"tensor dimensions {rank}."
            )
        return list(range(rank - axes, rank)), list(range(axes))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        a_axes, b_axes = [int(v) for v in a_axes], [int(v) for v in b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
        return a_axes, b_axes
    value = constant_value(axes)
    if value is None:
        raise NotImplementedError("tensordot with `axes` unknown before running is not implemented")
    return _tensordot_axes(a, value.tolist())


def _tensordot_reshape(a: Tensor, axes: list[int], flipped: bool) -> tuple[Tensor, Any, list[int | None]]:
    """``a`` transposed and reshaped to a matrix for the contraction (TF's ``_tensordot_reshape``)."""
    rank = a.shape.rank
    if rank is None:
        raise NotImplementedError("tensordot needs the ranks of its inputs to be known statically")
    shape_a = a.shape.as_list()
    axes = [i if i >= 0 else i + rank for i in axes]
    free = [i for i in range(rank) if i not in axes]
    free_dims = [shape_a[i] for i in free]
    if a.shape.is_fully_defined():
        perm = axes + free if flipped else free + axes
        prod_free = int(np.prod([shape_a[i] for i in free]))
        prod_axes = int(np.prod([shape_a[i] for i in axes]))
        new_shape: Any = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        a_trans = array_ops.transpose(a, perm) if perm != list(range(rank)) else a
        reshaped = array_ops.reshape(a_trans, new_shape) if a_trans.shape.as_list() != new_shape else a_trans
        return reshaped, free_dims, free_dims
    axes_t = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
    free_t = convert_to_tensor(free, dtype=dtypes.int32, name="free")
    shape_t = array_ops.shape(a)
    free_dims_t = array_ops.gather(shape_t, free_t)
    axes_dims_t = array_ops.gather(shape_t, axes_t)
    prod_free_t, prod_axes_t = math.reduce_prod(free_dims_t), math.reduce_prod(axes_dims_t)
    if flipped:
        perm_t = array_ops.concat([axes_t, free_t], 0)
        new_shape = array_ops.stack([prod_axes_t, prod_free_t])
    else:
        perm_t = array_ops.concat([free_t, axes_t], 0)
        new_shape = array_ops.stack([prod_free_t, prod_axes_t])
    return array_ops.reshape(array_ops.transpose(a, perm_t), new_shape), free_dims_t, free_dims


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Tensor:
    """The sum of products over ``axes`` (an int: the last/first N; or two lists), as one ``MatMul``."""
    with op_scope(name, "Tensordot", [a, b, axes]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        a_axes, b_axes = _tensordot_axes(a, axes)
        a_reshape, a_free, a_static = _tensordot_reshape(a, a_axes, False)
        b_reshape, b_free, b_static = _tensordot_reshape(b, b_axes, True)
        product = math.matmul(a_reshape, b_reshape)
        if isinstance(a_free, list) and isinstance(b_free, list):
            if product.shape.is_fully_defined() and product.shape.as_list() == a_free + b_free:
                return product
            return array_ops.reshape(product, a_free + b_free, name=scope)
        a_free = a_free if is_tensor(a_free) else convert_to_tensor(a_free, dtype=dtypes.int32)
        b_free = b_free if is_tensor(b_free) else convert_to_tensor(b_free, dtype=dtypes.int32)
        result = array_ops.reshape(product, array_ops.concat([a_free, b_free], 0), name=scope)
        if isinstance(result, SymbolicTensor) and None not in (a_static, b_static):
            result.set_shape(a_static + b_static)
        return result


# --------------------------------------------------------------------------- eye, norm


def eye(
    num_rows: Any,
    num_columns: Any = None,
    batch_shape: Any = None,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> Tensor:
    """An identity matrix (or a batch of them) of ``num_rows`` x ``num_columns`` (``MatrixDiagV3`` of ones)."""
    with op_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if is_tensor(num_rows) or is_tensor(num_columns):
            diag_size: Any = math.minimum(num_rows, num_columns)
        else:
            if not isinstance(num_rows, (int, np.integer)) or not isinstance(num_columns, (int, np.integer)):
                raise TypeError(
                    "Arguments `num_rows` and `num_columns` must be positive integer values. Received: "
                    f"num_rows={num_rows}, num_columns={num_columns}"
                )
            is_square = num_rows == num_columns
            diag_size = int(np.minimum(num_rows, num_columns))
        if is_tensor(batch_shape) or is_tensor(diag_size):
            batch_t = convert_to_tensor(batch_shape, name="shape", dtype=dtypes.int32)
            diag_shape: Any = array_ops.concat((batch_t, [diag_size]), axis=0)
        else:
            diag_shape = list(batch_shape) + [diag_size]
        ones = array_ops.ones(diag_shape, dtype=dtype)
        rows, cols = (-1, -1) if is_square else (num_rows, num_columns)
        return diag(ones, num_rows=rows, num_cols=cols)


def norm(
    tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: Any = None, name: str | None = None
) -> Tensor:  # noqa: A002
    """Vector norms (euclidean, 1, inf, p) and matrix norms (fro, 1, 2, inf) over ``axis`` (TF's ``tf.norm``)."""
    keepdims = bool(keepdims)
    is_matrix_norm = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix_norm:
        axis = tuple(axis)
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if ord not in supported:
            raise ValueError(f"'ord' must be a supported matrix norm in {supported}, got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        supported = ["euclidean", 1, 2, np.inf]
        if (not np.isreal(ord) or ord <= 0) and ord not in supported:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    with op_scope(name, "norm", [tensor]):
        tensor = convert_to_tensor(tensor)
        if ord in ("fro", "euclidean", 2, 2.0):
            if is_matrix_norm and ord in (2, 2.0):
                result = _matrix_2_norm(tensor, axis)
            else:
                result = math.sqrt(math.reduce_sum(tensor * tensor, axis, keepdims=True))
        else:
            result = math.abs(tensor)
            if ord == 1:
                result = math.reduce_sum(result, None if axis is None else axis[0], keepdims=True)
                if is_matrix_norm:
                    result = math.reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix_norm:
                    result = math.reduce_sum(result, axis[1], keepdims=True)
                result = math.reduce_max(result, None if axis is None else axis[0], keepdims=True)
            else:
                result = math.pow(math.reduce_sum(math.pow(result, ord), axis, keepdims=True), 1.0 / ord)
        if not keepdims:
            result = array_ops.squeeze(result, axis)
        return result


def _matrix_2_norm(tensor: Tensor, axis: tuple[int, int]) -> Tensor:
    """The largest singular value over the two ``axis`` dims, kept as size-1 dims (TF computes it the same way)."""
    rank = tensor.shape.rank
    if rank is None:
        raise NotImplementedError("the matrix 2-norm needs the input's rank to be known statically")
    positive = [a + rank if a < 0 else a for a in axis]
    perm_before = [i for i in range(rank) if i not in positive] + positive
    perm_after = [perm_before.index(i) for i in range(rank)]
    singular = apply_op("Svd", input=array_ops.transpose(tensor, perm_before), compute_uv=False)[0]
    largest = array_ops.expand_dims(math.reduce_max(math.abs(singular), axis=-1, keepdims=True), axis=-1)
    return array_ops.transpose(largest, perm_after)


# --------------------------------------------------------------------------- tf.linalg


class Qr(NamedTuple):
    """``tf.linalg.qr``'s result."""

    q: Tensor
    r: Tensor


def inv(input: Any, adjoint: bool = False, name: str | None = None) -> Tensor:  # noqa: A002
    """The inverse of each inner square matrix (``MatrixInverse``)."""
    return apply_op("MatrixInverse", name=name, input=input, adjoint=adjoint)


def det(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The determinant of each inner square matrix (``MatrixDeterminant``)."""
    return apply_op("MatrixDeterminant", name=name, input=input)


def cholesky(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The lower Cholesky factor of each inner Hermitian positive-definite matrix (``Cholesky``)."""
    return apply_op("Cholesky", name=name, input=input)


def solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """X with ``matrix @ X = rhs`` for each inner system (``MatrixSolve``)."""
    return apply_op("MatrixSolve", name=name, matrix=matrix, rhs=rhs, adjoint=adjoint)


def qr(input: Any, full_matrices: bool = False, name: str | None = None) -> Qr:  # noqa: A002
    """The QR decomposition of each inner matrix as ``(q, r)`` (``Qr``)."""
    q, r = apply_op("Qr", name=name, input=input, full_matrices=full_matrices)
    return Qr(q, r)


def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True, name: str | None = None) -> Any:
    """Singular values (``s``), and with ``compute_uv`` the ``(s, u, v)`` with ``tensor = u diag(s) v^H`` (``Svd``)."""
    s, u, v = apply_op("Svd", name=name, input=tensor, compute_uv=compute_uv, full_matrices=full_matrices)
    return (s, u, v) if compute_uv else s


def eigh(tensor: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """Eigenvalues (ascending) and eigenvectors of each inner self-adjoint matrix (``SelfAdjointEigV2``)."""
    e, v = apply_op("SelfAdjointEigV2", name=name, input=tensor, compute_v=True)
    return e, v


def eigvalsh(tensor: Any, name: str | None = None) -> Tensor:
    """Eigenvalues (ascending) of each inner self-adjoint matrix (``SelfAdjointEigV2``, ``compute_v=False``)."""
    return apply_op("SelfAdjointEigV2", name=name, input=tensor, compute_v=False)[0]


def _padding(value: Any, padding_value: Any) -> Any:
    return bool(padding_value) if getattr(value, "dtype", None) == dtypes.bool else padding_value


def diag(
    diagonal: Any,
    name: str = "diag",
    k: Any = 0,
    num_rows: Any = -1,
    num_cols: Any = -1,
    padding_value: Any = 0,
    align: str = "RIGHT_LEFT",
) -> Tensor:
    """Matrices with ``diagonal`` on diagonals ``k`` and ``padding_value`` elsewhere (``MatrixDiagV3``)."""
    return apply_op("MatrixDiagV3", name=name, diagonal=diagonal, k=k, num_rows=num_rows, num_cols=num_cols,
                    padding_value=_padding(diagonal, padding_value), align=align)  # fmt: skip


def diag_part(
    input: Any,
    name: str = "diag_part",
    k: Any = 0,
    padding_value: Any = 0,
    align: str = "RIGHT_LEFT",  # noqa: A002
) -> Tensor:
    """Diagonals ``k`` of each inner matrix (``MatrixDiagPartV3``)."""
    return apply_op("MatrixDiagPartV3", name=name, input=input, k=k, padding_value=_padding(input, padding_value),
                    align=align)  # fmt: skip


def set_diag(
    input: Any,  # noqa: A002
    diagonal: Any,
    name: str = "set_diag",
    k: Any = 0,
    align: str = "RIGHT_LEFT",
) -> Tensor:
    """Each inner matrix of ``input`` with its diagonals ``k`` replaced by ``diagonal`` (``MatrixSetDiagV3``)."""
    return apply_op("MatrixSetDiagV3", name=name, input=input, diagonal=diagonal, k=k, align=align)


def triangular_solve(
    matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False, name: str | None = None
) -> Tensor:
    """X with ``T @ X = rhs`` (``T^H`` with ``adjoint``), T the lower (``lower``) or upper triangle of each inner
    ``matrix``; batch dims broadcast (``MatrixTriangularSolve``)."""
    with op_scope(name, "triangular_solve", [matrix, rhs]):
        return apply_op("MatrixTriangularSolve", matrix=matrix, rhs=rhs, lower=lower, adjoint=adjoint)


def band_part(input: Any, num_lower: Any, num_upper: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Each inner matrix with the elements outside the band zeroed (``MatrixBandPart``; -1 keeps a whole side)."""
    return apply_op("MatrixBandPart", name=name, input=input, num_lower=num_lower, num_upper=num_upper)


def trace(x: Any, name: str | None = None) -> Tensor:
    """The sum of each inner matrix's main diagonal (``MatrixDiagPartV3`` then ``Sum``)."""
    with op_scope(name, "Trace", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return math.reduce_sum(diag_part(x), [-1], name=scope)


# --------------------------------------------------------------------------- log-determinant, pseudo-inverse


def logdet(matrix: Any, name: str | None = None) -> Tensor:
    """Log-determinant of each Hermitian positive-definite inner matrix: ``2 * sum(log(diag(cholesky)))``."""
    with op_scope(name, "logdet", [matrix]):
        chol = apply_op("Cholesky", input=matrix)
        if chol.dtype.is_complex:
            raise NotImplementedError("logdet of complex matrices is not implemented yet (no Real op)")
        return 2.0 * math.reduce_sum(math.log(diag_part(chol)), axis=[-1])


def pinv(a: Any, rcond: Any = None, validate_args: bool = False, name: str | None = None) -> Tensor:
    """Moore-Penrose pseudo-inverse of each inner matrix from its SVD, singular values below ``rcond`` dropped."""
    from modtensor.framework import tensor_shape

    with op_scope(name or "pinv", "pinv", [a]):
        a = convert_to_tensor(a, name="a")
        if not a.dtype.is_floating:
            raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
        if a.shape.rank is not None and a.shape.rank < 2:
            raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {a.shape.rank}).")
        if a.shape.rank is None and validate_args:
            raise NotImplementedError("pinv's validate_args on an unknown rank is not implemented yet")
        dtype = a.dtype.as_numpy_dtype
        if rcond is None:

            def get_dim_size(dim: int) -> Any:
                value = tensor_shape.dimension_value(a.shape[dim])
                return value if value is not None else array_ops.shape(a)[dim]

            num_rows, num_cols = get_dim_size(-2), get_dim_size(-1)
            if isinstance(num_rows, int) and isinstance(num_cols, int):
                max_rows_cols: Any = float(max(num_rows, num_cols))
            else:
                max_rows_cols = math.cast(math.maximum(num_rows, num_cols), dtype)
            rcond = 10.0 * max_rows_cols * np.finfo(dtype).eps
        rcond = convert_to_tensor(rcond, dtype=a.dtype, name="rcond")
        singular_values, left, right = svd(a, full_matrices=False, compute_uv=True)
        cutoff = rcond * math.reduce_max(singular_values, axis=-1)
        singular_values = array_ops.where(
            singular_values > array_ops.expand_dims(cutoff, -1), singular_values, np.array(np.inf, dtype)
        )
        a_pinv = math.matmul(right / array_ops.expand_dims(singular_values, -2), left, adjoint_b=True)
        if a.shape.rank is not None:
            a_pinv.set_shape(a.shape[:-2].concatenate([a.shape[-1], a.shape[-2]]))
        return a_pinv


class LogMatrixDeterminant(NamedTuple):
    """``tf.linalg.slogdet``'s result."""

    sign: Tensor
    log_abs_determinant: Tensor


def slogdet(input: Any, name: str | None = None) -> LogMatrixDeterminant:  # noqa: A002
    """The sign and the log of the absolute determinant of each inner matrix (``LogMatrixDeterminant``)."""
    sign, log_abs_determinant = apply_op("LogMatrixDeterminant", name=name, input=input)
    return LogMatrixDeterminant(sign, log_abs_determinant)
