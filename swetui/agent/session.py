"""`AgentSession`: a workspace, a model and a toolbox — the one object the UI and
`swetui run` drive (through the `Session` protocol of `swetui.agent.api`). It owns the turn
task so esc can cancel it, and restores a resumed session's pending approvals as pending
(never executed)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast, get_args

from swetui.agent.api import CompactionTrigger, RuleScope, Session
from swetui.agent.approval_journal import RestoredApprovals, journal_approvals
from swetui.agent.approvals import ApprovalQueue
from swetui.agent.at_path import add_workspace_file
from swetui.agent.background import BackgroundTasks
from swetui.agent.busy import SessionBusy
from swetui.agent.calibrations import CalibrationStore
from swetui.agent.change_cost import ChangePrice, ContextChange, price_change
from swetui.agent.chunks import SessionChunks
from swetui.agent.compacting import SessionCompaction
from swetui.agent.cost import Cost
from swetui.agent.event_log import EventLog
from swetui.agent.events import PendingAction
from swetui.agent.interrupted_writes import WriteRecovery
from swetui.agent.limits import SessionLimits
from swetui.agent.local_model import LocalModelSetup, too_small
from swetui.agent.mcp.servers import McpServers
from swetui.agent.mcp.status import ServerStatus
from swetui.agent.model_provider import provider_for
from swetui.agent.notes import SessionNotes
from swetui.agent.plan import Plan
from swetui.agent.pricing import PriceBook
from swetui.agent.project_init import InitOutcome, ProjectMemoryWriter
from swetui.agent.repository_map import MAP_CACHE, RUN_WAIT, RepositoryMap
from swetui.agent.sandbox import secret_files
from swetui.agent.spending import SpendingCap
from swetui.agent.stats import SessionStats, session_stats
from swetui.agent.summarizer import Summarizer
from swetui.agent.tool_format import sync_tool_format
from swetui.agent.toolbox import Toolbox
from swetui.agent.tools.base import ToolResult
from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.agent.transcript import rebuild_transcript
from swetui.agent.turn import TurnLoop
from swetui.agent.turn_events import TurnEvent, TurnFinished
from swetui.agent.unfinished import close_unfinished
from swetui.agent.usage_log import restore_from_log, session_cost, session_usage
from swetui.config import ApprovalRule, ConfigError, Mode
from swetui.engine.bus import EventBus
from swetui.engine.compaction import CompactionPlan, recall
from swetui.engine.events import CompactionFinished, EngineNotice
from swetui.engine.items import ContextItem
from swetui.engine.project_scan import Progress
from swetui.engine.store import SessionInfo, list_sessions
from swetui.engine.symbols.semantic import MODEL
from swetui.engine.watcher import WorkspaceWatcher, refresh
from swetui.engine.workspace import Workspace, open_workspace
from swetui.options import LaunchOptions, settings_for
from swetui.providers.base import Provider
from swetui.providers.registry import local_server_of, model_server, resolve_model, split_spec
from swetui.secrets import STORE
from swetui.trust_review import workspace_notices


class AgentSession:
    """Everything one open workspace session needs, wired together."""

    def __init__(self, workspace: Workspace, provider: Provider, model: str, *, mode: Mode,
                 env: Mapping[str, str]) -> None:
        self.workspace = workspace
        self.notices: list[str] = workspace.notices
        self.session_id = workspace.session_id
        self.notes_path = workspace.paths.session_notes
        self.engine = workspace.engine
        self.bus: EventBus = workspace.engine.bus
        self.root = workspace.root
        self.settings = workspace.settings
        self.provider = provider
        self.model = model
        self.env = dict(env)
        self.queue = ApprovalQueue(self.bus)
        self.mcp = McpServers(self.root, self.settings, self.engine, environ=self.env,
                              persist=workspace.store.persistent, record=self.record)
        self.plan = Plan(self.engine, self.record)
        self.limits = SessionLimits(self.settings, self.engine, self.bus)
        self.toolbox = Toolbox(self.root, self.settings, self.queue, self.bus,
                               recall=self._recall, mode=mode, mcp=self.mcp,
                               plan=self.plan.update)
        self.notes = SessionNotes(workspace.paths.session_notes, self.engine)
        self.compaction = SessionCompaction(
            self.engine, self.settings, self.record,
            Summarizer(self.settings, self.env, lambda: (self.model, self.provider)))
        self.chunks = SessionChunks(
            self.engine, self.limits, self.plan, self.compaction, self.record,
            root=self.root, handoffs=workspace.paths.handoffs,
            session_id=workspace.session_id, persistent=workspace.store.persistent)
        self.approvals = RestoredApprovals(self.queue, self.toolbox, self.engine, self.record)
        self.background = BackgroundTasks()
        self.repo_map = RepositoryMap(
            self.root, self.engine, exclude=secret_files(self.root),
            enabled=self.settings.symbol_map,
            cache_path=workspace.paths.dir / "symbols" / MAP_CACHE
            if workspace.store.persistent else None)
        self.prices = PriceBook(self.env, self.settings.prices)
        self.spending = SpendingCap(self.settings.spending_cap)
        self._task: asyncio.Task[TurnFinished] | None = None
        self.memory_writer = ProjectMemoryWriter(self.engine, self.root,
                                                 lambda: (self.model, self.provider))
        logs = workspace.paths.logs / f"{workspace.session_id}.log" \
            if workspace.store.persistent else None
        self.event_log = EventLog(logs)
        self.bus.subscribe(self.event_log)
        journal_approvals(self.bus, self.record)
        self.engine.model = model
        self.local = LocalModelSetup(self.engine, self.settings, local_server_of(provider),
                                     CalibrationStore(), self.bus.publish)

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, options: LaunchOptions, *, env: Mapping[str, str] | None = None,
             provider: Provider | None = None) -> AgentSession:
        """Open a workspace session; raises ConfigError, WorkspaceError or
        ProviderConfigError with a one-line message."""
        # The keys are not in os.environ when the start-up handover took them out of it.
        env = STORE.environment() if env is None else dict(env)
        root, settings = settings_for(options)
        if settings.secret_env:
            names = tuple(settings.secret_env)
            STORE.load({name: env[name] for name in names if env.get(name)},
                       redact=names)
        model = resolve_model(options.model, env, settings.model)
        if provider is None:
            provider = provider_for(model, env, settings)
        workspace = open_workspace(root, settings, TOOL_SCHEMAS, model=model,
                                   resume=options.resume, continue_last=options.continue_last,
                                   origin=options.origin, secrets=secret_files(root))
        workspace.notices.extend(workspace_notices(root))
        if STORE.notice:
            workspace.notices.append(STORE.notice)
        if settings.context_limit is not None and (problem := too_small(workspace.engine)):
            workspace.close()
            raise ConfigError(problem)
        session = cls(workspace, provider, model, mode=settings.mode, env=env)
        if options.origin == "run":  # one headless turn: retrieve from the whole map
            session.repo_map.first_wait = RUN_WAIT
        workspace.notices.extend(session.mcp.notices)
        restore_from_log(session.engine, workspace.replayed)  # calibration, the cache
        sync_tool_format(session.engine, session.provider)
        session.local.remembered()
        session.plan.restore(workspace.replayed)
        session.mcp.restore(workspace.replayed)
        session.limits.restore(workspace.replayed)
        session.approvals.restore(workspace.replayed, session.background.spawn,
                                  session.notices)
        close_unfinished(workspace.replayed, session.engine, session.record, session.notices,
                         WriteRecovery(session.toolbox.workspace, session.toolbox.checkpoints))
        return session

    def sandbox_notice(self) -> str | None:
        """A line for the user when commands cannot be confined here (waits for the
        probe: call it off the event loop)."""
        status = self.toolbox.sandbox_status
        if status.available:
            return None
        return (f"no sandbox: {status.detail}. Commands run unconfined, so every command "
                "that is not plainly read-only asks, in every mode.")

    @property
    def mode(self) -> Mode:
        return self.toolbox.mode

    @property
    def busy(self) -> bool:
        return (self._task is not None and not self._task.done()) or self.memory_writer.running

    @property
    def restored(self) -> list[PendingAction]:
        """Actions that were pending when the last process ended, restored pending."""
        return self.approvals.actions

    # -- turns -----------------------------------------------------------------------------

    async def send(self, text: str) -> TurnFinished:
        """Run one user turn; returns when the model stops, fails or is interrupted."""
        if self.busy:
            raise SessionBusy("the agent is still working; press esc to interrupt it first")
        self.mcp.start()  # (if the UI has not already) the first request offers their tools
        await self.mcp.wait_started()
        loop = TurnLoop(text, engine=self.engine, bus=self.bus, record=self.record,
                        provider=self.provider, model=self.model, toolbox=self.toolbox,
                        root=self.root, before_request=self._before_request,
                        symbols=self.repo_map.index, prices=self.prices,
                        semantic=MODEL if self.settings.rank_by_meaning else None)
        self._task = asyncio.create_task(loop.run(), name="swetui-turn")
        try:
            finished = await asyncio.shield(self._task)
        except asyncio.CancelledError:
            # Our caller was cancelled: stop the turn too, and let it close cleanly.
            self._task.cancel()
            finished = await self._task
        self.notes.after_turn(finished, text)
        self.compaction.after_turn()
        self.local.remember()
        self.chunks.after_turn()
        return finished

    async def _before_request(self) -> str | None:
        """Before each model call: what the local server says (once), compaction when the
        request passed the threshold, then a chunk boundary when a limit calls for one
        (between steps, never mid-tool), then the spending cap. A message when the request
        cannot be sent (the window is too small, the cap)."""
        refusal = await self.local.ready()
        if refusal:
            return refusal
        await self.compaction.if_needed()
        await self.chunks.before_step()
        sync_tool_format(self.engine, self.provider)  # the tools may have changed (MCP)
        return await self.spending.check(
            self.engine, self.workspace.store.events, self.prices.cost,
            lambda message: self.bus.publish(EngineNotice(message=message)))

    def cancel(self) -> bool:
        """Interrupt the running turn (the UI's esc); False when nothing runs."""
        if not self.busy:
            return False
        if self.memory_writer.cancel():
            return True
        assert self._task is not None
        self._task.cancel()
        return True

    def record(self, event_type: str, data: dict[str, Any], *, commit: bool = True) -> None:
        self.workspace.record(event_type, data, commit=commit)

    def transcript(self) -> list[TurnEvent]:
        """The turn events of the session so far (a resumed one), to re-render it."""
        return rebuild_transcript(self.workspace.store.events)

    def handoff(self) -> Path | None:
        """End the chunk now (`/handoff`): see `SessionChunks.by_hand`."""
        return self.chunks.by_hand(busy=self.busy)

    # -- compaction ------------------------------------------------------------------------

    def preview_compaction(self, item_ids: list[str] | None = None,
                           instructions: str | None = None) -> CompactionPlan:
        """What a compaction would fold and the tokens after, without applying it."""
        return self.compaction.preview(item_ids, instructions)

    async def compact(self, trigger: CompactionTrigger = "manual",
                      instructions: str | None = None,
                      item_ids: list[str] | None = None) -> CompactionFinished | None:
        """Fold items (all eligible, or the user's selection); None when nothing folds."""
        return await self.compaction.run(trigger, instructions, item_ids)

    def undo_compaction(self) -> str:
        """Undo the newest compaction still in effect."""
        return self.compaction.undo()

    def _recall(self, item_id: str, form: str) -> str:
        return recall(self.engine, item_id, form)

    # -- edits, files, settings ------------------------------------------------------------

    def undo_edit(self) -> str:
        message = self.toolbox.undo()
        self.record("undo", {"message": message})
        return message

    def add_path(self, path: str) -> ContextItem:
        """Add a workspace file to the context (`@path`), as a user item in the task layer."""
        return add_workspace_file(self.engine, self.root, path)

    def refresh_item(self, item_id: str) -> ContextItem:
        """Re-read a stale item's file on the user's request."""
        return refresh(self.engine, self.root, item_id, secret_files(self.root))

    def rules(self) -> list[tuple[RuleScope, ApprovalRule]]:
        """Remembered approval rules, numbered from 1 in this order: session, then workspace."""
        return self.toolbox.rules.numbered()

    def remove_rule(self, number: int) -> str:
        """Remove rule `number` (as `rules()` numbers them), from the config file too."""
        scope, rule = self.toolbox.rules.remove_numbered(number)
        self.record("rule_removed", {"scope": scope, "rule": rule.model_dump()})
        return f"Removed {scope} rule: {rule.action} {rule.kind} {rule.pattern!r}"

    def set_mode(self, mode: str) -> None:
        if mode not in get_args(Mode):
            raise ValueError(f"unknown mode {mode!r}: use ask, auto-edit or auto")
        self.toolbox.mode = cast(Mode, mode)
        self.record("mode", {"mode": mode})

    def set_model(self, spec: str) -> None:
        """Switch model (e.g. `offline`, `openai:gpt-4o`); raises ProviderConfigError."""
        provider = provider_for(spec, self.env, self.settings)
        old, self.provider = self.provider, provider
        self.model = self.engine.model = spec
        self.local = LocalModelSetup(self.engine, self.settings, local_server_of(provider),
                                     self.local.store, self.bus.publish)
        self.local.remembered()
        sync_tool_format(self.engine, provider)
        self.record("model", {"model": spec})
        self.background.spawn(old.aclose())

    async def available_models(self, spec: str | None = None) -> list[str] | None:
        """The models the server of the current model (or of `spec`'s provider, as in
        `openai:`) offers; None when it does not say."""
        if spec is None:
            server = local_server_of(self.provider)
        else:
            server = model_server(split_spec(spec)[0], self.env)
        return await server.models() if server is not None else None

    async def init_memory(self, *, replace: bool = False,
                          progress: Progress | None = None) -> InitOutcome:
        """Write SWETUI.md (`ProjectMemoryWriter.write`); esc (`cancel`) stops it."""
        return await self.memory_writer.write(replace=replace, progress=progress, busy=self.busy)

    def stats(self) -> SessionStats:
        return session_stats(self.engine, self.limits, session_id=self.session_id,
                             mode=self.mode, usage=session_usage(self.workspace.store.events),
                             cost=self.session_cost(),
                             pending_approvals=len(self.queue.pending()),
                             persisted=self.workspace.store.persistent)

    def price_change(self, change: ContextChange) -> ChangePrice:
        return price_change(self.engine, change, now=time.monotonic(), cost=self.prices.cost)

    def session_cost(self) -> Cost:
        """What this session's model calls have cost so far (resumed parts included)."""
        return session_cost(self.workspace.store.events, self.prices.cost)

    def sessions(self) -> list[SessionInfo]:
        return list_sessions(self.workspace.paths.sessions)

    # -- MCP servers (McpServers does it all; what each does: McpServers, api.Session) -----

    def mcp_servers(self) -> list[ServerStatus]:
        return self.mcp.statuses()

    async def restart_mcp_server(self, name: str) -> str:
        return await self.mcp.restart(name)

    async def reload_mcp_servers(self) -> str | None:
        return await self.mcp.reload()

    def set_mcp_server_dropped(self, name: str, dropped: bool) -> str:
        return self.mcp.set_server_dropped(name, dropped)

    def mcp_log(self, name: str) -> list[str]:
        return self.mcp.log_tail(name)

    # -- lifetime --------------------------------------------------------------------------

    async def watch(self) -> None:
        """Follow file changes until cancelled: items of changed files update at once
        (tool results that showed them turn stale). Run it in a background worker."""
        watcher = WorkspaceWatcher(
            self.root, self.engine, secrets=secret_files(self.root),
            on_change=lambda rels: self.background.spawn(self.repo_map.changed(rels)))
        try:
            await watcher.run()
        finally:
            watcher.stop()

    def start(self) -> None:
        """Start work deferred until an event loop runs (restored approvals)."""
        self.approvals.start()
        self.repo_map.build(self.background.spawn)
        self.background.spawn(asyncio.to_thread(self.prices.warm, self.model))
        self.background.start()

    def start_servers(self) -> None:
        """Start the MCP servers in the background (the UI calls it once its first frame is
        on screen; a turn starts them itself if nothing did)."""
        self.mcp.start()

    async def restored_outcomes(self) -> list[tuple[PendingAction, ToolResult]]:
        """Wait until every restored action was decided and carried out (after `start`);
        each with its tool result, in the order they finished."""
        return await self.approvals.outcomes()

    async def aclose(self) -> None:
        self.cancel()
        self.background.cancel()
        await self.mcp.aclose()
        self.toolbox.close()
        await self.provider.aclose()
        self.event_log.close()
        self.workspace.close()


if TYPE_CHECKING:
    def _satisfies_the_protocol(session: AgentSession) -> Session:
        return session  # mypy checks here that AgentSession is a `Session`
