"""Shared fixtures: the reference data (committed in tests/data, and the others' text beside the repo), the
checkout every subprocess imports, hypothesis profiles."""

from __future__ import annotations

import importlib
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import pcg_plugin.errors  # imported before any pytester run (see below)
import pcg_plugin.problems.science_birds.results  # noqa: F401 - imported before any pytester run (see below)
from pcg_plugin._util.paths import shared_data
from pcg_plugin.core.contract import problem as problems

# pytester's in-process runs drop from sys.modules every module first imported during the run, while the package
# keeps its attribute: a later `from pcg_plugin import results` then gets the old copy and `from
# pcg_plugin.problems.science_birds.results import Results` a new one (two Results classes in one worker; seen with
# `pytest -n 2 tests/llm tests/e2e tests/pcgbench tests/imagegame`). Imported here, before any run, each stays one.
# So is every problem's implementation, which a run imports only when it chooses the problem (a test module that
# imported a problem's records before a run must see the same classes as that run's outputs, `isinstance` checks).
for _module in sorted({e.implementation.partition(":")[0] for e in problems.registered().values()}):
    importlib.import_module(_module)

settings.register_profile("dev", deadline=None, max_examples=60)
settings.register_profile("ci", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent

# Subprocesses the tests start (pytester's runpytest_subprocess, `python -m pcg_plugin ...`) import pcg_plugin from
# PYTHONPATH before the interpreter's installed copy: pin it to this checkout, so that they run the code the
# in-process tests run even where the installed package is another checkout (a mutated scratch copy, a second
# worktree). Fixtures that add a folder of their own prepend it. (The sandbox's `python -I` children ignore
# PYTHONPATH: tests/test_checkout.py checks that the installed package is this checkout's code.)
if str(REPO) not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))

# PYTHONDONTWRITEBYTECODE (set on some machines to keep source trees clean) makes every subprocess compile and
# assertion-rewrite pytest-pcg, hypothesis and pytest's other plugins again: about a second of CPU per `python -m
# pytest` process, which the test suite starts hundreds of. Subprocesses write their bytecode under the temporary
# folder instead (PYTHONPYCACHEPREFIX: nothing beside the sources, as the variable wanted); what they run is unchanged.
if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), f"pytest-pcg-pycache-{os.getuid()}")

REQUIRE_SHARED = "PCG_REQUIRE_SHARED"  # "1" (CI, .ci/run): a test that needs ../shared fails instead of skipping
SHARED_FOLDERS = {
    "official-examples": "the organizers' example submissions: chatgpt4pcg/pe-examples at be6802f as "
    "2024-pe-examples/, chatgpt4pcg/llms4pcg-pe-examples at 6bc28db as 2025-llms4pcg-pe-examples/",
    "official-2023-results/prompts": "the 18 prompts teams submitted in 2023: prompts.zip of "
    "chatgpt4pcg/chatgpt4pcg.github.io at 052da69, public/files/",
}


@pytest.fixture(scope="session")
def reference() -> Path:
    """tests/data: reference facts and figures committed with the tests (official golden outputs, the 2023
    result files, Unity-scored levels), each folder with its SOURCE.md."""
    return TESTS / "data"


def shared_folder(name: str) -> Path:
    """``<shared>/data/<name>``: others' text and code the repository does not copy. Absent, the test skips with
    a reason naming the folder and where it comes from; under PCG_REQUIRE_SHARED=1 (CI) it fails instead."""
    path = shared_data() / name
    if path.is_dir():
        return path
    reason = (
        f"needs {path} ({SHARED_FOLDERS[name]}), which this repository does not copy: put the shared/ folder "
        f"beside the checkout or set PCG_SHARED (docs/contributing/development.md, Reference data)"
    )
    if os.environ.get(REQUIRE_SHARED) == "1":
        pytest.fail(f"{REQUIRE_SHARED}=1: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def official_examples() -> Path:
    """The organizers' own 2024 and 2025 example repositories, as published."""
    return shared_folder("official-examples")


@pytest.fixture(scope="session")
def prompts_2023() -> Path:
    """The 18 prompt files submitted to the 2023 competition, as published."""
    return shared_folder("official-2023-results/prompts")


# The test loop at -n 2 (`--dist loadgroup` in pyproject.toml; docs/contributing/development.md, The test loop): a
# worker is handed the next test (or xdist_group) when it is nearly done with its own, so the tests that start
# processes run first, heaviest first, and the quick ones fill in at the end; both workers then finish together
# instead of one waiting out a long test it was handed last. Any other order stays the collection's.
HEAVY_FIRST = (
    "tests/sandbox/test_faults.py",
    "tests/e2e/",
    "tests/science_birds/classify/",
    "tests/core/views/",
    "tests/llm/test_llm_store.py",
    "tests/llm/test_constrain.py",
    "tests/gameeval/test_gameeval_examples.py",
    "tests/imagegame/",
    "tests/sandbox/",
    "tests/core/test_harness.py",
    "tests/pcgbench/bench/test_evaluate.py",
    "tests/pcgbench/test_harness_pcgbench.py",
    "tests/llm/",
    "tests/docs/",
)


def heaviness(nodeid: str) -> int:
    """Where a test goes in the run: the index of the first HEAVY_FIRST prefix of its node id, else after them."""
    return next((i for i, prefix in enumerate(HEAVY_FIRST) if nodeid.startswith(prefix)), len(HEAVY_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: heaviness(item.nodeid))  # a stable sort: the collection's order within each rank
