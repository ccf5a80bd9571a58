"""HTML leaderboard: content from a results.json fixture (docs/results-schema.md), escaping, warnings, browser."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from trial_pages import PAGE_WIDTH, browser, measured

from pcg_plugin.problems.science_birds.report.html import OFFICIAL_CLASSIFIER, render_report, write_report

REPO = Path(__file__).resolve().parents[3]


def make_run(run_dir: Path, *, offline: bool = False, classifier: str = OFFICIAL_CLASSIFIER) -> dict[str, Any]:
    """A two-submission, two-letter, two-trial run folder with PNGs and text files, as the plugin writes it."""
    from PIL import Image

    subs = []
    for rank, name in enumerate(("team_x", "team <b>"), start=1):
        letters = {}
        for c in "AI":
            trials = []
            for t in (1, 2):
                stem = f"{name}_{c}_{t}"
                failed = name == "team <b>" and t == 2
                entry = {
                    "trial": t,
                    "nodeid": f"submissions/{name}::{c}::{t}",
                    "sta": None if failed else 1.0,
                    "sim": None if failed else 0.9,
                    "trial_score": "0" if failed else "0.25",
                    "total_blocks": 4,
                    "moving_blocks": 0,
                    "top": None if failed else c,
                    "reason": "conversion_error" if failed else None,
                    "message": "Invalid block type <x>" if failed else None,
                    "raw": f"{name}/raw/{c}/{stem}.txt",
                    "code": None,
                    "level": None,
                    "image": None,
                    "probs": None,
                    "timings": {"simulate": 0.01},
                    "seed": 42,
                }
                (run_dir / name / "raw" / c).mkdir(parents=True, exist_ok=True)
                (run_dir / name / "raw" / c / f"{stem}.txt").write_text(f"RESPONSE {stem} <script>alert(1)</script>")
                if not failed:
                    entry["code"] = f"{name}/intermediate/{c}/{stem}.txt"
                    entry["level"] = f"{name}/levels/{c}/{stem}.xml"
                    entry["image"] = f"{name}/images/{c}/{stem}.png"
                    for key, text in (("code", "drop_block('b11', 5)"), ("level", "<Level><GameObjects/></Level>")):
                        (run_dir / entry[key]).parent.mkdir(parents=True, exist_ok=True)
                        (run_dir / entry[key]).write_text(text)
                    (run_dir / entry["image"]).parent.mkdir(parents=True, exist_ok=True)
                    Image.new("L", (64, 64), 255).save(run_dir / entry["image"])
                trials.append(entry)
            letters[c] = {"char_score": "0.1", "sta_mean": "1", "sim_mean": "0.9", "diversity": "0.4", "trials": trials}
        subs.append(
            {
                "name": name,
                "format": "program-2024",
                "path": f"submissions/{name}",
                "prompt_length": None,
                "prompt_score": "0.1" if rank == 1 else "0.05",
                "normalized_score": "66.6667" if rank == 1 else "33.3333",
                "rank": rank,
                "usage": {
                    "prompt_tokens": 10,
                    "completion_tokens": 5,
                    "calls": 4,
                    "replayed_calls": 0,
                    "cost_usd": 0.0012,
                },
                "letters": letters,
            }
        )
    return {
        "schema": "pytest-pcg/results/1",
        "run": {
            "id": "20261122-180000-ab12cd",
            "started": "2026-11-22T18:00:00+00:00",
            "finished": "2026-11-22T18:05:00+00:00",
            "out_dir": str(run_dir),
        },
        "settings": {
            "edition": "2024",
            "letters": ["A", "I"],
            "trials": 2,
            "backend": "offline" if offline else "openai",
            "offline_default": offline,
            "model": "SmolLM2-360M" if offline else "gpt-3.5-turbo-0125",
            "base_url": None,
            "temperature": 1,
            "seed_policy": "fixed:42",
            "record_mode": "once",
            "classifier": {"name": classifier, "digest": "sha256:abc"},
            "physics": {"digest": "sha256:def", "damage": False},
            "diversity_vector": "probs",
            "disable_weights": False,
            "tie_break": None,
        },
        "provenance": {"git_sha": "0123abc", "versions": {"python": "3.11.7", "torch": "2.13.0"}},
        "competition_score": "0.15",
        "weights": {c: {"weight": "0.2", "w_sta": "0.5", "w_sim": "0.5", "w_div": "0.8"} for c in "AI"},
        "submissions": subs,
        "per_model": None,
    }


def test_report_content(tmp_path: Path) -> None:
    results = make_run(tmp_path)
    html = render_report(results, tmp_path)
    assert html.index("team_x") < html.index("team &lt;b&gt;")  # ranking order, names escaped
    assert "<b>" not in html.replace("<b>A</b>", "").replace("<b>I</b>", "")
    assert "<script>" not in html and "alert(1)" not in html  # responses are linked, never inlined
    assert '<a href="team_x/raw/A/team_x_A_1.txt">response</a>' in html and "<iframe" not in html
    assert 'href="team_x/intermediate/A/team_x_A_1.txt"' in html and 'href="team_x/levels/A/team_x_A_1.xml"' in html
    assert 'src="team_x/images/A/team_x_A_1.png"' in html  # no thumbnail written yet: the image itself
    assert "conversion_error: Invalid block type &lt;x&gt;" in html
    assert "hsl(" in html and "0123abc" in html and "sha256:abc" in html and "gpt-3.5-turbo-0125" in html
    assert "2/4" in html  # trials scored 0 for the second submission (one per letter)
    assert "http://" not in html and "https://" not in html  # nothing to fetch
    assert "⚠" not in html


def test_warnings_for_offline_model_and_other_classifier(tmp_path: Path) -> None:
    html = render_report(make_run(tmp_path, offline=True, classifier="pcg-letters"), tmp_path)
    assert "offline default LLM (SmolLM2-360M)" in html
    assert "classifier &#39;pcg-letters&#39;, not the official" in html
    assert "constrained decoding" not in html
    run = make_run(tmp_path, offline=True)
    run["settings"]["constrained_decoding"] = "drop_block grammar (llguidance)"
    assert "generated with constrained decoding (drop_block grammar (llguidance))" in render_report(run, tmp_path)


def test_minimal_document_does_not_crash(tmp_path: Path) -> None:
    html = render_report({"schema": "pytest-pcg/results/1", "submissions": []}, tmp_path)
    assert "pytest-pcg leaderboard" in html and "not recorded" in html


def test_write_report(tmp_path: Path) -> None:
    path = write_report(make_run(tmp_path), tmp_path)
    assert path == tmp_path / "report.html" and path.read_text().startswith("<!doctype html>")


@pytest.mark.skipif(not (shutil.which("chromium") or shutil.which("chromium-browser")), reason="no chromium")
def test_screenshot_in_a_real_browser(tmp_path: Path) -> None:
    write_report(make_run(tmp_path), tmp_path)
    png = tmp_path / "shot.png"
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "figures" / "screenshot_report.py"),
            str(tmp_path / "report.html"),
            str(png),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    from PIL import Image

    with Image.open(png) as img:
        assert img.size[0] >= 800 and sum(1 for n in img.convert("L").histogram() if n) > 2  # something was drawn


def test_rank_intervals_bootstrap(tmp_path: Path) -> None:
    from pcg_plugin.problems.science_birds.report.html import rank_intervals

    results = make_run(tmp_path)
    iv = rank_intervals(results, reps=30)
    assert set(iv) == {"team_x", "team <b>"}
    assert all(1 <= lo <= hi <= 2 for lo, hi in iv.values())
    assert rank_intervals(results, reps=30) == iv  # seeded
    html = render_report(results, tmp_path, bootstrap=20)
    assert "rank 95%" in html
    assert "rank 95%" not in render_report(results, tmp_path, bootstrap=0)


def test_per_model_table(tmp_path: Path) -> None:
    results = make_run(tmp_path)
    results["per_model"] = {"qwen2.5": {"submissions": {"team_x": {"prompt_score": "0.1", "normalized_score": "40"}}}}
    html = render_report(results, tmp_path)
    assert "Per model" in html and "qwen2.5" in html and "40.0000" in html


def test_several_models_show_per_model_weights_letters_and_trials(tmp_path: Path) -> None:
    """2025 with several models: the per-model table, each model's weights, and each submission's letters and
    trials once per model (its totals on top), and rank intervals of the totals."""
    import copy

    one = make_run(tmp_path)
    results = copy.deepcopy(one)
    results["per_model"] = {}
    for model, share in (("qwen2.5:32b", "40"), ("phi3:14b", "26.6667")):
        subs = {}
        for s in one["submissions"]:
            subs[s["name"]] = {
                "prompt_score": s["prompt_score"],
                "normalized_score": share,
                "rank": s["rank"],
                "letters": copy.deepcopy(s["letters"]),
            }
        results["per_model"][model] = {"competition_score": "0.15", "weights": one["weights"], "submissions": subs}
    subs["team_x"]["letters"]["A"]["char_score"] = "0.0123456"  # only phi3's part carries this number
    for s in results["submissions"]:
        s["letters"] = {}
    results["weights"] = {}
    html = render_report(results, tmp_path, bootstrap=20)
    assert "Per model" in html and html.count("<h3>model qwen2.5:32b</h3>") == 1 and "<h3>model phi3:14b</h3>" in html
    assert html.count("team_x · model phi3:14b") == 1 and html.count("team_x · model qwen2.5:32b") == 1
    assert "0.0123" in html and "rank 95%" in html  # every model's trials redrawn, totals re-ranked
    assert "<td>0/8</td>" in html and "<td>4/8</td>" in html  # 2 models x 2 letters x 2 trials; team <b> fails 4


def _links(html: str) -> list[str]:
    import re
    from html import unescape
    from urllib.parse import unquote

    return [unquote(unescape(link)) for link in re.findall(r'(?:src|href)="([^"#]+)"', html)]


def test_thumbnails_are_small_lazy_files_beside_the_report(tmp_path: Path) -> None:
    from PIL import Image

    run = make_run(tmp_path)
    Image.new("RGB", (1024, 1024), (255, 255, 255)).save(tmp_path / "team_x/images/A/team_x_A_1.png")
    html = write_report(run, tmp_path).read_text()
    thumb = tmp_path / "thumbs/team_x/images/A/team_x_A_1.png"
    assert thumb.is_file() and thumb.stat().st_size < 2000
    with Image.open(thumb) as img:
        assert img.size == (128, 128)
    assert '<img loading="lazy" src="thumbs/team_x/images/A/team_x_A_1.png"' in html
    assert 'href="team_x/images/A/team_x_A_1.png"' in html  # the full image one click away
    assert "data:image" not in html


def test_worker_image_write_makes_the_thumbnail(tmp_path: Path) -> None:
    from PIL import Image

    from pcg_plugin.problems.science_birds.outputs import write_image

    write_image(tmp_path, "t/images/A/t_A_1.png", Image.new("RGB", (1024, 1024), (0, 0, 0)))
    with Image.open(tmp_path / "thumbs/t/images/A/t_A_1.png") as img:
        assert img.size == (128, 128) and img.convert("L").getpixel((5, 5)) == 0


def test_copied_run_folder_keeps_every_link(tmp_path: Path) -> None:
    """Every src/href is relative and names a file inside the run folder, so a copy elsewhere still works."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    write_report(make_run(run_dir), run_dir)
    copy = tmp_path / "elsewhere" / "copy"
    shutil.copytree(run_dir, copy)
    shutil.rmtree(run_dir)
    links = _links((copy / "report.html").read_text())
    assert len(links) >= 12
    for link in links:
        assert not link.startswith(("/", "file:", "http")) and ".." not in link, link
        assert (copy / link).is_file(), link


