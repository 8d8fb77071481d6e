"""The toolbox: runs a model's tool call end to end, approvals included.

validate arguments → read-only tools run at once → edits, writes and commands become a
`PendingAction` → the policy allows, denies or asks (the approval queue) → the decision is
applied (whole, some hunks, or as the user edited it) → rules are remembered → the model
gets a `ToolResult`. Nothing here raises into the turn loop except cancellation.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from swetui.agent.approvals import ApprovalQueue
from swetui.agent.command_runner import CommandRunner
from swetui.agent.diffs import apply_hunks, compute_hunks, diff_stats, unified_diff
from swetui.agent.events import (
    ApprovalDecided,
    DecidedBy,
    Decision,
    EditUndone,
    ModeChanged,
    PendingAction,
    RulesChanged,
)
from swetui.agent.mcp.calls import approved_call, mcp_action
from swetui.agent.mcp.names import TOOL_SEARCH
from swetui.agent.mcp.servers import McpServers
from swetui.agent.policy import Policy, PolicyDecision
from swetui.agent.redaction import carries_redaction, redacted
from swetui.agent.rules import RuleBook
from swetui.agent.sandbox import Sandbox, SandboxStatus, probe_in_background
from swetui.agent.tools import files, readers
from swetui.agent.tools.base import (
    BashArgs,
    EditFileArgs,
    GlobArgs,
    GrepArgs,
    ListDirArgs,
    ReadFileArgs,
    RecallArgs,
    TodoArgs,
    TodoEntry,
    ToolError,
    ToolResult,
    WriteFileArgs,
    parse_arguments,
)
from swetui.agent.tools.checkpoints import Checkpoints
from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.agent.tools.workspace import ReadLedger, WorkspaceFiles
from swetui.config import ConfigError, Mode, Settings
from swetui.engine.bus import EventBus
from swetui.engine.events import EngineNotice
from swetui.messages import ToolCall, ToolSchema

log = logging.getLogger(__name__)

RecallFn = Callable[[str, str], "str | None | Awaitable[str | None]"]
PlanFn = Callable[[list[TodoEntry]], str]
"""Keeps the model's plan (the session's `Plan.update`); returns what the model is told."""


class Toolbox:
    """Everything the agent can do to the workspace, behind approvals."""

    def __init__(self, root: Path, settings: Settings, queue: ApprovalQueue, bus: EventBus, *,
                 recall: RecallFn | None = None, checkpoints: Checkpoints | None = None,
                 mode: Mode | None = None, rules: RuleBook | None = None,
                 mcp: McpServers | None = None,
                 plan: PlanFn | None = None) -> None:
        self.workspace = WorkspaceFiles(root)
        self.root = self.workspace.root
        self.settings = settings
        self.queue = queue
        self.bus = bus
        self.ledger = ReadLedger()
        self.rules = rules or RuleBook(self.root)
        self.checkpoints = checkpoints if checkpoints is not None else Checkpoints(self.root)
        self.policy = Policy(mode or settings.mode)
        sandbox = Sandbox(self.root, enabled=settings.sandbox != "off",
                          network=settings.sandbox_network,
                          readable=tuple(map(os.path.expanduser, settings.sandbox_read)))
        if sandbox.enabled:
            probe_in_background()
        self.commands = CommandRunner(self.root, settings, sandbox, bus, queue, self._decide)
        self._recall = recall
        self.mcp = mcp
        self._plan = plan

    def close(self) -> None:
        """Remove the sandbox's private temp directory."""
        self.sandbox.close()

    @property
    def sandbox(self) -> Sandbox:
        """Where commands run confined (the command runner's)."""
        return self.commands.sandbox

    @sandbox.setter
    def sandbox(self, sandbox: Sandbox) -> None:
        self.commands.sandbox = sandbox

    @property
    def sandbox_status(self) -> SandboxStatus:
        """Whether commands run confined here, and why not."""
        return self.sandbox.status

    @property
    def schemas(self) -> tuple[ToolSchema, ...]:
        return TOOL_SCHEMAS

    @property
    def mode(self) -> Mode:
        return self.policy.mode

    @mode.setter
    def mode(self, mode: Mode) -> None:
        self.policy.mode = mode
        self.bus.publish(ModeChanged(mode=mode))

    # -- entry points --------------------------------------------------------------------

    async def run(self, call: ToolCall) -> ToolResult:
        """Run one tool call; every failure becomes an error result for the model."""
        return await self._reported(call, self._dispatch(call))

    async def resume(self, action: PendingAction) -> ToolResult:
        """Await the decision on an action restored from a session log, then carry it out.
        A deny rule (remembered since, or by hand) still denies it; nothing allows it
        unasked: a restored action comes back pending."""
        decision = self.deny_by_rule(action)
        if decision is not None:

            async def denied() -> ToolResult:
                return self._denied(action, decision, by_rule=True)

            return await self._reported(action.call, denied())
        return await self._reported(action.call, self._await(action))

    def deny_by_rule(self, action: PendingAction) -> Decision | None:
        """Deny a restored action at once when a deny rule covers it (the decision it got,
        or None): rules have their say before anyone is asked about it."""
        verdict = self._decide(action)
        if carries_redaction(action):
            # Saved with a secret replaced by its label: applying it would write the label.
            verdict = PolicyDecision("deny", "saved with a secret value redacted, so it "
                                     "cannot be carried out as it was; make the change again",
                                     "rule")
        if verdict.verdict != "deny":
            return None
        decision = Decision(approved=False, reason=verdict.why)
        if action.id in self.queue:
            self.queue.resolve(action.id, decision, by="rule")
        return decision

    def undo(self, force: bool = False) -> str:
        """Restore the file changed by the last applied edit/write; returns a message."""
        message, path = files.undo_last(self.workspace, self.ledger, self.checkpoints, force)
        if path is not None and message.startswith("Undid"):
            self.bus.publish(EditUndone(path=path, message=message))
        return message

    def prepare(self, call: ToolCall) -> PendingAction:
        """The pending action an edit/write/bash call would queue (raises `ToolError`)."""
        if self.mcp is not None and self.mcp.handles(call.name):
            return mcp_action(call, self.root)
        args = parse_arguments(call.name, call.arguments)
        if isinstance(args, EditFileArgs):
            return files.prepare_edit(self.workspace, self.ledger, call, args)
        if isinstance(args, WriteFileArgs):
            return files.prepare_write(self.workspace, self.ledger, call, args)
        if isinstance(args, BashArgs):
            return self.commands.prepare(call, args)
        raise ToolError(f"{call.name} does not need approval", summary="nothing to approve")

    # -- running -------------------------------------------------------------------------

    async def _reported(self, call: ToolCall, work: Awaitable[ToolResult]) -> ToolResult:
        """`work`'s result, every failure turned into an error result (redacted)."""
        try:
            result = await work
        except ToolError as exc:
            result = exc.result()
        except OSError as exc:
            result = ToolResult(content=f"Error: {call.name} failed: {exc.strerror or exc}",
                                is_error=True, summary=f"{call.name} failed")
        except Exception as exc:  # a bug in a tool must not end the session
            log.exception("tool %s failed", call.name)
            result = ToolResult(content=f"Error: {call.name} failed unexpectedly: "
                                f"{type(exc).__name__}: {exc}", is_error=True,
                                summary=f"{call.name} failed: {type(exc).__name__}")
        return redacted(result)

    async def _dispatch(self, call: ToolCall) -> ToolResult:
        if self.mcp is not None and call.name == TOOL_SEARCH:
            return self.mcp.search(call.arguments)
        if self.mcp is not None and self.mcp.handles(call.name):
            return await self._decided(mcp_action(call, self.root))
        args = parse_arguments(getattr(call, "name", ""), getattr(call, "arguments", None))
        ws, settings = self.workspace, self.settings
        if isinstance(args, ReadFileArgs):
            return await asyncio.to_thread(readers.read_file, ws, self.ledger, settings, args)
        if isinstance(args, ListDirArgs):
            return await asyncio.to_thread(readers.list_dir, ws, args)
        if isinstance(args, GlobArgs):
            return await asyncio.to_thread(readers.glob, ws, args)
        if isinstance(args, GrepArgs):
            return await asyncio.to_thread(readers.grep, ws, settings, args)
        if isinstance(args, RecallArgs):
            return await self._recall_exchange(args)
        if isinstance(args, TodoArgs):
            if self._plan is None:
                raise ToolError("todo is not available in this session.",
                                summary="todo unavailable")
            done = sum(entry.status == "completed" for entry in args.items)
            return ToolResult(content=self._plan(list(args.items)),
                              summary=f"plan: {done} of {len(args.items)} done")
        action = await asyncio.to_thread(self.prepare, call)
        if action.kind != "bash" and action.old_content == action.new_content:
            return ToolResult(content=f"No change: {action.path} already has this content.",
                              summary=f"no change to {action.path}", path=action.path)
        return await self._decided(action)

    async def _decided(self, action: PendingAction) -> ToolResult:
        """Carry out `action` as the rules and the mode say, or once the user decided."""
        verdict = self._decide(action)
        if verdict.verdict == "deny":
            decision = Decision(approved=False, reason=verdict.why)
            self._publish_decided(action, decision, "rule")
            return self._denied(action, decision, by_rule=True)
        if verdict.verdict == "allow":
            decision = Decision(approved=True)
            self._publish_decided(action, decision, "rule" if verdict.by == "rule" else "mode")
            return await self._apply(action, decision)
        return await self._await(action)

    def _decide(self, action: PendingAction) -> PolicyDecision:
        try:
            workspace_rules = self.rules.workspace.list()
        except ConfigError as exc:
            # Without the workspace's deny rules nothing may pass unasked.
            verdict = self.policy.decide(action, self.rules.session.list(), [],
                                         sandboxed=self._sandboxed(action))
            if verdict.verdict == "allow":
                return PolicyDecision("ask", f"workspace rules unreadable: {exc}", "mode")
            return verdict
        return self.policy.decide(action, self.rules.session.list(), workspace_rules,
                                  sandboxed=self._sandboxed(action))

    def _sandboxed(self, action: PendingAction) -> bool:
        return action.kind == "bash" and self.sandbox.available

    def _publish_decided(self, action: PendingAction, decision: Decision,
                         by: DecidedBy) -> None:
        self.bus.publish(ApprovalDecided(action_id=action.id, decision=decision,
                                         by=by, action=action))

    async def _await(self, action: PendingAction) -> ToolResult:
        future = self.queue.submit(action)
        try:
            decision = await future
        except asyncio.CancelledError:
            self.queue.discard(action.id)
            raise
        note = self._remember(action, decision)
        if not decision.approved:
            result = self._denied(action, decision, by_rule=False)
        else:
            result = await self._apply(action, decision)
        if note:
            result = result.model_copy(update={"content": f"{result.content}\n{note}"})
        return result

    def _remember(self, action: PendingAction, decision: Decision) -> str:
        if decision.remember == "once":
            return ""
        try:
            rule = self.rules.remember(action, decision)
        except (ConfigError, OSError) as exc:
            return f"[the rule could not be saved: {exc}]"
        if rule is None:
            return ""
        self.bus.publish(RulesChanged(scope=decision.remember,
                                      rules=self.rules.scope(decision.remember).list()))
        if decision.remember == "workspace" and rule in self.rules.session.list() \
                and not self.rules.workspace.trusted:
            self.bus.publish(EngineNotice(message=(
                f"The rule was saved in {self.rules.workspace.file}, which you have not "
                "trusted: it applies for this session, and for later ones once you trust "
                "the workspace (/trust).")))
        return ""

    def _denied(self, action: PendingAction, decision: Decision, *, by_rule: bool) -> ToolResult:
        reason = decision.reason
        if by_rule:
            content = f"This action was not run: it is {reason}."
        elif reason:
            content = f"The user denied this action: {reason}"
        else:
            content = "The user denied this action (no reason given). Do not retry it " \
                      "unchanged; ask the user how to proceed."
        return ToolResult(content=content, is_error=True, path=action.path,
                          summary=f"denied: {reason or 'by the user'}",
                          data={"action_id": action.id, "denied": True})

    # -- applying ------------------------------------------------------------------------

    async def _apply(self, action: PendingAction, decision: Decision) -> ToolResult:
        if action.kind == "mcp":
            if self.mcp is None:
                raise ToolError("MCP servers are not available in this session",
                                summary="no MCP servers")
            return await approved_call(self.mcp.call, action, decision)
        if action.kind == "bash":
            return await self.commands.apply(action, decision)
        old, proposed = action.old_content or "", action.new_content or ""
        notes: list[str] = []
        kept = [hunk.index for hunk in action.hunks]
        rejected: list[int] = []
        if decision.edited is not None:
            final = decision.edited.replace("\r\n", "\n")
            if final != proposed:
                change = unified_diff(proposed, final, action.path or "")
                notes.append("The user edited your change before applying it. Their changes "
                             f"to your proposal:\n{change}")
        elif decision.hunks is not None:
            kept = sorted(set(decision.hunks) & set(kept))
            rejected = [hunk.index for hunk in action.hunks if hunk.index not in kept]
            if not kept:
                return ToolResult(content=f"The user rejected every hunk of this change to "
                                  f"{action.path}; nothing was changed.", is_error=True,
                                  path=action.path, summary="denied: every hunk rejected",
                                  data={"action_id": action.id, "hunks_kept": [],
                                        "hunks_rejected": rejected})
            try:
                final = apply_hunks(old, proposed, kept, shown=action.hunks)
            except ValueError as exc:
                return ToolResult(content=f"Nothing was changed in {action.path}: {exc} (the "
                                  "diff was computed differently when it was shown). Propose "
                                  "the change again.", is_error=True, path=action.path,
                                  summary="refused: hunks no longer match",
                                  data={"action_id": action.id})
            if rejected:
                notes.append(self._partial_note(action, kept, rejected))
        else:
            final = proposed
        digest = await asyncio.to_thread(files.apply_change, self.workspace, self.ledger,
                                         self.checkpoints, action, final)
        added, removed = diff_stats(compute_hunks(old, final))
        verb = {"edit": "Edited", "write": "Wrote"}[action.kind]
        if action.old_content is None:
            verb = "Created"
        partial = " partly" if rejected else ""
        content = f"{verb}{partial} {action.path} (+{added} −{removed})."
        summary_verb = "edit applied to" if action.kind == "edit" else verb.lower()
        if rejected:
            summary_verb = f"edit partly applied ({len(kept)} of {len(action.hunks)} hunks) to"
        stamp = self.ledger.get(self.workspace.resolve(action.path)[0])
        return ToolResult(
            content="\n".join([content, *notes]), path=action.path,
            summary=f"{summary_verb} {action.path} (+{added} −{removed})",
            data={"action_id": action.id, "sha256": digest,
                  "mtime_ns": stamp.mtime_ns if stamp else None, "hunks_kept": kept,
                  "hunks_rejected": rejected, "edited": decision.edited is not None},
        )

    @staticmethod
    def _partial_note(action: PendingAction, kept: list[int], rejected: list[int]) -> str:
        total = len(action.hunks)
        lines = ["The user applied only some hunks of your change (numbered from 1):"]
        for index in kept:
            lines.append(f"  kept hunk {index + 1} of {total}: {action.hunks[index].header}")
        for index in rejected:
            lines.append(f"  rejected hunk {index + 1} of {total}: "
                         f"{action.hunks[index].header}")
        lines.append("These rejected changes were NOT made:")
        lines += [action.hunks[index].text() for index in rejected]
        return "\n".join(lines)

    async def _recall_exchange(self, args: RecallArgs) -> ToolResult:
        if self._recall is None:
            raise ToolError("recall is not available in this session (no archive).",
                            summary="recall unavailable")
        try:
            text = self._recall(args.id, args.form)
            if inspect.isawaitable(text):
                text = await text
        except KeyError:
            text = None
        if text is None:
            raise ToolError(f"no archived exchange with id {args.id!r}; use an id shown in the "
                            "history headers.", summary=f"recall: unknown id {args.id}")
        return ToolResult(content=str(text), summary=f"recalled {args.id} ({args.form})",
                          data={"id": args.id, "form": args.form})

