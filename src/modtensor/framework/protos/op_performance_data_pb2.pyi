from modtensor.framework.protos import attr_value_pb2 as _attr_value_pb2
from modtensor.framework.protos import device_properties_pb2 as _device_properties_pb2
from modtensor.framework.protos import tensor_pb2 as _tensor_pb2
from modtensor.framework.protos import tensor_shape_pb2 as _tensor_shape_pb2
from modtensor.framework.protos import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SessionInfo(_message.Message):
    __slots__ = ("intra_op_parallelism",)
    INTRA_OP_PARALLELISM_FIELD_NUMBER: _ClassVar[int]
    intra_op_parallelism: int
    def __init__(self, intra_op_parallelism: _Optional[int] = ...) -> None: ...

class OpInfo(_message.Message):
    __slots__ = ("op", "attr", "inputs", "outputs", "device", "session_info")
    class AttrEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _attr_value_pb2.AttrValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_attr_value_pb2.AttrValue, _Mapping]] = ...) -> None: ...
    class TensorProperties(_message.Message):
        __slots__ = ("dtype", "shape", "value")
        DTYPE_FIELD_NUMBER: _ClassVar[int]
        SHAPE_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        dtype: _types_pb2.DataType
        shape: _tensor_shape_pb2.TensorShapeProto
        value: _tensor_pb2.TensorProto
        def __init__(self, dtype: _Optional[_Union[_types_pb2.DataType, str]] = ..., shape: _Optional[_Union[_tensor_shape_pb2.TensorShapeProto, _Mapping]] = ..., value: _Optional[_Union[_tensor_pb2.TensorProto, _Mapping]] = ...) -> None: ...
    OP_FIELD_NUMBER: _ClassVar[int]
    ATTR_FIELD_NUMBER: _ClassVar[int]
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    SESSION_INFO_FIELD_NUMBER: _ClassVar[int]
    op: str
    attr: _containers.MessageMap[str, _attr_value_pb2.AttrValue]
    inputs: _containers.RepeatedCompositeFieldContainer[OpInfo.TensorProperties]
    outputs: _containers.RepeatedCompositeFieldContainer[OpInfo.TensorProperties]
    device: _device_properties_pb2.DeviceProperties
    session_info: SessionInfo
    def __init__(self, op: _Optional[str] = ..., attr: _Optional[_Mapping[str, _attr_value_pb2.AttrValue]] = ..., inputs: _Optional[_Iterable[_Union[OpInfo.TensorProperties, _Mapping]]] = ..., outputs: _Optional[_Iterable[_Union[OpInfo.TensorProperties, _Mapping]]] = ..., device: _Optional[_Union[_device_properties_pb2.DeviceProperties, _Mapping]] = ..., session_info: _Optional[_Union[SessionInfo, _Mapping]] = ...) -> None: ...
