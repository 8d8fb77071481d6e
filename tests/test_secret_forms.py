"""A known secret is redacted in the forms programs print it in unasked, not only as it is:
percent-encoded in a URL (`postgres://app:p%40ss%2Fw0rd@db`, a password with `@` or `/`
must be), JSON-escaped (the session store), and inside an `Authorization: Basic` header
(`curl -v -u user:token`, an HTTP client's debug log: base64 of `user:token`, any user).
Before, only the exact value was: each of these printed the secret readably."""

from __future__ import annotations

import base64
import re
import urllib.parse

from hypothesis import assume, given
from hypothesis import strategies as st

from swetui.secrets import LABEL, SecretStore, encoded_forms

PASSWORD = "p@ss/w0rd+x y!"
TOKEN = "ghp_plantedFORMS0123456789abcdefABCD"

_VALUES = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=8,
                  max_size=40).filter(lambda value: value.strip() == value)


def store_of(*values: str) -> SecretStore:
    store = SecretStore()
    store.register_many([(value, f"SECRET_{number}") for number, value in enumerate(values)])
    return store


def basic(user: str, secret: str) -> str:
    return base64.b64encode(f"{user}:{secret}".encode()).decode()


def test_what_curl_and_urls_print_is_redacted() -> None:
    store = store_of(PASSWORD, TOKEN)
    printed = "\n".join([
        f"> Authorization: Basic {basic('x-access-token', TOKEN)}",
        f"authorization: basic {basic('ada', PASSWORD)}",
        f"Connecting to postgres://app:{urllib.parse.quote(PASSWORD, safe='')}@db/app",
        f"GET /login?password={urllib.parse.quote_plus(PASSWORD)} HTTP/1.1",
        f"redirect to https://example.org/{urllib.parse.quote(PASSWORD)}",
        re.sub("%[0-9A-F]{2}", lambda hexa: hexa.group(0).lower(),  # Go, some shells
               urllib.parse.quote(PASSWORD, safe="")),
    ])
    redacted = store.redact(printed)
    assert redacted.count("[redacted: ") == 6, redacted
    assert "Authorization: Basic [redacted: SECRET_1]" in redacted
    assert "postgres://app:[redacted: SECRET_0]@db/app" in redacted


def test_an_innocent_basic_header_and_plain_text_are_left_alone() -> None:
    store = store_of(PASSWORD, TOKEN)
    text = f"Authorization: Basic {basic('ada', 'not-the-secret')}\nbasic facts 100%2F"
    assert store.redact(text) == text


@given(_VALUES, st.text(alphabet="abcxyz-_.", max_size=12))
def test_a_secret_in_a_basic_header_never_survives(secret: str, user: str) -> None:
    header = f"Authorization: Basic {basic(user, secret)}"
    assert basic(user, secret) not in store_of(secret).redact(header)


@given(_VALUES)
def test_no_printed_form_of_a_secret_survives(secret: str) -> None:
    """Whichever form it is printed in, between spaces, it is gone (unless the label
    itself happens to spell it)."""
    store = store_of(secret)
    for form in [secret, *encoded_forms(secret)]:
        assume(form not in LABEL.format(name="SECRET_0"))
        assert form not in store.redact(f"before {form} after"), form


def test_a_password_percent_encoded_by_go_javascript_or_a_browser_url_is_redacted() -> None:
    """Each URL library keeps a different set of characters as they are in a password:
    Go's url.UserPassword keeps `$&+,;=`, JavaScript's encodeURIComponent `!'()*`, the
    WHATWG URL (Node, browsers) `!$&'()*+,`. A DSN printed by a Go or Node program showed
    a password with any of them (`Tr0ub4dor&3!x%40y(z)`) readably: only Python's forms
    were known."""
    secret = "Tr0ub4dor&3!x@y(z)*'+,;=$"
    store = store_of(secret)
    for keeps in ("$&+,;=", "!'()*", "!$&'()*+,"):
        printed = f"dial postgres://app:{urllib.parse.quote(secret, safe=keeps)}@db:5432/app"
        assert store.redact(printed) == "dial postgres://app:[redacted: SECRET_0]@db:5432/app", \
            (keeps, store.redact(printed))
