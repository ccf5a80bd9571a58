"""Every `pytest ...` and `pcg ...` command line the docs quote parses against the real parsers (pytest with
every installed plugin's options; `pcg_plugin.cli.build_parser`), and every `--pcg-*` option named anywhere in
the docs is registered: renaming an option or a command fails here."""

from __future__ import annotations

import pytest
from docs_pages import (
    ROOT,
    SHELL_LANGS,
    Page,
    command_lines,
    options_named,
    page_ids,
    pages,
    pcg_error,
    pytest_error,
    registered_pcg_options,
)

PAGES = pages()


@pytest.mark.parametrize("page", PAGES, ids=page_ids(PAGES))
def test_every_command_line_parses(page: Page) -> None:
    bad = []
    for text, program, args in command_lines(page):
        error = pytest_error(args) if program == "pytest" else pcg_error(args)
        if error:
            bad.append(f"{text!r}: {error}")
    assert not bad, f"{page.name}:\n" + "\n".join(bad)


@pytest.mark.parametrize("page", PAGES, ids=page_ids(PAGES))
def test_every_pcg_option_named_is_registered(page: Page) -> None:
    unknown = sorted(set(options_named(page.text)) - registered_pcg_options())
    assert not unknown, f"{page.name} names options no plugin registers: {unknown}"


def test_the_docs_quote_commands_at_all() -> None:
    """The extraction finds the quick start and stage commands (a parser that found nothing would pass)."""
    found = {(program, " ".join(args)) for page in PAGES for _, program, args in command_lines(page)}
    assert ("pytest", "submissions/ -p xdist -n 2") in found and ("pytest", "-n 2 tests") in found
    assert any(program == "pcg" and args.startswith("score ") for program, args in found)


def test_a_renamed_option_or_command_is_caught() -> None:
    page = Page(
        PAGES[0].path,
        "```bash\nOPENAI_API_KEY=x pytest subs/ --pcg-trails 3 -n 2  # typo\n"
        "pcg extract r.txt | pcg convret -\n```\nor `pcg scor DIR` and `pcg score`.\n",
    )
    lines = command_lines(page)
    assert [(p, a) for _, p, a in lines] == [
        ("pytest", ["subs/", "--pcg-trails", "3", "-n", "2"]),
        ("pcg", ["extract", "r.txt"]),
        ("pcg", ["convret", "-"]),
        ("pcg", ["scor", "DIR"]),
        ("pcg", ["score"]),
    ]
    errors = [pytest_error(a) if p == "pytest" else pcg_error(a) for _, p, a in lines]
    assert "--pcg-trails" in errors[0] and errors[1] is None and "convret" in errors[2] and "scor" in errors[3]
    assert errors[4] is None  # a command named in prose, without its arguments
    assert options_named(page.text) == ["--pcg-trails"] and "--pcg-trials" in registered_pcg_options()


def _example_paths(page: Page) -> list[str]:
    """The ``submissions/...`` arguments of the pytest and pcg command lines in the page's shell code blocks
    (what a reader copies and runs from a clone; a node id's ``::...`` and a zip example in prose are left out)."""
    blocks = "".join(f"```{lang}\n{body}```\n" for lang, body in page.fences() if lang in SHELL_LANGS)
    return [
        arg.split("::")[0]
        for _, _, args in command_lines(Page(page.path, blocks))
        for arg in args
        if arg.startswith("submissions/")
    ]


@pytest.mark.parametrize("page", PAGES, ids=page_ids(PAGES))
def test_every_submission_folder_a_command_names_exists(page: Page) -> None:
    """A command the docs give to copy runs in a clone: ``pytest --pcg-rules submissions/my_team`` named a folder
    that was never there."""
    missing = sorted({p for p in _example_paths(page) if not (ROOT / p).exists()})
    assert not missing, f"{page.name} runs commands on folders the repository does not hold: {missing}"
