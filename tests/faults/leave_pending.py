"""Run as a script: open a real AgentSession with the offline model, send PROMPT and die by
SIGKILL the moment an approval is requested — a process killed with an approval pending.

    python -m tests.faults.leave_pending WORKSPACE PROMPT
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from swetui.agent.events import ApprovalRequested
from swetui.agent.session import AgentSession
from swetui.options import LaunchOptions


async def main(root: Path, prompt: str) -> None:
    session = AgentSession.open(LaunchOptions(path=root, model="offline"), env={})
    # Subscribed after the session's own recorder: the request is in the log when we die.
    session.bus.subscribe(lambda event: os.kill(os.getpid(), signal.SIGKILL), ApprovalRequested)
    session.start()
    await session.send(prompt)
    sys.exit("the turn finished without asking for approval")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
