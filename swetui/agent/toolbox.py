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
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from swetui.agent.approvals import ApprovalQueue
from swetui.agent.diffs import apply_hunks, compute_hunks, diff_stats, unified_diff
from swetui.agent.events import (
    ApprovalDecided,
    CommandStarted,
    DecidedBy,
    Decision,
    EditUndone,
    ModeChanged,
    PendingAction,
    RulesChanged,
    new_action_id,
)
from swetui.agent.mcp.calls import mcp_action
from swetui.agent.mcp.names import TOOL_SEARCH
from swetui.agent.mcp.servers import McpServers
from swetui.agent.policy import Policy, PolicyDecision
from swetui.agent.rules import RuleBook, first_words
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
    ToolError,
    ToolResult,
    WriteFileArgs,
    parse_arguments,
)
from swetui.agent.tools.checkpoints import Checkpoints
from swetui.agent.tools.commands import CommandReader
from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.agent.tools.shell import MAX_TIMEOUT, run_command
from swetui.agent.tools.workspace import ReadLedger, WorkspaceFiles
from swetui.config import ConfigError, Mode, Settings
from swetui.engine.bus import EventBus
from swetui.engine.events import EngineNotice
from swetui.messages import ToolCall, ToolSchema
from swetui.secrets import STORE, redact

log = logging.getLogger(__name__)

RecallFn = Callable[[str, str], "str | None | Awaitable[str | None]"]


class Toolbox:
    """Everything the agent can do to the workspace, behind approvals."""

    def __init__(self, root: Path, settings: Settings, queue: ApprovalQueue, bus: EventBus, *,
                 recall: RecallFn | None = None, checkpoints: Checkpoints | None = None,
                 mode: Mode | None = None, rules: RuleBook | None = None,
                 mcp: McpServers | None = None) -> None:
        self.workspace = WorkspaceFiles(root)
        self.root = self.workspace.root
        self.settings = settings
        self.queue = queue
        self.bus = bus
        self.ledger = ReadLedger()
        self.rules = rules or RuleBook(self.root)
        self.checkpoints = checkpoints if checkpoints is not None else Checkpoints(self.root)
        self.policy = Policy(mode or settings.mode)
        self.sandbox = Sandbox(self.root, enabled=settings.sandbox != "off",
                               network=settings.sandbox_network)
        if self.sandbox.enabled:
            probe_in_background()
        self._recall = recall
        self.mcp = mcp

    def close(self) -> None:
        """Remove the sandbox's private temp directory."""
        self.sandbox.close()

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
            return self._prepare_bash(call, args)
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
            return await self.mcp.call(action.call.name, dict(action.call.arguments))
        if action.kind == "bash":
            return await self._apply_bash(action, decision)
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

    def _prepare_bash(self, call: ToolCall, args: BashArgs) -> PendingAction:
        limit = max(self.settings.bash_timeout, MAX_TIMEOUT)
        timeout = min(args.timeout or self.settings.bash_timeout, limit)
        command = args.command
        short = command if len(command) <= 80 else command[:79] + "…"
        return PendingAction(
            call=call, kind="bash", command=command, cwd=str(self.root), timeout=timeout,
            protected=CommandReader(str(self.root)).danger(command),
            rule_hint=first_words(command), summary=f"run: {short}",
        )

    async def _apply_bash(self, action: PendingAction, decision: Decision) -> ToolResult:
        command = (decision.edited or "").strip() or action.command or ""
        unconfined = decision.unconfined or action.sandbox_denied is not None
        result = await self._run_bash(action, command, confine=not unconfined)
        denied = result.data.get("sandbox_denied")
        if denied and not unconfined:
            result = await self._offer_unconfined(action, command, str(denied), result)
        notes = []
        if command != action.command:
            notes.append("The user changed the command before running it.")
        if unconfined and action.sandbox_denied is None:
            notes.append("The user chose to run this command outside the sandbox.")
        content = "\n".join([*notes, result.content])
        data = {**result.data, "action_id": action.id, "command": command}
        return result.model_copy(update={"content": content, "data": data})

    async def _run_bash(self, action: PendingAction, command: str, *,
                        confine: bool) -> ToolResult:
        timeout = action.timeout or self.settings.bash_timeout
        confined = confine and self.sandbox.available
        self.bus.publish(CommandStarted(action_id=action.id, call_id=action.call.id,
                                        command=command, confined=confined))
        return await run_command(command, str(self.root), timeout, sandbox=self.sandbox,
                                 confine=confined)

    async def _offer_unconfined(self, action: PendingAction, command: str, denied: str,
                                confined: ToolResult) -> ToolResult:
        """The sandbox blocked something: ask whether to run it outside, never assume."""
        short = command if len(command) <= 60 else command[:59] + "…"
        offer = action.model_copy(update={
            "id": new_action_id(), "command": command, "sandbox_denied": denied,
            "protected": "runs outside the sandbox", "summary": f"run unconfined: {short}",
            "created_at": datetime.now(UTC)})
        verdict = self._decide(offer)
        if verdict.verdict == "deny":
            return confined
        decision = await self.queue.submit(offer)
        if not decision.approved:
            why = f": {decision.reason}" if decision.reason else ""
            return confined.model_copy(update={
                "content": f"{confined.content}\n[the user declined to run it outside the "
                           f"sandbox{why}]"})
        command = (decision.edited or "").strip() or command
        result = await self._run_bash(offer, command, confine=False)
        return result.model_copy(update={
            "content": f"The sandbox blocked the first run ({denied}); the user approved "
                       f"running it outside the sandbox.\n{result.content}"})

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


def _redact_value(value: object) -> object:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _redact_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_value(item) for item in value]
    return value


def redacted(result: ToolResult) -> ToolResult:
    """`result` with known secret values replaced by `[redacted: NAME]` in its content,
    summary and data: what the model, the screen and the logs get."""
    update = {"content": redact(result.content), "summary": redact(result.summary),
              "data": _redact_value(result.data)}
    if update == {"content": result.content, "summary": result.summary, "data": result.data}:
        return result
    return result.model_copy(update=update)


def carries_redaction(action: PendingAction) -> bool:
    """True when a restored action holds a redaction label of a secret known now."""
    labels = STORE.labels()
    if not labels:
        return False
    text = "\n".join(str(part) for part in (action.command, action.new_content,
                                             action.call.arguments))
    return any(label in text for label in labels)
