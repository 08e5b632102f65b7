"""Implementation of modtensor's public namespace (TensorFlow's names); users import ``modtensor``.

See docs/frontend.md for how these modules dispatch to eager execution or graph building.
"""
