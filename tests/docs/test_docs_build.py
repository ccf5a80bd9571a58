"""The site builds with `mkdocs build --strict` (a broken link, a missing page, a bad anchor fail), offline, and
its generated reference pages list every option and command the parsers know."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs_pages import DOCS, ROOT, reference_hook, registered_pcg_options

HAS_MKDOCS = importlib.util.find_spec("mkdocs") is not None and importlib.util.find_spec("material") is not None
needs_mkdocs = pytest.mark.skipif(not HAS_MKDOCS, reason='mkdocs is not installed: pip install -e ".[docs]"')


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=_offline_env(),
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out


def _offline_env() -> dict[str, str]:
    """A proxy that leads nowhere: anything the build tried to fetch would fail it."""
    import os

    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    for key in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        env[key] = "http://127.0.0.1:9"
    return env


@needs_mkdocs
def test_every_page_under_docs_is_built(site: Path) -> None:
    for page in DOCS.rglob("*.md"):
        if "hooks" in page.relative_to(DOCS).parts:
            continue
        rel = page.relative_to(DOCS).with_suffix("")
        built = site / ("index.html" if rel.as_posix() == "index" else rel / "index.html")
        assert built.is_file(), f"{page.relative_to(ROOT)} was not built"
    assert not (site / "hooks").exists(), "the build hook must not be published"


@needs_mkdocs
def test_the_built_site_fetches_nothing(site: Path) -> None:
    """Theme fonts off: no page links Google Fonts or any other host for its styles or scripts."""
    for html in site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, html


@needs_mkdocs
def test_options_page_lists_every_registered_option(site: Path) -> None:
    text = (site / "reference" / "options" / "index.html").read_text(encoding="utf-8")
    for option in registered_pcg_options():
        assert f"<code>{option}</code>" in text, option


@needs_mkdocs
def test_commands_page_lists_every_command_and_subcommand(site: Path) -> None:
    text = (site / "reference" / "commands" / "index.html").read_text(encoding="utf-8")
    for name in _command_paths(reference_hook().pcg_parser(), "pcg"):
        assert f"<code>{name}</code>" in text, name


def _command_paths(parser, prefix: str) -> list[str]:  # type: ignore[no-untyped-def]
    import argparse

    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += [f"{prefix} {name}", *_command_paths(sub, f"{prefix} {name}")]
    return out


def test_generated_options_table_has_one_row_per_option() -> None:
    """Without mkdocs too: the hook renders every option, each once, with who registers it."""
    table = reference_hook().options_markdown()
    rows = [line for line in table.splitlines() if line.startswith("| `--pcg-")]
    assert sorted(row.split("`")[1] for row in rows) == sorted(registered_pcg_options())
    assert all("| ? |" not in row for row in rows), "an option nobody owns"


def test_mkdocs_is_on_the_ci_install_line() -> None:
    """CI installs the docs extra, so the build above runs there instead of skipping."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r'-e "\.\[offline-llm,docs(,[a-z-]+)*\]"', ci), "the docs extra is not on .ci/run's install line"
