from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class VerifierConfig(_message.Message):
    __slots__ = ("verification_timeout_in_ms", "structure_verifier")
    class Toggle(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DEFAULT: _ClassVar[VerifierConfig.Toggle]
        ON: _ClassVar[VerifierConfig.Toggle]
        OFF: _ClassVar[VerifierConfig.Toggle]
    DEFAULT: VerifierConfig.Toggle
    ON: VerifierConfig.Toggle
    OFF: VerifierConfig.Toggle
    VERIFICATION_TIMEOUT_IN_MS_FIELD_NUMBER: _ClassVar[int]
    STRUCTURE_VERIFIER_FIELD_NUMBER: _ClassVar[int]
    verification_timeout_in_ms: int
    structure_verifier: VerifierConfig.Toggle
    def __init__(self, verification_timeout_in_ms: _Optional[int] = ..., structure_verifier: _Optional[_Union[VerifierConfig.Toggle, str]] = ...) -> None: ...
