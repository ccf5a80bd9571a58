"""Any reply text, on every variant, gives a content or a named zero, never an exception: the kind's `parse`, its
`check` and the trial's whole judgement (`trial.judge`). Numbers are bounded: a reply of one integer of more
than 4,300 digits (Python's limit for reading one) is a named zero, in a real run and on its replay."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.problem import reason_code
from pcg_plugin.problems.pcgbench.bench.registry import get_problem, names
from pcg_plugin.problems.pcgbench.records import BenchRecord
from pcg_plugin.problems.pcgbench.trial import judge

HUGE = "1" * 4301

# What a model writes inside a block: prose, code rows, JSON-ish lists, and numbers far past any code.
numbers = st.one_of(st.integers(-5, 200).map(str), st.integers(1, 6000).map(lambda n: "9" * n))
rows = st.lists(st.lists(numbers, max_size=6).map(" ".join), max_size=4).map("\n".join)
jsonish = st.recursive(
    numbers | st.sampled_from(['"a"', "null", "true", "1e999", "NaN", "-0", "2.5"]),
    lambda inner: (
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")
        | st.dictionaries(st.sampled_from(['"x"', '"layout"', '"bullets"', '"start"']), inner, max_size=3).map(
            lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"
        )
    ),
    max_leaves=12,
)
bodies = st.one_of(
    st.text(max_size=200),
    rows,
    jsonish,
    st.just(HUGE),
    st.just(f"[{HUGE}]"),
    st.just(f"1 2 {HUGE}"),
    st.just(f'{{"layout": [{HUGE}]}}'),
)
replies = st.one_of(
    st.text(max_size=300),
    st.tuples(st.text(max_size=40), st.sampled_from(["", "json", "python"]), bodies).map(
        lambda t: f"{t[0]}\n```{t[1]}\n{t[2]}\n```"
    ),
)


def record(name: str) -> BenchRecord:
    return BenchRecord(nodeid="n", submission="s", instance="i", control=None, trial=1, format="pcgbench-prompt")


@pytest.mark.parametrize("name", names())
def test_any_reply_is_a_content_or_a_named_zero(name: str) -> None:
    problem = get_problem(name)
    kind = problem.content

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(replies)
    def check(reply: str) -> None:
        content, message = kind.parse(reply)
        assert (content is None) == (message is not None)
        if message is not None:
            assert reason_code(message) in kind.reasons, message
        else:
            problem_text = kind.check(content)
            assert problem_text is None or reason_code(problem_text) in kind.reasons, problem_text
        judged = judge(problem, record(name), reply)  # never raises; a zero carries its reason
        assert judged.reason is None or judged.reason in kind.reasons, judged.message

    check()


@pytest.mark.parametrize("name", ["talakat-simple-v0", "talakat-v0"])
def test_a_json_null_block_is_a_named_zero(name: str) -> None:
    """Found by the test above: a fenced ``null`` parsed as no content with no reason (a silent non-answer)."""
    problem = get_problem(name)
    content, message = problem.content.parse("```\nnull\n```")
    assert content is None and reason_code(message) == "not_spawner_rows"
    assert judge(problem, record(name), "```\nnull\n```").reason == "not_spawner_rows"


@pytest.mark.parametrize(
    "name",
    [
        "smb-v0",
        "smb-scene-v0",
        "smbtile-v0",
        "loderunner-v0",
        "building-v0",
        "talakat-v0",
        "arcade-v0",
        "isaac-v0",
        "elimination-v0",
        "zelda-v0",
    ],
)
@pytest.mark.parametrize(
    "body",
    [HUGE, f"[{HUGE}]", f"1 2 {HUGE}", f"[[{HUGE}]]", f'{{"layout": [{HUGE}]}}'],
    ids=["digits", "list", "row", "grid", "object"],
)
def test_a_number_past_pythons_limit_is_a_named_zero(name: str, body: str) -> None:
    problem = get_problem(name)
    judged = judge(problem, record(name), f"```\n{body}\n```")
    assert judged.reason in problem.content.reasons and judged.content is None


def test_the_4301_digit_smb_reply_is_a_named_zero_in_a_run_and_its_replay(pytester: pytest.Pytester) -> None:
    """Issue 38 item 4: the reply is stored, scored `not_slice_ids`, and the replay (nothing asked) scores it the
    same way instead of failing the trial again."""
    pytester.makepyfile(huge_reply=f"def respond(messages, n):\n    return ['```\\n{HUGE}\\n```'] * n\n")
    (pytester.path / "subs" / "mine").mkdir(parents=True)
    (pytester.path / "subs" / "mine" / "prompt.txt").write_text("A level for <PROBLEM>: <WIDTH> slice ids.")
    common = [
        "subs",
        "--pcg-problem",
        "pcgbench/smb-v0",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "huge_reply:respond",
        "--pcg-store",
        "store",
        "--pcg-grid-instances",
        "1",
        "--pcg-trials",
        "1",
        "-p",
        "no:cacheprovider",
    ]
    pytester.syspathinsert()
    for run, extra in (("run", []), ("replay", ["--pcg-record", "none"])):
        result = pytester.runpytest(*common, "--pcg-out", run, *extra)
        assert result.ret == 0, result.stdout.str()
        doc = json.loads((pytester.path / run / "results.json").read_text())
        (trial,) = doc["submissions"][0]["instances"][0]["trials"]
        assert trial["reason"] == "not_slice_ids" and "4301 digits" in trial["message"] and not doc["errors"]
