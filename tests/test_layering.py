import subprocess
import sys

import pytest


@pytest.mark.parametrize("package", ["swetui.engine", "swetui.agent", "swetui.providers",
                                     "swetui.engine.workspace", "swetui.agent.session",
                                     "swetui.commands.run"])
def test_headless_packages_never_import_textual(package):
    code = f"import sys, {package}; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_providers_do_not_import_engine_or_agent():
    code = ("import sys, swetui.providers; "
            "print(any(m.startswith(('swetui.engine', 'swetui.agent')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
