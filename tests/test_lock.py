"""requirements.lock, the one pinned set every environment installs from, agrees with pyproject.toml (every
requirement of the core and of each extra, every extra), holds no CUDA package, and is what the README's set-up
and test lines and .ci/run install from, the same extras in both. Offline: it reads the files only."""

from __future__ import annotations

import importlib.util
import re
import shlex
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parent.parent
LOCK_NAME = "requirements.lock"
NOT_IN_CI = {"mutation"}  # mutation testing is a habit outside CI (docs/contributing/development.md)
FIX = "run `python scripts/checks/upgrade_lock.py --relock` (docs/contributing/development.md#the-lock)"
# The platform the lock is resolved for (scripts/checks/upgrade_lock.py: PYTHON, PLATFORM)
ENVIRONMENT = {
    **default_environment(),
    "python_version": "3.11",
    "python_full_version": "3.11.0",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "os_name": "posix",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "extra": "",
}


@cache
def script() -> ModuleType:
    """scripts/checks/upgrade_lock.py, which writes the lock: its reading of pyproject.toml and of a lock."""
    spec = importlib.util.spec_from_file_location("upgrade_lock", REPO / "scripts" / "checks" / "upgrade_lock.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def lock() -> str:
    return (REPO / LOCK_NAME).read_text(encoding="utf-8")


def installs(text: str) -> list[list[str]]:
    """The arguments of every ``pip install`` of a shell text (a README code block, .ci/run), one list each."""
    found = []
    for line in text.splitlines():
        if "pip install" not in line:
            continue
        words = shlex.split(line, comments=True)
        starts = [i + 2 for i in range(len(words) - 1) if words[i : i + 2] == ["pip", "install"]]
        for start in starts:
            end = next((i for i in range(start, len(words)) if words[i] in {"&&", ";", "||"}), len(words))
            found.append(words[start:end])
    return found


def extras_of(arguments: list[str]) -> set[str]:
    """The extras of the project in one install's arguments (``-e ".[a,b]"``)."""
    projects = [word for word in arguments if re.fullmatch(r"\.(\[[\w,-]*\])?", word)]
    return {extra for word in projects for extra in re.findall(r"[\w-]+", word)}


def test_the_lock_was_resolved_from_pyproject_requirements(lock: str) -> None:
    """Its header lists pyproject.toml's requirements, group by group, as the script writes them now: a changed,
    added or removed requirement or extra makes the lock stale (as ``uv lock --check`` would say)."""
    upgrade_lock = script()
    missing = [group for group in upgrade_lock.requirement_groups() if f"\n#   {group}: " not in lock]
    assert not missing, f"extras missing from {LOCK_NAME}: {missing}; {FIX}"
    expected = upgrade_lock.header(upgrade_lock.pins(lock)["torch"])
    written = lock[: len(expected)]
    changed = "\n".join(sorted(set(expected.splitlines()) ^ set(written.splitlines())))
    assert written == expected, f"pyproject.toml's requirements are not the ones {LOCK_NAME} holds; {FIX}:\n{changed}"


def test_the_lock_satisfies_every_requirement(lock: str) -> None:
    """Every requirement of the core and of each extra has its pin, inside its range."""
    upgrade_lock = script()
    pinned = upgrade_lock.pins(lock)
    wrong = []
    for group, requirements in upgrade_lock.requirement_groups().items():
        for text in requirements:
            requirement = Requirement(text)
            if requirement.marker is not None and not requirement.marker.evaluate(ENVIRONMENT):
                continue
            version = pinned.get(re.sub(r"[-_.]+", "-", requirement.name).lower())
            if version is None or not requirement.specifier.contains(version, prereleases=True):
                wrong.append(f"{group}: {text} (locked: {version or 'nothing'})")
    assert not wrong, f"requirements that {LOCK_NAME} does not satisfy: {wrong}; {FIX}"


def test_the_lock_holds_the_cpu_torch_and_no_cuda_package(lock: str) -> None:
    pinned = script().pins(lock)
    assert pinned["torch"].endswith("+cpu"), pinned["torch"]
    cuda = sorted(name for name in pinned if name.startswith(("nvidia-", "triton", "cuda-")))
    assert not cuda, f"CUDA packages in {LOCK_NAME}: {cuda}"


def test_readme_and_ci_install_from_the_lock(lock: str) -> None:
    """The README's set-up and test lines ("Set up and run") and .ci/run install every package but the CPU torch
    wheel with the lock as their constraint, the torch the lock was resolved with, and the same extras: every extra
    but mutation."""
    upgrade_lock = script()
    section = (REPO / "README.md").read_text(encoding="utf-8").split("## Set up and run")[1].split("\n## ")[0]
    readme = "\n".join(re.findall(r"```bash\n(.*?)```", section, re.S))
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    torch = upgrade_lock.pins(lock)["torch"].split("+")[0]
    extras = {}
    for name, text in (("README.md", readme), (".ci/run", ci)):
        commands = installs(text)
        assert [words for words in commands if words[-1:] == [f"torch=={torch}"]], f"{name} installs no torch {torch}"
        unlocked = [words for words in commands if not words[-1].startswith("torch==") and LOCK_NAME not in words]
        assert not unlocked, f"{name}: pip install without -c {LOCK_NAME}: {unlocked}"
        assert any(upgrade_lock.NO_DEPS in words and "--no-deps" in words for words in commands), name
        extras[name] = sorted({extra for words in commands for extra in extras_of(words)})
    expected = sorted(set(upgrade_lock.requirement_groups()) - {"core"} - NOT_IN_CI)
    assert extras["README.md"] == extras[".ci/run"] == expected, f"extras installed: {extras}; expected: {expected}"


def test_the_no_deps_model_is_pinned(lock: str) -> None:
    upgrade_lock = script()
    assert upgrade_lock.NO_DEPS in upgrade_lock.pins(lock)
