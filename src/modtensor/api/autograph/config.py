"""AutoGraph's conversion options: optional features, per-call options, and which modules are never converted.

``Feature`` and ``ConversionOptions`` carry TensorFlow's names and meanings
(``tf.autograph.experimental.Feature``). The module rules say which callables a
converted function calls as they are: modtensor's own code, the standard-library
and scientific modules TensorFlow lists, unless the user asked for the conversion.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any

__all__ = ["DO_NOT_CONVERT_MODULES", "ConversionOptions", "Feature", "module_is_not_converted"]


class Feature(enum.Enum):
    """Optional conversions (TF's ``tf.autograph.experimental.Feature``).

    ``ASSERT_STATEMENTS`` turns ``assert`` on tensors into ``tf.debugging.Assert``;
    ``BUILTIN_FUNCTIONS`` converts ``print`` (other builtins such as ``len`` and ``range``
    are always overloaded); ``EQUALITY_OPERATORS`` turns ``==``/``!=`` into ``tf.equal``;
    ``NAME_SCOPES`` opens a name scope per converted function. ``AUTO_CONTROL_DEPS`` and
    ``LISTS`` are accepted and have no effect here.
    """

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"

    @classmethod
    def all(cls) -> tuple[Feature, ...]:
        """Every feature."""
        return tuple(cls.__members__.values())

    @classmethod
    def all_but(cls, exclude: Feature | Iterable[Feature]) -> tuple[Feature, ...]:
        """Every feature except ``exclude`` (one feature or several)."""
        if not isinstance(exclude, (list, tuple, set)):
            exclude = (exclude,)
        return tuple(set(cls.all()) - set(exclude) - {cls.ALL})


def _as_features(optional_features: Any) -> frozenset[Feature]:
    if optional_features is None:
        return frozenset()
    if isinstance(optional_features, Feature):
        return frozenset((optional_features,))
    features = frozenset(optional_features)
    for feature in features:
        if not isinstance(feature, Feature):
            raise TypeError(f"experimental_autograph_options must be Feature values, got {feature!r}")
    return features


class ConversionOptions:
    """Immutable conversion flags, as TF's ``ConversionOptions``.

    ``recursive``: convert the functions a converted function calls; ``user_requested``:
    the user asked for this conversion (modules that are never converted are converted
    anyway); ``optional_features``: the ``Feature`` values in use;
    ``internal_convert_user_code``: convert user functions at all.
    """

    __slots__ = ("internal_convert_user_code", "optional_features", "recursive", "user_requested")

    def __init__(
        self,
        recursive: bool = False,
        user_requested: bool = False,
        internal_convert_user_code: bool = True,
        optional_features: Any = Feature.ALL,
    ):
        object.__setattr__(self, "recursive", bool(recursive))
        object.__setattr__(self, "user_requested", bool(user_requested))
        object.__setattr__(self, "internal_convert_user_code", bool(internal_convert_user_code))
        object.__setattr__(self, "optional_features", _as_features(optional_features))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ConversionOptions are immutable")

    def uses(self, feature: Feature) -> bool:
        """Whether ``feature`` (or ``Feature.ALL``) is on."""
        return Feature.ALL in self.optional_features or feature in self.optional_features

    def call_options(self) -> ConversionOptions:
        """The options for the functions a converted function calls: the same, not user-requested."""
        return ConversionOptions(
            recursive=self.recursive,
            user_requested=False,
            internal_convert_user_code=self.recursive,
            optional_features=self.optional_features,
        )

    def key(self) -> tuple[Any, ...]:
        """What makes two options convert code differently (a cache key)."""
        features = tuple(sorted(f.value for f in self.optional_features))
        return (self.recursive, self.user_requested, self.internal_convert_user_code, features)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConversionOptions) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def source(self) -> str:
        """The expression that rebuilds these options in generated code."""
        features = ", ".join(f"ag__.Feature.{f.name}" for f in sorted(self.optional_features, key=lambda f: f.value))
        if len(self.optional_features) == 1:
            features += ","
        return (
            f"ag__.ConversionOptions(recursive={self.recursive}, user_requested={self.user_requested}, "
            f"optional_features=({features}), internal_convert_user_code={self.internal_convert_user_code})"
        )

    def __repr__(self) -> str:
        return self.source().replace("ag__.", "")


# TensorFlow's list of modules whose functions are called unconverted, with modtensor itself in place of
# tensorflow (a converted function calling modtensor's API gets the API, not a conversion of it).
DO_NOT_CONVERT_MODULES = (
    "collections",
    "copy",
    "cProfile",
    "inspect",
    "ipdb",
    "linecache",
    "mock",
    "pathlib",
    "pdb",
    "posixpath",
    "pstats",
    "re",
    "threading",
    "urllib",
    "matplotlib",
    "numpy",
    "pandas",
    "modtensor",
    "tensorflow",
    "PIL",
    "absl.logging",
    "keras",
    "tf_keras",
    "ml_dtypes",
    "google.protobuf",
)


def module_is_not_converted(module_name: str) -> bool:
    """True when functions of ``module_name`` (a dotted name) are never converted unless the user asks."""
    return any(module_name == prefix or module_name.startswith(prefix + ".") for prefix in DO_NOT_CONVERT_MODULES)
