"""The edition's official environment (issue 27): a program without its own requirements runs with the
organizers' requirements (2024: python-dotenv), built once and cached; a team's own requirements go on top.

python-dotenv is installed on this machine (a dependency of pydantic-settings), which would hide a missing
official environment, so these tests take ``dotenv`` out of the harness's view and install a python-dotenv
built in the test, whose module says where it came from.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import submission_shapes as shapes
from local_wheels import make_wheel

from pcg_plugin.problems.science_birds import preflight
from pcg_plugin.problems.science_birds.editions import EDITIONS, PROGRAM_YEARS, edition
from pcg_plugin.problems.science_birds.submissions import detect_folder
from pcg_plugin.sandbox import environments
from pcg_plugin.sandbox.run import SandboxLimits, run_program_trial

FROM_TEST_WHEEL = "python-dotenv from the test's wheel"


@pytest.fixture
def no_harness_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pip sees only a local folder holding python-dotenv 1.0.9 (written here) and tiny-dep; the harness's own
    path loses every folder that provides ``dotenv``, as on a machine where it was never installed."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(
        wheels,
        "python-dotenv",
        "1.0.9",
        {"dotenv/__init__.py": f"ORIGIN = {FROM_TEST_WHEEL!r}\ndef load_dotenv(*args, **kwargs):\n    return False\n"},
    )
    make_wheel(wheels, "tiny-dep", "1.0", {"tiny_mod/__init__.py": "VALUE = 1\n"})
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setenv("PIP_CONFIG_FILE", str(tmp_path / "no-pip.conf"))
    monkeypatch.setenv("PCG_CACHE_DIR", str(tmp_path / "cache"))
    bare = tuple(p for p in environments.harness_path() if not environments.provided_by("dotenv", [p]))
    monkeypatch.setattr(environments, "harness_path", lambda: bare)
    return tmp_path / "cache" / "envs"


def test_each_program_edition_names_the_organizers_requirements_as_published(official_examples: Path) -> None:
    published = {"2024": "2024-pe-examples", "2025": "2025-llms4pcg-pe-examples"}
    assert sorted(published) == sorted(PROGRAM_YEARS) and EDITIONS["2023"].requirements is None
    for year, repo in published.items():
        ours = edition(year).requirements
        assert ours is not None and ours.read_bytes() == (official_examples / repo / "requirements.txt").read_bytes()
    lines, skipped, problems = environments.read_requirements(edition("2024").requirements, "2024-pe-examples.txt")
    assert ([ln.text for ln in lines], problems) == (["python-dotenv~=1.0.0"], [])
    assert skipped == [
        "2024-pe-examples.txt line 2 'chatgpt4pcg~=1.2.1' skipped: the harness's stand-in serves chatgpt4pcg"
    ]
    lines, skipped, _ = environments.read_requirements(edition("2025").requirements)
    assert lines == [] and len(skipped) == 1  # llms4pcg==2.0.1 only: the stand-in


def _team(root: Path) -> tuple[Path, Path]:
    shapes.dotenv_without_requirements(root)
    return root, root / "agent" / "agent.py"


def test_a_team_without_requirements_gets_dotenv_from_the_official_2024_environment(
    no_harness_dotenv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, entry = _team(tmp_path / "team_a")
    bare = environments.prepare(root, entry)  # the bug of issue 27: no official environment
    assert bare.problems == [
        "module 'dotenv' (imported at agent/agent.py:6) is not provided: there is no "
        "requirements.txt beside the program, in the submission folder or its parent"
    ]
    sub = detect_folder(root)
    assert sub is not None and sub.format == "program-2024"
    env = preflight.environment(sub, "install")
    assert (env.problems, env.status, env.official_status) == ([], "none", "installed")
    assert env.official_installed == ["python-dotenv==1.0.9"] and env.site_dirs == (env.official_dir,)
    assert env.official_dir is not None and env.official_dir.parent == no_harness_dotenv
    assert env.label() == "official 2024"
    assert env.summary(root).startswith("2024-pe-examples.txt: installed 1 package(s); no requirements.txt")

    out = run_program_trial(
        entry,
        letter="A",
        chat=lambda messages, n: [_origin_program()] * n,
        limits=SandboxLimits.for_max_time(30),
        workdir=tmp_path / "work",
        root=root,
        cwd=root,
        site_dirs=env.site_dirs,
    )
    assert out == _origin_program()  # the program ran: its import of load_dotenv resolved
    probe = root / "agent" / "probe.py"  # and the module it got is the official environment's
    probe.write_text(
        "import dotenv\nfrom chatgpt4pcg.models.trial_loop import TrialLoop\n"
        "class P(TrialLoop):\n    @staticmethod\n    def run(ctx, c):\n        return dotenv.ORIGIN\n"
    )
    assert (
        run_program_trial(
            probe,
            letter="A",
            chat=lambda m, n: [""] * n,
            limits=SandboxLimits.for_max_time(30),
            workdir=tmp_path / "probe",
            root=root,
            cwd=root,
            site_dirs=env.site_dirs,
        )
        == FROM_TEST_WHEEL
    )

    def refuse(args: object) -> None:
        raise AssertionError(f"pip was run: {args}")

    monkeypatch.setattr(environments, "_pip", refuse)  # the second team: the cached environment, no pip
    other_root, _ = _team(tmp_path / "team_b")
    other = preflight.environment(detect_folder(other_root), "install")
    assert (other.problems, other.official_status, other.official_dir) == ([], "cached", env.official_dir)


def _origin_program() -> str:
    return "```\ndrop_block('b11', 10)\n```"


def test_own_requirements_go_on_top_of_the_official_environment(no_harness_dotenv: Path, tmp_path: Path) -> None:
    root, entry = _team(tmp_path / "team")
    (root / "requirements.txt").write_text("tiny-dep==1.0\n")
    entry.write_text(entry.read_text().replace("from dotenv", "import tiny_mod\nfrom dotenv"))
    env = preflight.environment(detect_folder(root), "install")
    assert (env.problems, env.status, env.installed) == ([], "installed", ["tiny-dep==1.0"])
    assert env.site_dirs == (env.site_dir, env.official_dir) and env.official_installed == ["python-dotenv==1.0.9"]
    assert env.label() == "official 2024 + own requirements.txt"


def test_check_mode_names_the_official_line_and_off_mode_gets_the_harness_only(
    no_harness_dotenv: Path, tmp_path: Path
) -> None:
    root, _ = _team(tmp_path / "team")
    sub = detect_folder(root)
    checked = preflight.environment(sub, "check")
    assert (checked.official_status, checked.problems) == (
        "checked",
        [
            "module 'dotenv' (imported at agent/agent.py:6) is not provided: 2024-pe-examples.txt line 1 "
            "'python-dotenv~=1.0.0' would install it (not installed: requirements mode is check)"
        ],
    )
    assert not no_harness_dotenv.exists()  # nothing installed
    off = preflight.environment(sub, "off")
    assert (off.site_dirs, off.problems, off.label()) == ((), [], "harness only")


def test_an_official_line_that_cannot_be_installed_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_harness_dotenv: Path
) -> None:
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "empty"))
    (tmp_path / "empty").mkdir()
    root, entry = _team(tmp_path / "team")
    env = environments.prepare(root, entry, official=edition("2024").requirements, official_name="official 2024")
    assert env.official_status == "error" and env.site_dirs == ()
    assert len(env.problems) == 1 and env.problems[0].startswith(
        "module 'dotenv' (imported at agent/agent.py:6) is not provided: 2024-pe-examples.txt line 1 "
        "'python-dotenv~=1.0.0' failed: Could not find a version that satisfies the requirement"
    )


def test_a_program_importing_no_third_party_module_builds_nothing(
    no_harness_dotenv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(args: object) -> None:
        raise AssertionError(f"pip was run: {args}")

    monkeypatch.setattr(environments, "_pip", refuse)
    root, entry = _team(tmp_path / "team")
    entry.write_text(
        entry.read_text()
        .replace("from dotenv import load_dotenv\n", "import json, re\n")
        .replace("    load_dotenv()\n", "")
    )
    env = preflight.environment(detect_folder(root), "install")
    assert (env.problems, env.official_status, env.site_dirs, env.label()) == ([], "unneeded", (), "official 2024")
    assert "2024-pe-examples.txt: not built (the program imports no third-party module)" in env.summary(root)
