"""talakat: a bullet-hell boss pattern grown from a grammar and simulated frame by frame (pcg_benchmark 00b96f5).

A content is `spawnerComplexity` rows of 100 integers in [0, 100). Row k drives the grammar (`tracery.py`) to
write spawner n−1−k, so a spawner can fire only bullets, waits and spawners written before it (higher numbers);
the boss spawns spawner_0 on the first frame. `info` measures the simulated pattern (`talakat_engine.py`):
how much of the boss fight it lasts, the bullets per 30-frame section and where they are on a 10×15 grid.

Kept from the reference: the variant's width, height, boss health and bucket grid are the ones its
constructor writes into the engine's module-global parameters (each variant here behaves as if constructed
last, which is how the benchmark runs one variant; it does not leak into the others). Not kept: a row whose
100 values are all odd never ends the pattern list (rule `value % 2` picks the recursive option for ever) and
the reference dies with RecursionError; `check` names it instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from pcg_plugin.problems.pcgbench.bench.info_cache import cached
from pcg_plugin.problems.pcgbench.bench.json_reply import parse_json_block
from pcg_plugin.problems.pcgbench.bench.problem import BenchProblem, Control, Info
from pcg_plugin.problems.pcgbench.bench.reward import range_reward
from pcg_plugin.problems.pcgbench.games.talakat.engine import Frame, bucket_counts, entropy, run_pattern
from pcg_plugin.problems.pcgbench.games.talakat.tracery import SequenceGrammar

DATA = Path(__file__).parent / "data"
ROW = 100  # values per spawner row, each in [0, ROW)
SECTION = 30  # frames per pattern section


@lru_cache(maxsize=1)
def grammar_rules() -> dict[str, list[str]]:
    return json.loads((DATA / "spawnerGrammar.json").read_text())


@lru_cache(maxsize=1)
def engine_parameters() -> dict[str, int]:
    return json.loads((DATA / "parameters.json").read_text())


def generate_script(content: Sequence[Sequence[int]], max_health: int) -> dict[str, Any]:
    """The script JSON the benchmark builds: spawner_{n-1} from row 0 ... spawner_0 from the last row, and a boss."""
    grammar = SequenceGrammar(grammar_rules())
    spawners = []
    for row, i in enumerate(range(len(content) - 1, -1, -1)):
        name = f"spawner_{i}"
        spawners.append(f'"{name}":' + grammar.flatten("#origin#", [int(v) for v in content[row]]))
        grammar.rules["name"].append(name)
    boss = f'"boss":{{"health": {max_health}, "script":[{{"health":"1","events":["spawn, spawner_0"]}}]}}'
    return json.loads('{"spawners":{' + ",".join(spawners) + "}, " + boss + "}")


def connected_spawners(script: Mapping[str, Any]) -> int:
    """How many spawners other than spawner_0 its pattern lists reach (breadth first)."""
    seen: set[str] = set()
    queue = ["spawner_0"]
    while queue:
        for spawned in script["spawners"][queue.pop(0)]["pattern"]:
            if "spawner_" in spawned and spawned not in seen:
                seen.add(spawned)
                queue.append(spawned)
    return len(seen)


REASONS = {
    "no_block": "the reply has no fenced block (```...```)",
    "not_spawner_rows": "the content (or the reply's fenced block) is not a JSON list of rows",
    "wrong_shape": "fewer rows than spawners, a spawner row with fewer than 100 values, or an empty extra row",
    "wrong_value": "a value is not an integer 0..99",
    "endless_pattern": "a row holds only odd values, so the grammar's pattern list never ends (the reference "
    "raises RecursionError)",
}
SNAPSHOTS = (0.2, 0.5, 0.9)  # the fractions of the boss fight the report's picture shows


class SpawnerRows:
    """The content kind: `rows` lists of 100 integers in [0, 100), one grammar row per spawner."""

    kind = "spawner rows"
    placeholders = ("<ROWS>", "<ROW_LENGTH>")
    reasons = REASONS

    def __init__(self, rows: int, width: int = 200, height: int = 300, max_health: int = 150) -> None:
        self.rows, self.width, self.height, self.max_health = rows, width, height, max_health

    def check(self, content: Any) -> str | None:
        """At least `rows` rows of at least 100 values each, as the benchmark's space takes them; its evaluation
        reads every row and value, so rows past the variant's count may be shorter but not empty (the grammar
        runs out of values, IndexError), and every value must be 0..99."""
        if not isinstance(content, Sequence) or isinstance(content, str | bytes):
            return "not spawner rows: expected a list of rows"
        if len(content) < self.rows:
            return f"wrong shape: {len(content)} rows, expected {self.rows}"
        for y, row in enumerate(content):
            if not isinstance(row, Sequence) or isinstance(row, str | bytes):
                return f"not spawner rows: row {y} is not a list"
            if (y < self.rows and len(row) < ROW) or not row:
                return f"wrong shape: row {y} has {len(row)} values, expected {ROW if y < self.rows else 'some'}"
            for x, v in enumerate(row):
                if isinstance(v, bool) or not isinstance(v, int | np.integer) or not 0 <= v < ROW:
                    return f"wrong value: row {y} position {x} is {v!r}, expected an integer 0..{ROW - 1}"
            if all(v % 2 for v in row):
                return (
                    f"endless pattern: row {y} has only odd values, so its pattern list never ends "
                    "(the reference raises RecursionError)"
                )
        return None

    def sample(self, rng: np.random.Generator) -> list[list[int]]:
        """One scalar draw per value in row-major order (the benchmark's ArraySpace shares one stream)."""
        return [[int(rng.integers(0, ROW)) for _ in range(ROW)] for _ in range(self.rows)]

    def placeholder_values(self) -> dict[str, str]:
        return {"<ROWS>": str(self.rows), "<ROW_LENGTH>": str(ROW)}

    def show(self, content: Sequence[Sequence[int]]) -> str:
        """A content as a reply should write it: a JSON list with one row per line, in a fenced block."""
        return "```json\n[\n" + ",\n".join(json.dumps([int(v) for v in row]) for row in content) + "\n]\n```"

    def parse(self, reply: str) -> tuple[Any, str | None]:
        value, reason = parse_json_block(reply, "spawner rows")
        if reason is None and value is None:  # JSON null: None is also "nothing parsed", so name it here
            return None, "not spawner rows: the fenced block's JSON is null"
        return value, reason

    def frames(self, content: Sequence[Sequence[int]]) -> list[Frame]:
        params = engine_parameters()
        return run_pattern(
            generate_script(content, self.max_health),
            self.width,
            self.height,
            params["maxNumBullets"],
            params["maxNumSpawners"],
        )

    def draw(self, content: Sequence[Sequence[int]]) -> str:
        """The bullet pattern at 20 %, 50 % and 90 % of the boss fight (a panel stays empty after the run ended),
        shown at half size."""
        frames = self.frames(content)
        w, h, gap = self.width, self.height, 8
        panels = []
        for k, fraction in enumerate(SNAPSHOTS):
            i = int(fraction * self.max_health)
            x0 = k * (w + gap)
            bullets = frames[i] if i < len(frames) else []
            dots = "".join(
                f'<circle cx="{x0 + x:.1f}" cy="{y:.1f}" r="{max(r, 1):.1f}" fill="#cfc6b8" '
                f'stroke="#e6482e" stroke-width="1"/>'
                for x, y, r in bullets
                if -r <= x <= w + r
            )
            label = f"frame {i}" + ("" if i < len(frames) else " (run ended)")
            panels.append(
                f'<rect x="{x0}" y="0" width="{w}" height="{h}" fill="#472d3c"/>{dots}'
                f'<rect x="{x0 + w / 2 - 8}" y="{h / 4 - 8}" width="16" height="16" fill="#f4b41b"/>'
                f'<circle cx="{x0 + w / 2}" cy="{0.8 * h}" r="3" fill="#3ca370"/>'
                f'<text x="{x0 + 4}" y="{h - 6}" font-size="11" fill="#ffffff">{label}</text>'
            )
        total = len(SNAPSHOTS) * (w + gap) - gap
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{total // 2}" height="{h // 2}" '
            f'viewBox="0 0 {total} {h}">' + "".join(panels) + "</svg>"
        )

    def key(self) -> list[tuple[str, str]]:
        return [("bullet", "#cfc6b8"), ("boss", "#f4b41b"), ("player", "#3ca370")]

    def facts(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "rows": self.rows,
            "row_length": ROW,
            "values": f"0..{ROW - 1}",
            "width": self.width,
            "height": self.height,
            "frames": self.max_health,
        }

    def answer_regex(self) -> str:
        """Free text without backticks, then the fenced JSON exactly as `show` writes it."""
        value = r"(\d|[1-9]\d)"
        row = rf"\[{value}(, {value}){{{ROW - 1}}}\]"
        return rf"[^`]*```json\n\[\n({row},\n){{{self.rows - 1}}}{row}\n\]\n```"


def make(
    name: str,
    *,
    width: int,
    height: int,
    spawnerComplexity: int,
    maxHealth: int,  # registry kwargs
    diversity: float = 0.5,
    empty: float = 0.4,
    min_bullets: int = 50,
    coverage: float = 0.95,
    **_render: Any,
) -> BenchProblem:
    """The variant the benchmark's TalakatProblem(**kwargs) is (render-only kwargs are ignored)."""
    params = engine_parameters()
    max_bullets, max_spawners = params["maxNumBullets"], params["maxNumSpawners"]
    sections = max(1, int(maxHealth / SECTION))
    bx, by = max(1, int(width / 20)), max(1, int(height / 20))
    cerror = int(0.5 * min_bullets)
    control_lo, control_hi = min_bullets + cerror, int(max_bullets / 2) - cerror

    def info(content: Sequence[Sequence[int]]) -> Info:
        script = generate_script(content, maxHealth)
        frames = run_pattern(script, width, height, max_bullets, max_spawners)
        counts = bucket_counts(frames, width, height, bx, by)
        norm = counts / np.maximum(1, counts.sum(axis=1))[:, None]
        locations = np.zeros((sections, bx * by))
        cover = np.zeros(bx * by)
        num_bullets = [0.0] * sections
        for i, frame in enumerate(frames):  # summed frame by frame, the reference's order
            locations[int(i / SECTION)] += norm[i]
            cover += norm[i]
            num_bullets[int(i / SECTION)] += len(frame)
        return {
            "script_connectivity": (connected_spawners(script) + 1) / spawnerComplexity,
            "percentage": len(frames) / maxHealth,
            "bullets": (np.array(num_bullets) / SECTION).tolist(),
            "bullet_coverage": float(entropy(cover / maxHealth)),
            "bullet_locations": (locations / SECTION).tolist(),
        }

    def quality(inf: Info) -> float:
        playable = inf["percentage"]
        cover = bullets = empty_area = 0.0
        if playable >= 1.0:
            cover = range_reward(inf["bullet_coverage"], 0, coverage, 1)
            bullets = sum(range_reward(b, 0, min_bullets, max_bullets, 100 * max_bullets) for b in inf["bullets"])
            bullets /= len(inf["bullets"])
            for locs in inf["bullet_locations"]:
                empty_area += range_reward(int((np.asarray(locs) == 0).sum()) / (bx * by), 0, empty, 1)
            empty_area /= max(1, len(inf["bullet_locations"]))
        return float((playable + cover + bullets + empty_area) / 4.0)

    def controllability(inf: Info, control: Control) -> float:
        """Per section the bullets asked (`{"bullets": [...]}`), as many as both lists have, over the targets."""
        targets = control["bullets"]
        total = 0.0
        for v, c in zip(inf["bullets"], targets, strict=False):
            total += range_reward(v, 0, c - cerror, c + cerror, max_bullets)
        return float(total / len(targets))

    def pair_diversity(a: Info, b: Info) -> float:
        la, lb = a["bullet_locations"], b["bullet_locations"]
        dist = [
            float(np.abs(np.asarray(la[min(i, len(la) - 1)]) - np.asarray(lb[min(i, len(lb) - 1)])).sum() / 2.0)
            for i in range(max(len(la), len(lb)))
        ]
        return float(range_reward(min(dist), 0, diversity, 1))

    def sample_control(rng: np.random.Generator) -> dict[str, int]:
        """The benchmark's draw: one stream, one scalar per section (its ArraySpace shares one leaf), kept as the
        harness's integer keys `bullets_0` ... (what instance ids name)."""
        return {f"bullets_{s}": int(rng.integers(control_lo, control_hi)) for s in range(sections)}

    def to_native(drawn: Mapping[str, int]) -> Control:
        return {"bullets": [int(drawn[f"bullets_{s}"]) for s in range(sections)]}

    goal = (
        f"The boss fight lasts {maxHealth} frames, one per point of the boss's health. A good pattern keeps "
        f"going until the end (it stops early with more than {max_bullets} bullets or {max_spawners} spawners "
        f"alive), spreads its bullets over the {bx}x{by} screen grid (entropy of the covered buckets at least "
        f"{coverage}), keeps at least {min_bullets} bullets on screen on average in every {SECTION}-frame "
        f"section, and leaves at least {empty:.0%} of the grid empty in each section. The control `bullets` "
        f"lists, for each of the {sections} sections, the mean number of bullets on screen it asks for, within "
        f"{cerror}."
    )
    examples = (load_examples()[name]["content"],) if name in load_examples() else ()
    return BenchProblem(
        name=name,
        content=SpawnerRows(spawnerComplexity, width, height, maxHealth),
        control_space={f"bullets_{s}": (control_lo, control_hi) for s in range(sections)},
        info=cached(info),
        quality=quality,
        controllability=controllability,
        diversity=pair_diversity,
        goal=goal,
        examples=examples,
        sample_control=sample_control,
        to_native=to_native,
        native_ranges={"bullets": [[control_lo, control_hi]] * sections},
        check_control=check_control,
    )


def check_control(control: Any) -> str | None:
    """The benchmark's control, `{"bullets": [...]}`: a non-empty list of integer targets, one per section (a
    shorter list is scored over its own sections, a longer one over the pattern's, as the benchmark's `zip`
    does; an empty one divides by zero there). Other keys are ignored, as its dictionary space ignores them."""
    if not isinstance(control, Mapping):
        return 'control is not an object: talakat\'s control is {"bullets": [...]}'
    if "bullets" not in control:
        return f'control lacks the key "bullets" (it has {sorted(control)}): talakat\'s control is {{"bullets": [...]}}'
    targets = control["bullets"]
    if not isinstance(targets, list) or not targets:
        return "control bullets must be a non-empty list of integers (one target per section)"
    if any(isinstance(v, bool) or not isinstance(v, int | np.integer) for v in targets):
        return "control values must be integers: bullets"
    return None


@lru_cache(maxsize=1)
def load_examples() -> dict[str, dict[str, Any]]:
    """Per variant, its best golden content (see data/talakat/SOURCE.md)."""
    return json.loads((DATA / "examples.json").read_text())
