"""The providers package stays headless: no Textual, no engine, no agent."""

from __future__ import annotations

import json
import subprocess
import sys


def test_importing_providers_pulls_in_no_ui_engine_or_agent():
    code = ("import json, sys, swetui.providers; "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'textual' "
            "or m.startswith(('swetui.engine', 'swetui.agent', 'swetui.ui')))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert json.loads(result.stdout) == []
