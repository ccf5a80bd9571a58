"""The shared options: registered once however many problems ask for them, readable from the ini file."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.llm import options as run_options
from pcg_plugin.llm.options import COMMON, check_choice, is_offline_default, split_models


def test_a_second_problem_asking_for_the_shared_options_adds_no_duplicate(pytester):
    # Science Birds has registered COMMON already (it is installed); a second problem asks for them again plus one
    # of its own: no argparse conflict, and both the shared and the new option parse.
    pytester.makeconftest(
        "from pcg_plugin.llm.options import COMMON, Option, add_options, raw_options\n"
        "MINE = (Option('--pcg-toy-size', 'a toy option'),)\n"
        "def pytest_addoption(parser):\n"
        "    add_options(parser, COMMON + MINE)\n"
        "def pytest_report_header(config):\n"
        "    raw = raw_options(config, COMMON + MINE)\n"
        "    return f\"RAW {raw['pcg_trials']} {raw['pcg_toy_size']} {raw['pcg_record']}\"\n"
    )
    pytester.makeini("[pytest]\npcg_record = new\n")
    result = pytester.runpytest("--pcg-trials", "3", "--pcg-toy-size", "7", "--co")
    result.stdout.fnmatch_lines(["RAW 3 7 new"])
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_shared_option_names_are_unique_and_ini_shaped():
    dests = [o.dest for o in COMMON]
    assert len(set(dests)) == len(dests) and all(d.startswith("pcg_") for d in dests)
    assert {"pcg_trials", "pcg_backend", "pcg_model", "pcg_base_url", "pcg_record", "pcg_out", "pcg_store"} <= set(
        dests
    )


def test_check_choice_names_the_option():
    check_choice("pcg_record", None, ("once",))
    with pytest.raises(ValueError, match=r"--pcg-record: 'sometimes' is not one of once, new"):
        check_choice("pcg_record", "sometimes", ("once", "new"))


def test_offline_default_and_model_lists():
    assert is_offline_default(None, None, {}) and not is_offline_default(None, None, {"OPENAI_API_KEY": "k"})
    assert split_models("a,\nb, ,c") == ("a", "b", "c")


@dataclass(frozen=True)
class _Demo(run_options.JsonSettings):
    targets: tuple[str, ...] = ()
    out: Path | None = None
    model: str | None = None
    trials: int = 1


@given(
    targets=st.lists(st.text(max_size=5), max_size=3),
    out=st.none() | st.just(Path("/runs/r1")),
    model=st.none() | st.text(max_size=8),
    trials=st.integers(1, 50),
)
def test_settings_travel_to_workers_as_json_and_come_back_equal(targets, out, model, trials):
    s = _Demo(tuple(targets), out, model, trials)
    data = json.loads(json.dumps(s.to_dict()))  # what workerinput carries
    assert data["targets"] == list(targets) and data["out"] == (str(out) if out else None)
    assert _Demo.from_dict(data) == s


def test_every_installed_problems_settings_round_trip():
    from pcg_plugin.problems.imagegame.settings import Settings as ImageGame
    from pcg_plugin.problems.pcgbench.settings import BenchSettings
    from pcg_plugin.problems.science_birds.settings import Settings as ScienceBirds

    for s in (
        ScienceBirds(letters=("I", "L"), out=Path("/o"), notes=("a",)),
        BenchSettings(problem="zelda-v0", instance_ids=("x",), store=Path("/s")),
        ImageGame(instances=("compact_grids/0",), out=Path("/o")),
    ):
        assert type(s).from_dict(json.loads(json.dumps(s.to_dict()))) == s


def test_given_is_the_stripped_string_or_none_when_absent_or_blank() -> None:
    raw = {"a": "  x ", "b": "   ", "c": None, "d": ""}
    assert [run_options.given(raw, k) for k in ("a", "b", "c", "d", "missing")] == ["x", None, None, None, None]


def test_the_shared_basics_of_every_problem(tmp_path):
    """Who answers, how answers are recorded, where the run and the store go: read once for all four problems."""
    root, cwd = tmp_path / "root", tmp_path / "cwd"
    plain = run_options.basics({}, rootdir=root, cwd=cwd, env={})
    assert (plain.backend, plain.record, plain.offline, plain.out, plain.device) == (None, "once", True, None, "auto")
    assert plain.store == root / "pcg-runs" / "responses"
    chosen = run_options.basics(
        {"pcg_out": "o", "pcg_store": "s", "pcg_record": "none", "pcg_device": "cpu"},
        rootdir=root,
        cwd=cwd,
        env={"OPENAI_API_KEY": "sk-x"},
    )
    assert (chosen.out, chosen.store, chosen.record, chosen.device, chosen.offline) == (
        cwd / "o",
        cwd / "s",
        "none",
        "cpu",
        False,
    )
    with pytest.raises(ValueError, match="--pcg-record"):
        run_options.basics({"pcg_record": "sometimes"}, rootdir=root, cwd=cwd, env={})
    with pytest.raises(ValueError, match="--pcg-backend"):
        run_options.basics({"pcg_backend": "carrier-pigeon"}, rootdir=root, cwd=cwd, env={})


def every_problems_resolve() -> dict[str, Any]:
    """Each installed problem's ``resolve(raw, rootdir=, cwd=, env=)``, the problem's own arguments bound."""
    from pcg_plugin.problems.gameeval import settings as gameeval
    from pcg_plugin.problems.gameeval.games import GAMES
    from pcg_plugin.problems.imagegame import settings as imagegame
    from pcg_plugin.problems.pcgbench import settings as pcgbench
    from pcg_plugin.problems.science_birds import settings as science_birds

    return {
        "gameeval": partial(gameeval.resolve, GAMES["spyfall"]),
        "imagegame": partial(imagegame.resolve, known=("compact_grids/0",)),
        "pcgbench": partial(pcgbench.resolve, "binary-v0"),
        "science_birds": science_birds.resolve,
    }


@pytest.mark.parametrize("problem", ["gameeval", "imagegame", "pcgbench", "science_birds"])
def test_every_problems_settings_carry_the_shared_options_as_given(tmp_path: Path, problem: str) -> None:
    """Who answers, where the run and the store go, how answers are recorded, which device: read once
    (``basics``), the same in each problem's settings (``Basics.settings``)."""
    raw = {"pcg_backend": "openai", "pcg_base_url": "http://models.example/v1", "pcg_model": "m", "pcg_out": "o"}
    raw |= {"pcg_store": "s", "pcg_record": "none", "pcg_device": "cpu"}
    s = every_problems_resolve()[problem](raw, rootdir=tmp_path / "root", cwd=tmp_path, env={})
    shared = (s.backend, s.base_url, s.record, s.out, s.store, s.device, s.offline_default, s.model)
    assert shared == ("openai", "http://models.example/v1", "none", tmp_path / "o", tmp_path / "s", "cpu", False, "m")
    offline = every_problems_resolve()[problem]({}, rootdir=tmp_path / "root", cwd=tmp_path, env={})
    assert (offline.offline_default, offline.store) == (True, tmp_path / "root" / "pcg-runs" / "responses")
    assert set(run_options.Shared.__annotations__) <= {f.name for f in fields(s)}


