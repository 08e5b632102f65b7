"""ParseExampleV2 and ParseSingleExample kernels: ``tf.train.Example`` protos to dense and sparse tensors.

Dense features (``FixedLenFeature``) take the feature's values reshaped to ``dense_shapes``
(or the default when absent; ``-1`` leading dimension: ``FixedLenSequenceFeature``, padded
with the default to the longest in the batch); sparse features (``VarLenFeature``) give COO
indices, values and the dense shape. Errors are TF's (missing required feature, wrong
type, wrong number of values).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors
from modtensor.framework.protos import example_pb2
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext

__all__ = ["ParseExampleV2Op", "ParseSingleExampleOp"]

_KIND = {dtypes.float32: "float_list", dtypes.int64: "int64_list", dtypes.string: "bytes_list"}
_TYPE_TEXT = {dtypes.float32: "float", dtypes.int64: "int64", dtypes.string: "string"}
_KIND_TEXT = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


def _values(feature: Any, dtype: dtypes.DType, key: str, example_name: str) -> np.ndarray:
    kind = feature.WhichOneof("kind")
    if kind is None:
        return np.zeros((0,), dtype=object if dtype == dtypes.string else dtype.as_numpy_dtype)
    if kind != _KIND[dtype]:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{_name(example_name)}Key: {key}.  Data types don't match. Data type: {_KIND_TEXT[kind]} but expected "
            f"type: {_TYPE_TEXT[dtype]}",
        )
    values = getattr(feature, kind).value
    if dtype == dtypes.string:
        out = np.empty(len(values), dtype=object)
        out[:] = list(values)
        return out
    return np.asarray(list(values), dtype=dtype.as_numpy_dtype)


def _parse(serialized: bytes, index: int) -> example_pb2.Example:
    try:
        return example_pb2.Example.FromString(serialized)
    except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise errors.InvalidArgumentError(
            None, None, f"Could not parse example input, value: '{serialized!r}'"
        ) from None


class _ParseBase(OpKernel):
    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self.sparse_types = [dtypes.as_dtype(t) for t in ctx.get_attr("sparse_types")]
        self.dense_types = [dtypes.as_dtype(t) for t in ctx.get_attr("Tdense")]
        self.dense_shapes = [
            [d.size for d in s.dim] if not s.unknown_rank else None
            for s in ctx.get_attr_proto("dense_shapes").list.shape
        ]

    def parse(
        self,
        ctx: OpKernelContext,
        serialized: np.ndarray,
        names: list[str],
        sparse_keys: list[str],
        dense_keys: list[str],
        defaults: list[np.ndarray],
    ) -> None:
        batch = serialized.ndim == 1
        records = serialized.reshape(-1).tolist()
        examples = [_parse(r, i) for i, r in enumerate(records)]
        prefix = [len(records)] if batch else []
        outputs: list[np.ndarray] = []
        # sparse: indices, values, shapes per key
        sparse_parts = []
        for key, dtype in zip(sparse_keys, self.sparse_types, strict=True):
            indices, values, longest = [], [], 0
            for b, example in enumerate(examples):
                feature = example.features.feature.get(key)
                vals = _values(feature, dtype, key, names[b]) if feature is not None else np.zeros((0,))
                vals = vals.astype(object if dtype == dtypes.string else dtype.as_numpy_dtype)
                longest = max(longest, len(vals))
                for j in range(len(vals)):
                    indices.append([b, j] if batch else [j])
                values.append(vals)
            flat = np.concatenate(values) if values else np.zeros((0,))
            flat = flat.astype(object if dtype == dtypes.string else dtype.as_numpy_dtype)
            rank = 2 if batch else 1
            sparse_parts.append(
                (
                    np.asarray(indices, dtype=np.int64).reshape(-1, rank),
                    flat,
                    np.asarray([*prefix, longest], dtype=np.int64),
                )
            )
        outputs += [p[0] for p in sparse_parts] + [p[1] for p in sparse_parts] + [p[2] for p in sparse_parts]
        for key, dtype, shape, default in zip(dense_keys, self.dense_types, self.dense_shapes, defaults, strict=True):
            outputs.append(self._dense(examples, names, key, dtype, shape, np.asarray(default), prefix))
        for i, value in enumerate(outputs):
            ctx.set_output(i, value)

    def _dense(
        self,
        examples: list[Any],
        names: list[str],
        key: str,
        dtype: dtypes.DType,
        shape: list[int],
        default: np.ndarray,
        prefix: list[int],
    ) -> np.ndarray:
        np_dtype = object if dtype == dtypes.string else dtype.as_numpy_dtype
        variable = bool(shape) and shape[0] == -1
        inner = shape[1:] if variable else shape
        inner_size = int(np.prod(inner)) if inner else 1
        rows = []
        for b, example in enumerate(examples):
            feature = example.features.feature.get(key)
            if feature is None or feature.WhichOneof("kind") is None:
                if variable:
                    rows.append(np.zeros((0, *inner), dtype=np_dtype))
                    continue
                if default.size == 0:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"{_name(names[b])}Feature: {key} (data type: {_TYPE_TEXT[dtype]}) is required but could not "
                        "be found.",
                    )
                rows.append(np.broadcast_to(default, shape).astype(np_dtype))
                continue
            vals = _values(feature, dtype, key, names[b])
            if variable:
                if len(vals) % inner_size:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"Name: {names[b]}, Key: {key}, Index: {b}.  Number of values != expected.  "
                        f"values size: {len(vals)} but output shape: [?{''.join(',' + str(d) for d in inner)}]",
                    )
                rows.append(vals.reshape(-1, *inner))
            else:
                expected = int(np.prod(shape)) if shape else 1
                if len(vals) != expected:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"{_name(names[b])}Key: {key}.  Can't parse serialized Example: Some {_KIND[dtype]} slice was "
                        "not parsed.",
                    )
                rows.append(vals.reshape(shape))
        if variable:
            longest = max((r.shape[0] for r in rows), default=0)
            pad = default.reshape(-1)[0] if default.size else (b"" if dtype == dtypes.string else 0)
            padded = []
            for r in rows:
                out = np.full((longest, *inner), pad, dtype=np_dtype)
                out[: r.shape[0]] = r
                padded.append(out)
            rows = padded
        if prefix:
            if not rows:
                return np.zeros((0, *(inner if variable else shape)), dtype=np_dtype)
            return np.stack(rows).astype(np_dtype)
        return np.asarray(rows[0], dtype=np_dtype)


def _name(example_name: str) -> str:
    return f"Name: {example_name}, " if example_name else ""


def _strings(value: Any) -> list[str]:
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in np.asarray(value).reshape(-1).tolist()]


class ParseExampleV2Op(_ParseBase):
    """ParseExampleV2: a scalar or vector of serialized Examples (ragged features: not supported)."""

    def compute(self, ctx: OpKernelContext) -> None:
        if self.node_def.attr["ragged_value_types"].list.type:
            raise errors.UnimplementedError(None, None, "ParseExampleV2: ragged features are not supported")
        serialized = np.asarray(ctx.inputs[0])
        names = _strings(ctx.inputs[1]) or [""] * max(1, serialized.size)
        sparse_keys = _strings(ctx.inputs[2])
        dense_keys = _strings(ctx.inputs[3])
        defaults = list(ctx.inputs[5 : 5 + len(self.dense_types)])
        self.parse(ctx, serialized, names, sparse_keys, dense_keys, defaults)


class ParseSingleExampleOp(_ParseBase):
    """ParseSingleExample: one serialized Example; keys are attrs."""

    def compute(self, ctx: OpKernelContext) -> None:
        serialized = np.asarray(ctx.inputs[0])
        sparse_keys = _strings_attr(self.node_def.attr["sparse_keys"].list.s)
        dense_keys = _strings_attr(self.node_def.attr["dense_keys"].list.s)
        self.parse(ctx, serialized, [""], sparse_keys, dense_keys, list(ctx.inputs[1:]))


def _strings_attr(values: Any) -> list[str]:
    return [v.decode("utf-8") for v in values]
