"""Submissions as zips (issue 27): unpacked once into the cache, one top folder taken as the folder, and every
hostile shape refused with its message and nothing written outside the cache."""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pcg_plugin.core.inputs import zips
from pcg_plugin.core.inputs.zips import ZipLimits, ZipRefused, evaluated_as, is_submission_zip, unpacked

PROGRAM = "from chatgpt4pcg.models.trial_loop import TrialLoop\nclass T(TrialLoop):\n    pass\n"


def make_zip(
    path: Path, members: dict[str, str | bytes], *, modes: dict[str, int] | None = None, encrypted: tuple[str, ...] = ()
) -> Path:
    """A zip of ``members`` (name -> content, as written, any name); ``modes``: Unix modes (a symlink); members
    in ``encrypted`` (all of them: the flag is set in every header) carry the encryption flag, which is all a
    reader sees before the password."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if modes and name in modes:
                info.external_attr = modes[name] << 16
            zf.writestr(info, content)
    if encrypted:  # zipfile writes no encryption: set the flag bit of every header (local and central)
        data = bytearray(path.read_bytes())
        for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            at = data.find(signature)
            while at >= 0:
                data[at + offset] |= 0x1
                at = data.find(signature, at + 4)
        path.write_bytes(bytes(data))
    return path


def tree(root: Path) -> dict[str, int]:
    """Every path under ``root`` with its size (folders: -1)."""
    return {p.relative_to(root).as_posix(): (-1 if p.is_dir() else p.stat().st_size) for p in root.rglob("*")}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PCG_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "zips"


def test_a_zip_with_one_top_folder_is_that_folder_unpacked_once_into_the_cache(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = make_zip(
        tmp_path / "submissions" / "team_a.zip",
        {
            "BlockBuilders/": "",
            "BlockBuilders/agent/agent.py": PROGRAM,
            "BlockBuilders/README.md": "run it\n",
            "__MACOSX/BlockBuilders/._README.md": b"\x00\x05\x16\x07",
        },
    )
    before = tree(tmp_path / "submissions")
    folder = unpacked(source)
    assert folder.name == "team_a" and folder.parent.name == "submissions" and cache in folder.parents
    assert tree(folder) == {"agent": -1, "agent/agent.py": len(PROGRAM), "README.md": 7}
    assert tree(tmp_path / "submissions") == before  # nothing beside the zip
    assert zips.source_of(folder) == source and evaluated_as(source) == tmp_path / "submissions" / "team_a"

    def refuse(*args: object, **kw: object) -> None:
        raise AssertionError("unpacked twice")

    monkeypatch.setattr(zips, "_write", refuse)
    assert unpacked(source) == folder  # the second time: the cached folder


def test_files_at_the_top_and_backslash_names_unpack_as_a_folder(tmp_path: Path, cache: Path) -> None:
    source = make_zip(tmp_path / "team_b.ZIP", {"main.py": PROGRAM, "prompts\\task.txt": "TARGET=<OBJECT>"})
    folder = unpacked(source)
    assert folder.name == "team_b" and tree(folder) == {"main.py": len(PROGRAM), "prompts": -1, "prompts/task.txt": 15}


HOSTILE = {
    "parent": ({"../evil.py": "x"}, {}, (), "member '../evil.py' escapes the folder ('..')"),
    "deep-parent": ({"team/a/../../../evil.py": "x"}, {}, (), "escapes the folder ('..')"),
    "absolute": ({"/etc/evil.py": "x"}, {}, (), "member '/etc/evil.py' has an absolute path"),
    "drive": ({"C:\\evil.py": "x"}, {}, (), "has an absolute path"),
    "symlink": (
        {"team/link": "/etc/passwd", "team/main.py": PROGRAM},
        {"team/link": stat.S_IFLNK | 0o777},
        (),
        "member 'team/link' is a symbolic link",
    ),
    "fifo": ({"team/pipe": ""}, {"team/pipe": stat.S_IFIFO | 0o644}, (), "is a special file"),
    "encrypted": ({"team/main.py": PROGRAM}, {}, ("team/main.py",), "encrypted (password-protected) member"),
    "too-many-files": ({f"team/f{i}.txt": "x" for i in range(6)}, {}, (), "more than 5 files"),
    "too-big": ({"team/big.txt": "0" * (2 * 1024 * 1024 + 1)}, {}, (), "unpacks to more than 2 MB"),
}


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_each_hostile_zip_is_refused_and_nothing_is_written_outside_the_cache(
    shape: str, tmp_path: Path, cache: Path
) -> None:
    members, modes, encrypted, message = HOSTILE[shape]
    source = make_zip(tmp_path / "in" / "submissions" / "evil.zip", members, modes=modes, encrypted=encrypted)
    before = tree(tmp_path)
    with pytest.raises(ZipRefused) as refused:
        unpacked(source, ZipLimits(max_bytes=2 * 1024 * 1024, max_files=5))
    assert str(refused.value).startswith(f"{source}: ") and message in str(refused.value)
    assert {k: v for k, v in tree(tmp_path).items() if not k.startswith("cache")} == before
    assert not list(cache.rglob("*.py")) and not list(cache.rglob("evil")) and not (tmp_path / "evil.py").exists()


def test_a_corrupt_or_truncated_zip_is_refused(tmp_path: Path, cache: Path) -> None:
    good = make_zip(tmp_path / "good.zip", {"team/main.py": PROGRAM * 20})
    data = good.read_bytes()
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(data[: len(data) // 2])
    not_zip = tmp_path / "notes.zip"
    not_zip.write_text("these are my notes")
    flipped = bytearray(data)  # one byte of the compressed data changed: the CRC check fails while unpacking
    start = data.index(b"team/main.py") + len("team/main.py")
    flipped[start + 5] ^= 0xFF
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(bytes(flipped))
    for path in (truncated, not_zip, corrupt):
        with pytest.raises(ZipRefused, match=r"not a readable zip \(.*\): refused, nothing unpacked"):
            unpacked(path)
    assert not list(cache.rglob("main.py"))  # the corrupt member's partial output went with its staging folder


def test_which_zips_are_submissions(tmp_path: Path) -> None:
    subs = tmp_path / "project" / "submissions"
    for rel in ("submissions/a.zip", "entries/b.zip", "tests/submissions/c.zip", "other/d.zip", "submissions/.e.zip"):
        make_zip(tmp_path / "project" / rel, {"x.py": ""})
    roots = [tmp_path / "project" / "entries"]
    assert is_submission_zip(subs / "a.zip", roots) and is_submission_zip(tmp_path / "project/entries/b.zip", roots)
    assert not is_submission_zip(tmp_path / "project/tests/submissions/c.zip", roots)
    assert not is_submission_zip(tmp_path / "project/other/d.zip", roots)
    assert is_submission_zip(tmp_path / "project/other/d.zip", [tmp_path / "project/other/d.zip"])
    assert not is_submission_zip(subs / ".e.zip", roots)


PARTS = st.sampled_from(["..", ".", "", "a", "b", "team", "C:", "~", "x.py", "\\", "..\\..", "/"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(st.lists(PARTS, min_size=1, max_size=4).map("/".join), min_size=1, max_size=4, unique=True))
def test_any_member_names_stay_inside_the_cache_or_are_refused(tmp_path: Path, cache: Path, names: list[str]) -> None:
    case = tmp_path / f"case{len(list(tmp_path.glob('case*')))}"
    source = make_zip(case / "in" / "t.zip", dict.fromkeys(names, "data"))
    outside = {k: v for k, v in tree(tmp_path).items() if not k.startswith("cache")}
    try:
        folder = unpacked(source)
    except ZipRefused as exc:
        assert str(exc).startswith(str(source))
    else:
        assert cache in folder.parents
        for path in folder.rglob("*"):
            assert path.resolve().is_relative_to(cache.resolve()) and not path.is_symlink()
    assert {k: v for k, v in tree(tmp_path).items() if not k.startswith("cache")} == outside


def test_limits_from_the_options() -> None:
    class Config:
        def __init__(self, values: dict[str, object]) -> None:
            self.values = values

        def getoption(self, name: str, default: object = None) -> object:
            return self.values.get(name, default)

    assert ZipLimits.from_config(Config({})) == ZipLimits(zips.MAX_TOTAL_MB * 1024 * 1024, zips.MAX_FILES)
    assert ZipLimits.from_config(Config({"pcg_zip_max_mb": 0.5, "pcg_zip_max_files": 3})) == ZipLimits(524288, 3)


def test_a_zip_made_by_make_archive_is_its_top_folder(tmp_path: Path, cache: Path) -> None:
    """A real-world zip made by Python's own shutil.make_archive (folders as entries, one top folder)."""
    team = tmp_path / "src" / "RealTeam"
    (team / "tot").mkdir(parents=True)
    (team / "tot" / "tot.py").write_text(PROGRAM)
    archive = Path(shutil.make_archive(str(tmp_path / "real"), "zip", tmp_path / "src"))
    folder = unpacked(archive)
    assert tree(folder) == {"tot": -1, "tot/tot.py": len(PROGRAM)} and os.access(folder / "tot" / "tot.py", os.R_OK)


