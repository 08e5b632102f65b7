"""TF-named array wrappers over ``dispatch.apply_op`` (being written)."""

__all__: list[str] = []
