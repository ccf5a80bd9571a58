"""The unofficial-run banner every problem shows in its terminal summary and report: said once, here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

DOUBLES = ("scripted",)  # backends that are test doubles (pcg_plugin/llm/scripted.py)
# Backends no edition's official client could call (each official package spoke OpenAI's API only), which moreover
# send the editions' sampling their own way (docs/providers.md): their runs are never the official pipeline.
OTHER_VENDORS = {"anthropic": "Anthropic's Claude", "gemini": "Google's Gemini"}


def unofficial(settings: Mapping[str, Any]) -> str | None:
    """The banner for a run whose answers came from the offline default LLM, a test double or another vendor's
    model than the editions' (None: a model of the official kind answered). ``settings``: the results document's
    settings (``backend``, ``model``, ``offline_default``; a ``backend_used`` record of what the workers loaded is
    read first)."""
    recorded = settings.get("backend_used")
    used: Mapping[str, Any] = recorded if isinstance(recorded, Mapping) else {}
    backend = used.get("name") or settings.get("backend")
    named = _named_backends(settings.get("model"))  # --pcg-model entries that name their backend (scripted/m:f)
    backend = next((b for b in named if b in DOUBLES), None) or next((b for b in named if b in OTHER_VENDORS), backend)
    if used.get("offline_default") or (settings.get("offline_default") and backend in (None, "auto", "offline")):
        return (
            "UNOFFICIAL RUN: the offline default LLM wrote these answers (no API key or base URL); it exists so "
            "the pipeline runs offline, not to rank anyone"
        )
    if backend in OTHER_VENDORS:
        model = settings.get("model")
        return (
            f"UNOFFICIAL RUN: {OTHER_VENDORS[backend]}{f' ({model})' if model else ''} wrote these answers "
            f"(--pcg-backend {backend}); no official edition ran on this vendor's models, so the scores compare "
            "models, they are no official result"
        )
    if backend in DOUBLES:
        return (
            "UNOFFICIAL RUN: a test double (--pcg-backend scripted) wrote these answers; the scores test the "
            "harness, not a model"
        )
    return None


def _named_backends(model: Any) -> list[str]:
    """The backends the entries of ``--pcg-model a,openai/b`` name as their ``BACKEND/`` prefix (a test double or
    another vendor among several models is said as if it were the run's backend)."""
    if not isinstance(model, str):
        return []
    entries = [e.strip() for line in model.splitlines() for e in line.split(",") if e.strip()]
    return [e.split("/", 1)[0] for e in entries if "/" in e and e.split("/", 1)[0] in (*DOUBLES, *OTHER_VENDORS)]


NOTICE_MARK = "<!-- pcg-notices -->"


def with_notices(page: str, notices: Sequence[str]) -> str:
    """``page`` (a report) with the run's notices (what the harness, not the problem, must say: an insecure
    cluster) as warnings at the top of its body; a page without ``<body>`` gets them first."""
    if not notices:
        return page
    style = "margin:8px 0;padding:8px 12px;border:2px solid #b00;background:#fee;color:#600;font-weight:bold"
    block = NOTICE_MARK + "".join(
        f'<div class="pcg-notice" role="alert" style="{style}">⚠ {escape(n)}</div>' for n in notices
    )
    at = page.find("<body")
    end = page.find(">", at) + 1 if at >= 0 else 0
    return page[:end] + block + page[end:]
