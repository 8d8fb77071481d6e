"""Which tree-sitter grammar parses which file, and one parser per grammar and thread."""

from __future__ import annotations

import threading
from typing import cast

from tree_sitter import Parser
from tree_sitter_language_pack import SupportedLanguage, get_parser

EXTENSIONS: dict[str, str] = {
    "py": "python", "pyi": "python", "js": "javascript", "mjs": "javascript",
    "cjs": "javascript", "jsx": "javascript", "ts": "typescript", "mts": "typescript",
    "cts": "typescript", "tsx": "tsx", "go": "go", "rs": "rust", "java": "java", "c": "c",
    "h": "c", "cc": "cpp", "cpp": "cpp", "cxx": "cpp", "hpp": "cpp", "hh": "cpp",
    "hxx": "cpp", "cs": "csharp", "rb": "ruby", "php": "php", "kt": "kotlin",
    "kts": "kotlin", "swift": "swift", "scala": "scala", "lua": "lua", "sh": "bash",
    "bash": "bash", "ex": "elixir", "exs": "elixir", "hs": "haskell", "ml": "ocaml",
    "dart": "dart", "zig": "zig", "r": "r", "jl": "julia", "pl": "perl", "pm": "perl",
    "erl": "erlang", "clj": "clojure", "elm": "elm", "fs": "fsharp", "groovy": "groovy",
    "m": "objc",
}
"""File extensions (lower case) and the grammar of `tree-sitter-language-pack` for each."""

_local = threading.local()


def language_of(rel: str) -> str | None:
    """The grammar for a workspace path, or None when no grammar covers it."""
    name = rel.rsplit("/", 1)[-1]
    if "." not in name:
        return None
    return EXTENSIONS.get(name.rsplit(".", 1)[-1].lower())


def parser_for(language: str) -> Parser:
    """A parser for `language`; tree-sitter parsers are not shared between threads."""
    parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    parser = parsers.get(language)
    if parser is None:
        parser = parsers[language] = get_parser(cast(SupportedLanguage, language))
    return parser
