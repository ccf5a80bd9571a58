"""The stage command line: pcg extract | convert | simulate (stdin '-', exit codes, --json lines, --image-dir)."""

from __future__ import annotations

import io
import json
import sys

from PIL import Image

from pcg_plugin.cli import main


def _run(argv, stdin: str = "", capsys=None, monkeypatch=None):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_extract_stdin_and_no_code(capsys, monkeypatch) -> None:
    rc, out, _ = _run(["extract", "-"], '```\ndrop_block("b11", 3)\n```', capsys, monkeypatch)
    assert (rc, out) == (0, "drop_block('b11', 3)\n")
    rc, out, err = _run(["extract", "-"], "no fence", capsys, monkeypatch)
    assert rc == 1 and out == "" and "Code not found." in err


def test_convert_writes_golden_xml_and_reports_errors(reference, tmp_path, capsys, monkeypatch) -> None:
    case = json.loads((reference / "official-golden/extract_convert_golden.json").read_text())["T_shape"]
    code = tmp_path / "code.txt"
    code.write_text(case["extracted"])
    rc, _, _ = _run(["convert", str(code), "-o", str(tmp_path / "l.xml")], "", capsys, monkeypatch)
    assert rc == 0 and (tmp_path / "l.xml").read_text() == case["xml"]
    rc, out, _ = _run(["convert", "-"], case["extracted"], capsys, monkeypatch)
    assert rc == 0 and out == case["xml"] + "\n"
    rc, out, err = _run(["convert", "-"], "drop_block('b31', 0)\n", capsys, monkeypatch)
    assert (rc, out, err.strip()) == (1, "", "Width boundary is intruded.")


def test_simulate_json_lines_and_images(reference, tmp_path, capsys, monkeypatch) -> None:
    levels = sorted((reference / "unity-2023-calibration/v1/levels/I").glob("*.xml"))[:3]
    bad = tmp_path / "bad.xml"
    bad.write_text("<nope")
    argv = ["simulate", *map(str, levels), str(bad), "--json", "--image-dir", str(tmp_path / "img")]
    rc, out, err = _run(argv, "", capsys, monkeypatch)
    rows = [json.loads(line) for line in out.splitlines()]
    assert rc == 1 and "bad.xml" in err
    assert [r["level"] for r in rows] == [*map(str, levels), str(bad)]
    for row, level in zip(rows, levels, strict=False):  # the last row is bad.xml's, checked below
        assert {"total_blocks", "moving_blocks", "stability"} <= set(row)
        assert Image.open(tmp_path / "img" / f"{level.stem}.png").size == (1024, 1024)
    assert "error" in rows[-1]


def test_simulate_stdin(reference, capsys, monkeypatch) -> None:
    xml = (reference / "unity-2023-calibration/v1/levels/I/V1_I_1.xml").read_text()
    rc, out, _ = _run(["simulate", "-", "--json"], xml, capsys, monkeypatch)
    assert rc == 0 and json.loads(out)["total_blocks"] == 3


def test_module_entry_point_pipes_stages(tmp_path) -> None:
    import subprocess

    response = "```\ndrop_block('b13', 4)\ndrop_block('b31', 5)\n```"
    extracted = subprocess.run(
        [sys.executable, "-m", "pcg_plugin", "extract", "-"], input=response, capture_output=True, text=True, check=True
    ).stdout
    subprocess.run(
        [sys.executable, "-m", "pcg_plugin", "convert", "-", "-o", str(tmp_path / "l.xml")],
        input=extracted,
        capture_output=True,
        text=True,
        check=True,
    )
    done = subprocess.run(
        [sys.executable, "-m", "pcg_plugin", "simulate", str(tmp_path / "l.xml"), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["total_blocks"] == 2


def test_simulate_reads_utf16_levels(reference, tmp_path, capsys, monkeypatch) -> None:
    xml = (reference / "unity-2023-calibration/v1/levels/I/V1_I_1.xml").read_text()
    path = tmp_path / "utf16.xml"
    path.write_bytes(xml.encode("utf-16"))
    rc, out, _ = _run(["simulate", str(path), "--json"], "", capsys, monkeypatch)
    assert rc == 0 and json.loads(out)["total_blocks"] == 3


def test_simulate_settle_time_zero_runs_the_whole_test_with_its_own_settings(reference, capsys, monkeypatch) -> None:
    """--settle-time 0 is the recipe without the stop at rest: other settings digest, same verdict on a level whose
    calibration outcome the stop keeps (docs/performance.md)."""
    xml = (reference / "unity-2023-calibration/v1/levels/I/V1_I_1.xml").read_text()
    rows = []
    for extra in ([], ["--settle-time", "0"]):
        rc, out, _ = _run(["simulate", "-", "--json", *extra], xml, capsys, monkeypatch)
        assert rc == 0
        rows.append(json.loads(out))
    assert rows[0]["settings"] != rows[1]["settings"]
    assert [(r["total_blocks"], r["moving_blocks"]) for r in rows] == [(3, rows[0]["moving_blocks"])] * 2
