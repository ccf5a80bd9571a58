"""`pcg site` over real run folders (a tiny Science Birds run, a PCG Benchmark run with a hostile submission
name, a suite holding copies of both), opened as a user opens it: headless Chromium from ``file:``, every link
of every page followed, inserted texts read back as text; a rebuild with one run more rewrites only what
changed; the run folders' bytes are linked, never copied."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections import deque
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from trial_pages import browser, opened

from pcg_plugin.core.results import suite
from pcg_plugin.core.views.site import added_bytes, build, folder_bytes

REPO = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.xdist_group("site")  # one worker makes the module's runs once
TESTS = REPO / "tests"
HOSTILE = "<img src=x onerror=alert(1)>\"'&amp;"  # a submission folder's name (and a run id, below)
HOSTILE_ID = "<script>alert('run')</script>"


def _pytest(work: Path, out: str, double: str, *args: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(work), str(REPO)]), "PCG_CACHE_DIR": str(work / "cache")}
    env.pop("OPENAI_API_KEY", None)
    cmd = [sys.executable, "-m", "pytest", "subs", "--pcg-backend", "scripted", "--pcg-model", double]
    cmd += ["--pcg-out", out, "-p", "no:cacheprovider", "-p", "no:randomly", "-q", *args]
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    assert (work / out / "results.json").is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real runs through the scripted doubles: Science Birds (2 submissions, letter A, 1 trial), PCG Benchmark
    (zero_shot and a copy named HOSTILE, 1 trial), and a suite folder holding copies of both as its members."""
    sys.path.insert(0, str(TESTS / "e2e"))
    from e2e_support import RESPONDER, make_tiny_classifier, program

    root = tmp_path_factory.mktemp("site-runs")
    sb, pb = root / "sb", root / "pb"
    for name in ("plain", "second"):
        (sb / "subs" / name).mkdir(parents=True)
        (sb / "subs" / name / "entry.py").write_text(program())
    (sb / "scripted_llm.py").write_text(textwrap.dedent(RESPONDER))
    make_tiny_classifier(sb / "clf")
    _pytest(sb, "run", "scripted_llm:respond", "--pcg-letters", "A", "--pcg-trials", "1", "--pcg-classifier", "clf")
    (pb / "subs").mkdir(parents=True)
    shutil.copy(TESTS / "pcgbench" / "grid_double.py", pb)
    for name in ("zero_shot", HOSTILE):
        shutil.copytree(REPO / "examples" / "pcgbench" / "zero_shot", pb / "subs" / name)
    _pytest(pb, "run", "grid_double:respond", "--pcg-problem", "pcgbench/binary-v0", "--pcg-trials", "1")
    doc = json.loads((pb / "run" / "results.json").read_text())
    doc["run"]["id"] = HOSTILE_ID
    (pb / "run" / "results.json").write_text(json.dumps(doc))
    both = root / "suite"
    members = {}
    for problem, run in (("science-birds", sb / "run"), ("pcgbench/binary-v0", pb / "run")):
        members[problem] = suite.folder_for(problem)
        shutil.copytree(run, both / members[problem])
    (both / "results.json").write_text(json.dumps(suite.document(members, run={"id": "suite-1"})))
    return {"sb": sb / "run", "pb": pb / "run", "suite": both}


