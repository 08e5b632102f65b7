from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class Metadata(_message.Message):
    __slots__ = ("name", "data_service_address")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DATA_SERVICE_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    name: bytes
    data_service_address: str
    def __init__(self, name: _Optional[bytes] = ..., data_service_address: _Optional[str] = ...) -> None: ...
