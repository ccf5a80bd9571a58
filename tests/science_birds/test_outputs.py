"""Run folder helpers: official paths, atomic writes, the settings object of results.json."""

from __future__ import annotations

import re

from pcg_plugin._util.provenance import collect as provenance
from pcg_plugin.core.records.rundir import new_run_id
from pcg_plugin.problems.science_birds.outputs import merged_facts, settings_document, trial_paths, write_text
from pcg_plugin.problems.science_birds.settings import resolve


def test_official_trial_paths():
    assert trial_paths("team_x", "A", 3) == {
        "raw": "team_x/raw/A/team_x_A_3.txt",
        "code": "team_x/intermediate/A/team_x_A_3.txt",
        "level": "team_x/levels/A/team_x_A_3.xml",
        "image": "team_x/images/A/team_x_A_3.png",
    }


def test_run_ids_sort_by_time_and_differ():
    a, b = new_run_id(), new_run_id()
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{6}", a) and a != b


def test_writes_are_whole_and_leave_no_temporaries(tmp_path):
    write_text(tmp_path, "t/raw/A/t_A_1.txt", "héllo\r\n")
    assert (tmp_path / "t/raw/A/t_A_1.txt").read_bytes() == "héllo\r\n".encode()
    assert not list(tmp_path.rglob(".tmp-*"))


def test_settings_document_prefers_what_workers_loaded(tmp_path):
    s = resolve({}, rootdir=tmp_path, env={})
    facts = merged_facts(
        {"gw1": {"facts": {"model": "smollm2"}}, "gw0": {"facts": {"model": "smollm2", "classifier": {"digest": "d"}}}},
        {"physics": {"digest": "p", "damage": False}},
    )
    doc = settings_document(s, facts)
    assert doc.model == "smollm2" and doc.classifier == {"digest": "d"} and doc.physics_digest == "p"
    assert doc.offline_default is True and doc.diversity_vector == "probs"
    assert doc.constrained_decoding.startswith("drop_block grammar")  # the settings' default ...
    assert settings_document(s, {"backend": {"constrain": "off"}}).constrained_decoding is None  # ... or the worker's
    assert settings_document(resolve({"pcg_edition": "2025"}, rootdir=tmp_path, env={}), {}).diversity_vector == (
        "embedding"
    )


def test_provenance_names_versions(tmp_path):
    prov = provenance(tmp_path)
    assert prov["git_sha"] is None  # not a checkout
    assert prov["versions"]["python"] and prov["versions"]["pytest-pcg"] == "0.1.0"


def test_one_official_tree_per_model():
    from pcg_plugin.problems.science_birds.report.official_layout import model_folder, model_folders

    assert model_folder("qwen2.5:32b-instruct-fp16") == "qwen2.5_32b-instruct-fp16"
    assert model_folder("Qwen/Qwen2.5-32B") == "Qwen_Qwen2.5-32B"
    assert model_folder("result") == "_result" and model_folder("..") == "_.." and model_folder(".hidden") == "_.hidden"
    assert trial_paths("t", "A", 2, "m:1")["raw"] == "m_1/t/raw/A/t_A_2.txt"
    assert trial_paths("t", "A", 2) == trial_paths("t", "A", 2, None)  # one model: the layout of before
    try:
        model_folders(["a:b", "a/b"])
    except ValueError as exc:
        assert "'a:b' and 'a/b'" in str(exc)
    else:
        raise AssertionError("two models sharing a folder must be refused")


def test_run_trial_names_each_trial_animation_through_outputs():
    """item.run_trial asks ``outputs.animation_rel`` for the GIF's path: the name stays importable from here
    (a lint fix once dropped the import as unused, and every trial then died on an AttributeError)."""
    from pcg_plugin.problems.science_birds import outputs

    image = trial_paths("team_x", "A", 3)["image"]
    assert outputs.animation_rel(image) == "animations/team_x/images/A/team_x_A_3.gif"
