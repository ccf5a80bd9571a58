"""The game master and one episode through the harness's trial code (store, scorer, clembench folder), played by
the scripted doubles of ig_doubles.py. Every expected score is worked out by hand from clembench 2.0.0's rules
(``../shared/spec/other-problems.md`` §2.2-2.3) for the target below, not read back from the scorer."""

from __future__ import annotations

import json
import math
from pathlib import Path

import ig_doubles
import pytest
from ig_helpers import make_instance

from pcg_plugin.episode.loop import play
from pcg_plugin.problems.imagegame import rules
from pcg_plugin.problems.imagegame.game import FOLLOWER, GIVER, ImageGameMaster, episode_record
from pcg_plugin.problems.imagegame.item import one_line, run_trial
from pcg_plugin.problems.imagegame.settings import Settings
from pcg_plugin.problems.imagegame.submission import detect
from pcg_plugin.problems.imagegame.worker import Context

# Four A's in the top-left corner: row 1 "A A ▢ ▢ ▢", row 2 the same.
CORNER = "A A ▢ ▢ ▢\nA A ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢"
ROW_COMMAND = "Command: row 1: A A ▢ ▢ ▢"  # 25 characters, 8 pieces split on " "
NAN = math.nan


def turn(p, r, f1, changed, length=25, tokens=8):  # type: ignore[no-untyped-def]
    return {
        "Generated Expression Length": length,
        "Generated Expression Number of Tokens": tokens,
        "Precision": p,
        "Recall": r,
        "F1": f1,
        "Changed Cell Count": changed,
        "Request Count": 2,
        "Parsed Request Count": 2,
        "Violated Request Count": 0,
    }


def episode(p, r, f1, changed, length, tokens, success, requests, parsed, violated, ratio, aborted=0):  # type: ignore[no-untyped-def]
    return {
        "Precision": p,
        "Recall": r,
        "F1": f1,
        "Main Score": f1,
        "Average Changed Cell Count": changed,
        "Average Generated Instruction Length": length,
        "Average Generated Expression Number of Tokens": tokens,
        "Success": success,
        "Lose": 0 if aborted else 1 - success,
        "Aborted": aborted,
        "Request Count": requests,
        "Violated Request Count": violated,
        "Parsed Request Count": parsed,
        "Request Success Ratio": ratio,
    }


def aborted(requests, parsed, violated, ratio):  # type: ignore[no-untyped-def]
    return episode(NAN, NAN, NAN, NAN, NAN, NAN, 0, requests, parsed, violated, ratio, aborted=1)


# Perfect: turn 0 draws row 1 (P 2/2 = 100, R 2/4 = 50, F1 .6667 -> 67; 2 cells changed), turn 1 row 2 (all 100),
# then DONE (not counted). Bad: one row of five A's (P 2/5 = 40, R 50, F1 2·.4·.5/.9 = .4444 -> 44), then DONE.
EXPECTED = {
    "perfect": (
        "done",
        2,
        {"0": turn(100, 50, 67, 2), "1": turn(100, 100, 100, 2, length=25)},
        episode(100, 100, 100, 2.0, 25.0, 8.0, 1, 4, 4, 0, 1.0),
    ),
    "bad": ("done", 1, {"0": turn(40, 50, 44, 5)}, episode(40, 50, 44, 5.0, 25.0, 8.0, 0, 2, 2, 0, 1.0)),
    "chatty_giver": ("aborted", 0, {}, aborted(1, 0, 1, 0.0)),
    "chatty_follower": ("aborted", 0, {}, aborted(2, 1, 1, 0.5)),
    "never_done": (
        "turn_limit",
        25,
        {str(i): turn(100, 50, 67, 2 if i == 0 else 0) for i in range(25)},
        episode(100, 50, 67, 0.08, 25.0, 8.0, 0, 50, 50, 0, 1.0),
    ),
}


