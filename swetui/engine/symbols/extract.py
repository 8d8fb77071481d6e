"""One file's symbols, read from its tree-sitter syntax tree: the definitions it makes, the
names it references, and the fixed parts of its string literals (to find the code behind a
pasted error message). Works for any grammar whose definitions carry a `name` field, the
convention tree-sitter grammars share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from swetui.engine.symbols.languages import parser_for
from swetui.engine.symbols.words import prose_stems, stems_of_identifier

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
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%[-#0 +]*\d*(?:\.\d+)?[sdrifxXeEgGcu%]|\\[nt]")
MAX_LITERAL = 300
MAX_WORDS = 400
"""Stems kept per definition body: enough to describe it, bounded for a huge function."""


@dataclass(slots=True)
class Definition:
    """A class, function, method or constant: its name, where it sits, and its words."""

    name: str
    qualname: str
    kind: str
    """`class`, `function`, `method` or `constant`."""
    start: int
    end: int
    """First and last line, 1-based."""
    doc: set[str] = field(default_factory=set)
    """Stems of its docstring, comments and string literals."""
    body: set[str] = field(default_factory=set)
    """Stems of the identifiers it uses."""
    refs: set[str] = field(default_factory=set)
    """The names it calls (`LineDecoder()`, `ctx.find_object()`, `raise NoSuchOption()`),
    so a span can bring the definitions it depends on."""
    bases: list[str] = field(default_factory=list)
    """A class's base classes, by their last name part (`mod.Base` → `Base`)."""


@dataclass(slots=True)
class FileSymbols:
    """What one file defines, references and says in its literals."""

    path: str
    language: str
    lines: int
    definitions: list[Definition] = field(default_factory=list)
    references: dict[str, int] = field(default_factory=dict)
    literals: list[tuple[int, list[str]]] = field(default_factory=list)
    """(line, fixed parts) of each string literal, placeholders taken out."""


def _is_name(node: Node) -> bool:
    return node.type.endswith("identifier") or node.type == "constant"


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _name_node(node: Node) -> Node | None:
    found = node.child_by_field_name("name")
    if found is None and node.type == "impl_item":
        found = node.child_by_field_name("type")
    declarator = node.child_by_field_name("declarator")
    while found is None and declarator is not None:  # C and C++: int (*f)(void)
        if _is_name(declarator):
            return declarator
        declarator = declarator.child_by_field_name("declarator")
    return found if found is not None and _is_name(found) else None


def _called(node: Node) -> str | None:
    """The name a call calls: `f(…)` → f, `ctx.find_object(…)` → find_object."""
    target = next((found for name in ("function", "name", "method", "constructor", "type")
                   if (found := node.child_by_field_name(name)) is not None), None)
    if target is None and node.type in RAISE_NODES:  # `raise NoSuchOption`
        target = node.named_children[0] if node.named_children else None
    if target is None or target.type in CALL_NODES:
        return None
    if _is_name(target):
        return _text(target)
    names = [leaf for leaf in _leaves(target) if _is_name(leaf)]
    return _text(names[-1]) if names else None


def _bases(node: Node) -> list[str]:
    """Names of a class's bases, from the grammar's `superclasses` / `superclass` field."""
    found: list[str] = []
    for field_name in ("superclasses", "superclass"):
        listed = node.child_by_field_name(field_name)
        if listed is None:
            continue
        for child in listed.named_children or [listed]:
            if child.type == "keyword_argument":
                continue  # metaclass=…
            names = [_text(n) for n in _leaves(child) if _is_name(n)]
            if names:
                found.append(names[-1])
    return found


def _leaves(node: Node) -> list[Node]:
    if node.child_count == 0:
        return [node]
    return [leaf for child in node.children for leaf in _leaves(child)]


def _constant(node: Node, depth: int, language: str) -> Node | None:
    """A module-level `NAME = …` (Python) or `const NAME = …` (JavaScript/TypeScript)."""
    if depth != 1:
        return None
    if language == "python" and node.type in ("expression_statement", "assignment"):
        assignment = node if node.type == "assignment" else \
            node.named_children[0] if node.named_children else None
        if assignment is not None and assignment.type == "assignment":
            left = assignment.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                return left
    if node.type == "lexical_declaration":
        declarator = node.named_children[0] if node.named_children else None
        if declarator is not None:
            name = declarator.child_by_field_name("name")
            if name is not None and _is_name(name):
                return name
    return None


