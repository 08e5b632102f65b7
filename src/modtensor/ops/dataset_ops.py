"""tf.data ops: dataset sources and transformations, iterators, optionals, seed generators and caches.

OpDefs equal TensorFlow 2.21's, including the full types TF gives dataset and optional
outputs (``TFT_DATASET[TFT_FOR_EACH[TFT_PRODUCT, TFT_TENSOR[TFT_VAR "T"], TFT_VAR "T"]]``,
set on the finalized OpDef because OpDefBuilder has no type-constructor call). A dataset
is a scalar ``variant`` tensor, an iterator a scalar ``resource``; shape functions are TF's:
scalars for handles, the ``output_shapes`` attr for the element components.
"""

from __future__ import annotations

from collections.abc import Callable

from modtensor.framework import common_shapes
from modtensor.framework.op_def_builder import OpDefBuilder, OpRegistrationData
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import full_type_pb2
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid

__all__ = ["DATASET_OPS", "FUNCTION_ATTRS"]


class _TypedBuilder(OpDefBuilder):
    """An OpDefBuilder that also sets the full type of some outputs when finalized."""

    def __init__(self, name: str, full_types: dict[int, Callable[[full_type_pb2.FullTypeDef], None]]):
        super().__init__(name, source=f"{__file__}:{name}")
        self._full_types = full_types

    def finalize(self) -> OpRegistrationData:
        data = super().finalize()
        for index, fill in self._full_types.items():
            fill(data.op_def.output_arg[index].experimental_full_type)
        return data


def _for_each(kind: int, var: str) -> Callable[[full_type_pb2.FullTypeDef], None]:
    """``kind[TFT_FOR_EACH[TFT_PRODUCT, TFT_TENSOR[TFT_VAR var], TFT_VAR var]]`` (TF's dataset/optional type)."""

    def fill(full_type: full_type_pb2.FullTypeDef) -> None:
        full_type.type_id = kind
        each = full_type.args.add(type_id=full_type_pb2.TFT_FOR_EACH)
        each.args.add(type_id=full_type_pb2.TFT_PRODUCT)
        each.args.add(type_id=full_type_pb2.TFT_TENSOR).args.add(type_id=full_type_pb2.TFT_VAR, s=var)
        each.args.add(type_id=full_type_pb2.TFT_VAR, s=var)

    return fill


def _string_dataset(full_type: full_type_pb2.FullTypeDef) -> None:
    """``TFT_DATASET[TFT_TENSOR[TFT_STRING]]``: the type of the record readers' outputs."""
    full_type.type_id = full_type_pb2.TFT_DATASET
    full_type.args.add(type_id=full_type_pb2.TFT_TENSOR).args.add(type_id=full_type_pb2.TFT_STRING)


def _op(name: str, full_types: dict[int, Callable[[full_type_pb2.FullTypeDef], None]] | None = None) -> OpDefBuilder:
    return global_registry().register_deferred(_TypedBuilder(name, full_types or {}))


def _dataset(name: str, types_attr: str = "output_types") -> OpDefBuilder:
    """A dataset op: output ``handle: variant`` of full type TFT_DATASET over ``types_attr``."""
    return _op(name, {0: _for_each(full_type_pb2.TFT_DATASET, types_attr)}).output("handle: variant")


def _element_shapes(ctx: InferenceContext) -> None:
    """TF's DatasetIteratorShape: output i has ``output_shapes[i]``."""
    shapes = ctx.get_attr("output_shapes")
    if len(shapes) != ctx.num_outputs():
        raise invalid(
            f"`output_shapes` must be the same length as `output_types` ({len(shapes)} vs. {ctx.num_outputs()}"
        )
    for i, shape in enumerate(shapes):
        ctx.set_output(i, ctx.make_shape_from_shape_proto(shape))


def _scalar_inputs(*indices: int) -> Callable[[InferenceContext], None]:
    """Scalar output; the named inputs must be scalars (TF's ``WithRank(input, 0)`` checks)."""

    def shape_fn(ctx: InferenceContext) -> None:
        for i in indices:
            ctx.with_rank(ctx.input(i), 0)
        ctx.set_output(0, ctx.scalar())

    return shape_fn


_COMMON = ("output_types: list(type) >= 1", "output_shapes: list(shape) >= 1")
_METADATA = "metadata: string = ''"


def _common(builder: OpDefBuilder, metadata: bool = True) -> OpDefBuilder:
    for spec in _COMMON:
        builder.attr(spec)
    if metadata:
        builder.attr(_METADATA)
    return builder


# ----------------------------------------------------------------------------- sources

