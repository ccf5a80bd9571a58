"""What the end-to-end tests build on: tiny competitions, the scripted LLM double, a tiny classifier.

Imported by name (`from e2e_support import ...`), never as `conftest`: with several test folders on the command
line, `conftest` is whichever folder's conftest was imported last."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path
from typing import Any

# The scripted LLM double: answers with the glyph program for the letter named in the last user message (a
# glyph variant chosen by TRIAL=n when the program sends its trial number, so trials differ and diversity is
# above 0), or with a deliberately broken answer when the message asks for one (MODE=...).
RESPONDER = """
import re
from pcg_plugin.problems.science_birds.level.glyphs import letter_program

def respond(messages, n=1):
    text = messages[-1]["content"]
    letter = re.search(r'TARGET="?([A-Z])', text).group(1)
    mode = re.search(r"MODE=(\\w+)", text)
    mode = mode.group(1) if mode else "good"
    trial = re.search(r"TRIAL=(\\d+)", text)
    variant = int(trial.group(1)) % 4 if trial else 0
    if mode == "nocode":
        answer = "I cannot draw that letter, sorry."
    elif mode == "convert":
        answer = "```\\ndrop_block('b31', 0)\\n```"
    elif mode == "huge":
        answer = "```\\n" + "drop_block('b11', 5)\\n" * 10000 + "```"
    else:
        answer = "```\\n" + letter_program(letter, variant) + "\\n```"
    return [answer] * n
"""

PROGRAM = """
from chatgpt4pcg.competition import chat_with_chatgpt
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop

class Entry(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        {body}
"""

GOOD_BODY = 'return chat_with_chatgpt(ctx, [{"role": "user", "content": f"TARGET={target_character}"}])[0]'
# Trials differ (the double draws a glyph variant per trial): diversity, and so every char score, is above 0.
VARIED_BODY = (
    'return chat_with_chatgpt(ctx, [{"role": "user", "content": '
    'f"TARGET={target_character} TRIAL={ctx.get_trial_number()} {EXTRA}"}])[0]'
)


def program(body: str = GOOD_BODY, extra: str = "") -> str:
    """A 2024 program; ``extra`` is appended to a VARIED_BODY message (e.g. MODE=nocode)."""
    return textwrap.dedent(PROGRAM).format(body=body.replace("{EXTRA}", extra))


def write_competition(root: Path, entries: dict[str, dict[str, str]]) -> None:
    (root / "scripted_llm.py").write_text(textwrap.dedent(RESPONDER))
    for name, files in entries.items():
        for fname, text in files.items():
            path = root / "submissions" / name / fname
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


# The competition fixture's two teams: a 2024 program and a 2023 prompt.
TWO_TEAMS = {"team_prog": {"entry.py": program()}, "team_prompt": {"prompt.txt": "Draw the letter. TARGET=<OBJECT>"}}


def lay_out_competition(root: Path, classifier: Path, entries: dict[str, dict[str, str]] | None = None) -> Path:
    """The ``competition`` fixture's folder (the scripted double, the tiny classifier copied from ``classifier``,
    the two teams of ``TWO_TEAMS`` and ``entries``) in ``root``, for a module-scoped fixture whose run several
    tests read."""
    shutil.copytree(classifier, root / TINY_CLASSIFIER)
    write_competition(root, {**TWO_TEAMS, **(entries or {})})
    return root


def run_plugin(root: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python -m pytest ARGS`` in ``root`` as pytester's ``runpytest_subprocess`` runs it in the
    ``competition`` fixture: ``root`` first on PYTHONPATH, ``root`` as HOME (its own user cache), no API key."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    env.update(HOME=str(root), PY_COLORS="0")
    for name in ("OPENAI_API_KEY", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER"):
        env.pop(name, None)
    cmd = [sys.executable, "-m", "pytest", *args]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def run_args(out: str, *extra: str) -> list[str]:
    return [
        "submissions",
        "--pcg-backend",
        "scripted",
        "--pcg-model",
        "scripted_llm:respond",
        "--pcg-classifier",
        str(TINY_CLASSIFIER),
        "--pcg-out",
        out,
        "--pcg-store",
        "store",
        "-p",
        "no:cacheprovider",
        *extra,
    ]


def load_results(root: Path, out: str) -> dict[str, Any]:
    """A run's results.json; every e2e run also checks that the typed document gives back its exact text."""
    from pcg_plugin.problems.science_birds import results

    text = (root / out / results.FILE).read_text(encoding="utf-8")
    assert results.dumps(results.read(root / out)) == text, (
        "pcg_plugin.problems.science_birds.results does not round-trip this run"
    )
    return json.loads(text)  # type: ignore[no-any-return]


def rescore_run_folder(run: Path) -> dict[str, Any]:
    """``pcg score RUN`` on a finished run folder, as a user types it (no options), its result/ removed first:
    the ranking it prints and the result/ it writes again. The run folder holds ``thumbs/`` (the report's
    images), which is not a program."""
    import contextlib
    import io
    import re
    import shutil

    from pcg_plugin.cli import main

    assert (run / "thumbs").is_dir(), "the run wrote no thumbs/ folder: this check would not test it"
    before = {p.relative_to(run): p.read_bytes() for p in run.glob("**/result/*")}
    for folder in {run / p.parent for p in before}:
        shutil.rmtree(folder)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["score", str(run)]) == 0
    text = out.getvalue()
    rows = {
        m.group(2): (int(m.group(1)), Decimal(m.group(4)))
        for m in re.finditer(r"^\s*(\d+)  (\S+)\s+(\d+\.\d+)  (\S+)$", text, re.M)
    }
    competition = Decimal(re.search(r"competition score (\S+)", text).group(1))  # type: ignore[union-attr]
    after = {p.relative_to(run): p.read_bytes() for p in run.glob("**/result/*")}
    return {"text": text, "rows": rows, "competition": competition, "before": before, "after": after}


def assert_rescore_equals_results(run: Path, results: dict[str, Any]) -> None:
    """``pcg score`` on the run folder gives the run's own results.json, digit for digit: the same programs,
    prompt scores, ranks and competition score, and the same result/ files."""
    got = rescore_run_folder(run)
    assert got["rows"] == {s["name"]: (s["rank"], Decimal(s["prompt_score"])) for s in results["submissions"]}, got[
        "text"
    ]
    assert got["competition"] == Decimal(results["competition_score"])
    assert got["before"] and got["after"] == got["before"]


TINY_CLASSIFIER = Path("tiny-classifier")  # relative to the pytester folder; made by the fixture below


def make_tiny_classifier(path: Path) -> Path:
    """A small random 26-letter ViT (labels A..Z), a real HF model folder that loads in well under a second.

    Scores against the scoring module do not need a good classifier, only a real one; the official weights are
    exercised by the classifier's own tests.
    """
    import torch
    from transformers import ViTConfig, ViTForImageClassification, ViTImageProcessor

    torch.manual_seed(0)
    labels = {i: chr(65 + i) for i in range(26)}
    config = ViTConfig(
        image_size=32,
        patch_size=8,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=26,
        id2label=labels,
        label2id={v: k for k, v in labels.items()},
    )
    ViTForImageClassification(config).save_pretrained(path)
    ViTImageProcessor(size={"height": 32, "width": 32}, image_mean=[0.5] * 3, image_std=[0.5] * 3).save_pretrained(path)
    return path
