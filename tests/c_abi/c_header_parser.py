"""A small parser for the declarations in C API headers (TensorFlow's and modtensor's).

It is only as clever as those headers need: it finds enums and their constants,
structs/unions and their member designators, typedefs, opaque struct tags,
object-like macros, const variables and function prototypes (normalized so that
parameter names and spacing do not matter). Used by tools/record_tf_c_layout.py to
list what TensorFlow declares and by the C ABI tests to read modtensor's headers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN_RE = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|\.\.\.|[A-Za-z_]\w*|\d[\w.]*|\S')
_COMMENT_RE = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_DEFINE_RE = re.compile(r"#\s*define\s+([A-Za-z_]\w*)(\()?(.*)")

# Words that can end a parameter's type, so a parameter ending in one has no name.
_TYPE_WORDS = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "bool", "_Bool",
    "const", "volatile", "struct", "union", "enum",
}  # fmt: skip
_QUALIFIERS = {"const", "volatile", "struct", "union", "enum"}
_STORAGE_WORDS = {"TF_CAPI_EXPORT", "extern", "static", "inline", "__inline", "__inline__"}


@dataclass
class FunctionDecl:
    """One function: its normalized prototype and how the header declares it."""

    name: str
    signature: str
    exported: bool  # carries TF_CAPI_EXPORT
    inline: bool  # defined in the header (static inline)


@dataclass
class HeaderDecls:
    """Everything one header declares that the ABI checks care about, in source order."""

    enums: dict[str, list[str]] = field(default_factory=dict)  # C type name (or "enum@N") -> constants
    structs: dict[str, list[str]] = field(default_factory=dict)  # C type expr -> member designators
    typedefs: list[str] = field(default_factory=list)  # every typedef name (incl. those of structs/enums)
    opaque: list[str] = field(default_factory=list)  # struct tags only forward-declared (`struct X;`)
    macros: dict[str, str] = field(default_factory=dict)  # object-like macro -> replacement text
    variables: list[str] = field(default_factory=list)  # file-scope const variables
    functions: dict[str, FunctionDecl] = field(default_factory=dict)


def strip_comments(text: str) -> str:
    """Remove C and C++ comments, leaving string literals alone."""
    return _COMMENT_RE.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", text)


def tokenize(text: str) -> list[str]:
    """Split C source (without preprocessor lines) into tokens."""
    return _TOKEN_RE.findall(text)


def render(tokens: list[str]) -> str:
    """Join tokens into canonical text: one space between words, none around punctuation."""
    out = " ".join(tokens)
    out = re.sub(r"\s+([*,)\[\]])", r"\1", out)
    out = re.sub(r"([(\[])\s+", r"\1", out)
    return out


def _split_top(tokens: list[str], sep: str) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    depth = 0
    for tok in tokens:
        if tok in "([{":
            depth += 1
        elif tok in ")]}":
            depth -= 1
        if tok == sep and depth == 0:
            parts.append([])
        else:
            parts[-1].append(tok)
    return [p for p in parts if p]


def _matching(tokens: list[str], start: int) -> int:
    """Index of the bracket closing the one at tokens[start]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    open_tok, close_tok = tokens[start], pairs[tokens[start]]
    depth = 0
    for i in range(start, len(tokens)):
        if tokens[i] == open_tok:
            depth += 1
        elif tokens[i] == close_tok:
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"unbalanced {open_tok!r} in {render(tokens)!r}")


def _is_ident(tok: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_]\w*", tok))


def _function_pointer_paren(tokens: list[str]) -> int | None:
    """Index of the `(` opening `(*name)` in a function-pointer declarator, if any."""
    for i in range(len(tokens) - 1):
        if tokens[i] == "(" and tokens[i + 1] == "*":
            return i
    return None


def normalize_param(tokens: list[str]) -> str:
    """A parameter's type without its name: `const char* name` -> `const char*`."""
    fp = _function_pointer_paren(tokens)
    if fp is not None:  # function pointer: ret (*name)(args)
        i = fp
        j = _matching(tokens, i)
        inner = [t for t in tokens[i + 1 : j] if not (_is_ident(t) and t not in _QUALIFIERS)]
        k = j + 1
        if k < len(tokens) and tokens[k] == "(":
            m = _matching(tokens, k)
            args = normalize_params(tokens[k + 1 : m])
            return render([*tokens[:i], "(", *inner, ")"]) + "(" + args + ")"
        return render(tokens)
    if "[" in tokens:  # array parameter: drop the name before '['
        i = tokens.index("[")
        if i >= 2 and _is_ident(tokens[i - 1]) and tokens[i - 1] not in _TYPE_WORDS:
            tokens = tokens[: i - 1] + tokens[i:]
        return render(tokens)
    last = tokens[-1]
    words_before = [t for t in tokens[:-1] if _is_ident(t) and t not in _QUALIFIERS]
    if _is_ident(last) and last not in _TYPE_WORDS and words_before:
        tokens = tokens[:-1]
    return render(tokens)


def normalize_params(tokens: list[str]) -> str:
    """Normalized, comma-separated parameter types; an empty list reads `void`."""
    params = [normalize_param(p) for p in _split_top(tokens, ",")]
    return ", ".join(params) if params else "void"