(
    _dataset("TensorDataset", "Toutput_types")
    .input("components: Toutput_types")
    .attr("Toutput_types: list(type) >= 1")
    .attr("output_shapes: list(shape) >= 1")
    .attr(_METADATA)
    .set_is_stateful()
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    _dataset("TensorSliceDataset", "Toutput_types")
    .input("components: Toutput_types")
    .attr("Toutput_types: list(type) >= 1")
    .attr("output_shapes: list(shape) >= 1")
    .attr("is_files: bool = false")
    .attr(_METADATA)
    .attr("replicate_on_split: bool = false")
    .set_is_stateful()
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    _dataset("RangeDataset")
    .input("start: int64")
    .input("stop: int64")
    .input("step: int64")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .attr(_METADATA)
    .attr("replicate_on_split: bool = false")
    .set_is_stateful()
    .set_shape_fn(_scalar_inputs(0, 1, 2))
)
(
    _dataset("GeneratorDataset")
    .input("init_func_other_args: Tinit_func_args")
    .input("next_func_other_args: Tnext_func_args")
    .input("finalize_func_other_args: Tfinalize_func_args")
    .attr("init_func: func")
    .attr("next_func: func")
    .attr("finalize_func: func")
    .attr("Tinit_func_args: list(type) >= 0")
    .attr("Tnext_func_args: list(type) >= 0")
    .attr("Tfinalize_func_args: list(type) >= 0")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .attr(_METADATA)
    .set_is_stateful()
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    _op("TFRecordDataset", {0: _string_dataset})
    .input("filenames: string")
    .input("compression_type: string")
    .input("buffer_size: int64")
    .output("handle: variant")
    .attr(_METADATA)
    .set_is_stateful()
    .set_shape_fn(_scalar_inputs(1, 2))
)
(
    _op("TFRecordDatasetV2", {0: _string_dataset})
    .input("filenames: string")
    .input("compression_type: string")
    .input("buffer_size: int64")
    .input("byte_offsets: int64")
    .output("handle: variant")
    .attr(_METADATA)
    .set_is_stateful()
    .set_shape_fn(_scalar_inputs(1, 2))
)

# ----------------------------------------------------------------------------- functions over elements

(
    _common(
        _dataset("MapDataset")
        .input("input_dataset: variant")
        .input("other_arguments: Targuments")
        .attr("f: func")
        .attr("Targuments: list(type) >= 0"),
        metadata=False,
    )
    .attr("use_inter_op_parallelism: bool = true")
    .attr("preserve_cardinality: bool = false")
    .attr("force_synchronous: bool = false")
    .attr(_METADATA)
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    _common(
        _dataset("ParallelMapDatasetV2")
        .input("input_dataset: variant")
        .input("other_arguments: Targuments")
        .input("num_parallel_calls: int64")
        .attr("f: func")
        .attr("Targuments: list(type) >= 0"),
        metadata=False,
    )
    .attr("use_inter_op_parallelism: bool = true")
    .attr("deterministic: string = 'default'")
    .attr("preserve_cardinality: bool = false")
    .attr("use_unbounded_threadpool: bool = false")
    .attr(_METADATA)
    .set_shape_fn(_scalar_inputs(2))
)
(
    _common(
        _dataset("FilterDataset")
        .input("input_dataset: variant")
        .input("other_arguments: Targuments")
        .attr("predicate: func")
        .attr("Targuments: list(type) >= 0")
    ).set_shape_fn(common_shapes.scalar_shape)
)
(
    _common(
        _dataset("FlatMapDataset")
        .input("input_dataset: variant")
        .input("other_arguments: Targuments")
        .attr("f: func")
        .attr("Targuments: list(type) >= 0")
    ).set_shape_fn(common_shapes.scalar_shape)
)
(
    _common(
        _dataset("InterleaveDataset")
        .input("input_dataset: variant")
        .input("other_arguments: Targuments")
        .input("cycle_length: int64")
        .input("block_length: int64")
        .attr("f: func")
        .attr("Targuments: list(type) >= 0")
    ).set_shape_fn(_scalar_inputs(2, 3))
)
(
    _common(
        _dataset("ParallelInterleaveDatasetV4")
        .input("input_dataset: variant")
        .input("other_arguments: Targuments")
        .input("cycle_length: int64")
        .input("block_length: int64")
        .input("buffer_output_elements: int64")
        .input("prefetch_input_elements: int64")
        .input("num_parallel_calls: int64")
        .attr("f: func")
        .attr("deterministic: string = 'default'")
        .attr("Targuments: list(type) >= 0")
    ).set_shape_fn(_scalar_inputs(2, 3, 4, 5, 6))
)
(
    _common(
        _dataset("ScanDataset")
        .input("input_dataset: variant")
        .input("initial_state: Tstate")
        .input("other_arguments: Targuments")
        .attr("f: func")
        .attr("Tstate: list(type) >= 1")
        .attr("Targuments: list(type) >= 0"),
        metadata=False,
    )
    .attr("preserve_cardinality: bool = false")
    .attr("use_default_device: bool = true")
    .attr(_METADATA)
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    _common(
        _dataset("TakeWhileDataset")
        .input("input_dataset: variant")
        .input("other_arguments: Targuments")
        .attr("predicate: func")
        .attr("Targuments: list(type) >= 0")
    ).set_shape_fn(common_shapes.scalar_shape)
)

