"""Names a request mentions that are not what it needs: the exception class and the user's own
call in a pasted traceback (the raise is the answer), an exception class a question names
(where it is raised is the answer), and a test's helper of the same name as the source's
definition."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols.symbol_map import SymbolMap

ERRORS = '''\
class QuotaError(Exception):
    """Raised when an account has used its quota."""


class BackendError(Exception):
    """The payment backend refused."""
'''
BILLING = '''\
from billing.errors import BackendError, QuotaError


class Meter:
    def charge(self, account, units):
        if account.used + units > account.quota:
            raise QuotaError(f"quota of {account.quota} units exceeded for {account.name}")
        account.used += units

    def settle(self, account, backend):
        answer = backend.pay(account)
        if not answer.ok:
            raise BackendError(answer.reason)


def bill(account, meter):
    """Charge an account its monthly units."""
    meter.charge(account, account.monthly)


def select_plan(name):
    """The plan called name."""
    return {"free": 10, "pro": 1000}[name]
'''
TESTS = '''\
class TestPlans:
    def test_select(self):
        def select_plan(name):
            return name
        assert select_plan("free") == "free"
'''


def _attached(root: Path, request: str) -> list[str]:
    (root / "billing").mkdir()
    (root / "billing" / "meter.py").write_text(BILLING)
    (root / "billing" / "errors.py").write_text(ERRORS)
    (root / "tests").mkdir()
    (root / "tests" / "test_plans.py").write_text(TESTS)
    symbols = SymbolMap(root)
    symbols.build()
    found = retrieve(root, request, ContextEngine(), turn=1, symbols=symbols.index(),
                     semantic=None)
    return [item.content for item in found.items]


def test_a_pasted_traceback_gets_the_raise_not_the_callers_code(tmp_path: Path) -> None:
    request = ('Traceback (most recent call last):\n  File "job.py", line 3, in <module>\n'
               '    billing.bill(acct, meter)\n'
               'billing.errors.QuotaError: quota of 10 units exceeded for acme\n')
    blocks = _attached(tmp_path, request)
    assert len(blocks) == 1, blocks
    assert "raise QuotaError(f\"quota of" in blocks[0]
    assert "def bill" not in blocks[0]  # the user's own call: they see it in the traceback


def test_a_pasted_error_gets_its_raise_not_the_class_it_names(tmp_path: Path) -> None:
    blocks = _attached(tmp_path, "billing.errors.BackendError: ('card declined', 402)")
    assert len(blocks) == 1, blocks
    assert "raise BackendError(answer.reason)" in blocks[0]
    assert "class BackendError" not in blocks[0]  # the user has its name; the raise says why


def test_a_named_definition_is_the_sources_not_a_tests_namesake(tmp_path: Path) -> None:
    blocks = _attached(tmp_path, "what does select_plan return for an unknown name?")
    assert len(blocks) == 1, blocks
    assert "def select_plan(name):" in blocks[0] and "The plan called name." in blocks[0]


def test_a_named_definition_is_the_implementation_not_its_stub(tmp_path: Path) -> None:
    (tmp_path / "billing").mkdir()
    (tmp_path / "billing" / "plans.py").write_text(
        'def price_of(plan):\n    """The monthly price of a plan."""\n    return 10 * plan.seats\n')
    (tmp_path / "billing" / "plans.pyi").write_text("def price_of(plan: Plan) -> int: ...\n")
    symbols = SymbolMap(tmp_path)
    symbols.build()
    found = retrieve(tmp_path, "what does price_of charge for a plan?", ContextEngine(), turn=1,
                     symbols=symbols.index(), semantic=None)
    assert [item.source.path for item in found.items] == ["billing/plans.py"], found.summary


def test_a_question_naming_an_exception_gets_where_it_is_raised(tmp_path: Path) -> None:
    blocks = _attached(tmp_path, "My account hit QuotaError. When is that raised?")
    assert len(blocks) == 1, blocks
    assert "raise QuotaError(f\"quota of" in blocks[0]
    assert "class QuotaError" not in blocks[0]  # its name and docstring say nothing of when


def test_an_exception_named_beside_code_is_what_that_code_raises(tmp_path: Path) -> None:
    blocks = _attached(tmp_path, "Which accounts does Meter.settle turn into a BackendError?")
    assert len(blocks) == 1, blocks
    assert "def settle(self, account, backend):" in blocks[0]
    assert "class BackendError" not in blocks[0]
