"""What retrieval finds reaches the request the model receives, as `swetui run` sends it: a
session opened and started the way the command does (the symbol map built in the
background), one request that describes behaviour without naming code, and the requests the
offline model is sent, recorded as they arrive. The same blocks as the benchmark's direct
`retrieve()` call, the needed definition as a cut span that says which lines it shows, and
nothing sent twice when the model, or a later turn, reads that file with `read_file`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from swetui.agent import AgentSession
from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemState, Layer
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols.symbol_map import SymbolMap
from swetui.messages import ChatRequest
from swetui.options import LaunchOptions
from swetui.providers.events import ProviderEvent
from swetui.providers.offline import OfflineProvider

from .scripted import ScriptedProvider, answer, calls

BILLING = '''\
"""Invoices: totals, taxes, discounts and what is owed when they are paid."""

from datetime import date
from decimal import Decimal

TAX_RATE = Decimal("0.20")


class Invoice:
    """One invoice sent to a customer."""

    def __init__(self, customer, lines, due_on):
        self.customer = customer
        self.lines = list(lines)
        self.due_on = due_on
        self.penalties = []

    def subtotal(self):
        """The sum of the invoice's lines before tax."""
        return sum(line.amount for line in self.lines)

    def total(self):
        """What the customer owes: lines, tax and penalties."""
        taxed = self.subtotal() * (1 + TAX_RATE)
        return taxed + sum(self.penalties)


def compute_tax(amount, rate=TAX_RATE):
    """The tax due on an amount, rounded to the cent."""
    return (amount * rate).quantize(Decimal("0.01"))


def apply_discount(invoice, percent):
    """Lower every line of the invoice by a percentage (a loyal customer's reduction)."""
    for line in invoice.lines:
        line.amount = line.amount * (100 - percent) / 100
    return invoice


def apply_late_fee(invoice, paid_on):
    """Add the penalty charged when a customer pays after the due date: 1.5% of the
    total for every started month of delay, at least 5."""
    if paid_on <= invoice.due_on:
        return Decimal(0)
    months = (paid_on.year - invoice.due_on.year) * 12 + paid_on.month - invoice.due_on.month
    fee = max(Decimal(5), invoice.total() * Decimal("0.015") * max(months, 1))
    invoice.penalties.append(fee)
    return fee


def split_into_instalments(invoice, count):
    """Cut what is owed into equal parts, the last one taking the rounding."""
    part = (invoice.total() / count).quantize(Decimal("0.01"))
    return [part] * (count - 1) + [invoice.total() - part * (count - 1)]


def export_ledger_csv(invoices, path):
    """Write one row per invoice to a CSV file for the accountant."""
    with open(path, "w", encoding="utf-8") as out:
        out.write("customer,total,due_on\\n")
        for invoice in invoices:
            out.write(f"{invoice.customer},{invoice.total()},{invoice.due_on}\\n")


def overdue(invoices, today=None):
    """The invoices past their due date."""
    today = today or date.today()
    return [invoice for invoice in invoices if invoice.due_on < today]


def credit_note(invoice, reason):
    """A negative invoice that cancels another one."""
    note = Invoice(invoice.customer, [], invoice.due_on)
    note.penalties.append(-invoice.total())
    note.reason = reason
    return note
'''

SHIPPING = '''\
"""Parcels and what they cost to send."""


def parcel_weight(items):
    """The weight of a parcel with its packaging."""
    return sum(item.weight for item in items) + 0.2


def shipping_cost(weight, country):
    """The carrier's price for a parcel of this weight to a country."""
    base = 4.5 if country == "FR" else 12.0
    return base + 1.1 * max(0.0, weight - 1.0)
'''

USERS = '''\
"""Customers and their accounts."""


class Customer:
    """Someone we send invoices to."""

    def __init__(self, name, email):
        self.name = name
        self.email = email

    def greeting(self):
        """The first line of every letter we send them."""
        return f"Dear {self.name},"
'''

REQUEST = "How is the penalty worked out when someone pays after the due date?"
DEFINITION = "def apply_late_fee(invoice, paid_on):"


class RecordingOfflineProvider(OfflineProvider):
    """The offline model, keeping each request it is sent (the provider's view of a turn)."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        async for event in super().stream(request):
            yield event


@contextlib.asynccontextmanager
async def offline_session(root: Path) -> AsyncIterator[tuple[AgentSession,
                                                            RecordingOfflineProvider]]:
    """A session on `root`, started as `swetui run` starts one (the map builds in the
    background), whose offline model keeps every request it is sent; closed after."""
    provider = RecordingOfflineProvider()
    session = AgentSession.open(LaunchOptions(path=root), env={}, provider=provider)
    session.start()
    try:
        yield session, provider
    finally:
        await session.aclose()


def billing_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "billing.py").write_text(BILLING)
    (root / "shop" / "shipping.py").write_text(SHIPPING)
    (root / "shop" / "users.py").write_text(USERS)
    (root / "README.md").write_text("# shop\n\nInvoices, parcels and customers.\n")
    return root


def attached(request: ChatRequest) -> str:
    """What a request carries from the workspace: retrieved and pinned material (after the
    newest message) and tool results (the offline model's own answers quote what it read,
    and are left out)."""
    return "\n".join([*(m.content for m in request.messages if m.role == "tool"),
                      request.context])


async def test_the_described_definition_reaches_the_first_request_once_as_a_cut_span(
        tmp_path: Path) -> None:
    root = billing_workspace(tmp_path)
    async with offline_session(root) as (session, provider):
        finished = await session.send(REQUEST)
        assert finished.error is None
        first = provider.requests[0]
        # The definition, numbered, under the line saying what of the file is shown.
        assert DEFINITION in first.context
        total = BILLING.count("\n")
        assert 'source="shop/billing.py">' in first.context  # the file, named once
        assert f"of {total} lines shown" in first.context
        assert "def export_ledger_csv" not in first.context  # a span, not the whole file
        retrieved = [item for item in session.engine
                     if item.layer is Layer.TASK and item.turn_created == 1
                     and item.state is ItemState.INCLUDED]
        # The same blocks as the benchmark's direct call on a freshly built map.
        symbols = SymbolMap(root)
        symbols.build()
        direct = retrieve(root, REQUEST, ContextEngine(), turn=1, symbols=symbols.index())
        assert [item.content for item in retrieved] == [item.content for item in direct.items]

        # The user asks to see the file: the model reads it with read_file in the same turn.
        await session.send("read shop/billing.py")
        # A later turn asks the described question again: the file is in a tool result.
        await session.send(REQUEST)
        for number, request in enumerate(provider.requests):
            times = attached(request).count(DEFINITION)
            assert times == 1, f"request {number} carries {DEFINITION!r} {times} times"


async def test_a_read_of_part_of_a_file_or_of_another_file_keeps_the_retrieved_file(
        tmp_path: Path) -> None:
    root = billing_workspace(tmp_path)
    provider = ScriptedProvider(
        calls(("c1", "read_file", {"path": "shop/billing.py", "limit": 5}),
              ("c2", "read_file", {"path": "shop/shipping.py"})),
        answer("done"))
    session = AgentSession.open(LaunchOptions(path=root), env={}, provider=provider)
    session.start()
    try:
        await session.send("Look at shop/billing.py and tell me what it does")
        first, second = provider.requests
        assert "def credit_note" in first.context  # the named file, attached whole
        # The model read its first five lines and another file: the rest is still sent.
        assert "def credit_note" in second.context
        assert attached(second).count("def credit_note") == 1
    finally:
        await session.aclose()
