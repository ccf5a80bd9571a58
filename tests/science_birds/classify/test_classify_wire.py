"""The service's wire format: images travel pixel-exact, the service's identity round-trips."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from pcg_plugin.problems.science_birds.classify import wire


def _picture() -> Image.Image:
    im = Image.new("RGB", (48, 40), "white")
    ImageDraw.Draw(im).rectangle((5, 7, 30, 20), fill=(200, 10, 0))
    return im


@pytest.mark.parametrize("mode", ["1", "L", "RGB", "RGBA", "P"])
def test_wire_round_trip_keeps_pixels(mode: str) -> None:
    im = _picture().convert(mode)
    back = wire.from_wire(wire.to_wire(im))
    assert back.mode == im.mode and back.size == im.size
    assert back.convert("RGB").tobytes() == im.convert("RGB").tobytes()


def test_service_info_round_trips_through_env_and_dict() -> None:
    info = wire.ServiceInfo("\0pcg-x", "ab" * 32, 123, "sha256:x", "m", "bf16", "cuda")
    assert wire.ServiceInfo.from_env(info.to_env()) == info
    assert wire.ServiceInfo.from_dict(info.to_dict()) == info
