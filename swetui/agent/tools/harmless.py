"""Commands the reader can prove harmless: the allow-list used where there is no sandbox.

Without a kernel sandbox nothing stops a command from doing what its text hides (`R=rm;
$R -rf /`, `python3 -c ...`, `base64 -d | sh`), so a block-list cannot be trusted. Instead,
only commands made entirely of read-only programs, with no expansions, substitutions or
redirections that write, run without asking; everything else asks.
"""

from __future__ import annotations

import re

from swetui.agent.tools.commands import PLACEHOLDER, CommandReader, Segment, split_commands

READ_ONLY_PROGRAMS = frozenset({
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "pwd", "echo", "printf",
    "which", "file", "stat", "du", "df", "tree", "diff", "cmp", "sort", "uniq", "cut", "nl",
    "basename", "dirname", "realpath", "readlink", "date", "whoami", "id", "uname", "true",
    "false", "column", "tac", "rev", "fold", "comm", "join", "paste", "expand", "md5sum",
    "sha1sum", "sha256sum", "cksum", "hexdump", "od", "strings", "find",
})
GIT_READ_ONLY = frozenset({"status", "diff", "log", "show", "rev-parse", "ls-files", "blame",
                           "grep", "describe", "shortlog", "ls-tree", "cat-file"})
FORBIDDEN_OPTIONS = {
    "sort": ("-o", "--output"), "tree": ("-o",), "date": ("-s", "--set"), "file": ("-C",),
    "rg": ("--pre",), "grep": ("--pre",),
}
"""Options that make a read-only program write a file or run another program."""
FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint",
                          "-fprint0", "-fprintf", "-fls"})
VERSION_FLAGS = frozenset({"--version", "-V", "-version"})
EXPANSION = re.compile(r"[$`]|<\(|>\(")
SAFE_REDIRECT_TARGETS = frozenset({"/dev/null", "1", "2"})


def _segment_harmless(segment: Segment) -> bool:
    if segment.wrappers:
        return False
    for op, target in segment.redirects:
        if op == "<":
            continue
        if target not in SAFE_REDIRECT_TARGETS:
            return False
    if not segment.words:
        return True
    name, args = segment.name, segment.words[1:]
    if segment.words[0] != name and "/" in segment.words[0]:
        return False  # ./ls or /tmp/x/cat: not the program the name suggests
    if any(PLACEHOLDER in word for word in segment.words):
        return False
    if name == "git":
        return bool(args) and args[0] in GIT_READ_ONLY and not any(
            a.startswith(("--output", "--ext-diff", "-c")) for a in args)
    if name == "find":
        return not FIND_ACTIONS & set(args)
    if name in READ_ONLY_PROGRAMS:
        forbidden = FORBIDDEN_OPTIONS.get(name, ())
        if any(arg.startswith(forbidden) for arg in args if forbidden):
            return False
        # `uniq IN OUT` writes OUT.
        return name != "uniq" or len([a for a in args if not a.startswith("-")]) <= 1
    # `python3 --version`, `node -v`: a version query of any program.
    return len(args) == 1 and (args[0] in VERSION_FLAGS or args[0] == "-v")


def is_harmless(command: str, root: str) -> bool:
    """True when every part of `command` is a read-only program reading, with nothing the
    shell would expand into something else, and nothing the danger reader flags."""
    if not command.strip() or EXPANSION.search(command) or "\\" in command:
        return False
    if re.search(r"(?<![|&>])&(?![&>])", command):  # a background job
        return False
    segments = split_commands(command)
    if not segments or not all(_segment_harmless(segment) for segment in segments):
        return False
    return CommandReader(root).danger(command) is None