class Links(HTMLParser):
    """Every link and resource a page names (a, img, script, link, source, iframe)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if value and (key, tag) in {("href", "a"), ("href", "link"), ("src", "img"), ("src", "script"),
                                        ("src", "source"), ("src", "iframe")}:  # fmt: skip
                self.found.append(value)


def dom(url: str, profile: Path) -> str:
    """The DOM headless Chromium builds from ``url`` (scripts run, the network off)."""
    exe = browser()
    assert exe is not None
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}"]
    cmd += ["--proxy-server=127.0.0.1:9", "--virtual-time-budget=3000", "--dump-dom", url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout


def walk(site: Path, profile: Path) -> tuple[dict[str, str], list[str]]:
    """Follow every link from index.html: each page file is rendered by Chromium once; a trial page opened again
    with another trial's id (``view.html?<id>``) is read from that trial's stored transcript as the page's
    script shows it (tests/trial_pages.py), to keep to one browser start per page. Returns the pages seen (URL
    -> DOM) and the links that lead nowhere."""
    start = (site / "index.html").as_uri()
    queue, seen, broken = deque([start]), {start: ""}, []
    rendered: set[str] = set()
    while queue:
        url = queue.popleft()
        path = Path(unquote(urlsplit(url).path))
        query = urlsplit(url).query
        if path.name == "view.html" and str(path) in rendered:
            html = opened(path.parent.parent, f"trials/view.html?{query}")
        else:
            html = dom(url, profile)
            rendered.add(str(path))
        seen[url] = html
        links = Links()
        links.feed(html)
        for link in links.found:
            if link.startswith(("#", "javascript:", "data:", "mailto:")):
                continue
            target = urljoin(url, link)
            parts = urlsplit(target)
            file = Path(unquote(parts.path))
            if parts.scheme != "file" or not file.exists():
                broken.append(f"{url} -> {link}")
                continue
            page = parts._replace(fragment="").geturl()
            if file.suffix == ".html" and site in file.parents and page not in seen:
                seen[page] = ""
                queue.append(page)
    return seen, broken


@pytest.fixture(scope="module")
def site(runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    built = build([runs["sb"], runs["pb"], runs["suite"]], out, resamples=20, jobs=2)  # read in two processes
    assert built.read == 4
    return out


needs_chromium = pytest.mark.skipif(browser() is None, reason="needs chromium (apt-get install chromium)")


@needs_chromium
def test_every_link_of_every_page_resolves_and_names_stay_text(site: Path, tmp_path: Path) -> None:
    pages, broken = walk(site, tmp_path / "profile")
    assert broken == []
    names = {Path(unquote(urlsplit(u).path)).relative_to(site).as_posix() for u in pages}
    assert {"index.html", "card.html", "problems/science-birds.html", "problems/pcgbench-binary-v0.html"} <= names
    reports = sorted(n for n in names if n.endswith("report.html"))
    assert len(reports) == 4  # the two runs and the suite's two members, each inside the site
    assert sum(1 for u in pages if "trials/view.html?" in u) >= 4 * 2  # every trial page of every run
    for url, html in pages.items():
        if site / "runs" in Path(unquote(urlsplit(url).path)).parents:
            continue  # the runs' own pages: their report tests check them
        assert "onerror=alert" not in html.replace("&lt;img src=x onerror=alert(1)&gt;", ""), url
        assert "<script>alert" not in html and '<img src="x"' not in html, url
    index = pages[(site / "index.html").as_uri()]
    assert "&lt;script&gt;alert('run')&lt;/script&gt;" in index  # the run id, as text
    board = pages[(site / "problems" / "pcgbench-binary-v0.html").as_uri()]
    assert "&lt;img src=x onerror=alert(1)&gt;\"'&amp;amp;" in board  # the submission, as text


def test_index_lists_each_run_of_each_problem(site: Path, runs: dict[str, Path]) -> None:
    index = (site / "index.html").read_text()
    rows = index.split('<table class="pcg-sort runs">')[1].split("<tbody>")[1].split("</tr>")[:-1]
    assert len(rows) == 4 and all("UNOFFICIAL RUN: a test double" in r for r in rows)
    assert sum("science-birds" in r for r in rows) == 2 and sum("pcgbench/binary-v0" in r for r in rows) == 2
    sb_doc = json.loads((runs["sb"] / "results.json").read_text())
    sb_row = next(r for r in rows if sb_doc["run"]["id"] in r and "edition 2024" in r)
    assert "scripted:scripted_llm:respond" in sb_row and "<td>2</td><td>2</td>" in sb_row  # 2 submissions, 2 trials
    sha = (sb_doc["provenance"].get("git_sha") or "")[:10]  # none where the checkout is not a git clone
    assert f">pytest-pcg 0.1.0 {sha}".strip() + "</td>" in sb_row
    card = (site / "card.html").read_text()
    # once per run (the card is over all runs), each line and index row naming the folder its run came from
    for folder in (runs["sb"], runs["suite"] / suite.folder_for("science-birds")):
        assert card.count(f"<tr><td>science-birds</td><td class=nw>{folder}</td><td>plain</td>") == 1
        assert sum(f'<td class="l">{folder}</td>' in r for r in rows) == 1
    board = (site / "problems" / "science-birds.html").read_text()
    assert board.count('<td class="l">edition 2024</td>') == 4  # 2 runs x 2 submissions, by edition


def _state(site: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(site)): (p.lstat().st_ino, p.lstat().st_mtime_ns) for p in site.rglob("*")
            if not p.is_dir()}  # fmt: skip


def test_a_second_build_with_one_more_run_rewrites_only_what_changed(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "site"
    first = build([runs["sb"]], out, resamples=20)
    assert first.read == 1 and first.mirrored.linked > 10 and first.mirrored.how == {"hard link": first.mirrored.linked}
    before = _state(out)
    second = build([runs["sb"], runs["pb"]], out, resamples=20)
    after = _state(out)
    assert second.read == 1 and second.mirrored.kept == first.mirrored.linked  # the first run not read or relinked
    changed = sorted(k for k in before if after.get(k) != before[k])
    assert changed == ["card.html", "index.html", "site.json"]  # the SB page, the stylesheet, every run file stay
    assert "problems/pcgbench-binary-v0.html" in second.pages
    again = build([runs["sb"], runs["pb"]], out, resamples=20)
    assert again.pages == [] and again.read == 0 and again.mirrored.linked == 0 and _state(out) == after
    third = build([runs["pb"]], out, resamples=20)  # a run left out leaves the site; its own folder stays whole
    assert len(third.removed_runs) == 1 and not (out / "problems" / "science-birds.html").exists()
    assert (runs["sb"] / "report.html").is_file()


def test_the_site_adds_a_few_percent_and_falls_back_to_symlinks(
    runs: dict[str, Path], site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources = [runs["sb"], runs["pb"], runs["suite"]]
    disk, _ = folder_bytes(sources)
    added, _ = added_bytes(site, sources)
    own = [p for p in site.rglob("*") if p.is_dir() or site / "runs" not in p.parents]
    assert added == sum(p.lstat().st_blocks * 512 for p in [site, *own])  # the run files add nothing
    assert 0 < added < disk  # tiny runs: the mirrored folders' 4 KB each weigh; 2,600-trial runs: docs/site.md
    from pcg_plugin.core.views.site import mirror

    def no_hard_links(src: object, dst: object) -> None:
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(mirror.os, "link", no_hard_links)
    built = build([runs["pb"]], tmp_path / "sym", resamples=20)
    assert set(built.mirrored.how) == {"symbolic link"}
    report = next((tmp_path / "sym" / "runs").glob("*/report.html"))
    assert report.is_symlink() and report.read_bytes() == (runs["pb"] / "report.html").read_bytes()


def test_pcg_site_command(runs: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "not-a-site").mkdir()
    (tmp_path / "not-a-site" / "notes.txt").write_text("mine")
    # the folder that holds the run folder: its run folders are taken
    cmd = [sys.executable, "-m", "pcg_plugin", "site", str(runs["pb"].parent), "--resamples", "5", "-o"]
    refused = subprocess.run([*cmd, str(tmp_path / "not-a-site")], capture_output=True, text=True)
    assert refused.returncode == 2 and "is not a site written by pcg site" in refused.stderr
    assert (tmp_path / "not-a-site" / "notes.txt").read_text() == "mine"
    inside = subprocess.run([*cmd, str(runs["pb"] / "site")], capture_output=True, text=True)
    assert inside.returncode == 2 and "may not hold one another" in inside.stderr
    made = subprocess.run([*cmd, str(tmp_path / "s")], capture_output=True, text=True)
    assert made.returncode == 0 and "site: 1 run(s) of 1 problem(s)" in made.stderr
    assert "by hard link" in made.stderr and (tmp_path / "s" / "index.html").is_file()
