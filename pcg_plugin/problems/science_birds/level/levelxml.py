"""Science Birds XML: byte-identical writer of the official converter, and a tolerant reader."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from decimal import Decimal

from pcg_plugin.errors import ConversionError
from pcg_plugin.problems.science_birds.level.grid import GridLevel
from pcg_plugin.problems.science_birds.level.types import Block, Level

CELL = Decimal("0.2401")
START_X, START_Y = Decimal(2), Decimal("-3.5")
GRID_TYPES = {"b11": ("SquareTiny", 1, 1, "0"), "b31": ("RectSmall", 3, 1, "0"), "b13": ("RectSmall", 1, 3, "90")}
MATERIALS = ("wood", "ice", "stone")


def _dec(value: Decimal) -> str:
    """bignumber.js ``toFixed()``: plain notation, no trailing zeros."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def _num(value: float) -> str:
    """Shortest round-tripping decimal for a float, without a trailing ``.0``."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


def _document(width: str, camera: tuple[str, str, str, str], block_lines: list[str]) -> str:
    cx, cy, lo, hi = camera
    lines = [
        '<?xml version="1.0" encoding="utf-16"?>',
        f'<Level width="{width}">',
        f'  <Camera x="{cx}" y="{cy}" minWidth="{lo}" maxWidth="{hi}" />',
        "  <Birds>",
        '    <Bird type="BirdRed" />',
        "  </Birds>",
        '  <Slingshot x="-9" y="-2.5" />',
        "  <GameObjects>",
        *block_lines,
        "  </GameObjects>",
        "</Level>",
    ]
    return "\n".join(lines)


def _block_line(kind: str, material: str, x: str, y: str, rotation: str) -> str:
    return f'    <Block type="{kind}" material="{material}" x="{x}" y="{y}" rotation="{rotation}" />'


def grid_to_xml(grid_level: GridLevel) -> str:
    """The official converter's XML for a dropped grid (exact decimal arithmetic, official camera and width)."""
    lines = []
    for b in grid_level.blocks:
        name, w, h, rot = GRID_TYPES[b.type]
        x = START_X + CELL * b.col + CELL * w / 2 - (CELL if w > 1 else 0)
        y = START_Y + CELL * b.row + CELL * h / 2
        lines.append(_block_line(name, "wood", _dec(x), _dec(y), rot))
    content_width = Decimal(2) + CELL * grid_level.max_row_fill
    content_height = Decimal("3.5") + CELL * (grid_level.top_row + 1)
    cam = max(2 * max(Decimal("1.6") * content_height, content_width), Decimal(17))
    width = str(int(content_width / 18) + 3)
    return _document(width, ("2", "0", _dec(cam), _dec(cam + 5)), lines)


def grid_to_level(grid_level: GridLevel) -> Level:
    """The typed level the official XML describes (same numbers as ``parse_level(grid_to_xml(g))``)."""
    return parse_level(grid_to_xml(grid_level))


def level_to_xml(level: Level) -> str:
    """Write a level in the official layout (write -> read -> write is identical)."""
    lines = [_block_line(b.type, b.material, _num(b.x), _num(b.y), _num(b.rotation)) for b in level.blocks]
    return _document(level.width, level.camera, lines)


def _float(element: ET.Element, name: str, default: float | None = None) -> float:
    raw = element.get(name)
    if raw is None:
        if default is None:
            raise ConversionError(f"level XML: <{element.tag}> has no {name} attribute")
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConversionError(f"level XML: <{element.tag}> {name}={raw!r} is not a number") from None
    if not math.isfinite(value):
        raise ConversionError(f"level XML: <{element.tag}> {name}={raw!r} is not finite")
    return value


def parse_level(xml_text: str) -> Level:
    """Read a Science Birds level (official or other tools'): Block and TNT elements become blocks.

    Pigs, birds, platforms and the slingshot are ignored (the official levels have none that matter;
    the stability test only counts blocks in practice). Unknown block types fail in the physics stage.
    """
    text = xml_text.lstrip("\ufeff")
    if text.startswith("<?xml"):
        text = text[text.find("?>") + 2 :] if "?>" in text else text
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ConversionError(f"level XML is not well-formed: {exc}") from None
    if root.tag != "Level":
        raise ConversionError(f"level XML: root element is <{root.tag}>, expected <Level>")
    camera = root.find("Camera")
    cam = (
        (camera.get("x", "2"), camera.get("y", "0"), camera.get("minWidth", "17"), camera.get("maxWidth", "22"))
        if camera is not None
        else ("2", "0", "17", "22")
    )
    blocks = []
    objects = root.find("GameObjects")
    for el in objects if objects is not None else []:
        if el.tag not in ("Block", "TNT"):
            continue
        kind = el.get("type") or ("TNT" if el.tag == "TNT" else "")
        if not kind:
            raise ConversionError("level XML: <Block> has no type attribute")
        material = (el.get("material") or ("" if el.tag == "TNT" else "wood")).lower()
        if el.tag == "Block" and material not in MATERIALS:
            raise ConversionError(f"level XML: block material {material!r} is not one of {', '.join(MATERIALS)}")
        blocks.append(Block(kind, material, _float(el, "x"), _float(el, "y"), _float(el, "rotation", 0.0)))
    return Level(tuple(blocks), root.get("width", "3"), cam)
