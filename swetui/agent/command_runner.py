"""Shell commands for the toolbox: the pending action a `bash` call becomes, and running it
once decided (confined by the sandbox, or outside it when the user says so)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from swetui.agent.approvals import ApprovalQueue
from swetui.agent.events import CommandStarted, Decision, PendingAction, new_action_id
from swetui.agent.known_secrets import known_secrets
from swetui.agent.policy import PolicyDecision
from swetui.agent.rules import first_words
from swetui.agent.sandbox import Sandbox
from swetui.agent.tools.base import BashArgs, ToolResult
from swetui.agent.tools.commands import CommandReader
from swetui.agent.tools.shell import MAX_TIMEOUT, run_command
from swetui.config import Settings
from swetui.engine.bus import EventBus
from swetui.messages import ToolCall


class CommandRunner:
    """Turns `bash` calls into pending actions and runs the approved ones.

    Given its collaborators by the toolbox: `decide` is the toolbox's verdict on an action
    (rules and mode), asked again when the sandbox blocked a command and running it outside
    needs its own approval."""

    def __init__(self, root: Path, settings: Settings, sandbox: Sandbox, bus: EventBus,
                 queue: ApprovalQueue, decide: Callable[[PendingAction], PolicyDecision]
                 ) -> None:
        self.root = root
        self.settings = settings
        self.sandbox = sandbox
        self.bus = bus
        self.queue = queue
        self.decide = decide

    def prepare(self, call: ToolCall, args: BashArgs) -> PendingAction:
        limit = max(self.settings.bash_timeout, MAX_TIMEOUT)
        timeout = min(args.timeout or self.settings.bash_timeout, limit)
        command = args.command
        short = command if len(command) <= 80 else command[:79] + "…"
        return PendingAction(
            call=call, kind="bash", command=command, cwd=str(self.root), timeout=timeout,
            protected=CommandReader(str(self.root)).danger(command),
            rule_hint=first_words(command), summary=f"run: {short}",
        )

    async def apply(self, action: PendingAction, decision: Decision) -> ToolResult:
        command = (decision.edited or "").strip() or action.command or ""
        unconfined = decision.unconfined or action.sandbox_denied is not None
        result = await self._run(action, command, confine=not unconfined)
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

    async def _run(self, action: PendingAction, command: str, *, confine: bool) -> ToolResult:
        timeout = action.timeout or self.settings.bash_timeout
        confined = confine and self.sandbox.available
        # What the command may print of the workspace's secrets (git history) is redacted.
        known = known_secrets(str(self.root))
        await asyncio.to_thread(known.refresh)
        self.bus.publish(CommandStarted(action_id=action.id, call_id=action.call.id,
                                        command=command, confined=confined))
        result = await run_command(command, str(self.root), timeout, sandbox=self.sandbox,
                                   confine=confined)
        if (notice := known.untold()) is not None:  # said once: redaction is incomplete
            result = result.model_copy(update={"content": f"{result.content}\n[{notice}]"})
        return result

    async def _offer_unconfined(self, action: PendingAction, command: str, denied: str,
                                confined: ToolResult) -> ToolResult:
        """The sandbox blocked something: ask whether to run it outside, never assume."""
        short = command if len(command) <= 60 else command[:59] + "…"
        offer = action.model_copy(update={
            "id": new_action_id(), "command": command, "sandbox_denied": denied,
            "protected": "runs outside the sandbox", "summary": f"run unconfined: {short}",
            "created_at": datetime.now(UTC)})
        verdict = self.decide(offer)
        if verdict.verdict == "deny":
            return confined
        decision = await self.queue.submit(offer)
        if not decision.approved:
            why = f": {decision.reason}" if decision.reason else ""
            return confined.model_copy(update={
                "content": f"{confined.content}\n[the user declined to run it outside the "
                           f"sandbox{why}]"})
        command = (decision.edited or "").strip() or command
        result = await self._run(offer, command, confine=False)
        return result.model_copy(update={
            "content": f"The sandbox blocked the first run ({denied}); the user approved "
                       f"running it outside the sandbox.\n{result.content}"})
