"""The controller's reading of item reports: what it keeps of a failed item."""

from __future__ import annotations

import json
import types

from pcg_plugin.core.session.controller import Collected, Controller
from pcg_plugin.core.session.items import ITEM_PROPERTY


def _failed(longrepr: object) -> types.SimpleNamespace:
    meta = json.dumps({"name": "beta", "target": "cat", "trial": 1})
    return types.SimpleNamespace(
        nodeid="subs/beta::cat::1", when="call", failed=True, longrepr=longrepr, user_properties=[(ITEM_PROPERTY, meta)]
    )


def test_an_item_worded_failure_is_kept_as_its_last_line_not_a_list() -> None:
    """An item's own wording (``repr_failure`` returns text, as for an infrastructure error) has no crash line:
    its last line is the error (it was kept as ``"call: ['...']"``)."""
    controller = types.SimpleNamespace(collected=Collected())
    text = "some context\ninfrastructure error in subs/beta::cat::1: the speller crashed\n"
    Controller.pytest_runtest_logreport(controller, _failed(text))  # type: ignore[arg-type]  # a stand-in: no Controller
    assert controller.collected.errors == {
        "subs/beta::cat::1": "call: infrastructure error in subs/beta::cat::1: the speller crashed"
    }


def test_a_traceback_failure_is_kept_as_its_crash_message() -> None:
    controller = types.SimpleNamespace(collected=Collected())
    longrepr = types.SimpleNamespace(reprcrash=types.SimpleNamespace(message="AssertionError: assert 1 == 2"))
    Controller.pytest_runtest_logreport(controller, _failed(longrepr))  # type: ignore[arg-type]  # a stand-in
    assert controller.collected.errors == {"subs/beta::cat::1": "call: AssertionError: assert 1 == 2"}
