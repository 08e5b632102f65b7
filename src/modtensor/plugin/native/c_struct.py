"""``struct_size`` arithmetic shared by the ctypes mirrors of TensorFlow's versioned C structs."""

from __future__ import annotations

from ctypes import Structure

__all__ = ["end_of", "struct_size"]


def end_of(struct: type[Structure], name: str) -> int:
    """``TF_OFFSET_OF_END(struct, name)``: the offset just past member ``name``."""
    field = getattr(struct, name)
    return field.offset + field.size


def struct_size(struct: type[Structure], last_field: str | None = None) -> int:
    """The C header's ``*_STRUCT_SIZE``: the end of ``last_field`` (default: the struct's last member)."""
    return end_of(struct, last_field or struct._fields_[-1][0])
