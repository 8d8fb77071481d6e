"""The files a git config includes (`[include] path = …`, `[includeIf "gitdir:…"] path = …`),
read as git reads them: a section header may share its line with a setting
(`[include] path = x`), a value may be quoted, escaped, continued on the next line with
`\\`, or followed by a `;`/`#` comment. Standard library only.

Two uses (`scrubbed.py`): every included config is shown to a confined command without its
credentials, like the config itself; and the files the user's own configs include
(`~/.gitconfig` → `~/.gitconfig.local`, the most common place for a token) are granted to
it, file by file, or git inside the sandbox stops with "bad config line".
"""

from __future__ import annotations

import functools
import os
import re
import stat
from dataclasses import dataclass

from swetui.agent.sandbox.mounts import under
from swetui.files import read_regular

MAX_CONFIG_BYTES = 1024 * 1024
"""A config larger than this is not read for includes (nor copied: `scrubbed.py`)."""
MAX_INCLUDED = 50
"""Included files followed at most, from all configs together (a planted config may name
thousands, or include itself under ever longer names)."""
MAX_TOTAL_BYTES = 1024 * 1024
"""Config bytes read at most before each command, for includes and again for credentials:
a planted `.git/modules` of 200 configs of 1 MiB each took 75-160 s a command. The user's
configs come first; what is left over is not read (for credentials: not shown at all)."""


_SPACE = " \t\n\r"
"""What git calls a space (its own ctype: not Python's `str.isspace`)."""


def _key_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "-")


