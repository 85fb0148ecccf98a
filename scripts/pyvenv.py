#!/usr/bin/env python3
"""Pinned Python packages for gatecrew's tests, in venvs under target/ (standard library only).

The one installer the tests and scripts share. A venv is named by a set of pins; it is
created on first use and reused while its marker says the same pins were installed
completely. Several test binaries may ask at once: one installs under an exclusive
lock on `VENV.lock`, the others wait and then find it done.

    scripts/pyvenv.py checks            # install if needed, print the venv's python
    scripts/pyvenv.py checks --versions # ... and print each pin's installed version

`checks` is what the tests' Python checks import: DuckDB and polars over
`gatecrew export`'s tables (tests/it/export.rs, docs/analysis.md's queries) and the
Prometheus project's text parser (tests/it/metrics.rs). Its venv is target/py-checks
(or $GATECREW_PY_CHECKS_VENV). scripts/llm-server.py installs its llama.cpp wheels
through `install` too.

Only wheels are installed (`--only-binary :all:`): nothing compiles, and a missing
wheel is an error naming the pin, never a twenty-minute source build.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import subprocess
import sys
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The versions CI used before the tests installed them themselves (.ci/run, issue 40).
CHECKS = ["duckdb==2.0.1", "polars==2.1.0", "prometheus-client==0.26.0"]


def log(msg: str) -> None:
    print(f"pyvenv: {msg}", file=sys.stderr, flush=True)


def venv_python(d: Path) -> Path:
    return d / "bin" / "python"


def _create(d: Path) -> list[str]:
    """Creates the venv; returns the pip command that installs into it.

    A Python without ensurepip (Debian's python3 without python3-venv) gets a venv
    without pip, filled by this interpreter's own pip through `--python`.
    """
    try:
        import ensurepip  # noqa: F401

        has_ensurepip = True
    except ImportError:
        has_ensurepip = False
    venv.EnvBuilder(with_pip=has_ensurepip, clear=True).create(d)
    if has_ensurepip:
        return [str(venv_python(d)), "-m", "pip"]
    log(f"{sys.executable} has no ensurepip: installing with its own pip into {d}")
    return [sys.executable, "-m", "pip", "--python", str(venv_python(d))]


def install(d: Path, pins: list[str], no_deps: list[str] | None = None) -> Path:
    """Makes `d` a venv holding exactly these pins (once); returns its python."""
    no_deps = no_deps or []
    d = d.resolve()
    marker = d / "gatecrew-pins.json"
    want = json.dumps({"pins": pins, "no_deps": no_deps})
    d.parent.mkdir(parents=True, exist_ok=True)
    with open(str(d) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file() and marker.read_text() == want and venv_python(d).exists():
            return venv_python(d)
        started = time.monotonic()
        log(f"installing {' '.join(pins + no_deps)} into {d}")
        # A half-made venv (interrupted install, other pins) is made again from nothing.
        marker.unlink(missing_ok=True)
        pip = _create(d) + ["install", "--disable-pip-version-check", "--quiet", "--only-binary", ":all:"]
        env = dict(os.environ, PIP_USER="0", PYTHONNOUSERSITE="1")
        try:
            if pins:
                subprocess.run(pip + pins, check=True, env=env)
            if no_deps:
                subprocess.run(pip + ["--no-deps"] + no_deps, check=True, env=env)
        except subprocess.CalledProcessError as e:
            raise SystemExit(f"pyvenv: pip could not install {' '.join(pins + no_deps)} into {d} (exit {e.returncode})")
        marker.write_text(want)
        log(f"installed in {time.monotonic() - started:.1f} s")
    return venv_python(d)


def checks_dir() -> Path:
    return Path(os.environ.get("GATECREW_PY_CHECKS_VENV") or ROOT / "target" / "py-checks")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("set", choices=["checks"], help="which pinned set")
    ap.add_argument("--versions", action="store_true", help="also print `name version` of each pin, one a line")
    a = ap.parse_args()
    py = install(checks_dir(), CHECKS)
    print(py, flush=True)
    if a.versions:
        names = [p.split("==")[0] for p in CHECKS]
        code = "import importlib.metadata as m, sys\nfor n in sys.argv[1:]: print(n, m.version(n))"
        subprocess.run([str(py), "-c", code] + names, check=True)


if __name__ == "__main__":
    main()
