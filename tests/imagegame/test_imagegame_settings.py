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
        ({"pcg_model": "a,b"}, "one model at a time"),
        ({"pcg_trials": "0"}, "must be at least 1"),
        ({"pcg_imagegame_max_tokens": "lots"}, "not a whole number"),
    ],
)
def test_bad_values_name_their_option(tmp_path: Path, raw, message) -> None:
    with pytest.raises(ValueError, match=message):
        resolve(raw, rootdir=tmp_path, known=KNOWN, env=ONLINE)
