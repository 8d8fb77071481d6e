"""The secret values swetui holds in memory, and their redaction from what it shows and saves.

Which environment variables are secrets is decided here once: the shell tool leaves them out of
a command's environment, the start-up handover (`swetui.handover`) takes them out of swetui's
own, and the redactor replaces their values by `[redacted: NAME]` in tool results, context
items, logs and the session store. Redaction is defence in depth only: it matches the values
as they are and in the forms programs print them unasked (JSON-escaped, percent-encoded, in
an `Authorization: Basic` header); a copy encoded on purpose (`| base64`, hex, `rev`, split
across lines) walks around it, as any rewriting a command chooses can.
"""

from __future__ import annotations

import base64
import json
import os
import re
import urllib.parse
from collections.abc import Mapping

SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL")
"""A variable whose name contains one of these holds a credential."""
SECRET_PREFIXES = ("ANTHROPIC_", "OPENAI_")
"""Provider settings: kept out of commands' environments (base URLs and ids included)."""
PROVIDER_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
"""The variables the providers read their keys from."""
LOCATION_SUFFIXES = ("_DIR", "_PATH", "_HOME", "FILE")
"""Names that say where something is (`TIKTOKEN_CACHE_DIR`, `SSLKEYLOGFILE`): swetui keeps
reading them and does not redact their values; commands still do not get them."""
MIN_REDACTED = 8
"""Shorter values are not redacted: `1` or `true` would blank out half of every output."""
LABEL = "[redacted: {name}]"
LABEL_PREFIX = "[redacted: "


SECRET_TOKENS = frozenset({"PAT", "PWD", "PASS", "PASSPHRASE", "AUTH", "DSN", "COOKIE",
                           "APIKEY", "PRIVATE", "CREDENTIALS", "JWT", "WEBHOOK", "SK", "BEARER"})
"""Whole `_`-separated parts of a name that mark a credential (GITHUB_PAT, MYSQL_PWD,
SMTP_PASS, SENTRY_DSN); whole parts, so PATH and PASSWD_FILE-like names are not caught by
accident, and PWD/OLDPWD themselves are the working directory."""
URL_CREDENTIALS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@")
"""A URL carrying a password, with or without a user (DATABASE_URL=postgres://app:hunter2@db,
REDIS_URL=redis://:hunter2@cache)."""
TOKEN_VALUES = re.compile(
    r"(?:sk-ant-|sk-proj-|sk_live_|sk_test_|rk_live_|ghp_|gho_|ghs_|ghu_|github_pat_|glpat-"
    r"|xox[abprs]-|hf_|npm_|pypi-)[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.|https://hooks\.slack\.com/services/")
"""Values that are credentials whatever the variable is called: well-known key and token
formats (Anthropic, OpenAI, Stripe, GitHub, GitLab, Slack, Hugging Face, npm, PyPI, AWS,
Google), a JWT, a Slack webhook."""


def _named_secret(upper: str) -> bool:
    if upper in ("PWD", "OLDPWD"):
        return False
    return any(word in upper for word in SECRET_WORDS) or \
        bool(SECRET_TOKENS & set(upper.split("_")))


def is_secret_name(name: str, value: str | None = None) -> bool:
    """True for variables kept from commands and from swetui's own environment: credential
    names, provider settings, and any variable whose value is a URL with a password."""
    upper = name.upper()
    return _named_secret(upper) or upper.startswith(SECRET_PREFIXES) or \
        (value is not None and _secret_value(value))


def _secret_value(value: str) -> bool:
    return URL_CREDENTIALS.search(value) is not None or TOKEN_VALUES.search(value) is not None


def names_a_place(name: str) -> bool:
    """True for a path-like name, however secret the words in it sound."""
    return name.upper().endswith(LOCATION_SUFFIXES)


def is_credential_name(name: str, value: str | None = None) -> bool:
    """True for variables whose values are redacted: credentials, not base URLs or paths."""
    upper = name.upper()
    return upper in PROVIDER_KEYS or (_named_secret(upper) and not names_a_place(upper)) or \
        (value is not None and _secret_value(value))


