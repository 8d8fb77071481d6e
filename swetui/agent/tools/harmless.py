"""Commands the reader can prove harmless: the allow-list used where there is no sandbox.

Without a kernel sandbox nothing stops a command from doing what its text hides (`R=rm;
$R -rf /`, `python3 -c ...`, `base64 -d | sh`), so a block-list cannot be trusted. Instead,
only commands made entirely of read-only programs, with only the options known not to write
or run anything, with no expansions, substitutions, assignments or redirections that write,
and reading no secret file (globs expanded to check) run without asking; everything else
asks.
"""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

from swetui.agent.sandbox import SecretFiles, WorkspaceTooLarge, secret_files
from swetui.agent.sandbox.mounts import under
from swetui.agent.sandbox.readable import ETC_SECRETS, readable_paths
from swetui.agent.sandbox.scan import WorkspaceScan
from swetui.agent.sensitive import is_secret_file
from swetui.agent.tools.commands import PLACEHOLDER, CommandReader, Segment, split_commands
from swetui.agent.tools.git_index import UnreadableIndex, tracked_paths

READ_ONLY_PROGRAMS = frozenset({
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "pwd", "echo", "printf",
    "which", "stat", "du", "df", "diff", "cmp", "sort", "uniq", "cut", "nl", "basename",
    "dirname", "realpath", "readlink", "date", "whoami", "id", "uname", "true", "false",
    "column", "tac", "rev", "fold", "comm", "join", "paste", "expand", "md5sum", "sha1sum",
    "sha256sum", "cksum", "hexdump", "od", "strings", "find",
})
GIT_READ_ONLY = frozenset({"status", "diff", "log", "show", "rev-parse", "ls-files", "blame",
                           "describe", "shortlog", "ls-tree", "cat-file"})
GIT_FORBIDDEN = ("-c", "--output", "--ext-diff", "-O", "--open-files", "--exec",
                 "--upload-pack", "--config-env", "--textconv", "--git-dir", "--work-tree")
VERSION_PROGRAMS = frozenset({"python", "python3", "node", "npm", "git", "cargo", "rustc",
                              "go", "ruby", "java", "gcc", "make", "pip", "pip3", "uv", "ruff",
                              "mypy", "pytest", "deno", "bun", "perl", "php"})
SORT_SHORT = frozenset("nrufbdghiMVszkt")
"""sort's short options that neither write (-o) nor pick a temp directory (-T)."""
SORT_LONG = ("--numeric-sort", "--reverse", "--unique", "--ignore-case", "--stable",
             "--human-numeric-sort", "--version-sort", "--general-numeric-sort", "--key=",
             "--field-separator=", "--zero-terminated", "--dictionary-order",
             "--ignore-leading-blanks", "--month-sort")
FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint",
                          "-fprint0", "-fprintf", "-fls"})
RECURSIVE_GREP = re.compile(r"-[a-zA-Z]*[rR]|--recursive|--dereference-recursive|"
                            r"--directories=recurse|-d")
EXPANSION = re.compile(r"[$`]|<\(|>\(")
ASSIGNMENT = re.compile(r"(?:^|[\s;&|(])[A-Za-z_][A-Za-z0-9_]*=")
GLOB = re.compile(r"[*?\[]")


def _options_ok(name: str, args: list[str]) -> bool:
    options = [arg for arg in args if arg.startswith("-") and arg != "-"]
    if name == "sort":
        return all(opt.startswith(SORT_LONG) if opt.startswith("--")
                   else set(opt[1:]) <= SORT_SHORT for opt in options)
    if name == "uniq":  # `uniq IN OUT` writes OUT (`-` counts as an operand)
        return len([arg for arg in args if not arg.startswith("-") or arg == "-"]) <= 1
    if name == "date":  # only formats: no setting the clock
        return all(arg.startswith("+") or arg in ("-u", "--utc", "-R") for arg in args)
    if name in ("rg", "grep", "egrep", "fgrep"):
        return not any(opt.startswith(("--pre", "-f", "--file")) for opt in options)
    if name == "find":
        return not FIND_ACTIONS & set(args)
    return True


def _segment_harmless(segment: Segment) -> bool:
    if segment.wrappers:
        return False
    for op, target in segment.redirects:
        if op == "<":
            continue
        if target != "/dev/null":
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
            a.startswith(GIT_FORBIDDEN) for a in args)
    if name in READ_ONLY_PROGRAMS:
        return _options_ok(name, args)
    # `python3 --version`: a version query of a known program, reading nothing.
    return name in VERSION_PROGRAMS and args == ["--version"] and not segment.piped \
        and not segment.redirects


MAX_SEARCHED_FILES = 100_000
"""Files a recursive search may cover and still be checked for other names of secrets; past
it, the search asks."""


NO_FILE_ARGUMENTS = frozenset({"echo", "printf", "date", "whoami", "id", "uname", "true",
                               "false", "pwd", "which", "basename", "dirname"})
