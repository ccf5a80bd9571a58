"""`pcg rules`: prompts, programs and folders; --json records; exit codes 0 (all pass), 1 (a rule fails), 2 (usage)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pcg_plugin.cli import main

REPO = Path(__file__).resolve().parents[3]
HOSTILE = Path(__file__).parents[2] / "hostile"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_prompt_json_records_and_exit_codes(prompts_2023: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompts = prompts_2023
    rc, out, _ = _run(["rules", "--json", str(prompts / "Hope.txt")], capsys)
    (record,) = [json.loads(line) for line in out.splitlines()]
    assert rc == 0
    assert {"path", "word_count", "disallowed_characters", "has_placeholder", "passed", "rules"} <= set(record)
    assert (record["word_count"], record["disallowed_characters"], record["has_placeholder"]) == (61, [], True)
    assert record["passed"] and [r["rule"] for r in record["rules"]] == [
        "prompt-length",
        "prompt-characters",
        "prompt-placeholder",
    ]
    assert {"rule", "title", "passed", "message", "findings"} <= set(record["rules"][0])

    rc, out, _ = _run(["rules", "--json", str(prompts / "pixelArt.txt"), str(prompts / "BirdsTeam.TXT")], capsys)
    pixel, team = [json.loads(line) for line in out.splitlines()]
    assert rc == 1
    assert pixel["disallowed_characters"] == ["\u00b0"] and not pixel["passed"]
    assert pixel["first_failure"] == "prompt-characters"
    finding = pixel["rules"][1]["findings"][0]
    assert (finding["line"], finding["col"]) == (1, 193)
    assert (team["word_count"], team["has_placeholder"], team["first_failure"]) == (905, False, "prompt-length")


def test_text_output_one_line_per_rule_and_verdict(prompts_2023: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = prompts_2023 / "BirdBirdBird.txt"
    rc, out, _ = _run(["rules", str(prompt)], capsys)
    assert rc == 1
    assert "  FAIL prompt-length: " in out and "word count is 915" in out
    assert "  PASS prompt-characters: " in out and "  PASS prompt-placeholder: " in out
    assert "officially disqualified by prompt-length" in out
    assert out.splitlines()[-1].startswith("FAIL: 1 checked, 1 breaking a rule")


def test_usage_errors_exit_2_and_never_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _run(["rules", str(tmp_path / "missing.txt")], capsys)
    assert rc == 2 and "no such file" in err
    assert out.splitlines()[-1] == "FAIL: 0 checked, 0 breaking a rule, some paths could not be checked"
    (tmp_path / "level.xml").write_text("<x/>")
    rc, _, err = _run(["rules", str(tmp_path / "level.xml")], capsys)
    assert rc == 2 and "not a prompt" in err
    with pytest.raises(SystemExit) as exc:  # argparse: no PATH at all
        main(["rules"])
    assert exc.value.code == 2


def test_missing_placeholder_is_a_rule_not_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = tmp_path / "team.txt"
    prompt.write_text("Build the letter with blocks.\n")
    rc, out, _ = _run(["rules", "--json", str(prompt)], capsys)
    record = json.loads(out)
    assert rc == 1 and record["first_failure"] == "prompt-placeholder" and not record["has_placeholder"]


def test_programs_and_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    multi_turn = REPO / "submissions" / "zero_shot_multi_turn" / "zero_shot_multi_turn.py"
    rc, out, _ = _run(["rules", "--json", str(REPO / "submissions" / "zero_shot"), str(multi_turn)], capsys)
    records = [json.loads(line) for line in out.splitlines()]
    assert rc == 0 and all(r["passed"] and r["format"] == "program-2024" for r in records)
    assert {"path", "format", "passed", "rules"} <= set(records[0])
    assert "program-fixed-seeds" not in [r["rule"] for r in records[0]["rules"]]

    team = tmp_path / "team"
    team.mkdir()
    shutil.copy(HOSTILE / "opens_socket.py.txt", team / "main.py")
    rc, out, _ = _run(["rules", "--json", str(team)], capsys)
    record = json.loads(out)
    failed = {r["rule"] for r in record["rules"] if not r["passed"]}
    assert rc == 1 and "program-chat-only" in failed and not record["passed"]


def test_edition_default_and_override(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    team = tmp_path / "team"
    team.mkdir()
    shutil.copy(HOSTILE / "llms4pcg_ok.py.txt", team / "main.py")
    rc, out, _ = _run(["rules", "--json", str(team / "main.py")], capsys)
    record = json.loads(out)
    assert rc == 0 and record["format"] == "program-2025" and record["edition"] == "2025"
    assert record["rules"][-1]["rule"] == "program-fixed-seeds"
    shutil.copy(REPO / "submissions" / "zero_shot" / "zero_shot.py", tmp_path / "zs.py")
    rc, out, _ = _run(["rules", "--json", "--edition", "2025", str(tmp_path / "zs.py")], capsys)
    record = json.loads(out)
    assert rc == 1 and record["edition"] == "2025"  # chatgpt4pcg is not the 2025 package
    assert not next(r for r in record["rules"] if r["rule"] == "program-chat-only")["passed"]


def test_manifest_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    team = tmp_path / "team"
    team.mkdir()
    (team / "submission.toml").write_text('team = "T"\nentry = "mine.txt"\n')
    (team / "mine.txt").write_text("Draw <OBJECT> with drop_block calls.\n")
    rc, out, _ = _run(["rules", str(team)], capsys)
    assert rc == 0 and "(prompt-2023)" in out and out.splitlines()[-1].startswith("PASS: 1 checked")


def test_a_program_file_alone_is_checked_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A .py given on its own: its folder may hold anything (here a socket script), only the file is checked."""
    (tmp_path / "other.py").write_text("import socket\n")
    prog = tmp_path / "entry.py"
    prog.write_text((Path(__file__).parents[3] / "submissions/zero_shot/zero_shot.py").read_text())
    assert main(["rules", str(prog), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    size = next(r for r in record["rules"] if r["rule"] == "program-size")
    assert record["passed"] and "in 1 files" in size["message"]
    assert main(["rules", str(tmp_path), "--json"]) == 0  # the folder as a submission: other.py only warns
    chat = next(r for r in json.loads(capsys.readouterr().out)["rules"] if r["rule"] == "program-chat-only")
    assert [Path(w["path"]).name for w in chat["warnings"]] == ["other.py"]
    assert main(["rules", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "  PASS program-chat-only: " in out and f"       warning: {tmp_path / 'other.py'}:1:1: network module" in out


def test_a_folder_that_is_not_a_submission_fails_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.md").write_text("# our team\n")
    rc, out, _ = _run(["rules", str(tmp_path / "empty")], capsys)
    assert rc == 1
    assert (
        "  FAIL submission [not an official rule]: " in out
        and "not a submission: no program defining a TrialLoop subclass" in out
    )
    assert out.splitlines()[-1].startswith("FAIL: 1 checked, 1 breaking a rule")
    rc, out, _ = _run(["rules", "--json", str(tmp_path / "empty")], capsys)
    record = json.loads(out)
    assert rc == 1 and record["format"] == "none" and not record["passed"]
    assert [r["rule"] for r in record["rules"]] == ["submission"]


def test_stand_alone_scripts_calling_a_client_fail_naming_the_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = tmp_path / "team"
    team.mkdir()
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        (team / f"generate_{letter}.py").write_text(
            "from openai import OpenAI\n\nclient = OpenAI()\nreply = client.chat.completions.create(model='gpt-4o', "
            f"messages=[{{'role': 'user', 'content': 'Draw {letter}'}}])\nprint(reply.choices[0].message.content)\n"
        )
    rc, out, _ = _run(["rules", "--json", str(team)], capsys)
    record = json.loads(out)
    failed = [r["rule"] for r in record["rules"] if not r["passed"]]
    assert rc == 1 and record["format"] == "scripts" and record["edition"] == "2024"
    assert failed == ["program-trial-loop", "program-chat-only"]
    chat = record["rules"][2]
    assert len(chat["findings"]) == 26 and "LLM client openai" in chat["message"]
    assert "26 stand-alone script(s): generate_A.py, generate_B.py" in record["rules"][1]["message"]


def test_real_shapes_get_the_organizers_verdicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each shape of issue 12 in one submissions folder, checked as a whole: every folder has a record (or says
    it is skipped), a program folder is never a 2023 prompt because of its .txt files, the vendored library's
    unused OpenAI wrapper is a warning, the 26 stand-alone scripts fail."""
    import submission_shapes as shapes

    subs = tmp_path / "submissions"
    for name, (build, *_rest) in shapes.SHAPES.items():
        build(subs / name)
    (subs / "logs").mkdir()
    rc, out, err = _run(["rules", "--json", str(subs)], capsys)
    records = {Path(r["path"]).name: r for r in map(json.loads, out.splitlines())}
    assert rc == 1 and sorted(records) == sorted(shapes.SHAPES) and "logs: skipped" in err
    for name, (_build, entry, _workdir, verdict) in shapes.SHAPES.items():
        record = records[name]
        assert record["passed"] == (verdict == "pass"), (
            name,
            [r["message"] for r in record["rules"] if not r["passed"]],
        )
        assert record["format"] == ("program-2024" if entry else "scripts")
        if entry:
            assert Path(record["entry"]) == subs / name / entry
    chat = next(r for r in records["vendored"]["rules"] if r["rule"] == "program-chat-only")
    assert [Path(w["path"]).relative_to(subs).as_posix() for w in chat["warnings"]] == [
        "vendored/graph_lib/language_models/chatgpt.py"
    ]
    failed = [r["rule"] for r in records["standalone_scripts"]["rules"] if not r["passed"]]
    assert failed == ["program-trial-loop", "program-chat-only"]


def test_official_examples_pass_as_they_are(official_examples: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repos = [official_examples / name for name in ("2024-pe-examples", "2025-llms4pcg-pe-examples")]
    rc, out, _ = _run(["rules", "--json", *map(str, repos)], capsys)
    records = [json.loads(line) for line in out.splitlines()]
    assert rc == 0 and len(records) == 14 and all(r["passed"] for r in records)
    assert {r["edition"] for r in records} == {"2024", "2025"}
    assert all(not r["warnings"] for rec in records for r in rec["rules"])


CODE_RULES = (
    "program-chat-only",
    "program-no-hardcoded-assistant",
    "program-no-tampering",
    "program-unmodified-response",
)


def test_a_program_that_does_not_parse_passes_no_rule_it_could_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The code rules cannot look into a file that does not parse: NOT RUN, never PASS (the size rule, which
    reads the folder, still runs)."""
    team = tmp_path / "team"
    team.mkdir()
    (team / "main.py").write_text((REPO / "submissions/zero_shot/zero_shot.py").read_text() + "\ndef broken(:\n")
    rc, out, _ = _run(["rules", str(team)], capsys)
    assert rc == 1 and "  FAIL program-parses [not an official rule]: " in out
    for rule in CODE_RULES:
        assert f"  PASS {rule}" not in out and f"  NOT RUN {rule}: not checked: " in out, rule
    assert f"  NOT RUN program-chat-only: not checked: {team / 'main.py'} does not parse (see program-parses)" in out
    assert "  PASS program-size: " in out
    rc, out, _ = _run(["rules", "--json", str(team)], capsys)
    by_rule = {r["rule"]: r for r in json.loads(out)["rules"]}
    assert [(by_rule[r]["passed"], by_rule[r]["ran"]) for r in CODE_RULES] == [(False, False)] * len(CODE_RULES)
    assert (by_rule["program-size"]["passed"], by_rule["program-size"]["ran"]) == (True, True)


def test_an_imported_file_that_does_not_parse_leaves_clean_rules_unrun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The entry parses and imports a helper that does not: a finding in the entry still breaks its rule; a rule
    that found nothing there was not run on the helper, so it is not a PASS either."""
    team = tmp_path / "team"
    team.mkdir()
    source = (REPO / "submissions/zero_shot/zero_shot.py").read_text()
    (team / "main.py").write_text("import socket\nimport helper\n" + source)
    (team / "helper.py").write_text("def oops(:\n    pass\n")
    rc, out, _ = _run(["rules", "--json", str(team)], capsys)
    by_rule = {r["rule"]: r for r in json.loads(out)["rules"]}
    assert rc == 1
    assert (by_rule["program-chat-only"]["passed"], by_rule["program-chat-only"]["ran"]) == (False, True)
    tampering = by_rule["program-no-tampering"]
    assert (tampering["passed"], tampering["ran"]) == (False, False)
    assert tampering["message"] == (
        f"not checked: {team / 'helper.py'} does not parse (see program-parses); "
        "nothing found in the 1 file(s) that parse"
    )
    assert by_rule["program-unmodified-response"]["passed"]  # the entry's run method parses: judged
