"""tf.data kernels on CPU: dataset sources and transformations, iterators, optionals, readers, py-funcs.

TensorFlow registers its dataset kernels on CPU; so does modtensor (placement puts
dataset ops on the host CPU device; their variant and resource values are host objects).
"""

from __future__ import annotations

from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry

__all__ = ["register_data_kernels"]

SOURCE = "modtensor.kernels.cpu.data"


def register_data_kernels(registry: KernelRegistry) -> list[KernelRegistration]:
    """Register every tf.data kernel (and PyFunc/EagerPyFunc) for CPU into ``registry``."""
    from modtensor.kernels.cpu.data import functional, iterators, ordering, parsing, readers, sources, windows
    from modtensor.kernels.cpu.script_ops import PyFuncKernel

    table = {
        "TensorDataset": sources.TensorDatasetOp,
        "TensorSliceDataset": sources.TensorSliceDatasetOp,
        "RangeDataset": sources.RangeDatasetOp,
        "GeneratorDataset": sources.GeneratorDatasetOp,
        "TFRecordDataset": readers.TFRecordDatasetOp,
        "TFRecordDatasetV2": readers.TFRecordDatasetOp,
        "MapDataset": functional.MapDatasetOp,
        "ParallelMapDatasetV2": functional.ParallelMapDatasetV2Op,
        "FilterDataset": functional.FilterDatasetOp,
        "FlatMapDataset": functional.FlatMapDatasetOp,
        "InterleaveDataset": functional.InterleaveDatasetOp,
        "ParallelInterleaveDatasetV4": functional.ParallelInterleaveDatasetV4Op,
        "ScanDataset": functional.ScanDatasetOp,
        "TakeWhileDataset": functional.TakeWhileDatasetOp,
        "BatchDatasetV2": ordering.BatchDatasetV2Op,
        "PaddedBatchDatasetV2": ordering.PaddedBatchDatasetV2Op,
        "UnbatchDataset": ordering.UnbatchDatasetOp,
        "WindowDataset": windows.WindowDatasetOp,
        "ShuffleDatasetV3": ordering.ShuffleDatasetV3Op,
        "RepeatDataset": ordering.RepeatDatasetOp,
        "TakeDataset": ordering.TakeDatasetOp,
        "SkipDataset": ordering.SkipDatasetOp,
        "PrefetchDataset": ordering.PrefetchDatasetOp,
        "CacheDatasetV2": ordering.CacheDatasetV2Op,
        "OptionsDataset": ordering.OptionsDatasetOp,
        "RewriteDataset": ordering.RewriteDatasetOp,
        "ZipDataset": ordering.ZipDatasetOp,
        "ConcatenateDataset": ordering.ConcatenateDatasetOp,
        "DummySeedGenerator": ordering.DummyResourceOp,
        "DummyMemoryCache": ordering.DummyResourceOp,
        "AnonymousIteratorV3": iterators.AnonymousIteratorOp,
        "AnonymousIteratorV2": iterators.AnonymousIteratorOp,
        "MakeIterator": iterators.MakeIteratorOp,
        "DeleteIterator": iterators.DeleteIteratorOp,
        "IteratorGetNext": iterators.IteratorGetNextOp,
        "IteratorGetNextSync": iterators.IteratorGetNextOp,
        "IteratorGetNextAsOptional": iterators.IteratorGetNextAsOptionalOp,
        "OptionalFromValue": iterators.OptionalFromValueOp,
        "OptionalNone": iterators.OptionalNoneOp,
        "OptionalHasValue": iterators.OptionalHasValueOp,
        "OptionalGetValue": iterators.OptionalGetValueOp,
        "ReduceDataset": iterators.ReduceDatasetOp,
        "DatasetCardinality": iterators.DatasetCardinalityOp,
        "ParseExampleV2": parsing.ParseExampleV2Op,
        "ParseSingleExample": parsing.ParseSingleExampleOp,
        "PyFunc": PyFuncKernel,
        "EagerPyFunc": PyFuncKernel,
    }
    return [registry.register(op, "CPU", cls, source=SOURCE) for op, cls in table.items()]