# ----------------------------------------------------------------------------- structure and order

(
    _dataset("BatchDatasetV2")
    .input("input_dataset: variant")
    .input("batch_size: int64")
    .input("drop_remainder: bool")
    .attr("parallel_copy: bool = false")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .attr(_METADATA)
    .set_shape_fn(_scalar_inputs(1, 2))
)


def _padded_batch_shape(ctx: InferenceContext) -> None:
    """PaddedBatchDatasetV2: scalar handle; batch_size, drop_remainder scalars; padded_shapes vectors."""
    n = ctx.get_attr("N")
    ctx.with_rank(ctx.input(1), 0)
    for i in range(2, 2 + n):
        ctx.with_rank(ctx.input(i), 1)
    ctx.with_rank(ctx.input(ctx.num_inputs() - 1), 0)
    ctx.set_output(0, ctx.scalar())


(
    _dataset("PaddedBatchDatasetV2", "Toutput_types")
    .input("input_dataset: variant")
    .input("batch_size: int64")
    .input("padded_shapes: N * int64")
    .input("padding_values: Toutput_types")
    .input("drop_remainder: bool")
    .attr("parallel_copy: bool = false")
    .attr("Toutput_types: list(type) >= 1")
    .attr("output_shapes: list(shape) >= 1")
    .attr("N: int >= 1")
    .attr(_METADATA)
    .set_shape_fn(_padded_batch_shape)
)
_common(_dataset("UnbatchDataset").input("input_dataset: variant")).set_shape_fn(common_shapes.scalar_shape)
(
    _common(
        _dataset("WindowDataset")
        .input("input_dataset: variant")
        .input("size: int64")
        .input("shift: int64")
        .input("stride: int64")
        .input("drop_remainder: bool")
    ).set_shape_fn(_scalar_inputs(1, 2, 3, 4))
)
(
    _common(
        _dataset("ShuffleDatasetV3")
        .input("input_dataset: variant")
        .input("buffer_size: int64")
        .input("seed: int64")
        .input("seed2: int64")
        .input("seed_generator: resource")
        .attr("reshuffle_each_iteration: bool = true")
    )
    .set_is_stateful()
    .set_shape_fn(_scalar_inputs(1, 2, 3, 4))
)
for _name in ("RepeatDataset", "TakeDataset", "SkipDataset"):
    _common(
        _dataset(_name).input("input_dataset: variant").input("count: int64")
    ).set_shape_fn(_scalar_inputs(1))
(
    _dataset("PrefetchDataset")
    .input("input_dataset: variant")
    .input("buffer_size: int64")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .attr("slack_period: int = 0")
    .attr("legacy_autotune: bool = true")
    .attr("buffer_size_min: int = 0")
    .attr(_METADATA)
    .set_shape_fn(_scalar_inputs(1))
)
(
    _common(
        _dataset("CacheDatasetV2").input("input_dataset: variant").input("filename: string").input("cache: resource")
    )
    .set_is_stateful()
    .set_shape_fn(_scalar_inputs(1, 2))
)
(
    _dataset("OptionsDataset")
    .input("input_dataset: variant")
    .attr("serialized_options: string")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .attr(_METADATA)
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    _dataset("ZipDataset")
    .input("input_datasets: N * variant")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .attr("N: int >= 1")
    .attr(_METADATA)
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    _common(_dataset("ConcatenateDataset").input("input_dataset: variant").input("another_dataset: variant"))
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    _dataset("RewriteDataset")
    .input("input_dataset: variant")
    .input("rewrite_name: string")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .set_shape_fn(common_shapes.scalar_shape)
)

# ----------------------------------------------------------------------------- state: seeds and caches

_op("DummySeedGenerator").output("handle: resource").set_is_stateful().set_shape_fn(common_shapes.scalar_shape)
_op("DummyMemoryCache").output("handle: resource").set_is_stateful().set_shape_fn(common_shapes.scalar_shape)