def test_report_of_a_2600_trial_run_stays_small(tmp_path: Path) -> None:
    """10 submissions x 26 letters x 10 trials: the page holds links, not texts or images (< 5 MB)."""
    run = make_run(tmp_path)
    template = run["submissions"][0]
    letters = {}
    for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        trials = []
        for t in range(1, 11):
            entry = dict(template["letters"]["A"]["trials"][0])
            stem = f"team_x_{c}_{t}"
            entry.update(
                trial=t,
                raw=f"team_x/raw/{c}/{stem}.txt",
                code=f"team_x/intermediate/{c}/{stem}.txt",
                level=f"team_x/levels/{c}/{stem}.xml",
                image=f"team_x/images/{c}/{stem}.png",
            )
            trials.append(entry)
        letters[c] = {**template["letters"]["A"], "trials": trials}
    run["submissions"] = [{**template, "name": f"team_{i}", "rank": i + 1, "letters": letters} for i in range(10)]
    run["settings"]["letters"] = list(letters)
    run["settings"]["trials"] = 10
    html = render_report(run, tmp_path, bootstrap=0)
    assert html.count("<details") == 2600
    assert len(html.encode()) < 5_000_000


@pytest.mark.skipif(browser() is None, reason="no chromium")
def test_a_26_letter_report_fits_a_1280_px_window(tmp_path: Path) -> None:
    """The issue's report: every letter's column in the weights and per-letter tables made the page 1758 px
    wide at 1280; now the tables fit (and would scroll inside their box rather than widen the page)."""
    doc = make_run(tmp_path)
    letters = [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    doc["settings"]["letters"] = letters
    doc["weights"] = {
        c: {"weight": "0.0384615", "w_sta": "0.512345", "w_sim": "0.487655", "w_div": "0.834567"} for c in letters
    }
    for sub in doc["submissions"]:
        one = sub["letters"]["A"]
        sub["letters"] = {
            c: {**one, "char_score": "0.0123456", "sim_mean": "0.0356789", "diversity": "0.123456"} for c in letters
        }
    write_report(doc, tmp_path)
    assert measured(tmp_path / "report.html", PAGE_WIDTH, width=1280) <= 1280
    # and every letter's column is in sight: no table needs its own scroll bar either
    hidden = (
        "return [].map.call(document.querySelectorAll('table.heat'),"
        "function(t){return t.parentNode.scrollWidth-t.parentNode.clientWidth})"
    )
    assert set(measured(tmp_path / "report.html", hidden, width=1280)) == {0}
