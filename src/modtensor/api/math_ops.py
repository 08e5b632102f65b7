"""TF-named math wrappers over ``dispatch.apply_op`` (being written)."""

__all__: list[str] = []
