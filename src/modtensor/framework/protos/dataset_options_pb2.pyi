from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AutotuneOptions(_message.Message):
    __slots__ = ("enabled", "cpu_budget", "ram_budget")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    CPU_BUDGET_FIELD_NUMBER: _ClassVar[int]
    RAM_BUDGET_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    cpu_budget: int
    ram_budget: int
    def __init__(self, enabled: _Optional[bool] = ..., cpu_budget: _Optional[int] = ..., ram_budget: _Optional[int] = ...) -> None: ...

class OptimizationOptions(_message.Message):
    __slots__ = ("apply_default_optimizations", "map_and_batch_fusion", "map_parallelization", "noop_elimination", "parallel_batch", "shuffle_and_repeat_fusion")
    APPLY_DEFAULT_OPTIMIZATIONS_FIELD_NUMBER: _ClassVar[int]
    MAP_AND_BATCH_FUSION_FIELD_NUMBER: _ClassVar[int]
    MAP_PARALLELIZATION_FIELD_NUMBER: _ClassVar[int]
    NOOP_ELIMINATION_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_BATCH_FIELD_NUMBER: _ClassVar[int]
    SHUFFLE_AND_REPEAT_FUSION_FIELD_NUMBER: _ClassVar[int]
    apply_default_optimizations: bool
    map_and_batch_fusion: bool
    map_parallelization: bool
    noop_elimination: bool
    parallel_batch: bool
    shuffle_and_repeat_fusion: bool
    def __init__(self, apply_default_optimizations: _Optional[bool] = ..., map_and_batch_fusion: _Optional[bool] = ..., map_parallelization: _Optional[bool] = ..., noop_elimination: _Optional[bool] = ..., parallel_batch: _Optional[bool] = ..., shuffle_and_repeat_fusion: _Optional[bool] = ...) -> None: ...

class ThreadingOptions(_message.Message):
    __slots__ = ("max_intra_op_parallelism", "private_threadpool_size")
    MAX_INTRA_OP_PARALLELISM_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_THREADPOOL_SIZE_FIELD_NUMBER: _ClassVar[int]
    max_intra_op_parallelism: int
    private_threadpool_size: int
    def __init__(self, max_intra_op_parallelism: _Optional[int] = ..., private_threadpool_size: _Optional[int] = ...) -> None: ...

class Options(_message.Message):
    __slots__ = ("dataset_name", "deterministic", "autotune_options", "optimization_options", "slack", "threading_options")
    DATASET_NAME_FIELD_NUMBER: _ClassVar[int]
    DETERMINISTIC_FIELD_NUMBER: _ClassVar[int]
    AUTOTUNE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZATION_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SLACK_FIELD_NUMBER: _ClassVar[int]
    THREADING_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    dataset_name: str
    deterministic: bool
    autotune_options: AutotuneOptions
    optimization_options: OptimizationOptions
    slack: bool
    threading_options: ThreadingOptions
    def __init__(self, dataset_name: _Optional[str] = ..., deterministic: _Optional[bool] = ..., autotune_options: _Optional[_Union[AutotuneOptions, _Mapping]] = ..., optimization_options: _Optional[_Union[OptimizationOptions, _Mapping]] = ..., slack: _Optional[bool] = ..., threading_options: _Optional[_Union[ThreadingOptions, _Mapping]] = ...) -> None: ...