def same(a, b) -> bool:  # type: ignore[no-untyped-def]
    """Equal, NaN equal to NaN, ints and floats kept apart as clembench's JSON keeps them."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


@pytest.fixture
def corner() -> rules.Instance:
    return make_instance(target=CORNER, game_id=3)


def speaker(respond):  # type: ignore[no-untyped-def]
    return lambda messages: respond(messages, 1)[0]


@pytest.mark.parametrize("double", list(EXPECTED))
def test_scripted_episodes_score_exactly_as_the_rules_say(double, corner, tmp_path) -> None:
    outcome, turns, turn_scores, episode_scores = EXPECTED[double]
    sub_dir = tmp_path / double
    sub_dir.mkdir()
    (sub_dir / "imagegame.toml").write_text(f'model = "ig_doubles:respond_{double}"\n')
    ctx = Context(
        Settings(instances=("compact_grids/3",), backend="scripted", store=tmp_path / "store"), run_dir=tmp_path / "run"
    )
    result = run_trial(ctx, detect(sub_dir), corner, 1, f"{double}::compact_grids/3::1")
    assert (result.outcome, result.turns) == (outcome, turns)
    assert same(result.scores, {"turn scores": turn_scores, "episode scores": episode_scores})
    assert result.reason == (None if outcome != "aborted" else "aborted")
    folder = tmp_path / "run" / result.episode_dir
    assert result.episode_dir == (
        f"episodes/{double}/trial_1/scripted-ig_doubles-respond_{double}-t0.0--"
        f"scripted-ig_doubles-respond_{double}-t0.0/imagegame/0_compact_grids/episode_3"
    )
    written = json.loads((folder / "scores.json").read_text())
    assert same(written, result.scores)  # what clembench's tools read is what we ranked
    assert (result.usage["paid_calls"], result.usage["replayed_calls"]) == (result.usage["calls"], 0)
    again = run_trial(ctx, detect(sub_dir), corner, 1, "again")  # a replay asks nothing and scores the same
    assert (again.usage["paid_calls"], again.usage["replayed_calls"]) == (0, result.usage["calls"])
    assert same(again.scores, result.scores)


def test_done_before_any_turn_is_not_scored_as_in_clembench(corner, tmp_path) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "imagegame.toml").write_text('model = "test_game:respond_done"\n')
    ctx = Context(Settings(backend="scripted", store=tmp_path / "store"), run_dir=tmp_path / "run")
    result = run_trial(ctx, detect(tmp_path / "s"), corner, 1, "x")
    assert (result.outcome, result.reason, result.scores, result.played) == ("done", "not_scored", None, None)
    assert not (tmp_path / "run" / result.episode_dir / "scores.json").exists()
    assert (tmp_path / "run" / result.episode_dir / "interactions.json").exists()


def respond_done(messages: list[dict], n: int = 1) -> list[str]:
    return ["Command: DONE"] * n


def test_the_master_sends_clembench_messages_and_the_record_keeps_them(corner) -> None:
    transcript = play(
        ImageGameMaster(corner),
        {GIVER: speaker(ig_doubles.respond_perfect), FOLLOWER: speaker(ig_doubles.respond_perfect)},
        turn_limit=25,
    )
    record = episode_record(transcript, corner, "m", "m")
    first, second, last = record.turns
    assert first.giver_prompt.content == rules.giver_first_message(corner)
    assert first.follower_prompt is not None and first.follower_prompt.content == "HEADER TWO\n" + ROW_COMMAND
    assert second.giver_prompt.content == rules.STANDARD_QUESTION
    assert second.follower_prompt is not None and second.follower_prompt.content == "Command: row 2: A A ▢ ▢ ▢"
    assert (last.giver_reply.content, last.follower_prompt) == ("Command: DONE", None)


def test_a_participants_opening_replaces_only_the_givers_first_message(corner) -> None:
    master = ImageGameMaster(corner, giver_opening="Describe:\n" + CORNER)
    transcript = play(
        master,
        {GIVER: speaker(ig_doubles.respond_perfect), FOLLOWER: speaker(ig_doubles.respond_perfect)},
        turn_limit=25,
    )
    record = episode_record(transcript, corner, "m", "m")
    assert record.turns[0].giver_prompt.content == "Describe:\n" + CORNER
    assert record.turns[0].follower_prompt.content.startswith("HEADER TWO\n")  # type: ignore[union-attr]
    assert record.turns[1].giver_prompt.content == rules.STANDARD_QUESTION


def test_a_refused_call_is_logged_as_an_empty_reply_so_the_scorer_sees_the_abort(corner) -> None:
    from pcg_plugin.errors import OfficialFailure, Reason
    from pcg_plugin.problems.imagegame import clembench_io

    def refused(messages: list[dict]) -> str:
        raise OfficialFailure("too long", reason=Reason.LLM_BAD_REQUEST)

    transcript = play(
        ImageGameMaster(corner), {GIVER: speaker(ig_doubles.respond_perfect), FOLLOWER: refused}, turn_limit=25
    )
    assert transcript.reason == "llm_bad_request: too long"
    record = episode_record(transcript, corner, "m", "m")
    assert record.turns[0].follower_reply is not None and record.turns[0].follower_reply.content == ""
    scores = clembench_io.score_interactions(clembench_io.to_interactions(record, corner), corner)
    assert same(scores["episode scores"], aborted(2, 1, 1, 0.5))


def test_model_folder_names_follow_clembench(tmp_path: Path) -> None:
    from pcg_plugin.problems.imagegame.outputs import model_pair

    assert model_pair("Llama-3.3-70B-Instruct", "Llama-3.3-70B-Instruct") == (
        "Llama-3.3-70B-Instruct-t0.0--Llama-3.3-70B-Instruct-t0.0"
    )
    assert model_pair("Qwen/Qwen2.5 7B", "x") == "Qwen-Qwen2.5-7B-t0.0--x-t0.0"


def test_an_abort_names_the_turn_and_role_and_quotes_the_reply(corner) -> None:
    from pcg_plugin.errors import OfficialFailure, Reason
    from pcg_plugin.problems.imagegame.item import QUOTE_CHARS, abort_message

    both = {GIVER: speaker(ig_doubles.respond_chatty_follower), FOLLOWER: speaker(ig_doubles.respond_chatty_follower)}
    transcript = play(ImageGameMaster(corner), both, turn_limit=25)
    reply = "Here is the grid:\n" + "\n".join(["A A ▢ ▢ ▢"] + ["▢ ▢ ▢ ▢ ▢"] * 4)
    assert abort_message(transcript) == f"{transcript.reason}; turn 1, the follower replied “{one_line(reply)}”"
    prose = "I am ready to help! " * 10
    transcript = play(ImageGameMaster(corner), {GIVER: lambda m: prose, FOLLOWER: lambda m: ""}, turn_limit=25)
    assert abort_message(transcript) == f"{transcript.reason}; turn 1, the giver replied “{prose[:QUOTE_CHARS]}...”"

    def refused(messages: list[dict]) -> str:
        raise OfficialFailure("too long", reason=Reason.LLM_BAD_REQUEST)

    transcript = play(ImageGameMaster(corner), {GIVER: refused, FOLLOWER: refused}, turn_limit=25)
    assert abort_message(transcript) == "llm_bad_request: too long"  # no reply to quote
    done = play(
        ImageGameMaster(corner),
        {GIVER: speaker(ig_doubles.respond_perfect), FOLLOWER: speaker(ig_doubles.respond_perfect)},
        turn_limit=25,
    )
    assert abort_message(done) is None
