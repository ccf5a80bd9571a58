"""The example GitHub Actions workflow (docs/examples): valid YAML, every step commented, the documented commands,
and only pytest options the plugin really has."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
WORKFLOW = REPO / "docs" / "examples" / "github-actions-pcg-gate.yml"
GATE = (
    "pytest submissions/ -n auto --pcg-record none --pcg-baseline baselines/main.json --pcg-max-drop 0.001 "
    "--pcg-drop-test bootstrap"
)
STEP = re.compile(r"^(\s*)- (uses|name):")
KEY = re.compile(r"^(\s*)(- )?([A-Za-z_][\w.-]*|\"[^\"]+\"):(\s|$)")


def structural_read(text: str) -> dict[str, Any]:
    """A small read of the YAML without PyYAML: no tabs, even indentation, every non-scalar line a key or a
    list item, block scalars (``|``) skipped; returns the top-level keys and the job names."""
    top: list[str] = []
    jobs: list[str] = []
    in_jobs = False
    block_indent: int | None = None
    for number, line in enumerate(text.splitlines(), 1):
        assert "\t" not in line, f"line {number}: a tab (YAML indents with spaces)"
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if block_indent is not None:
            if not stripped or indent > block_indent:
                continue  # inside a block scalar
            block_indent = None
        if not stripped or stripped.startswith("#"):
            continue
        assert indent % 2 == 0, f"line {number}: odd indentation"
        match = KEY.match(line)
        assert match or stripped.startswith("- "), f"line {number}: neither a key nor a list item: {line!r}"
        if match and indent == 0:
            top.append(match.group(3))
            in_jobs = match.group(3) == "jobs"
        elif match and in_jobs and indent == 2:
            jobs.append(match.group(3))
        if stripped.endswith(("|", ">")):
            block_indent = indent + (2 if stripped.startswith("- ") else 0)
    return {"top": top, "jobs": jobs}


@pytest.fixture(scope="module")
def text() -> str:
    return WORKFLOW.read_text(encoding="utf-8")


def test_structure_without_pyyaml(text: str) -> None:
    read = structural_read(text)
    assert read["top"][:2] == ["name", "on"] and "jobs" in read["top"]
    assert read["jobs"] == ["gate", "baseline"]


def test_parses_as_yaml(text: str) -> None:
    yaml = pytest.importorskip("yaml")
    doc = yaml.safe_load(text)
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "pull_request" in on and on["push"]["branches"] == ["main"]
    gate, base = doc["jobs"]["gate"], doc["jobs"]["baseline"]
    assert "pull_request" in gate["if"] and "refs/heads/main" in base["if"]
    for job in (gate, base):
        uses = [s.get("uses", "") for s in job["steps"]]
        assert any(u.startswith("actions/checkout@") for u in uses)
        assert any(u.startswith("actions/upload-artifact@") for u in uses)
        caches = [s["with"] for s in job["steps"] if s.get("uses", "").startswith("actions/cache@")]
        store = [c for c in caches if c["path"] == "pcg-runs/responses"]
        assert store and "hashFiles('submissions/**')" in store[0]["key"] and store[0]["restore-keys"].strip()
        runs = "\n".join(s.get("run", "") for s in job["steps"])
        assert "--index-url https://download.pytorch.org/whl/cpu" in runs and 'pip install -e ".[offline-llm]"' in runs
    gate_runs = "\n".join(s.get("run", "") for s in gate["steps"])
    assert GATE in gate_runs
    base_runs = "\n".join(s.get("run", "") for s in base["steps"])
    assert "--pcg-save-baseline baselines/main.json" in base_runs and "--pcg-baseline " not in base_runs
    artifact = next(s for s in gate["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert artifact["if"] == "always()" and artifact["with"]["path"] == "${{ env.PCG_RUN }}"
    assert doc["env"]["PCG_RUN"].startswith("pcg-runs/")


def test_every_step_is_commented(text: str) -> None:
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if STEP.match(line):
            previous = next(p for p in reversed(lines[:number]) if p.strip())
            assert previous.strip().startswith("#"), f"line {number + 1}: step without a comment: {line.strip()}"


def test_gate_command_and_torch_pin(text: str) -> None:
    assert GATE in text and "torch==2.13.0" in text and "--pcg-save-baseline" in text


def test_only_real_plugin_options(text: str) -> None:
    """A renamed option must not leave the example workflow broken."""
    flags = set(re.findall(r"--pcg-[a-z-]+", text))
    assert {"--pcg-record", "--pcg-baseline", "--pcg-max-drop", "--pcg-drop-test", "--pcg-save-baseline"} <= flags
    help_text = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"], cwd=REPO, capture_output=True, text=True, timeout=120
    ).stdout
    assert "--pcg-record" in help_text, "the plugin is not installed"
    missing = sorted(flag for flag in flags if flag not in help_text)
    assert not missing, f"options the plugin does not have: {missing}"


@pytest.mark.parametrize("bad", ["name: x\n\tjobs: {}\n", "name: x\njobs:\n   gate:\n", "name: x\njust words\n"])
def test_structural_read_rejects_broken_yaml(bad: str) -> None:
    with pytest.raises(AssertionError):
        structural_read(bad)
