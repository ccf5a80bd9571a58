"""Names that are not UTF-8 (as ``unzip`` writes them) in a Science Birds competition: a file inside a team, a
team folder, a folder that is no submission, a loose prompt, a zip member. Every team is scored, each such name
is shown escaped (``t\\xe9am``) in the terminal, results.json, the report and the official files, and no call is
paid twice. The runs use a strict UTF-8 terminal (``PYTHONIOENCODING=utf-8:strict``), where one raw name in a
line would end the run."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import sys
import zipfile
from pathlib import Path

import pytest
from e2e_support import RESPONDER, load_results, program, run_args

STRICT = {"PYTHONIOENCODING": "utf-8:strict"}
ARGS = ("--pcg-letters", "AB", "--pcg-trials", "1")


def at(root: Path, raw: bytes) -> Path:
    """``root / raw`` for a name given as its bytes on disk."""
    return root / os.fsdecode(raw)


def zip_with_raw_member(entry: str, member: bytes) -> bytes:
    """A zip holding entry.py and a member whose name is ``member`` (not UTF-8, without the UTF-8 flag), as a
    Windows zip tool writes a name in its own code page."""
    placeholder = b"P" * len(member)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("entry.py", entry)
        zf.writestr(placeholder.decode(), b"data")
    return buf.getvalue().replace(placeholder, member)


@pytest.fixture
def named(competition: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The competition fixture's two good teams, plus every kind of name that is not UTF-8."""
    for key, value in STRICT.items():
        monkeypatch.setenv(key, value)
    root = competition.path
    counting = RESPONDER.replace(
        "def respond(messages, n=1):", "def respond(messages, n=1):\n    open('requests.log', 'a').write('.')"
    )
    (root / "scripted_llm.py").write_text(counting)
    subs = root / "submissions"
    at(subs, b"team_prog/caf\xe9.txt").write_bytes(b"a file named in Latin-1")
    at(subs, b"team_prog/d\xe9r").mkdir()
    at(subs, b"team_prog/d\xe9r/helper.py").write_text("X = 1\n")
    at(subs, b"t\xe9am").mkdir()
    at(subs, b"t\xe9am/entry.py").write_text(program())
    at(subs, b"br\xf6ken").mkdir()
    at(subs, b"br\xf6ken/notes.md").write_text("no entry here")
    at(subs, b"cr\xe2sh").mkdir()
    at(subs, b"cr\xe2sh/entry.py").write_text(program('raise RuntimeError("boom")'))
    at(subs, b"l\xf6ose.txt").write_text("Draw the letter. TARGET=<OBJECT>")
    (subs / "zipped.zip").write_bytes(zip_with_raw_member(program(), b"caf\xe9.txt"))
    return competition


def calls_stored(root: Path) -> int:
    with sqlite3.connect(root / "store" / "responses.sqlite3") as db:
        return int(db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])


def not_utf8(folder: Path) -> list[str]:
    """Every file or folder name under ``folder`` that is not UTF-8, and every text file whose bytes are not."""
    bad = []
    for path in folder.rglob("*"):
        try:
            str(path.relative_to(folder)).encode()
        except UnicodeEncodeError:
            bad.append(ascii(str(path)))
            continue
        if path.is_file() and path.suffix in (".json", ".html", ".csv", ".txt", ".xml"):
            try:
                path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                bad.append(str(path))
    return bad


TEAMS = {"team_prog", "team_prompt", "t\\xe9am", "cr\\xe2sh", "l\\xf6ose", "zipped"}


def scored_and_shown_escaped(root: Path, out: str, text: str) -> None:
    """Every team of run ``out`` scored (the crashing one for its own fault), each name that is not UTF-8 shown
    escaped in the terminal (``text``), results.json, the report and the official files."""
    assert "INTERNALERROR" not in text and "scoring the run failed" not in text, text[-3000:]
    doc = load_results(root, out)
    assert {s["name"] for s in doc["submissions"]} == TEAMS  # every team ranked, the escaped names among them
    trials = {s["name"]: [t for letter in s["letters"].values() for t in letter["trials"]] for s in doc["submissions"]}
    assert all(len(t) == 2 for t in trials.values())  # A and B, one trial each: every item of every team ran
    assert [t["reason"] for t in trials["cr\\xe2sh"]] == ["program_error"] * 2  # its own fault, named
    assert all(t["reason"] is None for name, ts in trials.items() if name != "cr\\xe2sh" for t in ts)
    assert list(doc["folder_errors"]) == ["submissions/br\\xf6ken::not-evaluated"]
    assert "submissions/br\\xf6ken: not a submission" in doc["folder_errors"]["submissions/br\\xf6ken::not-evaluated"]
    assert not_utf8(root / out) == []
    report = (root / out / "report.html").read_text(encoding="utf-8")
    assert "t\\xe9am" in report and "br\\xf6ken" in report
    assert "submissions/t\\xe9am  " in text  # its pre-flight row
    assert "FAILED submissions/br\\xf6ken::not-evaluated" in text


def test_names_that_are_not_utf8_are_scored_shown_escaped_and_paid_once(named: pytest.Pytester) -> None:
    """A run at ``-n 2`` (the names travel to the workers and back), then the same run serially on its store: each
    scores every team and shows every name escaped, and the second replays every call the first paid."""
    first = named.runpytest_subprocess(*run_args("run", *ARGS, "-p", "xdist", "-n", "2"), timeout=300)
    scored_and_shown_escaped(named.path, "run", first.stdout.str())
    requests = len((named.path / "requests.log").read_text())
    assert requests == calls_stored(named.path) == 10  # 5 teams that call the model x 2 letters; paid once
    again = named.runpytest_subprocess(*run_args("again", *ARGS), timeout=300)
    scored_and_shown_escaped(named.path, "again", again.stdout.str())
    assert len((named.path / "requests.log").read_text()) == requests  # the rerun replays: nothing paid twice


def test_the_files_hash_reads_the_bytes_of_a_name(named: pytest.Pytester) -> None:
    from pcg_plugin.problems.science_birds.submissions import detect_folder, files_hash

    team = named.path / "submissions" / "team_prog"
    before = files_hash(team)
    at(team, b"caf\xe9.txt").rename(at(team, b"caf\xe8.txt"))  # one byte of one name differs: a new submission
    assert files_hash(team) != before
    sub = detect_folder(at(named.path / "submissions", b"t\xe9am"))
    assert sub is not None and (sub.name, sub.team) == ("t\\xe9am", "t\\xe9am")
    assert sub.path.name == os.fsdecode(b"t\xe9am")  # the path keeps the bytes: the program is found and run


def test_pcg_rules_checks_every_folder_and_prints_names_escaped(named: pytest.Pytester) -> None:
    result = named.run(sys.executable, "-m", "pcg_plugin", "rules", "submissions")
    text = result.stdout.str()
    assert "Traceback" not in text + result.stderr.str()
    for shown in (
        "submissions/t\\xe9am (program-2024",
        "submissions/l\\xf6ose.txt (prompt-2023)",
        "submissions/br\\xf6ken (none)",
        "submissions/zipped.zip (program-2024",
    ):
        assert shown in text
    assert text.splitlines()[-1] == "FAIL: 7 checked, 1 breaking a rule (submissions/br\\xf6ken)"
    assert result.ret == 1
    lines = [
        json.loads(line)
        for line in named.run(sys.executable, "-m", "pcg_plugin", "rules", "--json", "submissions").stdout.lines
    ]
    assert "submissions/t\\xe9am" in [r["path"] for r in lines]
