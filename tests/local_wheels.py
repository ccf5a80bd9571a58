"""Pure-Python wheels written by hand in a test (a wheel is a zip with a dist-info folder), for pip pointed at
a local folder with ``PIP_NO_INDEX`` / ``PIP_FIND_LINKS``: CI installs requirements with no network."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path


def make_wheel(folder: Path, dist: str, version: str, modules: dict[str, str], top_level: bool = True) -> Path:
    """A pure-Python wheel ``dist`` providing ``modules`` (path -> source)."""
    stem = f"{dist.replace('-', '_')}-{version}"
    info = f"{stem}.dist-info"
    files = dict(modules)
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n"
    files[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    if top_level:
        files[f"{info}/top_level.txt"] = "".join(sorted({m.split("/")[0].removesuffix(".py") + "\n" for m in modules}))
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    path = folder / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return path