def _parse_function(tokens: list[str]) -> FunctionDecl | None:
    exported = "TF_CAPI_EXPORT" in tokens
    inline = "static" in tokens or "inline" in tokens
    toks = [t for t in tokens if t not in _STORAGE_WORDS]
    if "(" not in toks:
        return None
    i = toks.index("(")
    if i == 0 or not _is_ident(toks[i - 1]):
        return None
    name = toks[i - 1]
    j = _matching(toks, i)
    signature = f"{render(toks[: i - 1])} {name}({normalize_params(toks[i + 1 : j])})"
    return FunctionDecl(name=name, signature=signature, exported=exported, inline=inline)


def _member_designators(body: list[str], prefix: str = "") -> list[str]:
    """Member names of a struct/union body, nested anonymous-type members as `u.smll`."""
    names: list[str] = []
    for decl in _split_top(body, ";"):
        if decl[0] in ("struct", "union") and "{" in decl:
            i = decl.index("{")
            j = _matching(decl, i)
            member = decl[j + 1]
            names.append(prefix + member)
            names.extend(_member_designators(decl[i + 1 : j], prefix + member + "."))
            continue
        fp = _function_pointer_paren(decl)
        if fp is not None:  # function pointer member: ret (*name)(args)
            i = fp
            idents = [t for t in decl[i : _matching(decl, i)] if _is_ident(t) and t not in _QUALIFIERS]
            names.append(prefix + idents[-1])
            continue
        if "[" in decl:
            decl = decl[: decl.index("[")]
        names.append(prefix + decl[-1])
    return names


def _record_aggregate(decls: HeaderDecls, stmt: list[str], enum_counter: list[int]) -> None:
    """Record `[typedef] struct|union|enum [Tag] {...} [Name];`."""
    is_typedef = stmt[0] == "typedef"
    kind_at = 1 if is_typedef else 0
    kind = stmt[kind_at]
    brace = stmt.index("{")
    close = _matching(stmt, brace)
    tag = stmt[kind_at + 1] if brace == kind_at + 2 else None
    after = [t for t in stmt[close + 1 :] if _is_ident(t)]
    type_name = after[0] if is_typedef and after else (f"{kind} {tag}" if tag else None)
    if is_typedef and after:
        decls.typedefs.append(after[0])
    body = stmt[brace + 1 : close]
    if kind == "enum":
        consts = [p[0] for p in _split_top(body, ",")]
        if type_name is None:
            enum_counter[0] += 1
            type_name = f"enum@{enum_counter[0]}"
        decls.enums.setdefault(type_name, consts)
    elif type_name is not None:
        decls.structs.setdefault(type_name, _member_designators(body))


def _statements(tokens: list[str]) -> list[list[str]]:
    """Top-level statements; function definitions end at their closing brace."""
    stmts: list[list[str]] = []
    cur: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "extern" and i + 2 < len(tokens) and tokens[i + 1] == '"C"' and tokens[i + 2] == "{":
            i += 3
            continue
        if tok == "}" and not cur:  # closes an extern "C" block
            i += 1
            continue
        if tok in "([{":
            j = _matching(tokens, i)
            cur.extend(tokens[i : j + 1])
            if tok == "{" and i > 0 and tokens[i - 1] == ")":  # function definition
                stmts.append(cur)
                cur = []
            i = j + 1
            continue
        if tok == ";":
            if cur:
                stmts.append(cur)
            cur = []
        else:
            cur.append(tok)
        i += 1
    return stmts


def parse_header(text: str) -> HeaderDecls:
    """Parse one header's text. Every preprocessor branch is read (none of ours conflict)."""
    decls = HeaderDecls()
    text = strip_comments(text).replace("\\\n", " ")
    code_lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            code_lines.append(line)
            continue
        m = _DEFINE_RE.match(stripped)
        if m and not m.group(2):
            name, value = m.group(1), " ".join(m.group(3).split())
            decls.macros.setdefault(name, value)
    enum_counter = [0]
    for stmt in _statements(tokenize("\n".join(code_lines))):
        if stmt[0] in ("typedef", "struct", "union", "enum") and "{" in stmt and stmt.index("{") <= 3:
            _record_aggregate(decls, stmt, enum_counter)
        elif stmt[0] == "typedef":
            fp = _function_pointer_paren(stmt)
            if fp is not None:  # function-pointer typedef: ret (*Name)(args)
                i = fp
                name = [t for t in stmt[i : _matching(stmt, i)] if _is_ident(t)][-1]
            else:
                name = stmt[-1]
            decls.typedefs.append(name)
        elif stmt[0] in ("struct", "union") and len(stmt) == 2:
            decls.opaque.append(stmt[1])
        elif "=" in stmt and "(" not in stmt[: stmt.index("=")]:
            decls.variables.append(stmt[stmt.index("=") - 1])
        elif "{" in stmt or "(" in stmt:
            fn = _parse_function(stmt[: stmt.index("{")] if "{" in stmt else stmt)
            if fn is not None and fn.name not in decls.functions:
                decls.functions[fn.name] = fn
    return decls