def test_a_value_given_blank_is_refused_where_the_default_would_mean_everything() -> None:
    raw = {"pcg_letters": "  ", "pcg_model": " , ", "pcg_trials": "", "pcg_x": "A"}
    with pytest.raises(ValueError, match=r"--pcg-letters: empty: name one \(leave the option out for the default\)"):
        run_options.chosen(raw, "pcg_letters", "name one")
    assert run_options.chosen(raw, "pcg_x", "") == "A" and run_options.chosen(raw, "absent", "") is None
    for bad, message in (
        ({"pcg_trials": ""}, "--pcg-trials: empty"),
        ({"pcg_model": " , "}, "--pcg-model: ',' names no model"),
        ({"pcg_model": ""}, "--pcg-model: empty"),
    ):
        with pytest.raises(ValueError, match=message):
            run_options.basics(bad, rootdir=Path("/r"), cwd=Path("/c"), env={})
    assert run_options.positive("pcg_max", None, 7) == 7 and run_options.positive("pcg_max", "3", None) == 3
    for text in ("0", "-1"):
        with pytest.raises(ValueError, match=r"--pcg-max: .* must be at least 1"):
            run_options.positive("pcg_max", text, None)


# what each problem calls its targets, given blank: today's default would be every target (52 paid calls for
# Science Birds' 26 letters x 2 trials; all 59 picture-game instances)
BLANK = {
    "science-birds": ("--pcg-letters", "--pcg-letters: empty: name at least one letter"),
    "pcgbench/binary-v0": ("--pcg-grid-instances", "--pcg-grid-instances: empty"),
    "imagegame": ("--pcg-imagegame-instances", "--pcg-imagegame-instances: empty: name instances"),
    "gameeval/askguess-easy": ("--pcg-gameeval-targets", "--pcg-gameeval-targets: empty: name words, or all"),
}


