"""One file's symbols, read from its tree-sitter syntax tree: the definitions it makes, the
names it references, and the fixed parts of its string literals (to find the code behind a
pasted error message). Works for any grammar whose definitions carry a `name` field, the
convention tree-sitter grammars share. The nodes are found by one tree-sitter query (in C);
Python sees only those, not every node of the tree. Names and stems are interned: files
repeat them, and the map keeps one copy of each (as the cache's reader does); the parts of
literals are not (seldom repeated, they are packed in one string per file, `Literals`)."""

from __future__ import annotations

import re
import sys
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter

from tree_sitter import Node, QueryCursor

from swetui.engine.symbols import node_kinds as kinds
from swetui.engine.symbols.compact import (
    EMPTY,
    Literal,
    Literals,
    References,
    StemSet,
    shared_line,
    stem_set,
)
from swetui.engine.symbols.languages import parser_for
from swetui.engine.symbols.source_encoding import as_utf8
from swetui.engine.symbols.stem_memo import identifier_stems, text_stems
from swetui.files import line_count
from swetui.secrets import redact

_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%[-#0 +]*\d*(?:\.\d+)?[sdrifxXeEgGcu%]|\\[nt]")
MAX_LITERAL = 300
MAX_WORDS = 400
"""Stems kept per definition body: enough to describe it, bounded for a huge function."""


@dataclass(slots=True)
class Definition:
    """A class, function, method or constant: its name, where it sits, and its words (kept
    as compact immutable sets, `StemSet`: the map holds a few hundred thousand of them)."""

    name: str
    qualname: str
    kind: str
    """`class`, `function`, `method` or `constant`."""
    start: int
    end: int
    """First and last line, 1-based."""
    doc: StemSet = EMPTY
    """Stems of its docstring, comments and string literals."""
    body: StemSet = EMPTY
    """Stems of the identifiers it uses."""
    refs: StemSet = EMPTY
    """The names it calls (`LineDecoder()`, `ctx.find_object()`, `raise NoSuchOption()`),
    so a span can bring the definitions it depends on."""
    bases: tuple[str, ...] = ()
    """A class's base classes, by their last name part (`mod.Base` → `Base`)."""

    def __post_init__(self) -> None:  # sets and lists given by a caller are kept compact
        self.start, self.end = shared_line(self.start), shared_line(self.end)
        if type(self.doc) is not StemSet:
            self.doc = stem_set(self.doc)
        if type(self.body) is not StemSet:
            self.body = stem_set(self.body)
        if type(self.refs) is not StemSet:
            self.refs = stem_set(self.refs)
        if type(self.bases) is not tuple:
            self.bases = tuple(self.bases)


@dataclass(slots=True)
class FileSymbols:
    """What one file defines, references and says in its literals."""

    path: str
    language: str
    lines: int
    definitions: list[Definition] = field(default_factory=list)
    references: References = field(default_factory=References)
    """How often it names each name (a dict given is packed)."""
    literals: Literals = field(default_factory=Literals)
    """(line, fixed parts) of each string literal, placeholders taken out."""

    def __post_init__(self) -> None:
        if type(self.references) is not References:
            self.references = References(self.references)
        if type(self.literals) is not Literals:
            self.literals = Literals(self.literals)


@dataclass(slots=True)
class _Draft:
    """A definition while its file is read (its words still growing)."""

    name: str
    qualname: str
    kind: str
    start: int
    end: int
    doc: set[str]
    body: set[str] = field(default_factory=set)
    refs: set[str] = field(default_factory=set)
    bases: list[str] = field(default_factory=list)

    def done(self) -> Definition:
        return Definition(self.name, self.qualname, self.kind, self.start, self.end,
                          stem_set(self.doc), stem_set(self.body), stem_set(self.refs),
                          tuple(self.bases))


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
    if target is None and node.type in kinds.RAISE_NODES:  # `raise NoSuchOption`
        target = node.named_children[0] if node.named_children else None
    if target is None or target.type in kinds.CALL_NODES:
        return None
    if _is_name(target):
        return sys.intern(_text(target))
    last: Node | None = target  # the rightmost leaf (`ctx.find_object` → find_object) is
    while last is not None and last.child_count:  # most often the name: no walk of them all
        last = last.child(last.child_count - 1)
    if last is not None and _is_name(last):
        return sys.intern(_text(last))
    names = [leaf for leaf in _leaves(target) if _is_name(leaf)]
    return sys.intern(_text(names[-1])) if names else None


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
                found.append(sys.intern(names[-1]))
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


_INTERPOLATIONS = frozenset({"interpolation", "template_substitution", "format_expression"})


def _visit_literal(node: Node, parts: list[str], current: list[str]) -> None:
    """Collect a literal's text pieces into `current`, starting a new part at each
    interpolation; leaves that are neither (quotes, prefixes) are passed over."""
    kind = node.type
    if kind in kinds.FRAGMENT_NODES:
        current.append(_text(node))
    elif kind in _INTERPOLATIONS:
        parts.append("".join(current))
        current.clear()
    elif node.child_count:
        for child in node.children:
            _visit_literal(child, parts, current)


def _fragments(node: Node) -> list[str]:
    """The fixed parts of a string literal: its text with interpolations and format
    placeholders taken out."""
    parts: list[str] = []
    current: list[str] = []
    _visit_literal(node, parts, current)
    parts.append("".join(current))
    if not any(parts) and node.child_count == 0:
        parts = [_text(node).strip("'\"`")]
    fixed: list[str] = []
    for part in parts:
        fixed.extend(piece for piece in _PLACEHOLDER.split(part[:MAX_LITERAL]) if piece.strip())
    return fixed



_DEFINITION_KINDS = kinds.CLASS_NODES | kinds.FUNCTION_NODES | kinds.CONSTANT_NODES
_SKIPPED = -2
"""The owner of a name that is no reference: a definition's own name, or inside a literal."""
_by_position = attrgetter("start_byte")


def _in_order(nodes: list[Node]) -> list[Node]:
    """Nodes in the order a walk of the tree meets them (an outer node before an inner one
    starting at the same byte)."""
    return sorted(nodes, key=lambda node: (node.start_byte, -node.end_byte))


class _Reader:
    """One pass over a file's definitions, literals and comments in the order they appear,
    then the names and calls, each given to the innermost definition around it."""

    def __init__(self, symbols: FileSymbols, found: dict[str, list[Node]], root: Node) -> None:
        self.symbols = symbols
        self.found = found
        self.root = root
        self.spans: list[tuple[int, int, _Draft]] = []
        """(first byte, end byte, definition) in the order of the file."""
        self.parents: list[int] = []
        self.opaque: list[tuple[int, int]] = []
        """Literals and comments: nothing inside them is read."""
        self.literals: list[Literal] = []
        self.skipped: list[int] = []
        """First bytes of the definitions' own names."""

    def definitions_and_prose(self) -> None:
        language = self.symbols.language
        events: list[tuple[int, int, int, Node, Node | None]] = []
        for node in self.found.get(kinds.DEFINITION, ()):
            if node.id != self.root.id and (name := _name_node(node)) is not None:
                events.append((node.start_byte, -node.end_byte, 0, node, name))
        for child in self.root.children:
            if child.type not in _DEFINITION_KINDS and \
                    (constant := _constant(child, 1, language)) is not None:
                events.append((child.start_byte, -child.end_byte, 0, child, constant))
        for node in self.found.get(kinds.STRING, ()):
            events.append((node.start_byte, -node.end_byte, 1, node, None))
        for node in self.found.get(kinds.COMMENT, ()):
            events.append((node.start_byte, -node.end_byte, 2, node, None))
        events.sort(key=itemgetter(0, 1, 2))
        stack: list[int] = []
        pending: set[str] = set()
        opaque_end = -1
        for start, negative_end, role, node, name in events:
            if start < opaque_end:
                continue  # inside a literal or comment
            while stack and self.spans[stack[-1]][1] <= start:
                stack.pop()
            inner = self.spans[stack[-1]][2] if stack else None
            if role == 0 and name is not None:
                definition = self._definition(node, name, inner, pending)
                pending = set()
                self.parents.append(stack[-1] if stack else -1)
                stack.append(len(self.spans))
                self.spans.append((start, -negative_end, definition))
                if name.child_count == 0:  # C++'s `A::f` names a method, and uses A
                    self.skipped.append(name.start_byte)
                continue
            opaque_end = -negative_end
            self.opaque.append((start, opaque_end))
            if role == 1:
                fixed = _fragments(node)
                if fixed:
                    self.literals.append((node.start_point[0] + 1, tuple(fixed)))
                    if inner is not None and len(inner.doc) < MAX_WORDS:
                        inner.doc.update(text_stems(redact(" ".join(fixed))))
            elif inner is not None:
                inner.doc.update(text_stems(redact(_text(node))))
            else:
                pending.update(text_stems(redact(_text(node))))

    def _definition(self, node: Node, name_node: Node, outer: _Draft | None,
                    pending: set[str]) -> _Draft:
        kind = "class" if node.type in kinds.CLASS_NODES else \
            "function" if node.type in kinds.FUNCTION_NODES else "constant"
        name = sys.intern(_text(name_node))
        if kind == "function" and outer is not None and outer.kind == "class":
            kind = "method"
        qualname = sys.intern(f"{outer.qualname}.{name}") if outer is not None else name
        found = _Draft(name=name, qualname=qualname, kind=kind,
                       start=node.start_point[0] + 1, end=node.end_point[0] + 1,
                       doc=pending.union(identifier_stems(name)))
        if kind == "class":
            found.bases = _bases(node)
        return found

    def _owner(self, position: int, starts: list[int]) -> _Draft | None:
        """The innermost definition around a byte (`starts`: the spans' first bytes)."""
        index = bisect_right(starts, position) - 1
        while index >= 0 and self.spans[index][1] <= position:
            index = self.parents[index]
        return self.spans[index][2] if index >= 0 else None

    def _opaque(self, node: Node, starts: list[int]) -> bool:
        """Whether a node is inside a literal or comment (`b"".join(…)` starts with one;
        `starts`: the literals' and comments' first bytes)."""
        index = bisect_right(starts, node.start_byte) - 1
        return index >= 0 and node.end_byte <= self.opaque[index][1]

    def names(self) -> None:
        nodes = sorted((node for node in self.found.get(kinds.NAME, ())
                        if node.child_count == 0), key=_by_position)
        starts = [node.start_byte for node in nodes]
        texts = [node.text or b"" for node in nodes]
        owners = [-1] * len(starts)
        for number, (first, end, _definition) in enumerate(self.spans):
            low, high = bisect_left(starts, first), bisect_left(starts, end)
            owners[low:high] = [number] * (high - low)
        for first, end in self.opaque:
            low, high = bisect_left(starts, first), bisect_left(starts, end)
            owners[low:high] = [_SKIPPED] * (high - low)
        for first in self.skipped:
            index = bisect_left(starts, first)
            if index < len(starts) and starts[index] == first:
                owners[index] = _SKIPPED
        references: dict[str, int] = {}
        counted = Counter(text for text, owner in zip(texts, owners, strict=True)
                          if owner != _SKIPPED)
        for raw, count in counted.items():
            name = sys.intern(raw.decode("utf-8", "replace"))
            references[name] = references.get(name, 0) + count
        self.symbols.references = References(references)
        used: list[dict[bytes, None]] = [{} for _ in self.spans]
        for text, owner in zip(texts, owners, strict=True):
            if owner >= 0:
                used[owner][text] = None
        for (_first, _end, definition), names in zip(self.spans, used, strict=True):
            body = definition.body
            for raw in names:
                if len(body) >= MAX_WORDS:
                    break
                body.update(identifier_stems(raw.decode("utf-8", "replace")))

    def calls(self) -> None:
        span_starts = [first for first, _end, _draft in self.spans]
        opaque_starts = [first for first, _end in self.opaque]
        for node in _in_order(self.found.get(kinds.CALL, [])):
            if self._opaque(node, opaque_starts):
                continue
            inner = self._owner(node.start_byte, span_starts)
            if inner is not None and len(inner.refs) < MAX_WORDS:
                called = _called(node)
                if called:
                    inner.refs.add(called)


def extract(rel: str, source: bytes, language: str) -> FileSymbols:
    """The symbols of one file (`rel` is its workspace-relative path)."""
    source = as_utf8(source)  # tree-sitter reads UTF-8: a declared Latin-1 is decoded
    tree = parser_for(language).parse(source)
    symbols = FileSymbols(path=rel, language=language, lines=line_count(source))
    root = tree.root_node
    reader = _Reader(symbols, QueryCursor(kinds.query_for(language)).captures(root), root)
    reader.definitions_and_prose()
    reader.names()
    reader.calls()
    symbols.definitions = [draft.done() for _first, _end, draft in reader.spans]
    symbols.literals = Literals(reader.literals)
    return symbols
