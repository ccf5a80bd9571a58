"""Builders of the folder shapes that real ChatGPT4PCG submissions have (issue 12), written from their
description, never copied: each writes a small, working team folder into ``dest`` and returns it.

Every program here reads its prompts the way the real ones do (relative to the working folder), sends them
through the official chat function and returns the model's answer unchanged, so a run with the scripted
double gets a response exactly when the working folder and import paths are right.
"""

from __future__ import annotations

import string
from pathlib import Path

HEADER_2024 = """from pathlib import Path

from chatgpt4pcg.competition import run_evaluation, chat_with_chatgpt
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop
"""

TASK = "TARGET=<OBJECT>: build this letter with drop_block calls in one fenced block.\n"
REQUIREMENTS = "python-dotenv~=1.0.0\nchatgpt4pcg~=1.2.1\n"


def write(folder: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return folder


def program(
    prompt_path: str,
    *,
    extra_imports: str = "",
    fill: str = "text.replace('<OBJECT>', letter)",
    cls: str = "Prompting",
    team: str = "team",
) -> str:
    """A 2024 TrialLoop program that opens ``prompt_path`` relative to its working folder."""
    return f"""{HEADER_2024}{extra_imports}

class {cls}(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, letter: str) -> str:
        text = open(Path({prompt_path!r}), "r").read()
        return chat_with_chatgpt(ctx, [{{"role": "user", "content": {fill}}}])[0]


if __name__ == "__main__":
    run_evaluation({team!r}, {cls}, num_trials=1, characters=["A"])
"""


def root_program(dest: Path) -> Path:
    """Shape 1 (+ shape 3's stray files): the program at the root, ``prompts/task.txt`` read from the root,
    README, requirements, ``.env.example``, ``.gitignore``, ``__pycache__``, a per-letter data folder."""
    files: dict[str, str | bytes] = {
        "main.py": program("prompts/task.txt", extra_imports="from dotenv import load_dotenv\n"),
        "prompts/task.txt": TASK,
        "prompts/unused_variant.txt": "An older prompt for <OBJECT>.\n",
        "README.md": "Run `python main.py`.\n",
        "requirements.txt": REQUIREMENTS,
        ".env.example": "OPENAI_API_KEY=\n",
        ".gitignore": ".env\n",
        "__pycache__/main.cpython-311.pyc": b"\x00\x01garbage",
    }
    files.update({f"data/{c}.txt": f"notes about {c}\n" for c in "ABC"})
    return write(dest, files)


def nested_tot(dest: Path) -> Path:
    """Shape 2a: ``python tot/tot.py`` from the root, reading ``tot/prompts/task.txt``; ``__init__.py`` at
    two levels; the program imports a sibling module of its own folder."""
    return write(
        dest,
        {
            "__init__.py": "",
            "tot/__init__.py": "",
            "tot/helpers.py": "def fill(text, letter):\n    return text.replace('<OBJECT>', letter)\n",
            "tot/tot.py": program(
                "tot/prompts/task.txt",
                extra_imports="from helpers import fill\n",
                fill="fill(text, letter)",
                cls="TreeOfThought",
            ),
            "tot/prompts/task.txt": TASK,
            "tot/prompts/evaluate.txt": "Rate <OBJECT>.\n",
            "ReadME.txt": "Run: python tot/tot.py\n",
            "requirements.txt": REQUIREMENTS,
        },
    )


def nested_few_shot(dest: Path) -> Path:
    """Shape 2b: ``python few_shot/few_shot.py`` reading ``prompts/few_shot.txt`` at the root and importing
    a module that lies at the root."""
    return write(
        dest,
        {
            "common.py": "def fill(text, letter):\n    return text.replace('<OBJECT>', letter)\n",
            "few_shot/__init__.py": "",
            "few_shot/few_shot.py": program(
                "prompts/few_shot.txt",
                extra_imports="from common import fill\n",
                fill="fill(text, letter)",
                cls="FewShot",
            ),
            "prompts/few_shot.txt": "Example: A is three columns.\n" + TASK,
            "README.md": "python few_shot/few_shot.py\n",
        },
    )


def team_named(dest: Path, team: str = "BlockBuilders") -> Path:
    """Shape 2c: a folder named like the team holds the program and ``prompts/``, read from the root as
    ``<Team>/prompts/task.txt``."""
    return write(
        dest,
        {
            f"{team}/{team.lower()}.py": program(f"{team}/prompts/task.txt", cls="TeamLoop"),
            f"{team}/prompts/task.txt": TASK,
            "requirements.txt": REQUIREMENTS,
            "README.md": f"python {team}/{team.lower()}.py\n",
        },
    )


def dotenv_without_requirements(dest: Path, folder: str = "agent") -> Path:
    """Shape 6 (two ranked 2024 teams): the program one folder down imports ``load_dotenv`` and the team ships
    no ``requirements.txt``: the organizers ran every entry in their examples repository's environment, which
    installed python-dotenv."""
    source = program(f"{folder}/prompts/task.txt", extra_imports="from dotenv import load_dotenv\n", cls="Agent")
    return write(
        dest,
        {
            f"{folder}/{folder}.py": source.replace(
                'if __name__ == "__main__":\n', 'if __name__ == "__main__":\n    load_dotenv()\n'
            ),
            f"{folder}/prompts/task.txt": TASK,
            "README.md": f"python {folder}/{folder}.py\n",
        },
    )


VENDORED_LM = '''"""A vendored reasoning library's language-model wrapper (never used by the TrialLoop)."""
import openai


class ChatGPT:
    """Mentions TrialLoop in prose only."""

    def __init__(self):
        self.client = openai.OpenAI()

    def query(self, text):
        return self.client.chat.completions.create(model="gpt-4", messages=[{"role": "user", "content": text}])
'''


def vendored(dest: Path) -> Path:
    """Shape 3: a vendored third-party package whose own language-model wrappers construct ``openai.OpenAI()``
    but are never reached from the TrialLoop (which imports only the library's operations)."""
    return write(
        dest,
        {
            "got_program.py": program(
                "prompts/task.txt",
                extra_imports="from graph_lib.operations import keep_best\n",
                fill="keep_best([text.replace('<OBJECT>', letter)])",
                cls="GraphOfThoughts",
            ),
            "prompts/task.txt": TASK,
            "graph_lib/__init__.py": "",
            "graph_lib/operations.py": "def keep_best(candidates):\n    return max(candidates, key=len)\n",
            "graph_lib/language_models/__init__.py": "",
            "graph_lib/language_models/chatgpt.py": VENDORED_LM,
            "graph_lib/README.md": "A reasoning library.\n",
            "requirements.txt": REQUIREMENTS,
        },
    )


def examples_repo(dest: Path, names: tuple[str, ...] = ("zero_shot", "null_shot")) -> Path:
    """Shape 4: the organizers' examples repository: one ``requirements.txt`` at the root for every example
    folder; each example runs from its own folder (``cd zero_shot; python zero_shot.py``)."""
    files: dict[str, str | bytes] = {
        "requirements.txt": REQUIREMENTS,
        "README.md": "Examples.\n",
        ".env.example": "OPENAI_API_KEY=\n",
    }
    for name in names:
        files[f"{name}/__init__.py"] = ""
        files[f"{name}/{name}.py"] = program(f"prompts/{name}.txt", cls=name.title().replace("_", ""), team=name)
        files[f"{name}/prompts/{name}.txt"] = TASK
    return write(dest, files)


STANDALONE = """import openai

client = openai.OpenAI()
reply = client.chat.completions.create(model="gpt-3.5-turbo",
                                       messages=[{{"role": "user", "content": "Build the letter {c}"}}])
print(reply.choices[0].message.content)
"""


def standalone_scripts(dest: Path) -> Path:
    """Shape 5 (disqualified): 26 stand-alone scripts, one per letter, each creating an ``openai.OpenAI()``
    client and printing one completion: no TrialLoop, no ``chat_with_chatgpt``."""
    files: dict[str, str | bytes] = {f"generate_{c}.py": STANDALONE.format(c=c) for c in string.ascii_uppercase}
    files["README.md"] = "Run each script.\n"
    return write(dest, files)


# builder, entry (relative), working folder (relative, "." = the submission folder), organizers' rule verdict
SHAPES = {
    "root_program": (root_program, "main.py", ".", "pass"),
    "nested_tot": (nested_tot, "tot/tot.py", ".", "pass"),
    "nested_few_shot": (nested_few_shot, "few_shot/few_shot.py", ".", "pass"),
    "team_named": (team_named, "BlockBuilders/blockbuilders.py", ".", "pass"),
    "vendored": (vendored, "got_program.py", ".", "pass"),
    "standalone_scripts": (standalone_scripts, None, None, "fail"),
}
