"""A class hit shown by the members the request is about: `How does CommandCollection look a
command name up across its sources?` attaches the class's header line and `get_command`, not
the whole class, and says in what is sent which members are left out, where they are, and
how to read them. A short class, or a request saying nothing beyond the class's name, is
shown as before (whole, or as its outline when long). The class's constructor is shown
whole only when it is the one member the request points to."""

from __future__ import annotations

from swetui.engine.spans import definition_lines, first_line
from swetui.engine.symbols.extract import Definition, FileSymbols
from swetui.engine.symbols.lookup import behaviour_score
from swetui.engine.symbols.symbol_map import SymbolIndex
from swetui.engine.symbols.words import prose_stems, stems_of_identifier

WHOLE_CLASS_LINES = 30
"""A class this short is shown whole: picking its members would save little."""
MAX_MEMBERS = 2
MEMBER_SHARE = 0.7
"""A second member is shown when its words match at least this share of the best one's."""
MIN_MEMBER_SHARE = 0.15
"""The best member must match at least this share of the request's words beyond the class's
name (weighted by rarity): a member saying one common word of the request is no answer."""
LISTED_MEMBERS = 12
"""Members left out are listed by name and line, at most this many."""
CONSTRUCTORS = frozenset({"__init__", "constructor", "__construct", "initialize"})
"""What a class's constructor is called (Python, JavaScript and TypeScript, PHP, Ruby; in
Java, C# and C++ it bears the class's name)."""


def members(symbols: FileSymbols, cls: Definition) -> list[Definition]:
    """The definitions directly inside a class (its methods, nested classes, constants)."""
    prefix = cls.qualname + "."
    return [d for d in symbols.definitions
            if d.qualname.startswith(prefix) and "." not in d.qualname[len(prefix):]
            and cls.start < d.start <= cls.end]


def focus_members(index: SymbolIndex, rel: str, cls: Definition, text: str
                  ) -> list[Definition]:
    """The members of a long class hit that the request's words (beyond the class's own
    name) point to, best first; none when the class is short or nothing points anywhere."""
    if cls.kind != "class" or cls.end - cls.start + 1 <= WHOLE_CLASS_LINES:
        return []
    own = stems_of_identifier(cls.name)
    stems = [s for s in dict.fromkeys(prose_stems(text))
             if s not in own and index.document_frequency.get(s)]
    if not stems:
        return []
    idf = {stem: index.idf(stem) for stem in stems}
    scored = [(behaviour_score(member, stems, idf)[0], member)
              for member in members(index.by_file[rel], cls) if member.kind != "constant"]
    scored = [entry for entry in scored if entry[0] > 0]
    if not scored:
        return []
    scored.sort(key=lambda s: (-s[0], s[1].start))
    best = scored[0][0]
    if best < MIN_MEMBER_SHARE * sum(idf.values()):
        return []
    picked = [member for score, member in scored[:MAX_MEMBERS]
              if score >= MEMBER_SHARE * best]
    # A constructor names every attribute its class keeps, so the request's words match it
    # whenever they match the member that does the work: beside that one it is shown by
    # its first line (alone, it is where the asked value is set, and shown whole).
    workers = [member for member in picked if not is_constructor(cls, member)]
    return workers or picked[:1]


def is_constructor(cls: Definition, member: Definition) -> bool:
    return member.name in CONSTRUCTORS or member.name == cls.name


def member_lines(symbols: FileSymbols, cls: Definition, picked: list[Definition],
                 text: list[str]) -> tuple[list[int], str]:
    """The lines showing a class by the members the request is about: its header line, the
    picked members whole, the others by their first line (with decorators) when there are
    at most LISTED_MEMBERS of them, else by name and line in the note; and that note."""
    chosen = [first_line(text, cls.start), cls.start]
    for member in picked:
        chosen += definition_lines(symbols, member, text)
    rest = [d for d in members(symbols, cls) if d not in picked]
    names = ", ".join(d.name for d in picked)
    if not rest:
        return chosen, f"shown: its {names}"
    if len(rest) <= LISTED_MEMBERS:
        for member in rest:
            chosen += range(first_line(text, member.start), member.start + 1)
        return chosen, f"shown: its {names}; its other members by their first line"
    unnamed = _one_per_name(rest, {d.name for d in picked})
    listed = ", ".join(f"{d.name} (line {d.start})" for d in unnamed[:LISTED_MEMBERS])
    more = f" and {len(unnamed) - LISTED_MEMBERS} more" if len(unnamed) > LISTED_MEMBERS else ""
    return chosen, f"shown: its {names}; its other members, not shown: {listed}{more}"


def _one_per_name(found: list[Definition], shown: set[str]) -> list[Definition]:
    """The first of each name not `shown` already: a property's getter stands for its
    setter and deleter (one name to the reader, one line to read at)."""
    named: dict[str, Definition] = {}
    for definition in found:
        if definition.name not in shown:
            named.setdefault(definition.name, definition)
    return list(named.values())

