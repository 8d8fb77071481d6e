"""The syntax-tree node kinds the symbol map reads, shared by tree-sitter grammars, and one
query per grammar that finds them all in a single pass in C (a walk over every node in
Python cost most of the map's build)."""

from __future__ import annotations

import threading
from typing import cast

from tree_sitter import Language, Query
from tree_sitter_language_pack import SupportedLanguage, get_language

CLASS_NODES = frozenset({
    "class_definition", "class_declaration", "class_specifier", "struct_specifier",
    "struct_item", "enum_item", "enum_declaration", "trait_item", "interface_declaration",
    "type_spec", "type_alias_declaration", "class", "module", "object_declaration",
    "record_declaration", "type_item", "mod_item", "impl_item", "union_item",
    "protocol_declaration", "struct_declaration", "enum_specifier", "trait_declaration",
})
FUNCTION_NODES = frozenset({
    "function_definition", "function_declaration", "method_definition",
    "method_declaration", "constructor_declaration", "function_item", "method",
    "singleton_method", "function_signature_item", "generator_function_declaration",
    "abstract_method_signature", "method_signature", "function_signature",
})
CONSTANT_NODES = frozenset({"const_item", "static_item", "const_spec"})
STRING_NODES = frozenset({
    "string", "string_literal", "interpreted_string_literal", "raw_string_literal",
    "template_string", "concatenated_string", "encapsed_string", "verbatim_string_literal",
})
FRAGMENT_NODES = frozenset({
    "string_content", "string_fragment", "interpreted_string_literal_content",
    "escape_sequence", "raw_string_literal_content",
})
CALL_NODES = frozenset({"call", "call_expression", "method_invocation",
                        "invocation_expression", "method_call", "function_call",
                        "new_expression", "object_creation_expression"})
RAISE_NODES = frozenset({"raise_statement", "throw_statement"})
COMMENT_NODES = frozenset({"comment", "line_comment", "block_comment", "doc_comment"})


DEFINITION, NAME, STRING, COMMENT, CALL = "definition", "name", "string", "comment", "call"
"""The capture names of a grammar's query."""


def _patterns(language: Language, kinds: frozenset[str], capture: str, *,
              anonymous: bool) -> list[str]:
    """Query patterns for the `kinds` this grammar has: named nodes, and with `anonymous`
    tokens of that text too (TypeScript's `string` type keyword is a `string` node)."""
    found = []
    for kind in sorted(kinds):
        if language.id_for_node_kind(kind, True) is not None:
            found.append(f"({kind}) @{capture}")
        if anonymous and language.id_for_node_kind(kind, False) is not None:
            found.append(f'"{kind}" @{capture}')
    return found


def _query_text(language: Language) -> str:
    names = frozenset(
        kind for number in range(language.node_kind_count)
        if (kind := language.node_kind_for_id(number)) is not None
        and language.node_kind_is_named(number)
        and (kind.endswith("identifier") or kind == "constant"))
    patterns = [
        *_patterns(language, CLASS_NODES | FUNCTION_NODES | CONSTANT_NODES,
                   DEFINITION, anonymous=False),
        *_patterns(language, names, NAME, anonymous=False),
        *_patterns(language, STRING_NODES, STRING, anonymous=True),
        *_patterns(language, COMMENT_NODES, COMMENT, anonymous=True),
        *_patterns(language, CALL_NODES | RAISE_NODES, CALL, anonymous=True),
    ]
    return "\n".join(patterns)


_queries: dict[str, Query] = {}
_lock = threading.Lock()


def query_for(language: str) -> Query:
    """The query finding every node the map reads in `language` (compiled once)."""
    query = _queries.get(language)
    if query is None:
        grammar = get_language(cast(SupportedLanguage, language))
        query = Query(grammar, _query_text(grammar))
        with _lock:
            _queries[language] = query
    return query