class SecretStore:
    """Secret variables (name → value) taken out of the environment, plus values registered
    only for redaction (an MCP server's token or header). Reads are lock-free: every change
    swaps in a new compiled pattern."""

    def __init__(self, variables: Mapping[str, str] | None = None) -> None:
        self._variables: dict[str, str] = {}
        self._redacted: dict[str, str] = {}  # value → name shown in its place
        self._escaped: dict[str, str] = {}
        self._matcher: tuple[tuple[str, ...], re.Pattern[str]] | None = None
        self.notice: str | None = None
        """Set when the keys could not be kept out of swetui's environment: sessions show it."""
        self.load(variables or {})

    def load(self, variables: Mapping[str, str], *, redact: tuple[str, ...] = ()) -> None:
        """Hold `variables`; credentials among them (and the names in `redact`) are redacted."""
        for name, value in variables.items():
            self._variables[name] = value
            if is_credential_name(name, value) or name in redact:
                self._redacted[value] = name
        self._compile()

    def register(self, value: str, name: str = "secret") -> None:
        """Redact `value` from now on (values shorter than `MIN_REDACTED` are ignored)."""
        self._redacted[value] = name
        self._compile()

    def register_many(self, values: list[tuple[str, str]]) -> None:
        """Redact each (value, name) from now on, compiling the pattern once."""
        fresh = [(value, name) for value, name in values if value not in self._redacted]
        if fresh:
            self._redacted.update(fresh)
            self._compile()

    def redacted(self) -> list[tuple[str, str]]:
        """(value, name shown in its place) of each redacted value: what a child process
        that must redact as this one does is given (through a pipe, never its environment)."""
        return list(self._redacted.items())

    def get(self, name: str) -> str | None:
        return self._variables.get(name)

    def names(self) -> list[str]:
        return list(self._variables)

    def values(self) -> list[str]:
        """The values that are redacted, longest first."""
        return sorted((v for v in self._redacted if len(v) >= MIN_REDACTED), key=len,
                      reverse=True)

    def labels(self) -> set[str]:
        """The texts secrets are replaced by (`[redacted: NAME]`)."""
        return {LABEL.format(name=self._redacted[value]) for value in self.values()}

    def clear(self) -> None:
        self.notice = None
        self._variables.clear()
        self._redacted.clear()
        self._compile()

    def environment(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """`base` (default: `os.environ`) with the held variables put back: what the
        providers read their keys and base URLs from. Never give it to a child process."""
        merged = dict(os.environ if base is None else base)
        merged.update(self._variables)
        return merged

    def redact(self, text: str) -> str:
        """`text` with every known secret value replaced by `[redacted: NAME]`: as it is,
        JSON-escaped, percent-encoded (a URL, `curl -v`), and inside the base64 of an
        `Authorization: Basic` header (`user:token`, any user)."""
        matcher = self._matcher
        if matcher is None or not text:
            return text
        values, pattern = matcher
        # A substring test per value is far cheaper than the regex on text without secrets.
        if any(value in text for value in values):
            text = pattern.sub(self._label, text)
        if "basic" in text.lower():
            text = _BASIC.sub(self._basic, text)
        return text

    def _basic(self, match: re.Match[str]) -> str:
        encoded = match.group("encoded").rstrip("=")
        try:
            decoded = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
        except ValueError:  # not base64 after all (a length of 4n+1)
            return match.group(0)
        plain = decoded.decode("utf-8", "replace")
        for value, name in self._redacted.items():
            if len(value) >= MIN_REDACTED and value in plain:
                return f"{match.group('scheme')}{LABEL.format(name=name)}"
        return match.group(0)

    def _label(self, match: re.Match[str]) -> str:
        value = match.group(0)
        name = self._redacted.get(value) or self._escaped.get(value, "secret")
        return LABEL.format(name=name)

    def _compile(self) -> None:
        # The JSON-escaped form too (the session store and the logs redact whole JSON
        # lines), and the percent-encoded ones (`encoded_forms`).
        escaped: dict[str, str] = {}
        for value, name in self._redacted.items():
            for form in encoded_forms(value):
                escaped.setdefault(form, name)
        self._escaped = escaped
        values = [v for v in {*self._redacted, *escaped} if len(v) >= MIN_REDACTED]
        if not values:
            self._matcher = None
            return
        values.sort(key=len, reverse=True)  # the longest wins where two overlap
        pattern = re.compile("|".join(re.escape(value) for value in values))
        self._matcher = (tuple(values), pattern)


_BASIC = re.compile(r"(?P<scheme>\b[Bb][Aa][Ss][Ii][Cc]\s+)(?P<encoded>[A-Za-z0-9+/]{8,}={0,2})")
"""An `Authorization: Basic` credential (curl -v, HTTP logs): base64 of `user:password`."""


def encoded_forms(value: str) -> list[str]:
    """The forms other than `value` itself in which a program prints it unasked: escaped in
    JSON, percent-encoded in a URL (`%2F`, `%2f`, `/` kept or not, a space as `+`, and the
    characters each URL library keeps as they are: `URL_KEPT`). Each costs every tool result
    one more substring test, so only forms that differ."""
    forms = [json.dumps(value)[1:-1]]
    if not _UNRESERVED.fullmatch(value):
        strict = urllib.parse.quote(value, safe="")
        forms += [strict, _HEX.sub(lambda hexa: hexa.group(0).lower(), strict),
                  urllib.parse.quote(value), urllib.parse.quote_plus(value, safe=""),
                  *(urllib.parse.quote(value, safe=kept) for kept in URL_KEPT)]
    return [form for form in dict.fromkeys(forms) if form != value]


URL_KEPT = ("$&+,;=", "!'()*", "!$&'()*+,")
"""Characters URL libraries leave unencoded in a password, beyond letters, digits and `-._~`:
Go's `url.UserPassword`, JavaScript's `encodeURIComponent`, the WHATWG URL (Node, browsers).
A DSN a Go or Node program prints shows `p&ss!w0rd%40db` where Python shows `p%26ss%21…`."""


_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]*")
_HEX = re.compile(r"%[0-9A-F]{2}")


STORE = SecretStore()
"""The process's secrets, filled at start by `swetui.handover`."""


def redact(text: str) -> str:
    """Redact the process's known secrets from `text`."""
    return STORE.redact(text)
