"""Which git settings carry a credential, judged the same in a config file (`swetui.agent.
sandbox.scrubbed`) and in the environment, where CI runners and containers give git its
settings (`GIT_CONFIG_COUNT=1`, `GIT_CONFIG_KEY_0=http.extraheader`, `GIT_CONFIG_VALUE_0=
AUTHORIZATION: basic …`, and `GIT_CONFIG_PARAMETERS`). Those variables are not judged by
their names (`GIT_CONFIG_KEY_0` holds "KEY" but is a setting's name): a setting without a
credential stays for swetui and its commands as it was, one with a credential leaves both
and its credential is redacted. Standard library only: the start-up handover imports it
before anything else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from swetui.secrets import MIN_REDACTED, TOKEN_VALUES, is_credential_name

SECRET_KEYS = ("extraheader", "authorization", "oauthtoken", "password", "token", "secret")
"""Setting names (their last part, lowercase) whose values are credentials."""
HEADER_WORDS = ("authorization:", "bearer", "basic", "token")
"""The words of a header's value that are not its credential."""
USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^/\s@\"']+)@")
GIT_CONFIG_VARIABLES = re.compile(r"GIT_CONFIG_(?:COUNT|KEY_\d+|VALUE_\d+|PARAMETERS)")
"""The variables that give git its settings through the environment."""
MAX_SETTINGS = 1000
ASSIGNED = re.compile(r"\b(?:password|passwd|token|secret)=[\"']?(?P<value>[^\s\"';]+)",
                      re.IGNORECASE)
"""A credential set inside a value (`credential.helper = !f() { echo password=…; }; f`)."""


def without_credential(match: re.Match[str]) -> str:
    """A `USERINFO` match with a password or a token user taken out (`git@` or `deploy@`
    stays)."""
    user = match.group("user")
    if ":" in user or len(user) >= 20 or TOKEN_VALUES.search(user):
        return match.group("scheme")
    return match.group(0)


def secret_key(name: str) -> bool:
    """Whether a setting called `name` (its last part, lowercase) holds a credential."""
    return any(word in name for word in SECRET_KEYS) or is_credential_name(name)


def _credential_parts(key: str, value: str) -> list[str]:
    """Every part of the setting `key` = `value` one of the rules takes for a credential,
    however short: the value of a setting named like one (whole, and its words), a URL's
    password or token user (in the key too: `url.https://ghp_…@github.com/.insteadof`), a
    known token format, a `password=…` inside it (a credential helper's script)."""
    words = [value, *value.split()] if secret_key(key.rsplit(".", 1)[-1].lower()) else []
    words += [match.group("user").split(":", 1)[-1]
              for match in USERINFO.finditer(f"{key} {value}")
              if without_credential(match) != match.group(0)]
    words += [match.group(0) for match in TOKEN_VALUES.finditer(f"{key} {value}")]
    words += [match.group("value") for match in ASSIGNED.finditer(value)]
    return words


def credentials(key: str, value: str) -> list[str]:
    """The parts of the setting `key` = `value` that are credentials and are redacted: at
    least `MIN_REDACTED` long, a header's words (`bearer`) left out."""
    return [word for word in dict.fromkeys(_credential_parts(key, value))
            if len(word) >= MIN_REDACTED and word.lower() not in HEADER_WORDS]


def carries_credential(key: str, value: str) -> bool:
    """Whether the git setting `key` (`http.https://host/.extraheader`) set to `value`
    holds a credential by any of the rules `credentials` redacts by (a setting named like
    one holds one even when empty or short)."""
    return bool(_credential_parts(key, value))