@pytest.mark.parametrize("problem", sorted(BLANK))
def test_every_problem_refuses_an_empty_target_list_before_asking_the_model(pytester, monkeypatch, problem) -> None:
    import loopback_llm

    option, message = BLANK[problem]
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("PCG_CACHE_DIR", str(pytester.path / "cache"))
    team = pytester.path / "submissions" / "team"
    team.mkdir(parents=True)
    for name in ("prompt.txt", "imagegame.toml", "gameeval.toml"):  # whichever the problem reads
        (team / name).write_text("A level for <PROBLEM>; draw <OBJECT>.\n" if name == "prompt.txt" else "# self-play\n")
    with loopback_llm.serve(loopback_llm.FakeOpenAI()) as server:
        for blank in ("", "  "):
            result = pytester.runpytest(
                "submissions",
                "--pcg-problem",
                problem,
                "--pcg-backend",
                "openai",
                "--pcg-base-url",
                server.url,
                "--pcg-model",
                "m",
                "--pcg-trials",
                "1",
                "--pcg-out",
                "out",
                "--pcg-store",
                "store",
                "-p",
                "no:cacheprovider",
                option,
                blank,
            )
            assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-2000:]
            assert message in result.stderr.str()
        for extra in (("--pcg-trials", ""), ("--pcg-model", ""), ("--pcg-model", ",")):
            result = pytester.runpytest(
                "submissions",
                "--pcg-problem",
                problem,
                "--pcg-backend",
                "openai",
                "--pcg-base-url",
                server.url,
                "-p",
                "no:cacheprovider",
                *extra,
            )
            assert result.ret == pytest.ExitCode.USAGE_ERROR and extra[0] in result.stderr.str()
        assert server.bodies == []


@pytest.mark.parametrize(
    ("entry", "backend", "name"),
    [
        ("gpt-4o", None, "gpt-4o"),
        ("openai/gpt-4o", "openai", "gpt-4o"),
        ("anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"),
        ("gemini/gemini-2.5-pro", "gemini", "gemini-2.5-pro"),
        (
            "openai-compatible/meta-llama/Llama-3.3-70B-Instruct",
            "openai-compatible",
            "meta-llama/Llama-3.3-70B-Instruct",
        ),
        ("meta-llama/Llama-3.3-70B-Instruct", None, "meta-llama/Llama-3.3-70B-Instruct"),  # no known backend first
        ("scripted/tests.doubles:respond", "scripted", "tests.doubles:respond"),
        ("offline/x", None, "offline/x"),  # the offline default serves only its own model: no prefix
        ("qwen2.5:32b-instruct-fp16", None, "qwen2.5:32b-instruct-fp16"),
    ],
)
def test_a_model_entry_names_its_backend_only_with_a_known_prefix(entry, backend, name) -> None:
    spec = run_options.parse_model(entry)
    assert (spec.entry, spec.backend, spec.name) == (entry, backend, name)
    assert run_options.parse_model(entry, "openai-compatible").backend == (backend or "openai-compatible")


@given(st.lists(st.text(alphabet="abc/-:.", min_size=1, max_size=8), min_size=1, max_size=4))
def test_every_entry_keeps_its_text_and_a_prefixed_one_its_rest(entries) -> None:
    """The entry as given is the item level; its prefix, when a backend's, is cut off and the rest kept whole."""
    text = ",".join(entries)
    try:
        specs = run_options.parse_models(text)
    except ValueError as exc:
        assert "twice" in str(exc) or "no model" in str(exc)
        return
    assert [s.entry for s in specs] == [e.strip() for e in entries if e.strip()]
    for s in specs:
        assert s.entry == (f"{s.backend}/{s.name}" if s.backend else s.name)
