"""Which definitions the names a request mentions stand for: `Client.send`,
`_build_redirect_request`, `NetRCAuth`, `click.edit`, `evolve()`, in backticks or not; a word
of prose (`URL`, `the Authorization header`) is none."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import NamedTuple

from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.lookup import file_weight
from swetui.engine.symbols.symbol_map import SymbolIndex
from swetui.engine.symbols.words import STOP_WORDS

_NAME = re.compile(r"`([^`\n]{2,80})`|(?<![\w./-])([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)(\(\))?"
                   r"(?![\w-])")
"""A name, in backticks or not; words joined by hyphens (`Content-Type`, `X-Request-Id`, as
in headers and prose) are none."""
MAX_PER_NAME = 3
_DETERMINER = re.compile(r"(?:^|\W)(?:a|an|the|each|every|this|that|these|those|any|some|no)$",
                         re.IGNORECASE)


def _looks_like_name(token: str, start: int, text: str, backticked: bool) -> bool:
    if backticked or "." in token:
        return True
    core = token.strip("_")
    if "_" in core or token.startswith("_"):
        return True
    if any(c.isupper() for c in core[1:]) and any(c.islower() for c in core):
        return True  # CamelCase
    if core.isupper():
        return False  # `URL`, `UUID` alone: an acronym or a word of prose (`capitals`)
    if core[:1].isupper() and core.lower() not in STOP_WORDS:
        before = text[:start].rstrip()
        if _DETERMINER.search(before):
            return False  # "against a URL", "the Authorization header": a noun of prose
        return bool(before) and before[-1] not in ".!?:\n"  # not a sentence's first word
    return False


class Name(NamedTuple):
    """A name the request mentions."""

    parts: list[str]
    """Its dotted parts."""
    called: bool
    """Written as a call (`evolve()`)."""
    capitals: bool
    """A word in capitals alone, not written as code (`URL`, `NOTHING`): prose, or the
    name of a constant."""


def named(text: str) -> list[list[str]]:
    """Dotted names the request mentions, each split into its parts."""
    return [name.parts for name in names_in(text)]


def names_in(text: str) -> list[Name]:
    """The names the request mentions."""
    found: list[list[str]] = []
    calls: set[str] = set()
    capitals: set[str] = set()
    for match in _NAME.finditer(text):
        backticked = match.group(1) is not None
        token = (match.group(1) or match.group(2) or "").strip().removesuffix("()")
        if not token or not re.fullmatch(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*", token):
            continue
        called = match.group(3) is not None  # `confirm()`
        if not called and not _looks_like_name(token, match.start(), text, backticked):
            if not (token.isupper() and token.isidentifier() and len(token) > 1):
                continue
            capitals.add(token)
        parts = token.split(".")
        if parts not in found:
            found.append(parts)
        if called or backticked and match.group(1).strip().endswith("()"):
            calls.add(token)
    qualifiers = {parts[0] for parts in found if len(parts) > 1}  # `URL` beside `URL.join`
    return [Name(parts, ".".join(parts) in calls, ".".join(parts) in capitals)
            for parts in found if len(parts) > 1 or parts[0] not in qualifiers]


def _rank_key(index: SymbolIndex, rel: str) -> float:
    return file_weight(rel) * (1.0 + 10 * index.file_rank.get(rel, 0.0))


def _instance_of(variable: str, qualname: str) -> bool:
    """Whether `variable` is how code names an instance of the class holding `qualname`
    (`response.is_redirect` → `Response.is_redirect`, `http_transport` → `HTTPTransport`)."""
    owner = qualname.split(".")[-2] if "." in qualname else ""
    return variable[:1].islower() and bool(owner) and \
        variable.replace("_", "").lower() == owner.replace("_", "").lower()


def resolve(index: SymbolIndex, parts: list[str], *, called: bool = False,
            capitals: bool = False, named: Collection[str] = ()) -> list[tuple[str, Definition]]:
    """Definitions a dotted name refers to: `Client.send` → the `send` of class `Client`;
    `httpx.InvalidURL` → `InvalidURL` when no `httpx` class has it. A dotted name names its
    last part or nothing: `index.html` is a file, not `index`; `params.set` whose `set` no
    `params` holds is a call on a variable, not `params`. A bare name written as a call
    (`called`, `evolve()`) names a function when the source has one: a method is called
    on an object. A word in capitals alone (`capitals`: `URL`, `NOTHING`) names a constant
    or nothing: as a class's name it is as likely an acronym of prose. A bare name with
    more definitions than MAX_PER_NAME (`get`) says nothing about which is meant. A name
    that a file the request names (`named`) defines at its top level is that file's
    (`tz.py: gettz()` is tz.py's `gettz = __get_gettz()`, not another module's `def gettz`)."""
    name = parts[-1]
    candidates = index.by_name.get(name, [])
    qualifier = parts[:-1]
    if qualifier:
        suffix = ".".join(qualifier[-1:] + [name])
        narrowed = [(rel, d) for rel, d in candidates
                    if d.qualname == suffix or d.qualname.endswith("." + suffix)
                    or _instance_of(qualifier[-1], d.qualname)]
        if not narrowed:  # `click.edit`, `httpx.InvalidURL`: a module's name
            narrowed = [(rel, d) for rel, d in candidates
                        if qualifier[-1] in rel.replace("/", ".").split(".")]
            # a module's attribute is defined at its top level, not in a class
            narrowed = [(rel, d) for rel, d in narrowed if "." not in d.qualname] \
                or narrowed
        candidates = narrowed
    if len(parts) == 1 and name[:1].isupper() and name[1:].islower():
        # A capitalised word (`Content`, `Path`) is as likely prose as a name: only a
        # top-level definition of the source counts, not a class inside a test.
        candidates = [(rel, d) for rel, d in candidates
                      if "." not in d.qualname and file_weight(rel) == 1.0]
    if any(file_weight(rel) == 1.0 for rel, _d in candidates):
        # the source's definition is the one meant; a test's of the same name is not
        candidates = [(rel, d) for rel, d in candidates if file_weight(rel) == 1.0]
    if any(not rel.endswith(".pyi") for rel, _d in candidates):
        # a stub declares what the module implements: the implementation is meant
        candidates = [(rel, d) for rel, d in candidates if not rel.endswith(".pyi")]
    if capitals:
        candidates = [(rel, d) for rel, d in candidates if d.kind == "constant"]
    own = [(rel, d) for rel, d in candidates if rel in named and "." not in d.qualname]
    if own:  # a module's names are its top-level definitions
        candidates = own
    if not qualifier:
        if len({(rel, d.qualname) for rel, d in candidates}) > MAX_PER_NAME:
            return []
        if called:
            candidates = [(rel, d) for rel, d in candidates
                          if "." not in d.qualname and d.kind == "function"] or candidates
    ordered = sorted(candidates, key=lambda c: (-_rank_key(index, c[0]), c[0], c[1].start))
    return ordered[:MAX_PER_NAME]
