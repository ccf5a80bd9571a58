"""Options -> Settings: parsing, precedence, offline-default shrinking, worker round trip."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.llm.options import COMMON, is_offline_default
from pcg_plugin.problems.science_birds.settings import (
    LETTERS,
    OFFLINE_LETTERS,
    OFFLINE_TRIALS,
    OPTIONS,
    Settings,
    parse_bool,
    parse_letters,
    parse_trials,
    resolve,
)

KEY = {"OPENAI_API_KEY": "sk-test"}


@given(st.sets(st.sampled_from(string.ascii_uppercase), min_size=1), st.booleans(), st.booleans())
def test_parse_letters_accepts_any_case_and_separator(letters, lower, commas):
    items = [c.lower() if lower else c for c in sorted(letters)]
    text = ", ".join(items) if commas else "".join(items)
    assert parse_letters(text) == tuple(sorted(letters))


def test_parse_letters_ranges_and_errors():
    assert parse_letters("A-C,Z") == ("A", "B", "C", "Z")
    with pytest.raises(ValueError, match="not a letter"):
        parse_letters("A,1")
    with pytest.raises(ValueError, match="no letters"):
        parse_letters(" , ")


@pytest.mark.parametrize("bad", ["0", "-2", "ten", "1.5"])
def test_parse_trials_rejects(bad):
    with pytest.raises(ValueError, match="--pcg-trials"):
        parse_trials(bad)


def test_parse_bool():
    assert parse_bool("Yes") is True and parse_bool("0") is False
    with pytest.raises(ValueError):
        parse_bool("maybe")


def test_defaults_with_an_api_key_are_the_official_run(tmp_path):
    s = resolve({}, rootdir=tmp_path, env=KEY)
    assert (s.edition, s.letters, s.trials, s.record, s.offline_default) == ("2024", LETTERS, 10, "once", False)
    assert s.store == tmp_path / "pcg-runs" / "responses"
    assert s.notes == ()


def test_offline_default_shrinks_only_what_was_not_set(tmp_path):
    s = resolve({}, rootdir=tmp_path, env={})
    assert s.offline_default and (s.letters, s.trials) == (OFFLINE_LETTERS, OFFLINE_TRIALS)
    assert "offline default" in s.notes[0]
    s = resolve({"pcg_letters": "A", "pcg_trials": "4"}, rootdir=tmp_path, env={})
    assert (s.letters, s.trials, s.notes) == (("A",), 4, ())
    s = resolve({"pcg_trials": "4"}, rootdir=tmp_path, env={})
    assert (s.letters, s.trials) == (OFFLINE_LETTERS, 4)


def test_offline_default_decision():
    assert is_offline_default(None, None, {})
    assert not is_offline_default(None, "http://localhost:11434/v1", {})
    assert not is_offline_default("auto", None, KEY)
    assert is_offline_default("offline", None, KEY)
    assert not is_offline_default("scripted", None, {})


def test_scripted_backend_is_never_shrunk(tmp_path):
    s = resolve({"pcg_backend": "scripted"}, rootdir=tmp_path, env={})
    assert (s.letters, s.trials, s.offline_default) == (LETTERS, 10, False)


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("pcg_edition", "2022", "--pcg-edition"),
        ("pcg_record", "sometimes", "--pcg-record"),
        ("pcg_backend", "carrier-pigeon", "--pcg-backend"),
    ],
)
def test_bad_values_name_the_option(tmp_path, key, value, match):
    with pytest.raises(ValueError, match=match):
        resolve({key: value}, rootdir=tmp_path, env=KEY)


def test_paths_are_relative_to_rootdir_unless_absolute(tmp_path):
    s = resolve({"pcg_out": "runs/x", "pcg_store": "/abs/store"}, rootdir=tmp_path, env=KEY)
    assert s.out == tmp_path / "runs" / "x" and s.store == Path("/abs/store")


def test_round_trip_through_workerinput(tmp_path):
    s = resolve({"pcg_letters": "B,A", "pcg_out": "o", "pcg_disable_weights": "true"}, rootdir=tmp_path, env={})
    assert Settings.from_dict(s.to_dict()) == s
    assert s.disable_weights is True


def test_every_option_has_an_ini_key_named_like_its_dest():
    dests = [o.dest for o in COMMON + OPTIONS]
    assert len(set(dests)) == len(dests)
    assert all(d.startswith("pcg_") for d in dests)
    assert {
        "pcg_letters",
        "pcg_trials",
        "pcg_edition",
        "pcg_backend",
        "pcg_model",
        "pcg_base_url",
        "pcg_record",
        "pcg_out",
        "pcg_classifier",
        "pcg_device",
    } <= set(dests)


def test_ini_and_command_line_precedence(pytester):
    pytester.makeini("[pytest]\npcg_letters = A,B\npcg_trials = 3\npcg_edition = 2025\n")
    pytester.makeconftest(
        "from pcg_plugin.problems.science_birds.settings import from_config\n"
        "def pytest_report_header(config):\n"
        "    s = from_config(config)\n"
        "    return f'SETTINGS {\",\".join(s.letters)} {s.trials} {s.edition}'\n"
    )
    result = pytester.runpytest("--pcg-trials", "5", "--co")
    result.stdout.fnmatch_lines(["SETTINGS A,B 5 2025"])
    result = pytester.runpytest("--pcg-edition", "1999", "--co")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pcg-edition*1999*"])


def test_relative_out_and_store_follow_the_invocation_dir(tmp_path):
    s = resolve({"pcg_out": "o", "pcg_store": "st"}, rootdir=tmp_path / "root", env=KEY, cwd=tmp_path / "here")
    assert s.out == tmp_path / "here" / "o" and s.store == tmp_path / "here" / "st"
    assert resolve({}, rootdir=tmp_path, env=KEY, cwd=tmp_path / "x").store == tmp_path / "pcg-runs" / "responses"


@pytest.mark.parametrize("spelling", ["prompt-length", "prompt_length"])
def test_tie_break_is_the_scorers_spelling(tmp_path, spelling):
    from pcg_plugin.problems.science_birds.scoring.official import TIE_BREAKS

    s = resolve({"pcg_tie_break": spelling}, rootdir=tmp_path, env=KEY)
    assert s.tie_break == "prompt-length" and s.tie_break in TIE_BREAKS
    with pytest.raises(ValueError, match="--pcg-tie-break"):
        resolve({"pcg_tie_break": "coin"}, rootdir=tmp_path, env=KEY)


def test_several_models_from_a_comma_or_ini_list(tmp_path):
    from pcg_plugin.problems.science_birds.settings import split_models

    assert split_models("a, b\n  c,\n") == ("a", "b", "c") and split_models(None) == ()
    s = resolve(
        {"pcg_edition": "2025", "pcg_model": "\n qwen2.5:32b\n gemma2:27b", "pcg_base_url": "http://x/v1"},
        rootdir=tmp_path,
        env={},
    )
    assert (s.model, s.models, s.multi_model) == ("qwen2.5:32b,gemma2:27b", ("qwen2.5:32b", "gemma2:27b"), True)
    assert Settings.from_dict(s.to_dict()).models == s.models
    one = resolve({"pcg_model": "gpt-4o"}, rootdir=tmp_path, env=KEY)
    assert (one.model, one.models, one.multi_model) == ("gpt-4o", ("gpt-4o",), False)  # exactly as before


@pytest.mark.parametrize(
    ("raw", "match"),
    [
        ({"pcg_edition": "2025", "pcg_model": "a,b,a", "pcg_base_url": "http://x/v1"}, "named twice"),
        ({"pcg_model": "a,b"}, "need a backend that serves them"),
        ({"pcg_edition": "2025", "pcg_model": "a,b"}, "need a backend that serves them"),
        ({"pcg_edition": "2025", "pcg_model": "q:1,q/1", "pcg_base_url": "http://x/v1"}, "would share the run folder"),
    ],
)
def test_several_models_that_cannot_run_are_refused(tmp_path, raw, match):
    with pytest.raises(ValueError, match=match):
        resolve(raw, rootdir=tmp_path, env={})


@pytest.mark.parametrize("edition", ["2023", "2024", "2025"])
def test_every_edition_takes_several_models(tmp_path, edition):
    """2025 sums them by its rule; 2023 and 2024, which ran one model, score each alone (issue 51)."""
    s = resolve({"pcg_edition": edition, "pcg_model": "a,b", "pcg_base_url": "http://x/v1"}, rootdir=tmp_path, env={})
    assert (s.models, s.multi_model) == (("a", "b"), True)


def test_constrained_decoding_is_on_for_the_offline_default_only(tmp_path):
    assert resolve({}, rootdir=tmp_path, env={}).constrain == "drop_block"
    assert resolve({"pcg_backend": "offline"}, rootdir=tmp_path, env=KEY).constrain == "drop_block"
    assert resolve({}, rootdir=tmp_path, env=KEY).constrain == "off"
    assert resolve({"pcg_backend": "transformers", "pcg_model": "./m"}, rootdir=tmp_path, env={}).constrain == "off"
    assert resolve({"pcg_backend": "scripted"}, rootdir=tmp_path, env={}).constrain == "off"
    assert resolve({"pcg_constrain": "off"}, rootdir=tmp_path, env={}).constrain == "off"
    chosen = resolve(
        {"pcg_backend": "transformers", "pcg_model": "./m", "pcg_constrain": "drop_block"}, rootdir=tmp_path, env={}
    )
    assert chosen.constrain == "drop_block" and Settings.from_dict(chosen.to_dict()) == chosen


@pytest.mark.parametrize(
    "raw",
    [
        {"pcg_constrain": "drop_block"},  # the official model over HTTP
        {"pcg_constrain": "drop_block", "pcg_backend": "openai-compatible", "pcg_base_url": "http://x/v1"},
        {"pcg_constrain": "drop_block", "pcg_backend": "scripted"},
        {"pcg_constrain": "drop_block", "pcg_backend": "transformers", "pcg_model": "gpt-3.5-turbo-0125"},
        {"pcg_constrain": "json"},
    ],
)
def test_constrained_decoding_is_refused_where_it_must_not_apply(tmp_path, raw):
    with pytest.raises(ValueError, match="--pcg-constrain"):
        resolve(raw, rootdir=tmp_path, env=KEY)


def test_physics_settle_option_defaults_to_the_physics_recipe_and_reaches_the_worker(tmp_path):
    """--pcg-physics-settle: the physics default unless set; 0 (all 500 steps) is allowed; the worker builds its
    PhysicsSettings from it, and its facts (results.json settings.physics) say which stop the run used."""
    from pcg_plugin.problems.science_birds.level.physics import PhysicsSettings
    from pcg_plugin.problems.science_birds.settings import DEFAULT_SETTLE_TIME
    from pcg_plugin.problems.science_birds.worker import WorkerContext

    assert PhysicsSettings().settle_time == DEFAULT_SETTLE_TIME
    assert resolve({}, rootdir=tmp_path, env=KEY).settle_time == DEFAULT_SETTLE_TIME
    off = resolve({"pcg_physics_settle": "0"}, rootdir=tmp_path, env=KEY)
    assert off.settle_time == 0.0
    ctx = WorkerContext(off, tmp_path)
    assert ctx.physics.settle_time == 0.0 and ctx.physics.digest() != PhysicsSettings().digest()
    assert ctx.facts()["physics"]["settle_time"] == 0.0
    for bad in ("soon", "-1", "nan"):
        with pytest.raises(ValueError, match="--pcg-physics-settle"):
            resolve({"pcg_physics_settle": bad}, rootdir=tmp_path, env=KEY)
