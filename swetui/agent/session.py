"""`AgentSession`: a workspace, a model and a toolbox — the one object the UI and
`swetui run` drive. It owns the turn task so esc can cancel it, and restores a resumed
session's pending approvals as pending (never executed)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast, get_args

from pydantic import BaseModel

from swetui.agent.api import CompactionTrigger, RuleScope, Session, SessionStats
from swetui.agent.approvals import ApprovalQueue
from swetui.agent.event_log import EventLog
from swetui.agent.events import ApprovalDecided, ApprovalRequested, CommandStarted, PendingAction
from swetui.agent.notes import SessionNotes
from swetui.agent.toolbox import Toolbox
from swetui.agent.tools.base import ToolResult
from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.agent.transcript import rebuild_transcript
from swetui.agent.turn import TurnLoop
from swetui.agent.turn_events import CompactionNotice, TurnEvent, TurnFinished
from swetui.commands.context import settings_for
from swetui.config import ApprovalRule, Mode
from swetui.engine.bus import EventBus
from swetui.engine.compaction import Compactor
from swetui.engine.compaction_plan import CompactionPlan
from swetui.engine.events import CompactionFinished, EngineNotice
from swetui.engine.files import read_error
from swetui.engine.items import ContextItem, ItemKind, Layer, Origin, Source
from swetui.engine.sources import read_text_file
from swetui.engine.store import SessionInfo
from swetui.engine.workspace import Workspace, open_workspace
from swetui.options import LaunchOptions
from swetui.providers.base import Provider
from swetui.providers.events import StreamError, TextDelta
from swetui.secrets import STORE
from swetui.trust_review import workspace_notices

log = logging.getLogger(__name__)

ADD_PATH_MAX_BYTES = 256_000


class SessionBusy(RuntimeError):
    """A turn is already running."""


class AgentSession:
    """Everything one open workspace session needs, wired together."""

    def __init__(self, workspace: Workspace, provider: Provider, model: str, *, mode: Mode,
                 env: Mapping[str, str]) -> None:
        self.workspace = workspace
        self.engine = workspace.engine
        self.bus: EventBus = workspace.engine.bus
        self.root = workspace.root
        self.settings = workspace.settings
        self.provider = provider
        self.model = model
        self.env = dict(env)
        self.queue = ApprovalQueue(self.bus)
        self.toolbox = Toolbox(self.root, self.settings, self.queue, self.bus,
                               recall=self._recall, mode=mode)
        self.notes = SessionNotes(workspace.paths.session_notes, self.engine)
        self._task: asyncio.Task[TurnFinished] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._deferred: list[Any] = []
        self._watcher: Any = None
        self.restored: list[PendingAction] = []
        """Actions that were pending when the last process ended, restored pending."""
        self._restored_results: list[tuple[PendingAction, ToolResult]] = []
        self._restored_settled = asyncio.Event()
        logs = workspace.paths.logs / f"{workspace.session_id}.log" \
            if workspace.store.persistent else None
        self.event_log = EventLog(logs)
        self.bus.subscribe(self.event_log)
        self.bus.subscribe(self._record_approval, ApprovalRequested)
        self.bus.subscribe(self._record_approval, ApprovalDecided)
        self.bus.subscribe(self._record_command, CommandStarted)
        self.engine.model = model

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, options: LaunchOptions, *, env: Mapping[str, str] | None = None,
             provider: Provider | None = None) -> AgentSession:
        """Open a workspace session; raises ConfigError, WorkspaceError or
        ProviderConfigError with a one-line message."""
        from swetui.providers import create_provider, resolve_model

        # The keys are not in os.environ when the start-up handover took them out of it.
        env = STORE.environment() if env is None else dict(env)
        root, settings = settings_for(options)
        if settings.secret_env:
            names = tuple(settings.secret_env)
            STORE.load({name: env[name] for name in names if env.get(name)},
                       redact=names)
        model = resolve_model(options.model, env, settings.model)
        if provider is None:
            provider = create_provider(model, env, timeout=settings.request_timeout)
        workspace = open_workspace(root, settings, TOOL_SCHEMAS, model=model,
                                   resume=options.resume, continue_last=options.continue_last)
        workspace.notices.extend(workspace_notices(root))
        if STORE.notice:
            workspace.notices.append(STORE.notice)
        session = cls(workspace, provider, model, mode=settings.mode, env=env)
        session._restore_calibration()
        session._restore_pending()
        session._close_unfinished()
        return session

    def _restore_calibration(self) -> None:
        """The provider's last measured usage for this model, from the resumed log."""
        for event in reversed(self.workspace.replayed):
            if (event.get("type") == "model_call" and event.get("measured")
                    and event.get("model") == self.model):
                self.engine.record_usage(int(event.get("input_tokens", 0)),
                                         int(event.get("estimated_input", 0)))
                return

    def sandbox_notice(self) -> str | None:
        """A line for the user when commands cannot be confined here (waits for the
        probe: call it off the event loop)."""
        status = self.toolbox.sandbox_status
        if status.available:
            return None
        return (f"no sandbox: {status.detail}. Commands run unconfined, so every command "
                "that is not plainly read-only asks, in every mode.")

    @property
    def notices(self) -> list[str]:
        return self.workspace.notices

    @property
    def session_id(self) -> str:
        return self.workspace.session_id

    @property
    def mode(self) -> Mode:
        return self.toolbox.mode

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def notes_path(self) -> Path:
        return self.workspace.paths.session_notes

    # -- turns -----------------------------------------------------------------------------

    async def send(self, text: str) -> TurnFinished:
        """Run one user turn; returns when the model stops, fails or is interrupted."""
        if self.busy:
            raise SessionBusy("the agent is still working; press esc to interrupt it first")
        loop = TurnLoop(self, text)
        self._task = asyncio.create_task(loop.run(), name="swetui-turn")
        try:
            finished = await asyncio.shield(self._task)
        except asyncio.CancelledError:
            # Our caller was cancelled: stop the turn too, and let it close cleanly.
            self._task.cancel()
            finished = await self._task
        self.notes.after_turn(finished, loop.text)
        return finished

    def cancel(self) -> bool:
        """Interrupt the running turn (the UI's esc); False when nothing runs."""
        if not self.busy:
            return False
        assert self._task is not None
        self._task.cancel()
        return True

    def record(self, event_type: str, data: dict[str, Any], *, commit: bool = True) -> None:
        self.workspace.record(event_type, data, commit=commit)

    # -- compaction ------------------------------------------------------------------------

    async def compact_if_needed(self) -> None:
        if self.settings.auto_compact and self.engine.budget().needs_compaction:
            finished = await self.compact("auto")
            if finished is not None:
                self.bus.publish(CompactionNotice(
                    turn=self.engine.turn,
                    message=f"compacted {len(finished.folded)} items: "
                            f"{finished.tokens_before:,} → {finished.tokens_after:,} tokens"))

    def _compactor(self) -> Compactor:
        """The model writes summaries when a real model is configured; offline, structural."""
        from swetui.engine.compaction import ModelCompactor, StructuralCompactor

        spec = self.settings.compaction_model or self.model
        if spec == "offline":
            return StructuralCompactor()
        return ModelCompactor(self._summarize)

    async def _summarize(self, system: str, text: str) -> str:
        """One summarisation request to `compaction_model` (or the working model)."""
        from swetui.messages import ChatRequest, Message
        from swetui.providers import create_provider

        spec = self.settings.compaction_model
        provider = create_provider(spec, self.env, timeout=self.settings.request_timeout) \
            if spec and spec != self.model else self.provider
        request = ChatRequest(model=spec or self.model, system=system,
                              messages=(Message(role="user", content=text),), max_tokens=2048)
        parts: list[str] = []
        try:
            async for event in provider.stream(request):
                if isinstance(event, TextDelta):
                    parts.append(event.text)
                elif isinstance(event, StreamError):
                    raise RuntimeError(event.message)
        finally:
            if provider is not self.provider:
                await provider.aclose()
        return "".join(parts)

    def preview_compaction(self, item_ids: list[str] | None = None,
                           instructions: str | None = None) -> CompactionPlan:
        """What a compaction would fold and the tokens after, without applying it."""
        return self._compactor().plan(self.engine, item_ids=item_ids, instructions=instructions)

    async def compact(self, trigger: CompactionTrigger = "manual",
                      instructions: str | None = None,
                      item_ids: list[str] | None = None) -> CompactionFinished | None:
        """Fold items (all eligible, or the user's selection); None when nothing folds."""
        compactor = self._compactor()
        plan = await compactor.plan_async(self.engine, item_ids=item_ids,
                                          instructions=instructions)
        if not plan.folds or plan.tokens_after >= plan.tokens_before:
            # Headers, summaries and the index cost tokens too: on a short session folding
            # can make the request bigger, and then it is not worth doing.
            if trigger != "auto":
                why = ("nothing is old enough to fold" if not plan.folds else
                       f"folding would not make the request smaller ({plan.tokens_before:,} "
                       f"→ {plan.tokens_after:,} tokens)")
                self.bus.publish(EngineNotice(message=f"Nothing to compact: {why}.",
                                              level="info"))
            return None
        finished = compactor.apply(self.engine, plan, trigger=trigger)
        self.record("compaction", {**finished.model_dump(mode="json"),
                                   "notes": plan.notes})
        return finished

    def undo_compaction(self) -> str:
        """Undo the newest compaction still in effect (also one from before a resume: the
        engine's items carry the record)."""
        from swetui.engine.compaction import active_compactions, undo

        active = active_compactions(self.engine)
        if not active:
            return "Nothing to undo: no compaction in effect."
        compaction_id = active[-1]
        undone = undo(self.engine, compaction_id)
        self.record("compaction_undone", {"compaction_id": compaction_id})
        return f"Compaction undone: {len(undone.restored)} items restored."

    def _recall(self, item_id: str, form: str) -> str:
        from swetui.engine.compaction import recall

        return recall(self.engine, item_id, form)

    # -- edits, files, settings ------------------------------------------------------------

    def undo_edit(self) -> str:
        message = self.toolbox.undo()
        self.record("undo", {"message": message})
        return message

    def add_path(self, path: str) -> ContextItem:
        """Add a workspace file to the context (`@path`), as a user item in the task layer."""
        from swetui.agent.tools.workspace import resolve_inside

        target = resolve_inside(self.root, path)
        relative = target.relative_to(self.root).as_posix()
        if not target.exists():
            raise ValueError(f"{path}: no such file in the workspace")
        if target.is_dir():
            raise ValueError(f"{path}: is a directory; name a file")
        try:
            loaded = read_text_file(target, ADD_PATH_MAX_BYTES, name=relative,
                                    follow_symlinks=False)
        except OSError as exc:
            raise ValueError(read_error(relative, exc)) from None
        if loaded is None:
            raise ValueError(f"{path}: binary file, not added")
        for item in self.engine.by_source(relative):
            if item.kind is ItemKind.FILE and item.origin is Origin.USER:
                return self.engine.set_content(item.id, loaded.text, reason="re-added")
        note = f" ({'; '.join(loaded.notes)})" if loaded.notes else ""
        item = ContextItem(id=self.engine.new_id("f"), kind=ItemKind.FILE, layer=Layer.TASK,
                           title=f"{relative}{note}", content=loaded.text, origin=Origin.USER,
                           source=Source(path=relative), turn_created=self.engine.turn,
                           meta={"added_by": "@path"})
        return self.engine.add(item, reason=f"you added {relative}")

    def rules(self) -> list[tuple[RuleScope, ApprovalRule]]:
        """Remembered approval rules, numbered from 1 in this order: session, then workspace."""
        book = self.toolbox.rules
        session: RuleScope = "session"
        workspace: RuleScope = "workspace"
        return [*((session, rule) for rule in book.session.list()),
                *((workspace, rule) for rule in book.workspace.list())]

    def remove_rule(self, number: int) -> str:
        """Remove rule `number` (as `rules()` numbers them); a workspace rule leaves
        `.swetui/config.toml` too."""
        rules = self.rules()
        if not 1 <= number <= len(rules):
            raise ValueError(f"no rule {number}: there are {len(rules)}")
        scope, rule = rules[number - 1]
        self.toolbox.rules.scope(scope).remove(rule)
        self.record("rule_removed", {"scope": scope, "rule": rule.model_dump()})
        return f"Removed {scope} rule: {rule.action} {rule.kind} {rule.pattern!r}"

    def set_mode(self, mode: str) -> None:
        if mode not in get_args(Mode):
            raise ValueError(f"unknown mode {mode!r}: use ask, auto-edit or auto")
        self.toolbox.mode = cast(Mode, mode)
        self.record("mode", {"mode": mode})

    def set_model(self, spec: str) -> None:
        """Switch model (e.g. `offline`, `openai:gpt-4o`); raises ProviderConfigError."""
        from swetui.providers import create_provider

        provider = create_provider(spec, self.env, timeout=self.settings.request_timeout)
        old, self.provider = self.provider, provider
        self.model = self.engine.model = spec
        self.record("model", {"model": spec})
        self._spawn(old.aclose())

    def init_memory(self) -> Path:
        """Write SWETUI.md (keeps an existing one) and load it as memory."""
        from swetui.agent.tools.workspace import atomic_write
        from swetui.engine.project_memory import build_project_memory
        from swetui.engine.sources import memory_items

        target = self.root / "SWETUI.md"
        if not os.path.lexists(target):
            atomic_write(target, build_project_memory(self.root).encode("utf-8"))
        items, _ = memory_items(self.root)
        for item in items:
            if item.id == "mem:SWETUI.md":
                self.engine.add(item, reason="project memory written")
        return target

    def stats(self) -> SessionStats:
        from swetui.engine.compaction import active_compactions

        budget = self.engine.budget()
        return {"session": self.session_id, "model": self.model, "mode": self.mode,
                "turns": self.engine.turn, "items": len(self.engine),
                "tokens": budget.total, "limit": budget.limit,
                "percent": round(budget.percent, 1), "measured": budget.measured,
                "calibration": round(ratio, 3) if (ratio := self.engine.calibration()) else None,
                "pending_approvals": len(self.queue.pending()),
                "compactions": len(active_compactions(self.engine)),
                "persisted": self.workspace.store.persistent}

    def transcript(self) -> list[TurnEvent]:
        """The turn events of the session so far (a resumed one), to re-render it."""
        return rebuild_transcript(self.workspace.store.events)

    def sessions(self) -> list[SessionInfo]:
        from swetui.engine.store import list_sessions

        return list_sessions(self.workspace.paths.sessions)

    # -- the workspace on disk --------------------------------------------------------------

    async def watch(self) -> None:
        """Follow file changes until cancelled: items of changed files update at once
        (tool results that showed them turn stale). Run it in a background worker."""
        from swetui.engine.watcher import WorkspaceWatcher

        self._watcher = WorkspaceWatcher(self.root, self.engine)
        try:
            await self._watcher.run()
        finally:
            self._watcher.stop()

    def refresh_item(self, item_id: str) -> ContextItem:
        """Re-read a stale item's file on the user's request."""
        from swetui.engine.watcher import refresh

        return refresh(self.engine, self.root, item_id)

    # -- approvals across restarts ---------------------------------------------------------

    def _record_approval(self, event: BaseModel) -> None:
        if isinstance(event, ApprovalRequested):
            self.record("approval_requested", {"action": event.action.model_dump(mode="json")})
        elif isinstance(event, ApprovalDecided):
            self.record("approval_decided", {
                "action_id": event.action_id,
                "decision": event.decision.model_dump(mode="json"), "by": event.by})

    def _record_command(self, event: BaseModel) -> None:
        if not isinstance(event, CommandStarted):
            return
        # Durable before the command starts: if swetui dies while it runs, resume knows.
        self.record("command_started", {"action_id": event.action_id, "call_id": event.call_id,
                                        "command": event.command, "confined": event.confined})

    def _close_unfinished(self) -> None:
        """Give every call the last process left unanswered a result that says why, so the
        model and the user learn what happened (a killed command above all)."""
        from swetui.agent.unfinished import unfinished_calls

        for call in unfinished_calls(self.workspace.replayed):
            self._add_result(call.call_id, call.name, call.arguments, call.content,
                             call.summary, is_error=True, path=None,
                             title=f"{call.name} ({call.summary})")
            if call.command is not None:
                self.notices.append(f"a command was running when swetui stopped and was "
                                    f"killed with it: {call.command}")

    def _add_result(self, call_id: str, name: str, arguments: dict[str, Any], content: str,
                    summary: str, *, is_error: bool, path: str | None, title: str) -> None:
        self.engine.add(ContextItem(
            id=self.engine.new_id("c"), kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
            title=title, content=content, origin=Origin.AGENT, turn_created=self.engine.turn,
            source=Source(path=path, tool_call_id=call_id),
            meta={"name": name, "arguments": arguments, "is_error": is_error,
                  "summary": summary}))
        self.record("tool_result", {"turn": self.engine.turn, "call_id": call_id,
                                    "name": name, "summary": summary,
                                    "content": content[:20_000], "is_error": is_error,
                                    "path": path})

    def _restore_pending(self) -> None:
        """Actions that were waiting when the last process ended come back pending."""
        requested: dict[str, dict[str, Any]] = {}
        for event in self.workspace.replayed:
            if event.get("type") == "approval_requested":
                action = event.get("action") or {}
                requested[action.get("id", "")] = action
            elif event.get("type") == "approval_decided":
                requested.pop(event.get("action_id", ""), None)
        actions = []
        for data in requested.values():
            try:
                actions.append(PendingAction.model_validate(data))
            except ValueError:
                self.bus.publish(EngineNotice(message="a pending approval could not be restored"))
        self.restored = self.queue.restore(actions)
        for action in self.restored:
            self.toolbox.deny_by_rule(action)
        if not self.restored:
            self._restored_settled.set()
            return
        self._spawn(self._resume_all(self.restored))

    async def _resume_all(self, actions: list[PendingAction]) -> None:
        # Concurrently: the user may decide restored actions in any order.
        try:
            outcomes = await asyncio.gather(
                *(self._resume_action(action) for action in actions), return_exceptions=True)
            for action, outcome in zip(actions, outcomes, strict=True):
                if isinstance(outcome, Exception):
                    log.error("restored action %s failed", action.id, exc_info=outcome)
        finally:
            self._restored_settled.set()

    async def restored_outcomes(self) -> list[tuple[PendingAction, ToolResult]]:
        """Wait until every restored action was decided and carried out (after `start`);
        each with its tool result, in the order they finished."""
        await self._restored_settled.wait()
        return list(self._restored_results)

    async def _resume_action(self, action: PendingAction) -> None:
        result = await self.toolbox.resume(action)
        self._restored_results.append((action, result))
        self._add_result(action.call.id, action.call.name, action.call.arguments,
                         result.content, result.summary, is_error=result.is_error,
                         path=result.path, title=f"{action.call.name} (decided after restart)")

    def _spawn(self, coroutine: Any) -> None:
        try:
            task = asyncio.get_running_loop().create_task(coroutine)
        except RuntimeError:  # no loop yet (opened before the app runs): start later
            self._deferred.append(coroutine)
            return
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def start(self) -> None:
        """Start work deferred until an event loop runs (restored approvals)."""
        deferred, self._deferred = self._deferred, []
        for coroutine in deferred:
            self._spawn(coroutine)

    async def aclose(self) -> None:
        self.cancel()
        for task in list(self._background):
            task.cancel()
        self.toolbox.close()
        await self.provider.aclose()
        self.event_log.close()
        self.workspace.close()


if TYPE_CHECKING:
    def _satisfies_the_protocol(session: AgentSession) -> Session:
        return session  # mypy checks here that AgentSession is a `Session`
