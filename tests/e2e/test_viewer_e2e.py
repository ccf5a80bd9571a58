"""A Science Birds run seen through its viewer: a multi-turn program's transcript (every call, the history it
resent shown once), the level, its stability animation from the scoring run, and the report's links to them.
One run at ``-n 2`` (``multi``) is read by the tests of the viewer and of its size budget (one worker: xdist_group)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from e2e_support import lay_out_competition, run_args, run_plugin
from trial_pages import opened

from pcg_plugin.cli import main as pcg
from pcg_plugin.core.records import transcript

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.xdist_group("viewer_e2e")

MULTI = """
from chatgpt4pcg.competition import chat_with_chatgpt
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop

class Entry(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        messages = [{"role": "system", "content": "You build letters from blocks."},
                    {"role": "user", "content": f"Plan TARGET={target_character} in words first."}]
        plan = chat_with_chatgpt(ctx, messages)[0]
        messages += [{"role": "assistant", "content": plan},
                     {"role": "user", "content": f"Now the code. TARGET={target_character} TRIAL=2"}]
        return chat_with_chatgpt(ctx, messages)[0]
"""


@pytest.fixture(scope="module")
def multi(tmp_path_factory: pytest.TempPathFactory, tiny_classifier: Path) -> Path:
    """The competition fixture's teams and a multi-turn program, letters A and I, one trial, run at ``-n 2``."""
    root = lay_out_competition(tmp_path_factory.mktemp("viewer"), tiny_classifier, {"team_multi": {"entry.py": MULTI}})
    args = run_args("run", "--pcg-letters", "A,I", "--pcg-trials", "1", "-p", "xdist", "-n", "2")
    done = run_plugin(root, *args)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return root


def test_a_multi_turn_program_is_seen_call_by_call_with_its_level_and_animation(multi: Path, capsys) -> None:
    run = multi / "run"
    capsys.readouterr()
    assert pcg(["show", str(run), "submissions/team_multi::A::1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    first, second = doc["calls"]
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert second["messages"][:3] == [*first["messages"], {"role": "assistant", "content": first["reply"]}]
    assert second["reply"].startswith("```") and not second["replayed"] and second["completion_tokens"] > 0
    assert pcg(["show", str(run), "submissions/team_multi::A::1"]) == 0
    text = capsys.readouterr().out
    assert (
        "[messages 1-3: as sent in call 1, with its reply]\n   [4] user:\n       Now the code. TARGET=A TRIAL=2" in text
    )
    assert "stability animation: animations/team_multi/images/A/team_multi_A_1.gif" in text
    assert (run / "animations/team_multi/images/A/team_multi_A_1.gif").is_file()
    # the report: each trial's cell links its transcript and its animation, and both exist
    html = (run / "report.html").read_text()
    page = transcript.page_rel("submissions/team_multi::A::1")
    assert f'<a href="{page}">transcript</a>' in html
    assert '<a href="animations/team_multi/images/A/team_multi_A_1.gif">stability</a>' in html
    shown = opened(run, page)
    assert "the stability test replayed" in shown
    # the image that was classified, on the page itself, beside its animation
    assert '<img loading="lazy" src="../team_multi/images/A/team_multi_A_1.png"' in shown
    assert '<img loading="lazy" src="../animations/team_multi/images/A/team_multi_A_1.gif"' in shown
    # a second run replays the same calls from the store, and says so
    result = run_plugin(multi, *run_args("again", "--pcg-letters", "A", "--pcg-trials", "1"))
    assert result.returncode == 0, result.stdout[-3000:]
    again = transcript.read(multi / "again", "submissions/team_multi::A::1")
    assert [c["replayed"] for c in again["calls"]] == [True, True]
    assert [c["reply"] for c in again["calls"]] == [first["reply"], second["reply"]]
    pytest.LineMatcher(result.stdout.splitlines()).fnmatch_lines(["pcg 3/3 items · calls 0 paid, 4 replayed · *"])


def test_a_run_that_only_checks_prints_no_progress_line(competition):
    result = competition.runpytest_subprocess("--pcg-rules", "submissions", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    assert not [line for line in result.outlines if " items · calls " in line]


def test_a_grown_run_keeps_its_viewer_within_20_kb_a_trial(multi: Path) -> None:
    """The issue's budget on a small real run grown to 10 trials a letter (each trial's files, transcript and
    animation copied under new names, as scripts/bench/bench_viewer.py does for 2,600 trials): what is beside
    report.html, the trial pages, transcripts, shared prompts and animations with the official files, at most
    20 KB a trial; report.html at most 2 KB a trial."""
    spec = importlib.util.spec_from_file_location("bench_viewer", REPO / "scripts" / "bench" / "bench_viewer.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    doc, docs = bench.grow(multi / "run", multi / "grown", 10)
    report, _ = bench.write_viewer(doc, docs, multi / "grown")
    page, beside, parts = bench.measure(multi / "grown", report, len(docs))
    assert beside <= 20_000, (beside, parts)
    assert page <= 2_000, page
    assert len(docs) == 60 and parts["animations"] and parts["trials/*.js"] and parts["trials/view.html"]
