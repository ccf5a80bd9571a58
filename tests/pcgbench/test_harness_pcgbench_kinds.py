"""End-to-end harness runs (pytester, the scripted double `grid_double.py`) on one variant of each of isaac (a floor
plan), elimination (letters), loderunner (pattern codes drawn as tiles) and loderunnertile (tiles); elimination
also through a loopback OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_harness_pcgbench import args, by_name, grid_server, own_part, program, results, scores_only, write

HERE = Path(__file__).resolve().parent
# A reply each kind cannot read: '9' written over the block's first character (the floor plan's "{", a letter), or
# words where pattern codes belong.
JUNK = {
    "isaac-v0": ("alphabet", "not_a_floor_plan"),
    "elimination-v0": ("alphabet", "not_letters"),
    "loderunner-v0": ("words", "not_a_grid"),
    "loderunnertile-v0": ("alphabet", "wrong_alphabet"),
}

PROMPTS = {  # each kind's own placeholders, as a competitor would write them
    "isaac-v0": "Design a <WIDTH>x<HEIGHT> <PROBLEM> floor plan (<CELLS> cells). <DOORS>\n<GOAL>\n<EXAMPLES>\n"
    "Meet <CONTROL>.",
    "elimination-v0": "Write <LENGTH> letters for <PROBLEM>.\n<GOAL>\n<EXAMPLES>\nMeet <CONTROL>.",
    "loderunner-v0": "Design <PROBLEM>: <HEIGHT> rows of <WIDTH> pattern codes.\nPatterns:\n<LEGEND>\nTiles:\n<TILES>"
    "\n<GOAL>\nMeet <CONTROL>.",
    "loderunnertile-v0": "Design <PROBLEM>: <HEIGHT> rows of <WIDTH> tiles.\n<LEGEND>\n<GOAL>\nMeet <CONTROL>.",
}


@pytest.fixture
def bench(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    shutil.copy(HERE / "grid_double.py", pytester.path / "grid_double.py")
    monkeypatch.syspath_prepend(str(pytester.path))
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return pytester


@pytest.mark.parametrize("variant", sorted(PROMPTS))
def test_a_run_scores_examples_names_zeros_and_draws_each_content(bench: pytest.Pytester, variant: str) -> None:
    write(
        bench.path,
        {
            "subs/good/prompt.txt": PROMPTS[variant],  # the first example every trial
            "subs/trials/entry.py": program(),  # example (trial - 1) % n, from the task JSON
            "subs/noblock/prompt.txt": PROMPTS[variant] + " MODE=noblock",
            "subs/junk/prompt.txt": PROMPTS[variant] + f" MODE={JUNK[variant][0]}",
        },
    )
    result = bench.runpytest(*args(variant, "run", "--pcg-grid-instances", "1", "--pcg-trials", "2"))
    assert result.ret == 0, result.stdout.str()
    doc = results(bench.path, "run")
    subs = by_name(doc)
    assert not doc["errors"] and not doc["folder_errors"]
    for name in ("good", "trials"):
        trials = subs[name]["instances"][0]["trials"]
        assert [t["reason"] for t in trials] == [None, None] and [t["quality"] for t in trials] == [1.0, 1.0]
        assert subs[name]["feasible"] == 1.0
    assert subs["noblock"]["zero_reasons"] == {"no_block": 2} and subs["noblock"]["score"] == 0
    assert subs["junk"]["zero_reasons"] == {JUNK[variant][1]: 2}
    kind = doc["benchmark"]
    assert kind["kind"] == {"isaac-v0": "floor plan", "elimination-v0": "letters"}.get(variant, "grid")
    report = (bench.path / "run" / "report.html").read_text()
    assert own_part(report).count("<svg") == 4  # one drawing per content read: good and trials, 2 trials each
    raw = json.dumps(subs["good"]["instances"][0]["trials"][0]["content"])
    assert raw and "ZERO junk instance" in result.stdout.str()


def test_elimination_through_a_loopback_server_scores_as_the_double(bench: pytest.Pytester) -> None:
    """The same submissions on elimination-v0 through a real HTTP server on 127.0.0.1 score exactly as with the
    scripted double (one call per trial)."""
    write(bench.path, {"subs/good/prompt.txt": PROMPTS["elimination-v0"], "subs/trials/entry.py": program()})
    common = ["--pcg-grid-instances", "1", "--pcg-trials", "2"]
    assert bench.runpytest(*args("elimination-v0", "scripted", *common)).ret == 0
    with grid_server() as server:
        http = ["--pcg-backend", "openai-compatible", "--pcg-base-url", server.url, "--pcg-model", "fake-model"]
        live = bench.runpytest(*args("elimination-v0", "live", *common), *http)
        assert live.ret == 0, live.stdout.str()
        assert len(server.bodies) == 4
    assert scores_only(results(bench.path, "live")) == scores_only(results(bench.path, "scripted"))
