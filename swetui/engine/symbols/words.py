"""Words of identifiers and prose, reduced to a common stem so that `redirects`, `redirected`
and `_build_redirect_request` meet on `redirect`."""

from __future__ import annotations

import functools
import re
import threading

import snowballstemmer

_SUBWORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

STOP_WORDS = frozenset("""
a an and are as at be been but by can could do does doing done did for from has have how i if
in into is it its me my no not of on or our please should so that the their them then there
these this those to us was we what when where which who why will with would you your self cls
file files code function functions class classes method methods show read find grep search
list look fix change add make use used uses using run test tests check explain seem seems
doesn't dont don't work works happen happens get gets set sets return returns true false none
null new one two each all any some other another value values thing things way just also
about after before than only via per here out up down over under between through
""".split())


ABBREVIATIONS = {
    "env": "environment", "var": "variable", "vars": "variables", "cfg": "config",
    "conf": "config", "msg": "message", "req": "request", "resp": "response",
    "auth": "authentication authorization", "dir": "directory", "err": "error", "exc": "exception",
    "param": "parameter", "params": "parameters", "arg": "argument", "args": "arguments",
    "opt": "option", "opts": "options", "cmd": "command", "ctx": "context", "str": "string",
    "num": "number", "len": "length", "idx": "index", "buf": "buffer", "conn": "connection",
    "addr": "address", "info": "information", "init": "initialize", "tmp": "temporary",
    "db": "database", "fn": "function", "func": "function", "cb": "callback",
    "prev": "previous", "pos": "position", "src": "source", "dst": "destination",
}
"""Short forms in identifiers and the words a person writes for them."""


IRREGULAR = {
    form: base for base, forms in (
        ("build", "built"), ("keep", "kept"), ("send", "sent"), ("make", "made"),
        ("write", "written wrote"), ("get", "got gotten"), ("choose", "chosen chose"),
        ("throw", "thrown threw"), ("run", "ran"), ("begin", "began begun"),
        ("break", "broke broken"), ("bring", "brought"), ("catch", "caught"),
        ("draw", "drawn drew"), ("feed", "fed"), ("give", "given gave"), ("go", "gone went"),
        ("hold", "held"), ("hide", "hidden hid"), ("know", "known knew"), ("lose", "lost"),
        ("mean", "meant"), ("pay", "paid"), ("say", "said"), ("see", "seen"),
        ("seek", "sought"), ("sell", "sold"), ("show", "shown"), ("speak", "spoken spoke"),
        ("spend", "spent"), ("stand", "stood"), ("take", "taken took"), ("teach", "taught"),
        ("tell", "told"), ("think", "thought"), ("understand", "understood"),
        ("wake", "woken woke"), ("win", "won"), ("rise", "risen rose"),
        ("freeze", "frozen froze"), ("forget", "forgotten forgot"), ("fall", "fallen fell"),
    ) for form in forms.split()}
"""Irregular past forms a stemmer leaves alone (`built`), with their verb (`build`); only
forms that are not also common nouns or adjectives (not `left`, `bound`, `found`)."""
_local = threading.local()
_BRITISH = re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|ation|ations|er|ers)$")
"""British -ise spellings (`serialised`), spelt as the code mostly does (`serialize`)."""


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """The Snowball (Porter 2) English stem of a word, British -ise spelt -ize first:
    `redirects`, `redirected` → redirect; `wrapped` → wrap; `serialised` → serial."""
    word = word.lower()
    word = IRREGULAR.get(word) or _BRITISH.sub(r"iz\1", word)
    english = getattr(_local, "english", None)
    if english is None:  # a stemmer keeps state while it works: one per thread
        english = _local.english = snowballstemmer.stemmer("english")
    return str(english.stemWord(word))


def subwords(identifier: str) -> list[str]:
    """`_build_redirect_request` → build, redirect, request; `AsyncHTTPTransport` → async,
    http, transport."""
    return [part.lower() for part in _SUBWORD.findall(identifier)]


def _expand(part: str) -> list[str]:
    """A subword with the words its short forms stand for (`envvar` → env, var, envvar)."""
    found = [part]
    if part in ABBREVIATIONS:
        found += ABBREVIATIONS[part].split()
    else:
        for cut in range(2, len(part) - 1):
            head, tail = part[:cut], part[cut:]
            if head in ABBREVIATIONS and tail in ABBREVIATIONS:
                found += [head, *ABBREVIATIONS[head].split(), tail,
                          *ABBREVIATIONS[tail].split()]
                break
    return found


@functools.lru_cache(maxsize=65_536)
def stems_of_identifier(identifier: str) -> frozenset[str]:
    """Stems of an identifier's subwords, their long forms, and adjacent pairs joined
    (`GZipDecoder` → g, zip, decoder, gzip, zipdecoder)."""
    parts = subwords(identifier)
    found: set[str] = set()
    for part in parts:
        found.update(stem(word) for word in _expand(part) if len(word) > 1)
    for first, second in zip(parts, parts[1:], strict=False):
        found.add(stem(first + second))
    return frozenset(found)


def prose_stems(text: str) -> list[str]:
    """Distinct stems of the meaningful words of `text`, in order (stop words left out)."""
    found: list[str] = []
    for token in _WORD.findall(text):
        for part in subwords(token):
            if len(part) < 3 or part in STOP_WORDS:
                continue
            for word in _expand(part):
                stemmed = stem(word)
                if stemmed not in found:
                    found.append(stemmed)
    return found
