"""A competition given as the zips teams send (issue 27): the same results as the folders, and each hostile
zip a visible ``<file>::not-evaluated`` item with nothing written outside the cache."""

from __future__ import annotations

import importlib.util
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from e2e_support import load_results, run_args

_ZIPS = Path(__file__).resolve().parents[1] / "core" / "inputs" / "test_zips.py"
_spec = importlib.util.spec_from_file_location("zips_shapes", _ZIPS)
assert _spec is not None and _spec.loader is not None
_zips = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_zips)
HOSTILE, make_zip, tree = _zips.HOSTILE, _zips.make_zip, _zips.tree

_RUN_VARYING = {"id", "started", "finished", "out_dir"}  # the run's identity and times


def _zip_folder(folder: Path, dest: Path, *, top: bool) -> None:
    """``folder`` zipped as a team would: under one top folder (``top``) or with its files at the top."""
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                rel = path.relative_to(folder).as_posix()
                zf.write(path, f"{folder.name}/{rel}" if top else rel)


def _comparable(results: dict) -> dict:
    """results.json without the run's id, folder and times (the run's, each trial's stage timings, the
    workers' figures)."""
    doc = json.loads(json.dumps(results))
    doc["run"] = {k: v for k, v in doc["run"].items() if k not in _RUN_VARYING}
    doc["settings"].pop("out", None)
    doc.pop("workers", None)
    for sub in doc["submissions"]:
        for letter in sub["letters"].values():
            for trial in letter["trials"]:
                trial.pop("timings", None)
    return doc


def test_the_same_competition_as_zips_gives_the_same_results(competition, monkeypatch, tmp_path):
    monkeypatch.setenv("PCG_CACHE_DIR", str(tmp_path / "cache"))
    subs = competition.path / "submissions"
    folders = competition.runpytest(
        *run_args("as-folders", "--pcg-letters", "A,B", "--pcg-trials", "2", "--pcg-store", "store-folders")
    )
    folders.assert_outcomes(passed=8)
    _zip_folder(subs / "team_prog", subs / "team_prog.zip", top=True)
    _zip_folder(subs / "team_prompt", subs / "team_prompt.zip", top=False)
    shutil.rmtree(subs / "team_prog")
    shutil.rmtree(subs / "team_prompt")
    before = tree(competition.path / "submissions")
    zipped = competition.runpytest(
        *run_args("as-zips", "--pcg-letters", "A,B", "--pcg-trials", "2", "--pcg-store", "store-zips")
    )
    zipped.assert_outcomes(passed=8)
    assert tree(competition.path / "submissions") == before  # nothing unpacked beside the zips
    a, b = load_results(competition.path, "as-folders"), load_results(competition.path, "as-zips")
    assert [r["folder"] for r in b["folders"]] == ["submissions/team_prog.zip", "submissions/team_prompt.zip"]
    for row in b["folders"]:  # the pre-flight table names the zips; every other fact is the folders'
        row["folder"] = row["folder"].removesuffix(".zip")
    assert _comparable(a) == _comparable(b)
    assert b["submissions"] and all(s["path"].startswith("submissions/team_") for s in b["submissions"])
    zipped.stdout.fnmatch_lines(["submissions/team_prog.zip *submission *program-2024 *entry.py *official 2024*"])


def test_hostile_zips_are_not_evaluated_items_and_the_others_run(competition, monkeypatch, tmp_path):
    monkeypatch.setenv("PCG_CACHE_DIR", str(tmp_path / "cache"))
    subs = competition.path / "submissions"
    for shape in ("parent", "symlink", "encrypted", "absolute"):
        members, modes, encrypted, _ = HOSTILE[shape]
        make_zip(subs / f"{shape}.zip", members, modes=modes, encrypted=encrypted)
    (subs / "broken.zip").write_bytes(b"PK\x03\x04 not really a zip")
    make_zip(subs / "bomb.zip", {f"team/f{i}.txt": "x" for i in range(4)})
    before = tree(competition.path)
    result = competition.runpytest(
        *run_args("run", "--pcg-letters", "A", "--pcg-trials", "1", "--pcg-zip-max-files", "3")
    )
    result.assert_outcomes(passed=2, failed=6)
    out = result.stdout.str()
    for shape, reason in [
        ("parent", "escapes the folder ('..')"),
        ("symlink", "is a symbolic link"),
        ("encrypted", "encrypted (password-protected) member"),
        ("absolute", "has an absolute path"),
        ("broken", "not a readable zip"),
        ("bomb", "more than 3 files (--pcg-zip-max-files)"),
    ]:
        assert f"submissions/{shape}.zip::not-evaluated" in out, shape
        assert f"folder '{shape}.zip' is not evaluated (no scores, not ranked): " in out and reason in out, shape
    after = tree(competition.path)
    new = {k for k in after if k not in before}
    assert all(k.startswith(("run", "store", ".")) for k in new), sorted(new)  # run, store, pytester's HOME dot files
    assert not (competition.path.parent / "evil.py").exists()
    rows = {r["folder"]: r for r in load_results(competition.path, "run")["folders"]}
    assert rows["submissions/bomb.zip"]["status"] == "error" and "zip bomb" in rows["submissions/bomb.zip"]["message"]


@pytest.mark.parametrize("as_zip", [False, True])
def test_pcg_rules_reads_zips(competition, monkeypatch, tmp_path, capsys, as_zip):
    from pcg_plugin.cli import main

    monkeypatch.setenv("PCG_CACHE_DIR", str(tmp_path / "cache"))
    subs = competition.path / "submissions"
    if as_zip:
        _zip_folder(subs / "team_prog", subs / "team_prog.zip", top=True)
        shutil.rmtree(subs / "team_prog")
    make_zip(subs / "evil.zip", {"../evil.py": "x"})
    monkeypatch.chdir(competition.path)
    assert main(["rules", "--json", "submissions"]) == 1
    records = {Path(r["path"]).name: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    prog = "team_prog.zip" if as_zip else "team_prog"
    assert sorted(records) == sorted(["evil.zip", prog, "team_prompt"])
    assert (records[prog]["format"], records[prog]["passed"]) == ("program-2024", True)
    assert records["evil.zip"]["format"] == "none" and not records["evil.zip"]["passed"]
    assert "escapes the folder" in json.dumps(records["evil.zip"]["rules"])
