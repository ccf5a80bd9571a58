"""The picture game's options: instances, trials, variant, the offline default's small run."""

from __future__ import annotations

from pathlib import Path

import pytest

from pcg_plugin.problems.imagegame.settings import OFFLINE_INSTANCES, Settings, parse_instances, resolve

KNOWN = ("compact_grids/0", "compact_grids/1", "compact_grids/10", "random_grids/1", "random_grids/2")
OFFLINE = {"PATH": "/bin"}  # no key, no URL: the auto backend is the offline default
ONLINE = {"OPENAI_API_KEY": "sk-test"}


def test_instances_by_id_experiment_or_all_in_the_sets_order() -> None:
    assert parse_instances("random_grids/2, compact_grids/1", KNOWN) == ("compact_grids/1", "random_grids/2")
    assert parse_instances("compact_grids", KNOWN) == KNOWN[:3]
    assert parse_instances("compact_grids/1", KNOWN) == ("compact_grids/1",)  # not compact_grids/10 as well
    assert parse_instances("all", KNOWN) == KNOWN


@pytest.mark.parametrize(("text", "message"), [("compact/1", "no instance 'compact/1'"), (" , ", "no instance given")])
def test_unknown_instances_are_usage_errors(text, message) -> None:
    with pytest.raises(ValueError, match=message):
        parse_instances(text, KNOWN)


def test_defaults_all_instances_one_trial_v2(tmp_path) -> None:
    s = resolve({}, rootdir=tmp_path, known=KNOWN, env=ONLINE)
    assert (s.instances, s.trials, s.variant, s.max_tokens, s.offline_default) == (KNOWN, 1, "v2.0", 300, False)
    assert s.store == tmp_path / "pcg-runs" / "responses"
    assert Settings.from_dict(s.to_dict()) == s


def test_the_offline_default_plays_a_small_set_unless_told(tmp_path) -> None:
    assert set(OFFLINE_INSTANCES) <= set(KNOWN)
    s = resolve({}, rootdir=tmp_path, known=KNOWN, env=OFFLINE)
    assert s.instances == OFFLINE_INSTANCES and s.offline_default and "offline default LLM" in s.notes[0]
    s = resolve({"pcg_imagegame_instances": "random_grids"}, rootdir=tmp_path, known=KNOWN, env=OFFLINE)
    assert s.instances == ("random_grids/1", "random_grids/2") and not s.notes


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"pcg_imagegame_variant": "v1"}, "--pcg-imagegame-variant: 'v1'"),
        ({"pcg_model": "a", "pcg_cross_play": "true"}, "--pcg-cross-play: name at least two models"),
        ({"pcg_model": "a,b", "pcg_cross_play": "maybe"}, "--pcg-cross-play: expected true/false"),
        ({"pcg_model": "a,b,a"}, "'a' is named twice"),
        ({"pcg_model": "a,openai/"}, "names the backend openai but no model"),
        ({"pcg_trials": "0"}, "must be at least 1"),
        ({"pcg_imagegame_max_tokens": "lots"}, "not a whole number"),
    ],
)
def test_bad_values_name_their_option(tmp_path: Path, raw, message) -> None:
    with pytest.raises(ValueError, match=message):
        resolve(raw, rootdir=tmp_path, known=KNOWN, env=ONLINE)


def test_several_models_and_cross_play(tmp_path: Path) -> None:
    """Each model a level of the items; the entries as given, a BACKEND/ prefix choosing who serves one."""
    s = resolve({"pcg_model": "a, openai/gpt-4o", "pcg_cross_play": "true"}, rootdir=tmp_path, known=KNOWN, env=ONLINE)
    assert (s.models, s.multi_model, s.cross_play) == (("a", "openai/gpt-4o"), True, True)
    assert (s.spec("openai/gpt-4o").backend, s.spec("openai/gpt-4o").name) == ("openai", "gpt-4o")
    assert Settings.from_dict(s.to_dict()) == s
    with pytest.raises(ValueError, match=r"several models .* need a backend that serves them"):
        resolve({"pcg_model": "a,b"}, rootdir=tmp_path, known=KNOWN, env=OFFLINE)
    every = resolve({"pcg_model": "scripted/m:a,scripted/m:b"}, rootdir=tmp_path, known=KNOWN, env=OFFLINE)
    assert not every.offline_default  # every entry names its backend: nothing falls back to the offline default