def _two_scalars(ctx: InferenceContext) -> None:
    ctx.set_output(0, ctx.scalar())
    ctx.set_output(1, ctx.scalar())


(
    _op("AnonymousSeedGenerator")
    .input("seed: int64")
    .input("seed2: int64")
    .input("reshuffle: bool")
    .output("handle: resource")
    .output("deleter: variant")
    .set_is_stateful()
    .set_shape_fn(_two_scalars)
)

# ----------------------------------------------------------------------------- consuming datasets

(
    _op("ReduceDataset")
    .input("input_dataset: variant")
    .input("initial_state: Tstate")
    .input("other_arguments: Targuments")
    .output("components: output_types")
    .attr("f: func")
    .attr("Tstate: list(type) >= 1")
    .attr("Targuments: list(type) >= 0")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .attr("use_inter_op_parallelism: bool = true")
    .attr(_METADATA)
    .set_is_stateful()
    .set_shape_fn(_element_shapes)
)
(
    _op("DatasetCardinality")
    .input("input_dataset: variant")
    .output("cardinality: int64")
    .attr("cardinality_options: string = ''")
    .set_shape_fn(common_shapes.scalar_shape)
)

# ----------------------------------------------------------------------------- iterators and optionals

(
    _op("AnonymousIteratorV3")
    .output("handle: resource")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .set_is_stateful()
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    _op("AnonymousIteratorV2")
    .output("handle: resource")
    .output("deleter: variant")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .set_is_stateful()
    .set_shape_fn(_two_scalars)
)
(
    _op("MakeIterator")
    .input("dataset: variant")
    .input("iterator: resource")
    .set_is_stateful()
    .set_shape_fn(common_shapes.no_outputs)
)
(
    _op("DeleteIterator")
    .input("handle: resource")
    .input("deleter: variant")
    .set_is_stateful()
    .set_shape_fn(common_shapes.no_outputs)
)
for _name in ("IteratorGetNext", "IteratorGetNextSync"):
    (
        _op(_name)
        .input("iterator: resource")
        .output("components: output_types")
        .attr(_COMMON[0])
        .attr(_COMMON[1])
        .set_is_stateful()
        .set_shape_fn(_element_shapes)
    )
(
    _op("IteratorGetNextAsOptional", {0: _for_each(full_type_pb2.TFT_OPTIONAL, "output_types")})
    .input("iterator: resource")
    .output("optional: variant")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .set_is_stateful()
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    _op("OptionalFromValue", {0: _for_each(full_type_pb2.TFT_OPTIONAL, "Toutput_types")})
    .input("components: Toutput_types")
    .output("optional: variant")
    .attr("Toutput_types: list(type) >= 1")
    .set_shape_fn(common_shapes.scalar_shape)
)
_op("OptionalNone").output("optional: variant").set_shape_fn(common_shapes.scalar_shape)
(
    _op("OptionalHasValue")
    .input("optional: variant")
    .output("has_value: bool")
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    _op("OptionalGetValue")
    .input("optional: variant")
    .output("components: output_types")
    .attr(_COMMON[0])
    .attr(_COMMON[1])
    .set_shape_fn(_element_shapes)
)

# The ops that produce datasets (variant handles) and the function attrs of those that call functions.
DATASET_OPS = frozenset(
    {
        "TensorDataset", "TensorSliceDataset", "RangeDataset", "GeneratorDataset", "TFRecordDataset",
        "TFRecordDatasetV2", "MapDataset", "ParallelMapDatasetV2", "FilterDataset", "FlatMapDataset",
        "InterleaveDataset", "ParallelInterleaveDatasetV4", "ScanDataset", "TakeWhileDataset", "BatchDatasetV2",
        "PaddedBatchDatasetV2", "UnbatchDataset", "ShuffleDatasetV3", "RepeatDataset", "TakeDataset",
        "SkipDataset", "PrefetchDataset", "CacheDatasetV2", "OptionsDataset", "ZipDataset", "ConcatenateDataset",
        "RewriteDataset", "WindowDataset",
    }
)  # fmt: skip
FUNCTION_ATTRS = {
    "MapDataset": ("f",),
    "ParallelMapDatasetV2": ("f",),
    "FilterDataset": ("predicate",),
    "FlatMapDataset": ("f",),
    "InterleaveDataset": ("f",),
    "ParallelInterleaveDatasetV4": ("f",),
    "ScanDataset": ("f",),
    "TakeWhileDataset": ("predicate",),
    "GeneratorDataset": ("init_func", "next_func", "finalize_func"),
    "ReduceDataset": ("f",),
}
