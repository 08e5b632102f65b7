from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DeviceProperties(_message.Message):
    __slots__ = ("type", "vendor", "model", "frequency", "num_cores", "environment", "num_registers", "l1_cache_size", "l2_cache_size", "l3_cache_size", "shared_memory_size_per_multiprocessor", "memory_size", "bandwidth")
    class EnvironmentEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    VENDOR_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    FREQUENCY_FIELD_NUMBER: _ClassVar[int]
    NUM_CORES_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    NUM_REGISTERS_FIELD_NUMBER: _ClassVar[int]
    L1_CACHE_SIZE_FIELD_NUMBER: _ClassVar[int]
    L2_CACHE_SIZE_FIELD_NUMBER: _ClassVar[int]
    L3_CACHE_SIZE_FIELD_NUMBER: _ClassVar[int]
    SHARED_MEMORY_SIZE_PER_MULTIPROCESSOR_FIELD_NUMBER: _ClassVar[int]
    MEMORY_SIZE_FIELD_NUMBER: _ClassVar[int]
    BANDWIDTH_FIELD_NUMBER: _ClassVar[int]
    type: str
    vendor: str
    model: str
    frequency: int
    num_cores: int
    environment: _containers.ScalarMap[str, str]
    num_registers: int
    l1_cache_size: int
    l2_cache_size: int
    l3_cache_size: int
    shared_memory_size_per_multiprocessor: int
    memory_size: int
    bandwidth: int
    def __init__(self, type: _Optional[str] = ..., vendor: _Optional[str] = ..., model: _Optional[str] = ..., frequency: _Optional[int] = ..., num_cores: _Optional[int] = ..., environment: _Optional[_Mapping[str, str]] = ..., num_registers: _Optional[int] = ..., l1_cache_size: _Optional[int] = ..., l2_cache_size: _Optional[int] = ..., l3_cache_size: _Optional[int] = ..., shared_memory_size_per_multiprocessor: _Optional[int] = ..., memory_size: _Optional[int] = ..., bandwidth: _Optional[int] = ...) -> None: ...

class NamedDevice(_message.Message):
    __slots__ = ("name", "properties")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    name: str
    properties: DeviceProperties
    def __init__(self, name: _Optional[str] = ..., properties: _Optional[_Union[DeviceProperties, _Mapping]] = ...) -> None: ...