"""Programs whose arguments are words, not files they read."""


def _reads_secret(segment: Segment, root: str, rule: SecretFiles,
                  readable: list[str]) -> bool:
    """Whether an argument or an input redirect names, globs to, links to or (`rev:path`)
    points at a secret file or a place outside the workspace that the sandbox would not
    let a command read either (`readable`: another project, a home), or a recursive
    search would read one (`rule`: the workspace's secret files, by name, target and
    inode)."""
    for word in [*segment.words[1:], *(target for op, target in segment.redirects if op == "<")]:
        if word.startswith("--") and "=" in word:
            arg = word.split("=", 1)[1]  # `diff --from-file=.env`, `wc --files0-from=.env`
        elif word.startswith("-"):
            continue
        else:
            arg = word
        path = arg.split(":", 1)[1] if segment.name == "git" and ":" in arg else arg
        path = os.path.expanduser(path)
        if rule.path(path) or (segment.name not in NO_FILE_ARGUMENTS
                               and not _readable(os.path.join(root, path), readable)):
            return True
        if GLOB.search(path):
            if os.path.isabs(path) or path.startswith(".."):
                return True  # only globs inside the workspace are expanded and checked
            matches = glob.glob(os.path.join(root, path), include_hidden=True, recursive=True)
            if any(rule.path(match) for match in matches):
                return True
    if segment.name == "git" and _shows_contents(segment.words[1:]) and _tracks_secret(root):
        return True
    recursive = segment.name == "rg" or (
        segment.name in ("grep", "egrep", "fgrep")
        and any(RECURSIVE_GREP.match(a) for a in segment.words[1:] if a.startswith("-")))
    if not recursive:
        return False
    directories = [os.path.join(root, a) for a in segment.words[1:]
                   if not a.startswith("-") and os.path.isdir(os.path.join(root, a))]
    return any(_has_secrets(directory, rule) for directory in directories or [root])


PROCESSES = re.compile(r"/proc/(?:\d+|self|thread-self)(?:/|$)")
"""Other processes' environment, memory and command line: a sandbox sees only its own
`/proc`; without one, `cat /proc/1/environ` would read the keys of the user's shell."""


GIT_CONTENTS = frozenset({"diff", "show", "blame", "cat-file"})
GIT_PATCH = re.compile(r"-p$|--patch|-u$|--cc|-c$|--word-diff|-L")


def _shows_contents(args: list[str]) -> bool:
    """Whether a read-only git command prints files' contents (a diff, a blob), not only
    names and messages."""
    return bool(args) and (args[0] in GIT_CONTENTS or (
        args[0] == "log" and any(GIT_PATCH.match(arg) for arg in args[1:])))


def _tracks_secret(root: str) -> bool:
    """Whether git tracks a secret file here (`git diff` would print a tracked `.env`'s
    changes, `git show` its content), read from the index without running git; an index
    that cannot be read counts as one."""
    try:
        return any(is_secret_file(path) for path in tracked_paths(root))
    except UnreadableIndex:
        return True


def _readable(path: str, readable: list[str]) -> bool:
    """Whether a confined command could read `path` too: inside the workspace, the system
    or a toolchain, and not a process's files or a secret of the system."""
    real = os.path.realpath(path)
    if PROCESSES.match(real) or any(under(real, secret) for secret in ETC_SECRETS):
        return False
    return any(under(real, place) for place in readable)



def _has_secrets(directory: str, rule: SecretFiles) -> bool:
    """Whether a recursive search of `directory` would read a secret file: one by its name,
    or another name of a secret kept elsewhere in the workspace (`sub/notes.txt` sharing
    `.env`'s inode)."""
    try:
        if WorkspaceScan(Path(directory)).scan().secrets:
            return True
    except WorkspaceTooLarge:
        return True
    seen = 0
    for folder, _dirs, names in os.walk(directory):
        for name in names:
            seen += 1
            if seen > MAX_SEARCHED_FILES or rule.linked(os.path.join(folder, name)):
                return True
    return False


def is_harmless(command: str, root: str) -> bool:
    """True when every part of `command` is a read-only program reading, with nothing the
    shell would expand into something else, and nothing the danger reader flags."""
    if not command.strip() or EXPANSION.search(command) or "\\" in command \
            or ASSIGNMENT.search(command) or "~" in command.replace("~/", ""):
        return False
    if re.search(r"(?<![|&>])&(?![&>])", command):  # a background job
        return False
    segments = split_commands(command)
    if not segments or not all(_segment_harmless(segment) for segment in segments):
        return False
    rule = secret_files(root)  # its walk is shared and incremental
    readable = [os.path.realpath(root), *readable_paths(root)]
    if any(_reads_secret(segment, root, rule, readable) for segment in segments):
        return False
    return CommandReader(root).danger(command) is None
