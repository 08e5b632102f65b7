"""The source-to-source passes of AutoGraph, applied in order by ``conversion.transform``.

Each module rewrites one language construct of a function's AST: function scopes,
``break``/``continue``, ``return``, ``assert``, calls, ``if``/``while``/``for``,
conditional and logical expressions, variable loads.
"""
