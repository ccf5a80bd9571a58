"""Requirements honoured per submission: installed with pip from a local wheel folder (no network), cached,
official packages skipped, and every module the program imports accounted for.

The wheels are written by hand in the test (a wheel is a zip with a dist-info folder); pip is pointed at them
with ``PIP_NO_INDEX`` / ``PIP_FIND_LINKS``, the way an organizer would point it at an offline mirror.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from local_wheels import make_wheel as _wheel

from pcg_plugin.sandbox import environments
from pcg_plugin.sandbox.environments import (
    MARKER,
    distributions,
    find_requirements,
    is_official,
    prepare,
    publish,
    read_requirements,
)


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A local wheel folder pip must use (no network, no user pip configuration); a fresh cache folder."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "tiny-dep", "1.0", {"tiny_mod/__init__.py": "VALUE = 1\n"})
    _wheel(wheels, "record-only", "2.0", {"rec_mod.py": "X = 2\n"}, top_level=False)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setenv("PIP_CONFIG_FILE", str(tmp_path / "no-pip.conf"))
    monkeypatch.setenv("PCG_CACHE_DIR", str(tmp_path / "cache"))
    return wheels


def _submission(root: Path, program: str, requirements: str | None, entry: str = "tot/tot.py") -> Path:
    (root / entry).parent.mkdir(parents=True, exist_ok=True)
    (root / entry).write_text(textwrap.dedent(program), encoding="utf-8")
    if requirements is not None:
        (root / "requirements.txt").write_text(requirements, encoding="utf-8")
    return root / entry


def _no_pip(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(args: object) -> None:
        raise AssertionError(f"pip was run: {args}")

    monkeypatch.setattr(environments, "_pip", refuse)


def test_install_then_cache_hit_with_official_lines_skipped(
    index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = "import tiny_mod\nimport rec_mod\nfrom chatgpt4pcg.competition import chat_with_chatgpt\n"
    reqs = "tiny-dep==1.0  # pinned\nchatgpt4pcg~=1.2.1\nrecord-only\n"
    entry = _submission(tmp_path / "team", program, reqs)
    env = prepare(tmp_path / "team", entry)
    assert (env.status, env.problems, env.installed) == ("installed", [], ["record-only==2.0", "tiny-dep==1.0"])
    assert env.site_dir is not None and (env.site_dir / "tiny_mod/__init__.py").is_file()
    assert env.site_dir.parent == tmp_path / "cache" / "envs"
    assert env.skipped == [
        "requirements.txt line 2 'chatgpt4pcg~=1.2.1' skipped: the harness's stand-in serves chatgpt4pcg"
    ]
    assert "installed 2 package(s)" in env.summary() and "served by the harness's stand-ins" in env.summary()
    assert not (env.site_dir / "chatgpt4pcg").exists()
    assert distributions(env.site_dir)["record-only"] == ("record-only==2.0", {"rec_mod"})  # from RECORD

    _no_pip(monkeypatch)  # the same lines elsewhere: the cached folder, no pip run
    other = _submission(tmp_path / "other", program, "chatgpt4pcg\nrecord-only\ntiny-dep==1.0\n")
    again = prepare(tmp_path / "other", other)
    assert (again.status, again.site_dir, again.problems) == ("cached", env.site_dir, [])


def test_a_requirement_that_cannot_be_installed_names_module_and_line(index: Path, tmp_path: Path) -> None:
    program = """
        from pathlib import Path

        import tiny_mod


        from zzenv import load_zzenv
        """
    entry = _submission(tmp_path / "team", program, "tiny-dep==1.0\npython-zzenv~=1.0.0\nnot-there>=3\n")
    env = prepare(tmp_path / "team", entry)
    assert env.status == "error" and env.site_dir is None
    assert env.problems == [  # tiny_mod is not blamed: its line installs, the others break the install
        "module 'zzenv' (imported at tot/tot.py:7) is not provided: requirements.txt line 2 'python-zzenv~=1.0.0' "
        "failed: Could not find a version that satisfies the requirement python-zzenv~=1.0.0 (from versions: "
        "none)",
        "requirements.txt line 3 'not-there>=3' cannot be installed: Could not find a version that satisfies the "
        "requirement not-there>=3 (from versions: none)",
    ]
    assert "cannot be satisfied" in env.summary()
    assert [p.name for p in (tmp_path / "cache/envs").iterdir() if not p.name.endswith(".lock")] == []


def test_missing_module_with_installed_requirements_and_without_a_file(index: Path, tmp_path: Path) -> None:
    entry = _submission(tmp_path / "a", "import tiny_mod\nimport other_mod\n", "tiny-dep==1.0\n")
    env = prepare(tmp_path / "a", entry)
    assert env.status == "installed"
    assert env.problems == [
        "module 'other_mod' (imported at tot/tot.py:2) is not provided: no line of "
        "requirements.txt provides it (installed modules: tiny_mod)"
    ]
    entry = _submission(tmp_path / "b", "def run():\n    import other_mod\n", None)
    env = prepare(tmp_path / "b", entry)
    assert env.status == "none" and env.requirements is None
    assert env.problems == [
        "module 'other_mod' (imported at tot/tot.py:2) is not provided: there is no "
        "requirements.txt beside the program, in the submission folder or its parent"
    ]


def test_official_packages_local_modules_and_guarded_imports_need_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_pip(monkeypatch)
    program = """
        import json, numpy
        import llms4pcg.competition
        from chatgpt4pcg.models.trial_loop import TrialLoop
        import helpers
        try:
            import ujson_zz
        except ImportError:
            ujson_zz = None
        """
    entry = _submission(tmp_path / "team", program, "ChatGPT4PCG[all]>=1.0\nllms_4pcg==2.0.1\n")
    (entry.parent / "helpers.py").write_text("import os\n")
    env = prepare(tmp_path / "team", entry, cache_dir=tmp_path / "envs")
    assert (env.status, env.site_dir, env.problems) == ("none", None, [])
    assert len(env.skipped) == 2
    assert env.notes == [
        "module 'ujson_zz' (imported at tot/tot.py:7) is not provided; the program catches the ImportError"
    ]


def test_check_mode_resolves_without_installing(index: Path, tmp_path: Path) -> None:
    entry = _submission(tmp_path / "team", "import tiny_mod\n", "tiny-dep==1.0\n")
    env = prepare(tmp_path / "team", entry, mode="check")
    assert env.status == "checked" and env.site_dir is None
    assert env.problems == [
        "module 'tiny_mod' (imported at tot/tot.py:1) is not provided: the harness environment "
        "lacks it and requirements.txt is not installed (requirements mode is check)"
    ]
    assert not (tmp_path / "cache").exists()
    entry = _submission(tmp_path / "repo" / "bad", "import zzenv\n", None)  # the examples repository's layout
    (tmp_path / "repo" / "requirements.txt").write_text("python-zzenv==1\n")
    env = prepare(tmp_path / "repo" / "bad", entry, mode="check")
    assert env.status == "error"
    assert env.problems[0].startswith(
        "module 'zzenv' (imported at tot/tot.py:1) is not provided: "
        "../requirements.txt line 1 'python-zzenv==1' failed: Could not find a version"
    )


def test_off_mode_does_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_pip(monkeypatch)
    entry = _submission(tmp_path / "team", "import zzenv\n", "python-zzenv\n")
    env = prepare(tmp_path / "team", entry, mode="off")
    assert (env.status, env.problems, env.site_dir) == ("off", [], None)
    with pytest.raises(ValueError, match="install, check, off"):
        prepare(tmp_path / "team", entry, mode="yes")


def test_requirements_file_lookup_and_the_official_examples(official_examples: Path) -> None:
    examples = official_examples
    tot = examples / "2024-pe-examples" / "tot"
    path = find_requirements(tot, tot / "tot.py")
    assert path == examples / "2024-pe-examples" / "requirements.txt"  # the repository root's file
    lines, skipped, problems = read_requirements(path)
    assert [(ln.number, ln.text, ln.name) for ln in lines] == [(1, "python-dotenv~=1.0.0", "python-dotenv")]
    assert (
        skipped == ["requirements.txt line 2 'chatgpt4pcg~=1.2.1' skipped: the harness's stand-in serves chatgpt4pcg"]
        and problems == []
    )
    few = examples / "2025-llms4pcg-pe-examples" / "few_shot"
    lines, skipped, _ = read_requirements(find_requirements(few, few / "few_shot.py"))  # type: ignore[arg-type]
    assert lines == [] and len(skipped) == 1


def test_nearest_requirements_file_wins(tmp_path: Path) -> None:
    root = tmp_path / "subs" / "team"
    (root / "Team" / "code").mkdir(parents=True)
    entry = root / "Team" / "code" / "main.py"
    assert find_requirements(root, entry) is None
    for folder in (tmp_path / "subs", root, root / "Team"):
        (folder / "requirements.txt").write_text("x\n")
        assert find_requirements(root, entry) == folder / "requirements.txt"


def test_requirement_lines_as_pip_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "requirements.txt"
    path.write_text(
        "# comment\nnumpy>=1 \\\n  ,<3  # range\n\n-r other.txt\n--index-url http://x\n"
        "pkg @ https://example.org/pkg.tar.gz\nnot a requirement!\nrequests[socks]; python_version>'3'\n"
    )
    lines, skipped, problems = read_requirements(path)
    assert [(ln.number, ln.text) for ln in lines] == [(2, "numpy>=1   ,<3"), (9, "requests[socks]; python_version>'3'")]
    assert [s.split(" skipped")[0] for s in skipped] == [
        "requirements.txt line 5 '-r other.txt'",
        "requirements.txt line 6 '--index-url http://x'",
    ]
    assert [p.split(" cannot")[0] for p in problems] == [
        "requirements.txt line 7 'pkg @ https://example.org/pkg.tar.gz'",
        "requirements.txt line 8 'not a requirement!'",
    ]


@given(st.sampled_from(["chatgpt4pcg", "llms4pcg", "llm4pcg"]), st.data())
def test_official_names_in_any_spelling(name: str, data: st.DataObject) -> None:
    spelled = (
        "".join(
            data.draw(st.sampled_from([c.lower(), c.upper()])) + data.draw(st.sampled_from(["", "-", "_", "."]))
            for c in name[:-1]
        )
        + name[-1]
    )
    assert is_official(spelled)
    assert not is_official(spelled + "x") and not is_official("chatgpt")


def test_publish_keeps_the_first_folder(tmp_path: Path) -> None:
    final, built = tmp_path / "env", tmp_path / "built"
    for folder, pid in ((final, 1), (built, 2)):
        folder.mkdir()
        (folder / "mod.py").write_text("")
        (folder / MARKER).write_text(json.dumps({"pid": pid}))
    assert publish(built, final) is False
    assert not built.exists() and json.loads((final / MARKER).read_text())["pid"] == 1


_RACER = """
import json, sys
from pathlib import Path
from pcg_plugin.sandbox.environments import prepare
root = Path(sys.argv[1])
env = prepare(root, root / "tot/tot.py")
print(json.dumps([env.status, str(env.site_dir), env.problems]))
"""


def test_concurrent_preparers_install_once(index: Path, tmp_path: Path) -> None:
    roots = [tmp_path / f"team{i}" for i in range(3)]
    for root in roots:
        _submission(root, "import tiny_mod\n", "tiny-dep==1.0\n")
    procs = [subprocess.Popen([sys.executable, "-c", _RACER, str(r)], stdout=subprocess.PIPE, text=True) for r in roots]
    results = [json.loads(p.communicate(timeout=300)[0]) for p in procs]
    assert sorted(status for status, _, _ in results) == ["cached", "cached", "installed"]
    assert len({site for _, site, _ in results}) == 1 and all(problems == [] for _, _, problems in results)


_NAMES = st.from_regex(r"[a-z][a-z0-9]{0,6}([-_.][a-z0-9]{1,4})?", fullmatch=True).filter(lambda n: not is_official(n))
_SPECS = st.sampled_from(["", "==1.0", ">=2,<3", "~=1.2.1", "[extra]>=1", " ; python_version >= '3.8'"])
_NOISE = st.sampled_from(["", "# a comment", "   ", "\t# indented comment"])


@given(st.lists(st.tuples(_NAMES, _SPECS, _NOISE, st.booleans()), min_size=1, max_size=8))
def test_requirement_lines_keep_their_numbers(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[str, str, str, bool]]
) -> None:
    text, expected = [], []
    for name, spec, noise, trailing in rows:
        if noise:
            text.append(noise)
        text.append(name + spec + ("  # why" if trailing else ""))
        expected.append((len(text), name + spec))
    path = tmp_path_factory.mktemp("req") / "requirements.txt"
    path.write_text("\n".join(text), encoding="utf-8")
    lines, skipped, problems = read_requirements(path)
    assert [(ln.number, ln.text) for ln in lines] == expected and skipped == [] and problems == []
