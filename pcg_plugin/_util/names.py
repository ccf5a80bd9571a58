"""File and folder names as the harness carries them: bytes on disk, escaped text everywhere else.

A name that is not UTF-8 (a zip unpacked by ``unzip``, a folder copied from an old system) reaches Python as a
``str`` holding lone surrogates (PEP 383: byte ``0xE9`` is ``"\\udce9"``). The operating system takes such a
``str`` back as the same bytes, so ``Path`` objects keep them and every file operation works; but no UTF-8 writer
takes it (``"t\\udce9am".encode()`` raises). So a name becomes text once, through ``shown``: each byte that is not
UTF-8 is written ``\\xNN`` (``t\\xe9am``), the way Python's own ``backslashreplace`` writes it. A valid name is
left exactly as it is, so nothing changes for the names every real run has seen so far. This module imports only
the standard library: the sandbox child and ``errors`` use it.
"""

from __future__ import annotations

import codecs
import json
import os
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")  # one in JSON text: \udce9


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def shown(name: str | os.PathLike[str] | bytes) -> str:
    """``name`` as text any UTF-8 writer takes: undecodable bytes (surrogate-escaped) as ``\\xNN``, any other lone
    surrogate as ``\\uXXXX``; a valid name unchanged. Bytes are read as UTF-8 the same way."""
    text = os.fsdecode(name) if isinstance(name, bytes) else os.fspath(name)
    if not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(_escape, text)


def is_shown(name: str) -> bool:
    """True when ``name`` is already text every writer takes (``shown`` leaves it as it is)."""
    return not _SURROGATE.search(name)


def name_bytes(name: str | os.PathLike[str]) -> bytes:
    """The bytes a name has on disk (what a hash of the submission's files reads)."""
    return os.fsencode(name)


def shown_all(value: Any) -> Any:
    """``value`` (JSON-like: dicts, lists, tuples, strings) with every string ``shown``; other values as they are.
    The net under every writer of text a run produces: an error message quoting a path, a trace of a program in
    a folder so named."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {shown_all(k): shown_all(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shown_all(v) for v in value]
    if isinstance(value, tuple):
        return tuple(shown_all(v) for v in value)
    return value


def shown_json(text: str) -> str:
    """JSON text whose strings are all ``shown`` (raw or ``\\uXXXX``-escaped surrogates alike); the text itself
    when it has none, which is every record of a run whose names are UTF-8."""
    if is_shown(text) and not _ESCAPED_SURROGATE.search(text):
        return text
    return json.dumps(shown_all(json.loads(text)), ensure_ascii=False, sort_keys=True)


ERRORS = "pcg-shown"  # a codec error handler: what a text stream cannot encode, written as shown would


def _as_escape(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"  # a byte that was not UTF-8: the byte
    return char.encode("ascii", "backslashreplace").decode("ascii")  # \xe9, \ud83d, \u2603, \U0001f600


def _escape_unencodable(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return "".join(_as_escape(c) for c in exc.object[exc.start : exc.end]), exc.end


codecs.register_error(ERRORS, _escape_unencodable)


def escape_unencodable(*streams: Any) -> None:
    """Text streams (the ``pcg`` commands' stdout and stderr) write what they cannot encode escaped, as ``shown``
    does, instead of raising: one path whose name is not UTF-8 never ends a command's output."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors=ERRORS)