class _Reader:
    """git's config tokenizer (config.c: `get_next_char`, `get_base_var`, `parse_value`),
    reduced to what finding the include paths needs."""

    def __init__(self, text: str) -> None:
        self.text = text.removeprefix("\ufeff")
        self.at = 0

    def next(self) -> str:
        """The next character; "\\n" at the end (as git's reader does), CRLF read as "\\n"."""
        if self.at >= len(self.text):
            self.at += 1
            return "\n"
        char = self.text[self.at]
        self.at += 1
        if char == "\r" and self.text[self.at:self.at + 1] == "\n":
            self.at += 1
            return "\n"
        return char

    @property
    def done(self) -> bool:
        return self.at > len(self.text)

    def section(self) -> str | None:
        """After `[`: the section's name (`include`, `includeif.gitdir:~/work/`), or None
        for a header git refuses."""
        name = ""
        while True:
            char = self.next()
            if self.done:
                return None
            if char == "]":
                return name.lower()
            if char in _SPACE:
                return self._subsection(name.lower(), char)
            if not _key_char(char) and char != ".":
                return None
            name += char

    def _subsection(self, name: str, char: str) -> str | None:
        while char in _SPACE:
            if char == "\n":
                return None
            char = self.next()
        if char != '"':
            return None
        name += "."
        while True:
            char = self.next()
            if char == "\n":
                return None
            if char == '"':
                break
            if char == "\\":
                char = self.next()
                if char == "\n":
                    return None
            name += char
        return name if self.next() == "]" else None

    def value(self) -> str | None:
        """After `=`: the value, unquoted and unescaped; None when git refuses it."""
        value, quoted, comment, spaces = "", False, False, 0
        while True:
            char = self.next()
            if char == "\n":
                return None if quoted else value
            if comment:
                continue
            if char in _SPACE and not quoted:
                spaces += 1 if value else 0
                continue
            if not quoted and char in ";#":
                comment = True
                continue
            value += " " * spaces
            spaces = 0
            if char == "\\":
                char = self.next()
                if char == "\n":
                    continue
                escaped = {"t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}.get(char)
                if escaped is None:
                    return None
                value += escaped
            elif char == '"':
                quoted = not quoted
            else:
                value += char


_PLAIN_LINE = re.compile(
    r"[ \t]*(?:\[(?P<section>[A-Za-z0-9.-]+)\]"
    r"|\[(?P<base>[A-Za-z0-9.-]*)[ \t]+\"(?P<sub>[^\"\\\n]*)\"\]"
    r"|(?P<key>[A-Za-z][A-Za-z0-9-]*)[ \t]*=[ \t]*"
    r"(?P<value>[^\"\\;#\s](?:[^\"\\;#\n\r\t]*[^\"\\;#\s])?)?)?"
    r"[ \t]*(?:[#;][^\n]*)?(?:\r?\n|\Z)")
"""A line as nearly all are (a header, `key = plain value`, a comment, nothing), read in one
step; any other (quotes, escapes, a `\\` join, a setting beside its header) char by char."""


def settings(text: str) -> list[tuple[str, str]]:
    """(section.key as git names it, value) for each setting of the config `text` with a
    value, in order, up to the first line git refuses (where git stops with "bad config")."""
    return read_config(text)[0]


def read_config(text: str) -> tuple[list[tuple[str, str]], int | None]:
    """(`settings(text)`, None when git reads `text` to its end, else how many of its lines
    git reads before the (logical) line it refuses, as it does in a file that is no git
    config at all)."""
    reader = _Reader(text)
    found: list[tuple[str, str]] = []
    section, comment = "", False
    while True:
        while reader.at < len(reader.text) and \
                (plain := _PLAIN_LINE.match(reader.text, reader.at)) is not None:
            reader.at = plain.end()
            if plain.group("section") is not None:
                section = plain.group("section").lower()
            elif plain.group("base") is not None:
                section = f"{plain.group('base').lower()}.{plain.group('sub')}"
            elif plain.group("key") is not None:
                key = plain.group("key").lower()
                found.append((f"{section}.{key}" if section else key, plain.group("value") or ""))
        while True:  # the rest of this line, char by char
            char = reader.next()
            if char == "\n":
                if reader.done:
                    return found, None
                comment = False
                break
            if comment or char in _SPACE:
                continue
            if char in "#;":
                comment = True
                continue
            if char == "[":
                name = reader.section()
                if not name:
                    return found, _refused_at(reader)
                section = name
                continue
            if not char.isascii() or not char.isalpha():
                return found, _refused_at(reader)
            key = char
            while _key_char(char := reader.next()) and not reader.done:
                key += char
            while char in " \t":
                char = reader.next()
            if char != "\n":
                if char != "=":
                    return found, _refused_at(reader)
                value = reader.value()
                if value is None:
                    return found, _refused_at(reader)
                found.append((f"{section}.{key.lower()}" if section else key.lower(), value))
            elif reader.done:
                return found, None
            break  # the value (or a key without one) ended its line


def _refused_at(reader: _Reader) -> int:
    """The lines before the one `reader` stopped on (that line's first, when the lines
    before it end in a `\\` that joins them to it)."""
    lines = reader.text[:max(reader.at - 1, 0)].split("\n")[:-1]
    while lines and (len(lines[-1].rstrip("\r")) - len(lines[-1].rstrip("\r").rstrip("\\"))) % 2:
        lines.pop()
    return len(lines)


def parsed(text: str) -> tuple[tuple[str, str], ...]:
    """`settings(text)`, kept for the configs read before each command (they seldom change;
    a planted 1 MiB config takes 0.25 s to read)."""
    return _read(text)[0]


@functools.lru_cache(maxsize=16)
def _read(text: str) -> tuple[tuple[tuple[str, str], ...], int | None]:
    found, refused_at = read_config(text)
    return tuple(found), refused_at


def include_paths(text: str) -> list[str]:
    """The paths the config `text` includes, as written (`~/x`, `x`, `/etc/x`), whatever
    their condition: git may hold it in one repository and not the next."""
    found = []
    for name, value in parsed(text):
        section, _, key = name.rpartition(".")
        head = section.split(".", 1)[0]
        if key == "path" and value and (section == "include" or
                                        (head == "includeif" and "." in section)):
            found.append(value)
    return found


def resolve(written: str, including: str, home: str) -> str | None:
    """The file a `path = written` in the config `including` names: `~/` is the home, a
    relative path is the including file's folder's (not resolving links: git does not);
    None for what is not looked up here (`~user/`, `%(prefix)/`)."""
    if written.startswith("~/") or written == "~":
        written = os.path.join(home, written[2:])
    elif written.startswith(("~", "%(")):
        return None
    return os.path.normpath(os.path.join(os.path.dirname(including), written))


def included(path: str, home: str, info: os.stat_result | None = None
             ) -> tuple[list[str], int | None] | None:
    """(the files the git config at `path` includes, how many of its lines git reads when
    it refuses one: `read_config`); None when it cannot be read whole (never blocking: a
    planted `path = fifo` would stop every command; nor past `MAX_CONFIG_BYTES`). Kept while
    the file is unchanged (`info`: its `os.stat`): it is asked before every command."""
    try:
        info = info or os.stat(path)
        mark = (path, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns,
                info.st_ctime_ns)
        if mark not in _INCLUDES:
            data, size = read_regular(path, MAX_CONFIG_BYTES)
            text = data.decode("utf-8", "replace")
            if len(_INCLUDES) >= 512:
                _INCLUDES.clear()
            _INCLUDES[mark] = (include_paths(text), _read(text)[1]) \
                if size <= MAX_CONFIG_BYTES else None
        known = _INCLUDES[mark]
    except OSError:
        return None
    if known is None:
        return None
    written, refused_at = known
    return [name for name in (resolve(w, path, home) for w in written) if name is not None], \
        refused_at


_INCLUDES: dict[tuple[str, int, int, int, int, int], tuple[list[str], int | None] | None] = {}
"""(path, device, inode, size, mtime, ctime) → what `included` found in that config."""


@dataclass(frozen=True)
class Configs:
    """The git configs a confined command may read and the files they include."""

    paths: list[str]
    """All of them: the user's own and what they include first, then the repository's."""
    granted: list[str]
    """The user's own and what they include (through no file in the workspace), as real
    paths of regular files outside it: what a confined command is granted to read so git
    runs there as outside. Includes named by a workspace's config (`.git/config` may come
    with a tarball) open nothing: `path = ~/.ssh/id_rsa` there stays unreadable. A file
    reached through a link (stow, home-manager and chezmoi install dotfiles as links) is
    granted as its target; what git reads of it `git config --list` prints anyway (its
    credentials scrubbed: `scrubbed.py`), and of a file git refuses partway (a diary, a
    key: no git config) only that part is shown (`cut`)."""
    cut: dict[str, int]
    """Real path → how many lines git reads of a granted file before the line it refuses:
    the command sees those and a line git refuses, so git stops there as outside."""


def followed(own: list[str], repository: list[str], home: str, workspace: str) -> Configs:
    """`own` (the user's configs: the system's, the home's, `GIT_CONFIG_GLOBAL`) and
    `repository` (the workspace's git configs) and the files they include, and those
    include..., each once (an include cycle ends), at most `MAX_INCLUDED` more and
    `MAX_TOTAL_BYTES` read for includes in all, the user's first; one pass for both."""
    real_workspace = os.path.realpath(workspace)
    queues = (list(dict.fromkeys(os.path.normpath(path) for path in own)),
              [path for path in dict.fromkeys(os.path.normpath(p) for p in repository)
               if path not in own])
    seen = {*queues[0], *queues[1]}
    found: list[str] = []
    granted: list[str] = []
    cut: dict[str, int] = {}
    budget, more_left = MAX_TOTAL_BYTES, MAX_INCLUDED
    for mine, queue in ((True, queues[0]), (False, queues[1])):
        for path in queue:  # grows while it is walked
            found.append(path)
            real = os.path.realpath(path)
            in_workspace = under(real, real_workspace)
            try:
                info = os.stat(path)
            except OSError:
                continue
            budget -= info.st_size
            if budget < 0 or more_left <= 0:
                continue  # listed, not read for includes (`MAX_TOTAL_BYTES`): nor granted
            read = included(path, home, info)
            if read is None:
                continue
            more, refused_at = read
            if mine and not in_workspace and stat.S_ISREG(info.st_mode) and \
                    real not in granted:
                granted.append(real)
                if refused_at is not None:
                    cut[real] = refused_at
            for name in more:
                if name not in seen and more_left > 0:
                    seen.add(name)
                    more_left -= 1
                    # what a workspace file includes is anyone's choice: never granted
                    (queue if mine and not in_workspace else queues[1]).append(name)
    return Configs(found, granted, cut)