def _fragments(node: Node) -> list[str]:
    """The fixed parts of a string literal: its text with interpolations and format
    placeholders taken out."""
    parts: list[str] = []
    current: list[str] = []

    def visit(child: Node) -> None:
        if child.type in FRAGMENT_NODES:
            current.append(_text(child))
        elif child.type in ("interpolation", "template_substitution", "format_expression"):
            parts.append("".join(current))
            current.clear()
        else:
            for grandchild in child.children:
                visit(grandchild)

    visit(node)
    parts.append("".join(current))
    if not any(parts) and node.child_count == 0:
        parts = [_text(node).strip("'\"`")]
    fixed: list[str] = []
    for part in parts:
        fixed.extend(piece for piece in _PLACEHOLDER.split(part[:MAX_LITERAL]) if piece.strip())
    return fixed


class _Walker:
    def __init__(self, symbols: FileSymbols) -> None:
        self.symbols = symbols
        self.stack: list[Definition] = []
        self.pending_doc: set[str] = set()
        """Comment stems above the next definition."""

    def definition(self, node: Node, name_node: Node, kind: str) -> Definition:
        name = _text(name_node)
        outer = self.stack[-1] if self.stack else None
        if kind == "function" and outer is not None and outer.kind == "class":
            kind = "method"
        qualname = f"{outer.qualname}.{name}" if outer is not None else name
        found = Definition(name=name, qualname=qualname, kind=kind,
                           start=node.start_point[0] + 1, end=node.end_point[0] + 1,
                           doc=self.pending_doc | stems_of_identifier(name))
        self.pending_doc = set()
        if kind == "class":
            found.bases = _bases(node)
        self.symbols.definitions.append(found)
        return found

    def walk(self, node: Node, depth: int, skip: Node | None = None) -> None:
        kind = node.type
        defined: Definition | None = None
        if kind in CLASS_NODES or kind in FUNCTION_NODES or kind in CONSTANT_NODES:
            name_node = _name_node(node)
            if name_node is not None:
                role = "class" if kind in CLASS_NODES else \
                    "constant" if kind in CONSTANT_NODES else "function"
                defined = self.definition(node, name_node, role)
                skip = name_node
        elif (constant := _constant(node, depth, self.symbols.language)) is not None:
            defined = self.definition(node, constant, "constant")
            skip = constant
        if defined is not None:
            self.stack.append(defined)
        try:
            self._visit(node, depth, skip)
        finally:
            if defined is not None:
                self.stack.pop()

    def _visit(self, node: Node, depth: int, skip: Node | None) -> None:
        kind = node.type
        inner = self.stack[-1] if self.stack else None
        if kind in STRING_NODES:
            fixed = _fragments(node)
            if fixed:
                self.symbols.literals.append((node.start_point[0] + 1, fixed))
                if inner is not None and len(inner.doc) < MAX_WORDS:
                    inner.doc.update(prose_stems(" ".join(fixed)))
            return
        if kind in COMMENT_NODES:
            stems = prose_stems(_text(node))
            if inner is not None and depth > 1:
                inner.doc.update(stems)
            else:
                self.pending_doc.update(stems)
            return
        if kind in CALL_NODES | RAISE_NODES and inner is not None \
                and len(inner.refs) < MAX_WORDS:
            called = _called(node)
            if called:
                inner.refs.add(called)
        if node.child_count == 0:
            if _is_name(node) and node != skip:
                name = _text(node)
                references = self.symbols.references
                references[name] = references.get(name, 0) + 1
                if inner is not None and len(inner.body) < MAX_WORDS:
                    inner.body.update(stems_of_identifier(name))
            return
        for child in node.children:
            self.walk(child, depth + 1, skip)


def extract(rel: str, source: bytes, language: str) -> FileSymbols:
    """The symbols of one file (`rel` is its workspace-relative path)."""
    tree = parser_for(language).parse(source)
    lines = source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0)
    symbols = FileSymbols(path=rel, language=language, lines=lines)
    walker = _Walker(symbols)
    for child in tree.root_node.children:
        walker.walk(child, 1)
    return symbols
