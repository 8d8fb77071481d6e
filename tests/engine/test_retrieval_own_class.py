"""What a method uses is looked up on its own class first, as Python does: `Client.send`
calling `self._send_with_auth(…)` brings `Client._send_with_auth`, not the namesake of
another class in the file; a method calling its own name on something else
(`return codes.is_redirect(…)`) still brings that one."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.symbols.extract import extract
from swetui.engine.symbols.neighbours import definers
from swetui.engine.symbols.symbol_index import build_index
from tests.engine.helpers import attached, mapped_workspace

CLIENTS = '''\
class Client:
    def send(self, request):
        """Send a request once the client is open."""
        return self._send_with_auth(request)

    def _send_with_auth(self, request):
        """Send the request, retrying the authentication challenge once."""
        response = self.transport.handle(request)
        return response


class AsyncClient:
    async def send(self, request):
        """Send a request once the client is open."""
        return await self._send_with_auth(request)

    async def _send_with_auth(self, request):
        """Send the request, retrying the authentication challenge once."""
        response = await self.transport.handle(request)
        return response
'''


def test_a_method_brings_its_own_classs_callee_not_a_namesake(tmp_path: Path) -> None:
    (tmp_path / "client.py").write_text(CLIENTS)
    found = attached(tmp_path, "How does Client.send retry the authentication challenge?")
    shown = found["client.py"]
    assert "response = self.transport.handle(request)" in shown  # its own class's callee
    assert "class AsyncClient" not in shown and "await" not in shown


STATUS = '''\
class codes:
    @classmethod
    def is_redirect(cls, value):
        """Whether a status code is a redirect (301, 302, 303, 307, 308)."""
        return value in (301, 302, 303, 307, 308)


class Response:
    @property
    def is_redirect(self):
        """Whether this response is a redirect."""
        return codes.is_redirect(self.status_code)
'''


def test_a_method_calling_its_own_name_calls_another_ones(tmp_path: Path) -> None:
    index = mapped_workspace(tmp_path, {"status.py": STATUS})
    symbols = index.by_file["status.py"]
    user = next(d for d in symbols.definitions if d.qualname == "Response.is_redirect")
    assert [d.qualname for _rel, d in definers(index, "status.py", user, "is_redirect")] \
        == ["codes.is_redirect", "Response.is_redirect"]
    cls = next(d for d in symbols.definitions if d.qualname == "codes")
    # from inside a class, the name is the class's own
    assert [d.qualname for _rel, d in definers(index, "status.py", cls, "is_redirect")] \
        == ["codes.is_redirect"]


_NAMES = st.sampled_from(["send", "close", "read", "_flow"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(_NAMES, unique=True, max_size=3), min_size=1, max_size=3),
       st.lists(_NAMES, max_size=2), _NAMES, st.data())
def test_definers_are_the_names_definitions_the_own_classs_first(
        classes: list[list[str]], functions: list[str], name: str, data: st.DataObject
) -> None:
    """Law: the definitions found are some of the name's; none only when it has none; the
    user's own class's one alone when its class defines it (and it is not the user)."""
    source = "".join(f"class C{n}:\n" + "".join(f"    def {m}(self):\n        pass\n"
                                                  for m in methods) + "    x = 1\n\n"
                     for n, methods in enumerate(classes))
    source += "".join(f"def {f}():\n    pass\n" for f in dict.fromkeys(functions))
    index = build_index({"m.py": (extract("m.py", source.encode(), "python"), (0, 0))})
    user = data.draw(st.sampled_from(index.by_file["m.py"].definitions))
    every = index.by_name.get(name, [])
    found = definers(index, "m.py", user, name)
    assert all(entry in every for entry in found) and bool(found) == bool(every)
    own = user.qualname if user.kind == "class" else user.qualname.rpartition(".")[0]
    mine = [d for _rel, d in every if d.qualname == f"{own}.{name}" and d is not user]
    if own and mine:
        assert [d for _rel, d in found] == mine
    else:
        assert found == every
