"""Every repository path and `pcg_plugin.*` name the docs mention exists, so moving or renaming a file or a
module fails here instead of leaving a stale page (the level pipeline's `pcg_plugin/{extract,...}.py` did)."""

from __future__ import annotations

import pytest
from docs_pages import Page, missing_module_ref, missing_path, module_refs, page_ids, pages, repo_paths

PAGES = pages()


@pytest.mark.parametrize("page", PAGES, ids=page_ids(PAGES))
def test_every_repository_path_exists(page: Page) -> None:
    missing = sorted({m for path in repo_paths(page.text) if (m := missing_path(path))})
    assert not missing, f"{page.name} names paths that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=page_ids(PAGES))
def test_every_module_name_resolves(page: Page) -> None:
    bad = sorted({m for ref in module_refs(page.text) if (m := missing_module_ref(ref))})
    assert not bad, f"{page.name}: {bad}"


def test_the_checks_see_paths_in_prose_code_and_links(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = (
        "see `pcg_plugin/errors.py`, [x](docs/results-schema.md), `pcg_plugin/{errors,nope}.py`,\n"
        "```bash\npython scripts/nope.py\n```\n`tests/test_<module>.py`, http://h/tests/x.py"
    )
    paths = repo_paths(text)
    assert paths == [
        "pcg_plugin/errors.py",
        "docs/results-schema.md",
        "pcg_plugin/{errors,nope}.py",
        "scripts/nope.py",
        "tests/",
    ]
    assert [missing_path(p) for p in paths] == [None, None, "pcg_plugin/nope.py", "scripts/nope.py", None]
    assert missing_module_ref("pcg_plugin.errors.Reason") is None
    assert missing_module_ref("pcg_plugin.errors.Nope") and missing_module_ref("pcg_plugin.nope.x")
