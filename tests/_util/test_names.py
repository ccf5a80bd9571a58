"""pcg_plugin._util.names: a name that is not UTF-8 becomes text once, escaped; every other text is left as it is."""

from __future__ import annotations

import io
import json
import os

from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin._util.names import escape_unencodable, is_shown, name_bytes, shown, shown_all, shown_json
from pcg_plugin.errors import SubmissionError

VALID = st.text(alphabet=st.characters(blacklist_categories=("Cs",)))  # any text without lone surrogates


def test_a_byte_that_is_not_utf8_is_shown_as_its_escape_and_the_path_keeps_the_byte() -> None:
    name = os.fsdecode(b"t\xe9am")  # what os.listdir gives for a folder unzip wrote
    assert shown(name) == "t\\xe9am" == shown(b"t\xe9am")
    assert name_bytes(name) == b"t\xe9am"
    assert shown("\ud83d") == "\\ud83d"  # a lone surrogate that is no byte (a JSON reply) is shown too
    assert not is_shown(name) and is_shown(shown(name))


@given(VALID)
def test_text_that_is_valid_is_never_changed(text: str) -> None:
    assert shown(text) == text and json.loads(shown_json(json.dumps({"k": text}))) == {"k": text}


@given(st.binary(max_size=40))
def test_every_name_becomes_text_any_utf8_writer_takes(raw: bytes) -> None:
    text = shown(os.fsdecode(raw))
    text.encode("utf-8")  # never raises
    assert text == raw.decode("utf-8", "backslashreplace")  # Python's own escape of the same bytes


def test_json_and_nested_values_are_shown_whether_the_surrogate_is_raw_or_escaped() -> None:
    name = os.fsdecode(b"caf\xe9")
    assert shown_all({name: [name, (1, name)], "n": None}) == {"caf\\xe9": ["caf\\xe9", (1, "caf\\xe9")], "n": None}
    for text in (json.dumps({"p": name}), json.dumps({"p": name}, ensure_ascii=False)):
        assert json.loads(shown_json(text)) == {"p": "caf\\xe9"}


def test_an_error_quoting_such_a_path_has_a_message_every_writer_takes() -> None:
    folder = os.fsdecode(b"/subs/br\xf6ken")
    exc = SubmissionError(f"{folder}: not a submission")
    assert str(exc) == "/subs/br\\xf6ken: not a submission"
    assert isinstance(exc, ValueError)


def test_a_stream_writes_what_it_cannot_encode_escaped() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8", errors="strict")
    escape_unencodable(stream)
    stream.write(os.fsdecode(b"l\xe9vel.xml") + " caf\u00e9\n")
    stream.flush()
    assert raw.getvalue().decode("utf-8") == "l\\xe9vel.xml caf\u00e9\n"