def test_a_zip_beside_the_folder_of_its_name_is_refused(tmp_path: Path, cache: Path) -> None:
    source = make_zip(tmp_path / "submissions" / "team_a.zip", {"main.py": PROGRAM})
    (tmp_path / "submissions" / "team_a").mkdir()
    with pytest.raises(ZipRefused, match="team_a is also there: the folder is evaluated, the zip is not"):
        unpacked(source)
    assert not cache.exists()


def _rename_member(path: Path, placeholder: str, raw: bytes, *, utf8_flag: bool) -> Path:
    """Give the member ``placeholder`` the name ``raw`` (same length) in both of its headers, with or without the
    UTF-8 flag: what a zip tool writing names in its own code page (or a broken one) leaves."""
    data = bytearray(path.read_bytes().replace(placeholder.encode(), raw))
    for signature, offset in ((b"PK\x03\x04", 7), (b"PK\x01\x02", 9)):
        at = data.find(signature)
        while at >= 0:
            data[at + offset] = (data[at + offset] | 0x08) if utf8_flag else (data[at + offset] & ~0x08)
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))
    return path


def test_a_member_name_that_is_not_utf8_unpacks_to_its_bytes_as_unzip_writes_it(tmp_path: Path, cache: Path) -> None:
    source = make_zip(tmp_path / "submissions" / "team.zip", {"main.py": PROGRAM, "cafX.txt": "a", "naXXve.md": "b"})
    _rename_member(source, "cafX.txt", b"caf\xe9.txt", utf8_flag=False)  # Latin-1, no flag
    _rename_member(source, "naXXve.md", "na\u00efve".encode() + b".md", utf8_flag=False)  # UTF-8 without the flag
    folder = unpacked(source)
    assert sorted(os.fsencode(p.name) for p in folder.iterdir()) == [
        b"caf\xe9.txt",
        b"main.py",
        "na\u00efve.md".encode(),
    ]
    from pcg_plugin.core.inputs.folders import files_hash

    assert files_hash(folder).startswith("sha256:")  # hashed as those bytes, as the folder unzip makes would be


def test_a_member_name_flagged_utf8_that_is_not_is_refused_by_name(tmp_path: Path, cache: Path) -> None:
    source = make_zip(tmp_path / "submissions" / "team.zip", {"main.py": PROGRAM, "cafX.txt": "a"})
    _rename_member(source, "cafX.txt", b"caf\xe9.txt", utf8_flag=True)
    with pytest.raises(ZipRefused, match=r"team.zip: a member's name is marked UTF-8 but is not .*refused, nothing "):
        unpacked(source)
