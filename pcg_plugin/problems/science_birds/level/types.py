"""The typed Science Birds level: blocks with type, material, centre and rotation (degrees)."""

from __future__ import annotations

from dataclasses import dataclass

OFFICIAL_CAMERA = ("2", "0", "17", "22")


@dataclass(frozen=True)
class Block:
    """One block as Science Birds places it: ``x``/``y`` is the centre in world units."""

    type: str
    material: str
    x: float
    y: float
    rotation: float = 0.0


@dataclass(frozen=True)
class Level:
    """A level: blocks in instantiation order; width/camera strings are kept verbatim for the XML."""

    blocks: tuple[Block, ...]
    width: str = "3"
    camera: tuple[str, str, str, str] = OFFICIAL_CAMERA  # x, y, minWidth, maxWidth