def split_git_environment(environ: Mapping[str, str], extra: tuple[str, ...] = ()
                          ) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """(the `GIT_CONFIG_VARIABLES` to keep: the settings of `environ` without a credential,
    numbered again from 0; (credential, variable it came from) for the others, to redact).
    A setting whose variable is named in `extra` (`secret_env`) is a credential whole; a
    variable git does not read (beyond `GIT_CONFIG_COUNT`, or unparseable) is not kept."""
    count = environ.get("GIT_CONFIG_COUNT", "")
    numbers = range(min(int(count), MAX_SETTINGS)) if count.isdigit() else range(0)
    kept_pairs: list[tuple[str, str]] = []
    secrets: list[tuple[str, str]] = []
    for name, text in environ.items():  # stray ones: git reads none of them
        suffix = name.rpartition("_")[2]
        if name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")) and \
                GIT_CONFIG_VARIABLES.fullmatch(name) and int(suffix) not in numbers:
            stray = environ.get(f"GIT_CONFIG_KEY_{suffix}", "")
            secrets += _labelled(*((text, "") if "_KEY_" in name else (stray, text)), suffix)
    for index in numbers:
        names = (f"GIT_CONFIG_KEY_{index}", f"GIT_CONFIG_VALUE_{index}")
        key, value = environ.get(names[0]), environ.get(names[1])
        if key is None or value is None:
            continue  # git would stop on it ("missing config key")
        if any(name in extra for name in names):  # what the user named is the secret
            secrets += [(text, name) for text, name in zip((key, value), names, strict=True)
                        if name in extra]
        elif carries_credential(key, value):
            secrets += _labelled(key, value, str(index))
        else:
            kept_pairs.append((key, value))
    kept: dict[str, str] = {}
    if count.isdigit():
        kept["GIT_CONFIG_COUNT"] = str(len(kept_pairs))
    for number, (key, value) in enumerate(kept_pairs):
        kept[f"GIT_CONFIG_KEY_{number}"] = key
        kept[f"GIT_CONFIG_VALUE_{number}"] = value
    if "GIT_CONFIG_PARAMETERS" in environ:
        kept_words, parameters = _parameters(environ["GIT_CONFIG_PARAMETERS"],
                                             "GIT_CONFIG_PARAMETERS" in extra)
        secrets += [(word, "GIT_CONFIG_PARAMETERS") for word in parameters]
        if kept_words:
            kept["GIT_CONFIG_PARAMETERS"] = " ".join(kept_words)
    return kept, [(word, name) for word, name in dict.fromkeys(secrets)
                  if len(word) >= MIN_REDACTED]


def _labelled(key: str, value: str, number: str) -> list[tuple[str, str]]:
    """The `credentials` of a setting, each named by the variable it is in."""
    return [(word, f"GIT_CONFIG_{'VALUE' if word in value else 'KEY'}_{number}")
            for word in credentials(key, value)]


def _parameters(text: str, secret: bool) -> tuple[list[str], list[str]]:
    """(the settings of a `GIT_CONFIG_PARAMETERS` to keep, quoted as they were given; the
    credentials in the others); all of `text` is a credential when named in `secret_env`
    or unreadable (git cannot read it either: it may be anything)."""
    pairs = parameter_settings(text)
    if secret or pairs is None:
        return [], [text]
    kept, found = [], []
    for key, value, separate in pairs:
        if carries_credential(key, value):
            found += credentials(key, value)
        elif separate:  # `'key'='value'`: the key may hold an `=`
            kept.append(f"{_quote(key)}={_quote(value)}")
        else:
            kept.append(_quote(f"{key}={value}"))
    return kept, found


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def parameter_settings(text: str) -> list[tuple[str, str, bool]] | None:
    """(key, value, whether written `'key'='value'`) of each setting of a
    `GIT_CONFIG_PARAMETERS`, split as git splits it (config.c: an `=` between two quoted
    words parts key and value, in `'key=value'` the first `=` does); None where git finds
    a "bogus format"."""
    found: list[tuple[str, str, bool]] = []
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return found
        word = _dequoted(text, at)
        if word is None:
            return None
        key, at = word
        if text[at:at + 1] == "=":  # `'key'='value'`, or `'key'=` (true)
            value = ""
            if text[at + 1:at + 2] == "'":
                if (word := _dequoted(text, at + 1)) is None:
                    return None
                value, at = word
            else:
                at += 1
            if at < len(text) and not text[at].isspace():
                return None
            found.append((key, value, True))
        elif at >= len(text) or text[at].isspace():
            name, _, value = key.partition("=")
            found.append((name, value, False))
        else:
            return None


def _dequoted(text: str, at: int) -> tuple[str, int] | None:
    """The single-quoted word at `at` (`'it'\\''s'` is "it's") and where it ends."""
    if text[at:at + 1] != "'":
        return None
    word = ""
    while True:
        end = text.find("'", at + 1)
        if end < 0:
            return None
        word += text[at + 1:end]
        at = end + 1
        if text[at:at + 2] in ("\\'", "\\!") and text[at + 2:at + 3] == "'":
            word += text[at + 1]
            at += 2
            continue
        return word, at


def git_config_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The `GIT_CONFIG_VARIABLES` of `environ` for a command: the settings without a
    credential, numbered again from 0."""
    return split_git_environment(environ)[0]


def environment_settings(environ: Mapping[str, str]) -> list[tuple[str, str]]:
    """(key, value) of each setting without a credential git reads from `environ`, in
    the order git reads them (`GIT_CONFIG_PARAMETERS` first, then the numbered ones)."""
    kept = git_config_environment(environ)
    found = [(key, value) for key, value, _ in
             parameter_settings(kept.get("GIT_CONFIG_PARAMETERS", "")) or []]
    return found + [(kept[f"GIT_CONFIG_KEY_{number}"], kept[f"GIT_CONFIG_VALUE_{number}"])
                    for number in range(int(kept.get("GIT_CONFIG_COUNT", "0")))]
