"""Reading shell commands: split them into simple commands and spot the dangerous ones.

This is a conservative reader, not a shell: when it is unsure it flags, because a flag only
means "ask the user". It must stay quiet on everyday commands (`ls`, `pytest`, `git status`,
`rm file.txt`) so that `auto` mode stays useful.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from swetui.agent.sensitive import is_secret_file, protected_path_reason

OPERATORS = frozenset({";", "&", "&&", "|", "||", "|&", "(", ")", ";;", "{", "}"})
REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<", "<<", "<<<", "<>", ">&"})
# Commands that run the rest of their arguments as another command.
WRAPPERS = frozenset({"command", "builtin", "exec", "nohup", "time", "nice", "ionice",
                      "stdbuf", "timeout", "xargs", "env", "watch", "unbuffer"})
OPTIONS_WITH_VALUE = {
    "sudo": ("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group"),
    "doas": ("-u", "-C"), "su": ("-c", "-s", "-g", "-G"), "runuser": ("-u", "-g"),
    "nice": ("-n",), "ionice": ("-c", "-n", "-p"), "timeout": ("-s", "-k", "--signal"),
    "xargs": ("-I", "-i", "-n", "-P", "-L", "-l", "-d", "-E", "-s", "-a"),
    "env": ("-u", "-C", "-S", "--unset", "--chdir"), "stdbuf": ("-i", "-o", "-e"),
    "watch": ("-n", "-d"),
}
AS_OTHER_USER = frozenset({"sudo", "su", "doas", "pkexec", "runuser"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh"})
INTERPRETERS = SHELLS | frozenset({"python", "python3", "perl", "ruby", "node", "php"})
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c"})
DISK_TOOLS = ("mkfs", "fdisk", "sfdisk", "cfdisk", "parted", "wipefs", "mkswap")
POWER = frozenset({"shutdown", "reboot", "halt", "poweroff", "telinit", "killall5"})
SAFE_DEVICES = re.compile(r"/dev/(null|zero|stdout|stderr|stdin|tty|fd/\d+|random|urandom)\Z")
DISK_DEVICE = re.compile(r"/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|mapper/|md\d|loop)")
FORK_BOMB = re.compile(r"([\w:]+)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1\s*&")
SUBSTITUTION = re.compile(r"\$\(|`|<\(|>\(")
PLACEHOLDER = "__swetui_subst__"
SCRATCH_DIRS = ("/tmp/", "/var/tmp/")


@dataclass
class Segment:
    """One simple command: its words, where it redirects, and whether stdin is piped."""

    words: list[str]
    redirects: list[tuple[str, str]] = field(default_factory=list)
    piped: bool = False
    wrappers: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return os.path.basename(self.words[0]) if self.words else ""


def _extract_substitutions(command: str) -> tuple[str, list[str]]:
    """Replace `$(..)`, `<(..)`, `>(..)` and backticks by a placeholder word; return the
    outer text and the inner commands (which run too, so they are read as well)."""
    inner: list[str] = []
    out: list[str] = []
    i = 0
    while i < len(command):
        match = SUBSTITUTION.search(command, i)
        if match is None:
            out.append(command[i:])
            break
        out.append(command[i:match.start()])
        if match.group() == "`":
            end = command.find("`", match.end())
            end = len(command) if end == -1 else end
            inner.append(command[match.end():end])
            i = end + 1
        else:
            depth, j = 1, match.end()
            while j < len(command) and depth:
                depth += {"(": 1, ")": -1}.get(command[j], 0)
                j += 1
            inner.append(command[match.end():j - 1 if depth == 0 else j])
            i = j
        out.append(f" {PLACEHOLDER} ")
    return "".join(out), inner


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: read it word by word rather than give up
        return command.replace("\n", " ; ").split()


def split_commands(command: str) -> list[Segment]:
    """Every simple command in `command`, substitutions included."""
    outer, inner = _extract_substitutions(command)
    segments: list[Segment] = []
    current = Segment(words=[])
    tokens = _tokens(outer)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in OPERATORS or re.fullmatch(r"[;&|()]+", token):
            if current.words or current.redirects:
                segments.append(current)
            current = Segment(words=[], piped=token in ("|", "|&"))
        elif token in REDIRECTS or re.fullmatch(r"\d+(>>?|>&|<)", token):
            op = token.lstrip("0123456789")
            target = tokens[i + 1] if i + 1 < len(tokens) else ""
            if not (op == ">&" and target.isdigit()) and target != "-":
                current.redirects.append((op, target))
            i += 1
        elif re.fullmatch(r"\d+", token) and i + 1 < len(tokens) and tokens[i + 1] in REDIRECTS:
            pass  # the fd number of `2>`; the redirect itself comes next
        else:
            current.words.append(token)
        i += 1
    if current.words or current.redirects:
        segments.append(current)
    for segment in segments:
        _unwrap(segment)
    for text in inner:
        segments += split_commands(text)
    return segments


def _unwrap(segment: Segment) -> None:
    """Drop leading `VAR=x` assignments and wrappers (`sudo`, `env`, `nohup`, `xargs` ..),
    remembering the wrappers, so `sudo rm -rf x` is read as `rm -rf x`."""
    words = segment.words
    while words:
        head = os.path.basename(words[0])
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
            words.pop(0)
        elif head in WRAPPERS or head in AS_OTHER_USER:
            segment.wrappers.append(head)
            words.pop(0)
            # Skip the wrapper's own options and operands (durations, users, priorities).
            while words and (words[0].startswith("-") or re.fullmatch(r"[\d.]+[smhd]?", words[0])
                             or (head == "env" and "=" in words[0])):
                option = words.pop(0)
                if option in OPTIONS_WITH_VALUE.get(head, ()) and words:
                    words.pop(0)
        else:
            break


class CommandReader:
    """Finds why a command must ask, given the workspace root it runs in."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)

    def danger(self, command: str) -> str | None:
        """The first reason this command is dangerous or protected, or None."""
        if FORK_BOMB.search(command):
            return "a fork bomb"
        segments = split_commands(command)
        downloads = any(segment.name in DOWNLOADERS for segment in segments)
        for segment in segments:
            reason = self._segment(segment, downloads)
            if reason:
                return reason
        return None

    def _segment(self, segment: Segment, downloads: bool) -> str | None:
        users = [w for w in segment.wrappers if w in AS_OTHER_USER]
        if users or segment.name in AS_OTHER_USER:
            return f"runs as another user ({(users or [segment.name])[0]})"
        for op, target in segment.redirects:
            reason = self._target(target, writing=op != "<")
            if reason:
                return reason
        if not segment.words:
            return None
        name, args = segment.name, segment.words[1:]
        if name in INTERPRETERS:
            if "-c" in args:
                script = args[args.index("-c") + 1] if args.index("-c") + 1 < len(args) else ""
                if downloads and PLACEHOLDER in script:
                    return "runs a downloaded script (curl | sh)"
                return self.danger(script) if name in SHELLS else None
            scripts = [a for a in args if not a.startswith("-")]
            from_stdin = segment.piped and (not scripts or "-s" in args)
            if downloads and (from_stdin or (scripts and all(a == PLACEHOLDER for a in scripts))):
                return "runs a downloaded script (curl | sh)"
        if name == "eval":
            return self.danger(" ".join(args))
        checker: Callable[[list[str]], str | None] | None = getattr(
            self, f"_cmd_{name.replace('-', '_')}", None)
        if checker is not None:
            reason = checker(args)
            if reason:
                return reason
        if name.startswith(DISK_TOOLS):
            return f"formats or partitions a disk ({name})"
        if name in POWER or (name == "init" and args[:1] in (["0"], ["6"])):
            return f"shuts down or reboots the machine ({name})"
        if name == "systemctl" and set(args) & {"poweroff", "reboot", "halt", "kexec"}:
            return "shuts down or reboots the machine (systemctl)"
        return self._paths(args, writing=name in WRITERS)

    # -- path arguments ------------------------------------------------------------------

    def _target(self, target: str, *, writing: bool) -> str | None:
        """Why touching `target` must ask: a device, outside the workspace, protected."""
        if not target or target == PLACEHOLDER:
            return None
        verb = "writes" if writing else "reads"
        if target.startswith("/dev/"):
            if SAFE_DEVICES.match(target) or not writing:
                return None
            if DISK_DEVICE.match(target):
                return f"writes to a disk device ({target})"
            return f"writes to a device ({target})"
        if re.match(r"\$\{?HOME\b", target):
            target = "~" + target.split("HOME", 1)[1].lstrip("}")
        path = os.path.normpath(os.path.join(self.root, os.path.expanduser(target)))
        rel = os.path.relpath(path, self.root)
        outside = rel == ".." or rel.startswith("../")
        if is_secret_file(path if outside else rel):
            return f"{verb} a secret file ({target})"
        if outside:
            # Reading elsewhere (`cat /etc/os-release`) and scratch files in /tmp are ordinary.
            if not writing or (path + "/").startswith(SCRATCH_DIRS):
                return None
            return f"writes outside the workspace ({target})"
        if writing:
            reason = protected_path_reason(rel)
            if reason:
                return f"{reason} via the shell"
        return None

    def _paths(self, args: list[str], *, writing: bool) -> str | None:
        for arg in args:
            if arg.startswith("-") or "=" in arg and not arg.startswith((".", "/")):
                continue
            reason = self._target(arg, writing=writing)
            # Reading a file outside the workspace (`cat /etc/os-release`) is ordinary.
            if reason:
                return reason
        return None

    # -- specific commands ---------------------------------------------------------------

    def _cmd_rm(self, args: list[str]) -> str | None:
        options = [a for a in args if a.startswith("-") and a != "--"]
        if any(a == "--recursive" or (not a.startswith("--") and set(a[1:]) & {"r", "R"})
               for a in options):
            return "deletes a directory tree (rm -r)"
        return self._paths(args, writing=True)

    def _cmd_find(self, args: list[str]) -> str | None:
        if "-delete" in args:
            return "deletes the files it finds (find -delete)"
        for flag in ("-exec", "-execdir", "-ok", "-okdir"):
            if flag in args:
                rest = args[args.index(flag) + 1:]
                if rest and os.path.basename(rest[0]) in {"rm", "shred", "unlink"}:
                    return f"deletes the files it finds (find {flag} {rest[0]})"
        return None

    def _cmd_git(self, args: list[str]) -> str | None:
        while args and args[0].startswith("-"):  # global options such as -C DIR, -c k=v
            args = args[2:] if args[0] in ("-C", "-c", "--git-dir", "--work-tree") else args[1:]
        if not args:
            return None
        sub, rest = args[0], args[1:]
        flags = {a for a in rest if a.startswith("-")}
        short = {c for a in flags if not a.startswith("--") for c in a[1:]}
        if sub == "push" and (flags & {"--force", "--force-with-lease", "--mirror",
                                        "--delete", "--prune"} or "f" in short or "d" in short
                              or any(a.startswith("+") or a.startswith("--force") for a in rest)):
            return "rewrites or deletes remote history (git push --force)"
        if sub == "reset" and "--hard" in flags:
            return "discards uncommitted changes (git reset --hard)"
        if sub == "clean" and ("f" in short or "--force" in flags):
            return "deletes untracked files (git clean -f)"
        if sub in ("checkout", "restore") and ("f" in short or "--force" in flags or "." in rest):
            return f"discards uncommitted changes (git {sub})"
        if sub == "branch" and ("D" in short or {"--delete", "--force"} <= flags):
            return "deletes a branch that may not be merged (git branch -D)"
        if sub == "stash" and rest[:1] in (["drop"], ["clear"]):
            return f"deletes stashed work (git stash {rest[0]})"
        if sub in ("filter-branch", "filter-repo") or (sub == "reflog" and "expire" in rest):
            return f"rewrites repository history (git {sub})"
        return None

    def _cmd_dd(self, args: list[str]) -> str | None:
        for arg in args:
            if arg.startswith("of="):
                target = arg[3:]
                if target.startswith("/dev/") and not SAFE_DEVICES.match(target):
                    return f"writes to a device (dd {arg})"
                return self._target(target, writing=True)
        return None

    def _cmd_chmod(self, args: list[str]) -> str | None:
        recursive = any(a == "--recursive" or (a.startswith("-") and not a.startswith("--")
                                                 and "R" in a) for a in args)
        if recursive and any(_world_writable(a) for a in args):
            return "makes a directory tree world-writable (chmod -R 777)"
        return self._paths(args, writing=True)

    def _cmd_kill(self, args: list[str]) -> str | None:
        if "-1" in args[-1:] or any(a == "-1" for a in args[1:]):
            return "kills every process of the user (kill -1)"
        return None


# Commands whose path arguments are written to (so a protected path among them must ask).
WRITERS = frozenset({"tee", "cp", "mv", "install", "ln", "touch", "truncate", "sed", "chown",
                     "chgrp", "shred", "unlink", "rsync", "patch", "mkdir", "rmdir"})


def _world_writable(mode: str) -> bool:
    """True for a chmod mode that gives everyone write access (777, o+w, a=rwx ...)."""
    if re.fullmatch(r"[0-7]{3,4}", mode):
        return bool(int(mode[-1]) & 2)
    for part in mode.split(","):
        match = re.fullmatch(r"([ugoa]*)[+=]([rwxXst]*)", part)
        if match and "w" in match[2] and (not match[1] or set(match[1]) & {"a", "o"}):
            return True
    return False
