"""TF-named nn wrappers over ``dispatch.apply_op`` (being written)."""

__all__: list[str] = []
