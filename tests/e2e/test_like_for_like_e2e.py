"""Issue 46: the gate is like for like in every problem. A run answered by another double (another model's name)
whose answers are empty, gated against a run of the good double, is refused with exit 4 naming the model, never
gated as a DROP (exit 1). PCG Benchmark's case is in test_results_features_e2e.py (its module's runs)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
EMPTY = "def {func}(messages, n=1):\n    return [''] * n\n"


def family(root: Path, name: str) -> tuple[str, str, list[str]]:
    """Set up one family's submissions and its good double under ``root``: (module, function, pytest args)."""
    (root / "good").mkdir(parents=True)
    if name == "science-birds":
        sys.path.insert(0, str(TESTS / "e2e"))
        from e2e_support import RESPONDER, VARIED_BODY, make_tiny_classifier, program

        (root / "good" / "scripted_llm.py").write_text(textwrap.dedent(RESPONDER))
        (root / "subs" / "varied").mkdir(parents=True)  # a program that scores above 0 with the double
        (root / "subs" / "varied" / "program.py").write_text(program(VARIED_BODY))
        make_tiny_classifier(root / "tiny")
        return "scripted_llm", "respond", ["--pcg-letters", "A", "--pcg-classifier", str(root / "tiny")]
    if name == "imagegame":
        shutil.copy(TESTS / "imagegame" / "ig_doubles.py", root / "good")
        shutil.copytree(REPO / "examples" / "imagegame" / "selfplay", root / "subs" / "selfplay")
        args = ["--pcg-problem", "imagegame", "--pcg-imagegame-instances", "compact_grids/0"]
        return "ig_doubles", "respond_perfect", args
    shutil.copy(TESTS / "gameeval" / "ge_doubles.py", root / "good")
    shutil.copytree(REPO / "examples" / "gameeval" / "askguess" / "selfplay", root / "subs" / "selfplay")
    return "ge_doubles", "respond", ["--pcg-problem", "gameeval/askguess-easy", "--pcg-gameeval-targets", "apple"]


def run(root: Path, out: str, double: str, model: str, args: list[str], *extra: str) -> subprocess.CompletedProcess:
    path = os.pathsep.join(filter(None, [str(root / double), os.environ.get("PYTHONPATH")]))  # this checkout
    env = {**os.environ, "PYTHONPATH": path, "PCG_CACHE_DIR": str(root / "cache")}
    env.pop("OPENAI_API_KEY", None)
    cmd = [sys.executable, "-m", "pytest", "subs", "--pcg-backend", "scripted", "--pcg-model", model]
    cmd += ["--pcg-out", out, "--pcg-store", f"store-{double}", "--pcg-trials", "2", *args, *extra]
    cmd += ["-p", "no:cacheprovider", "-p", "no:randomly", "-q"]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)


# the refusal is the harness's (core.results.like_for_like), the same for every problem: Science Birds' case, the
# costliest run, is `slow` (the test loop)
@pytest.mark.parametrize("name", [pytest.param("science-birds", marks=pytest.mark.slow), "imagegame", "gameeval"])
def test_a_baseline_of_another_model_is_refused_with_exit_4(tmp_path, name):
    module, func, args = family(tmp_path, name)
    good = run(tmp_path, "A", "good", f"{module}:{func}", args)
    assert good.returncode == 0, good.stdout[-3000:]
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "other_double.py").write_text(EMPTY.format(func=func))
    other = run(tmp_path, "O", "other", f"other_double:{func}", args, "--pcg-baseline", "A")
    assert other.returncode == 4, other.stdout[-3000:]
    said = " ".join(other.stdout.split())
    assert "not like for like with the baseline" in said
    refusal = re.search(r"another model \(baseline (\S+?), this run (\S+?)\)", said)  # every problem's words
    assert refusal is not None, said[-3000:]
    base, this = refusal.group(1).rstrip("…"), refusal.group(2).rstrip("…")  # a long value is cut
    assert f"scripted:{module}:{func}".startswith(base) or base.endswith(f"{module}:{func}"), base
    assert f"scripted:other_double:{func}".startswith(this) or this.endswith(f"other_double:{func}"), this
    assert "regressed" not in said and "DROP" not in said
    if name == "science-birds":  # the same double's name answering "" is like for like: a DROP, and the page
        (tmp_path / "empty").mkdir()
        (tmp_path / "empty" / f"{module}.py").write_text(EMPTY.format(func=func))
        worse = run(tmp_path, "E", "empty", f"{module}:{func}", args, "--pcg-baseline", "A")
        assert worse.returncode == 1, worse.stdout[-3000:]
        page = tmp_path / "E" / "compare.html"
        assert f"what changed, trial by trial: {page}" in worse.stdout
        html = page.read_text()
        assert "scored -&gt; zero" in html and "no_code" in html and 'src="../A/varied/images/A/' in html
