"""A trial's transcript: every model call in order (messages with roles, the reply, tokens, seconds, retries,
whether it was replayed) and the problem's state between calls (a grid after each instruction, who spoke, voted
or left), written by the process that ran the trial beside the report and read back by ``pcg show``.

What a run folder holds, small enough for 20 KB a trial beside the report of a 39,000-trial competition:
``trials/<id>.js``, one compressed file per trial (the document ``pcg show --json`` prints and the trial page's
markup, gzip in base64 inside a script call, so a page opened from ``file:`` can load it); ``trials/m/<hash>.js``,
each long system or user message once per run however many trials sent it (a prompt is the same in every trial
of its target); and ``trials/view.html``, the one trial page, which shows the trial named after its ``?``."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

import pytest

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.names import shown, shown_all
from pcg_plugin.core.records.calls import Call

RUN_DIR_KEY = pytest.StashKey[Path]()  # the run folder, on the controller and every worker
FOLDER = "trials"
SHARED = "m"  # trials/m/<hash>.js: a message sent by many trials, once
VIEW = "view.html"
CSS = "viewer.css"
SHARED_FROM = 512  # characters: a system or user message this long is kept once per run, not in every trial


def trial_id(nodeid: str) -> str:
    """The file name of a trial's transcript: a hash of its node id (ids hold ``/`` and ``::``)."""
    return hashlib.sha256(shown(nodeid).encode("utf-8")).hexdigest()[:16]


def data_rel(nodeid: str) -> str:
    """The trial's transcript file, relative to the run folder."""
    return f"{FOLDER}/{trial_id(nodeid)}.js"


def page_rel(nodeid: str) -> str:
    """The link that opens the trial's page, relative to the run folder (where report.html is)."""
    return f"{FOLDER}/{VIEW}?{trial_id(nodeid)}"


def document(
    nodeid: str,
    meta: Mapping[str, Any],
    calls: Sequence[Call],
    *,
    summary: str = "",
    reason: str | None = None,
    score: float | None = None,
    states: Sequence[Mapping[str, Any]] = (),
    error: str | None = None,
) -> dict[str, Any]:
    """The transcript as JSON (what ``pcg show --json`` prints). ``states``: the problem's
    ``trial_states(record)``, each placed after its ``after_call``-th call (None: at the end)."""
    return {
        "nodeid": nodeid,
        "submission": meta.get("name"),
        "target": meta.get("target"),
        "trial": meta.get("trial"),
        "model": meta.get("model"),
        "reason": reason,
        "score": score,
        "summary": summary,
        "error": error,
        "calls": [c.to_dict() for c in calls],
        "states": [dict(s) for s in states],
    }


# -- the files -----------------------------------------------------------------------------------------------


def _pack(value: Any) -> str:
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def _unpack(text: str) -> Any:
    return json.loads(gzip.decompress(base64.b64decode(text)))


def _script(call: str, *args: str) -> str:
    """``pcgTrial("...")``: what the page's script receives; every argument is hex or base64 (nothing to quote)."""
    return f"{call}(" + ",".join(f'"{a}"' for a in args) + ");\n"


def split_shared(doc: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The document to store, with each long system or user message replaced by its hash (``refs``: [call,
    message, hash] triples), and those messages by hash."""
    stored = json.loads(json.dumps(doc))
    shared: dict[str, str] = {}
    refs = []
    for k, call in enumerate(stored["calls"]):
        for i, msg in enumerate(call.get("messages") or ()):
            content = msg.get("content") if isinstance(msg, dict) else None
            if isinstance(content, str) and len(content) >= SHARED_FROM and msg.get("role") != "assistant":
                h = hashlib.sha256(content.encode("utf-8")).hexdigest()[:24]
                shared[h] = content
                msg["content"] = None
                refs.append([k, i, h])
    if refs:
        stored["refs"] = refs
    return stored, shared


def write(run_dir: Path, doc: Mapping[str, Any]) -> Path:
    """``trials/<id>.js`` (and the shared messages it names, and the page if the run folder lacks it); its path."""
    folder = Path(run_dir) / FOLDER
    (folder / SHARED).mkdir(parents=True, exist_ok=True)
    doc = shown_all(doc)  # a name that is not UTF-8 (and anything quoting it) as text every writer takes
    stored, shared = split_shared(doc)
    for h, content in shared.items():
        path = folder / SHARED / f"{h}.js"
        if not path.is_file():  # named by its content: another trial (another worker) wrote the same bytes
            atomic_write(path, _script("pcgMessage", h, _pack(content)))
    if not (folder / VIEW).is_file():
        write_style(run_dir)
    body = _body(doc, fill=False)
    return atomic_write(
        folder / f"{trial_id(doc['nodeid'])}.js", _script("pcgTrial", _pack({"doc": stored, "page": body}))
    )


def restamp(run_dir: Path, rows: Sequence[Mapping[str, Any]]) -> int:
    """Give each stored transcript its trial's score and model as the run's ``trials.jsonl`` rows have them
    (``rows``): a trial's transcript is written when it ends, before a problem such as Science Birds can weight
    its score (the letter's weight needs every trial), and a one-model run's item does not know its model.
    Only the transcripts that differ are written again; how many were."""
    folder = Path(run_dir) / FOLDER
    done = 0
    for row in rows:
        path = folder / f"{trial_id(str(row['nodeid']))}.js" if row.get("nodeid") else None
        if path is None or not path.is_file():
            continue
        doc = load(path)
        fresh = {**doc, "score": row.get("score"), "model": doc.get("model") or row.get("model")}
        if fresh != doc:
            write(run_dir, fresh)
            done += 1
    return done


def read(run_dir: Path, nodeid: str) -> dict[str, Any]:
    """The transcript of ``nodeid`` in a run folder; FileNotFoundError names what is there instead."""
    folder = Path(run_dir) / FOLDER
    path = folder / f"{trial_id(nodeid)}.js"
    older = folder / f"{trial_id(nodeid)}.json.gz"  # a run folder written before trials/<id>.js
    if not path.is_file() and older.is_file():
        return json.loads(gzip.decompress(older.read_bytes()))
    if not path.is_file():
        known = sorted(folder.glob("*.js")) if folder.is_dir() else []
        raise FileNotFoundError(
            f"no transcript of {nodeid!r} in {folder} ({len(known)} trial(s) there; give the "
            "node id as the run printed it, e.g. submissions/team::A::1)"
        )
    return load(path)


def load(path: Path) -> dict[str, Any]:
    """The transcript in one ``trials/<id>.js``, its shared messages put back (read from beside it)."""
    doc: dict[str, Any] = _unpack(_argument(path, "pcgTrial")[1])["doc"]
    for k, i, h in doc.pop("refs", ()):
        doc["calls"][k]["messages"][i]["content"] = _unpack(
            _argument(path.parent / SHARED / f"{h}.js", "pcgMessage")[2]
        )
    return doc


def _argument(path: Path, call: str) -> list[str]:
    """The call's name and arguments in one of our script files."""
    text = path.read_text(encoding="ascii").strip()
    found = re.fullmatch(rf"({call})\(([^)]*)\);", text)
    if found is None:
        raise ValueError(f"{path} is not a {call}(...) file of pytest-pcg")
    return [found.group(1), *(a.strip('"') for a in found.group(2).split(","))]


# -- what repeats between calls ------------------------------------------------------------------------------


def shared_prefix(calls: Sequence[Mapping[str, Any]], k: int) -> tuple[int, int]:
    """(j, m): call ``k``'s first ``m`` messages are call ``j``'s messages followed by its reply (the history a
    multi-turn program or a game resends), the longest such run over the earlier calls; (-1, 0) when none."""
    best = (-1, 0)
    messages = calls[k]["messages"]
    for j in range(k):
        before = [*calls[j]["messages"], {"role": "assistant", "content": calls[j]["reply"]}]
        m = 0
        while m < min(len(before), len(messages)) and _same(before[m], messages[m]):
            m += 1
        if m > best[1]:
            best = (j, m)
    return best


def _as_in(calls: Sequence[Mapping[str, Any]], j: int, m: int) -> str:
    """Where a shared run of messages was shown first."""
    return f"as sent in call {j + 1}" + (", with its reply" if m > len(calls[j]["messages"]) else "")


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return a.get("role") == b.get("role") and a.get("content") == b.get("content")


def _text(content: Any) -> str:
    """A message's content as text (a list of parts, as some APIs send, joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", p)) if isinstance(p, Mapping) else str(p) for p in content)
    return json.dumps(content, ensure_ascii=False)


def call_line(k: int, call: Mapping[str, Any]) -> str:
    """``call 2 · gpt-4o · 812 + 95 tokens · 1.42 s · paid · 1 retry``."""
    how = "replayed from the store" if call["replayed"] else "paid"
    retries = call.get("retries") or 0
    more = f" · {retries} retr{'y' if retries == 1 else 'ies'}" if retries else ""
    cost = call.get("cost_usd")
    price = f" · ${cost:.6f}" if isinstance(cost, (int, float)) and cost else ""
    return (
        f"call {k + 1} · {call.get('model') or '?'} · {call['prompt_tokens']} + {call['completion_tokens']} "
        f"tokens · {call['seconds']:.2f} s · {how}{more}{price}"
    )


def _states_after(doc: Mapping[str, Any], k: int | None) -> list[Mapping[str, Any]]:
    n = len(doc["calls"])
    out = []
    for s in doc["states"]:
        at = s.get("after_call")
        at = n if at is None or at > n else at
        if at == (n if k is None else k):
            out.append(s)
    return out


def _order(doc: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The transcript's parts in reading order: states before any call, then each call and what followed it."""
    parts: list[tuple[str, Any]] = [("state", s) for s in doc["states"] if (s.get("after_call") == 0)]
    for k, _ in enumerate(doc["calls"]):
        parts.append(("call", k))
        if k + 1 < len(doc["calls"]):
            parts.extend(("state", s) for s in _states_after(doc, k + 1))
    parts.extend(("state", s) for s in _states_after(doc, None) if s.get("after_call") != 0)
    return parts


# -- the terminal -----------------------------------------------------------------------------------------


def text(doc: Mapping[str, Any]) -> str:
    """The transcript for a terminal (``pcg show``)."""
    head = f"{doc['nodeid']}: {doc.get('summary') or ''}".rstrip(": ")
    scored = f"; score {score_text(doc['score'])}" if doc.get("score") is not None and not doc.get("reason") else ""
    lines = [head, f"{len(doc['calls'])} call(s){scored}" + (f"; error: {doc['error']}" if doc.get("error") else "")]
    for kind, part in _order(doc):
        if kind == "call":
            call = doc["calls"][part]
            lines += ["", f"── {call_line(part, call)}"]
            j, m = shared_prefix(doc["calls"], part)
            if m:
                lines.append(f"   [messages 1-{m}: {_as_in(doc['calls'], j, m)}]")
            for i, msg in enumerate(call["messages"][m:], start=m + 1):
                lines.append(f"   [{i}] {msg.get('role', '?')}:")
                lines += [f"       {line}" for line in _text(msg.get("content")).splitlines() or [""]]
            lines.append("   reply:")
            for c, reply in enumerate(call.get("choices") or [call["reply"]]):
                if c:
                    lines.append(f"   choice {c + 1}:")
                blank = empty_reply(reply)
                lines += [f"       {line}" for line in ([blank] if blank else str(reply).splitlines())]
        else:
            lines += ["", f"── {part.get('title', '')}"]
            lines += [f"   {line}" for line in part.get("lines") or ()]
            lines += [f"   {' '.join(row) if isinstance(row, list) else row}" for row in part.get("grid") or ()]
            lines += [f"   image: {part['image']}"] if part.get("image") else []
            lines += [f"   {label}: {rel}" for label, rel in part.get("links") or ()]
    return "\n".join(lines) + "\n"


# -- the page ----------------------------------------------------------------------------------------------
# (a template line that ends in a backslash goes on in the same line of the page: the page is as it was written)

STYLE = """body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:12px 20px;color:#1b1f24}
h1{font-size:18px;margin:4px 0}.meta{color:#57606a}.call{border:1px solid #d0d7de;border-radius:6px;margin:10px 0}
.call>h2{font-size:14px;margin:0;padding:5px 8px;background:#f6f8fa;border-bottom:1px solid #d0d7de}
.call.replayed>h2{background:#eef6ee}.msg{margin:6px 8px}.role{font-weight:600;font-size:12px;color:#57606a}
.role.assistant,.role.reply{color:#0a5}.role.system{color:#8250df}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;border:1px solid #eaeef2;margin:2px 0;padding:6px;
font-size:12.5px;max-height:300px;overflow:auto}.msg.last pre{max-height:none}\
.reply pre{background:#f0fff4}.same{color:#57606a;font-style:italic}
.state{border-left:4px solid #54aeff;background:#f4f9ff;margin:10px 0;padding:6px 10px}\
.state h3{font-size:14px;margin:0}
table.g{border-collapse:collapse;margin:4px 0}\
table.g td{width:18px;height:18px;text-align:center;border:1px solid #d0d7de;
font:13px monospace}.state img{max-width:100%;max-height:320px;border:1px solid #d0d7de;background:#fff}
.err{background:#ffebe9;border:1px solid #cf222e;padding:6px 10px}
.reply pre.empty{background:#fff8c5;color:#57606a;font-style:italic}
"""


def page(doc: Mapping[str, Any]) -> str:
    """The trial page as one HTML file with every text in place: what ``view.html`` shows once its script has
    put the texts into the stored markup (``_body(doc, fill=False)``)."""
    return (
        f'<!doctype html><html lang="en"><meta charset="utf-8"><title>{escape(doc["nodeid"])}</title>'
        f'<link rel="stylesheet" href="{CSS}">\n{_body(doc, fill=True)}'
    )


def _body(doc: Mapping[str, Any], fill: bool) -> str:
    """The page's markup. ``fill=False``: each message and reply text is an empty ``<pre data-m="k.i">`` or
    ``<pre data-r="k.c">`` that the page's script fills from the document (as text, never markup), so the
    stored file holds each text once."""
    e = escape
    out = [
        '<p class="meta"><a href="../report.html">report</a></p>',
        f"<h1>{e(doc['nodeid'])}</h1>",
        f'<p class="meta">{e(doc.get("summary") or "")}</p>',
    ]
    if doc.get("score") is not None and not doc.get("reason"):  # a zero's summary says why it scored 0
        out.append(f'<p class="meta">score <b>{e(score_text(doc["score"]))}</b></p>')
    totals = (sum(c["prompt_tokens"] for c in doc["calls"]), sum(c["completion_tokens"] for c in doc["calls"]))
    replayed = sum(1 for c in doc["calls"] if c["replayed"])
    out.append(
        f'<p class="meta">{len(doc["calls"])} call(s), {replayed} replayed · {totals[0]} prompt + '
        f"{totals[1]} completion tokens</p>"
    )
    if doc.get("error"):
        out.append(f'<p class="err">{e(doc["error"])}</p>')
    for kind, part in _order(doc):
        out.append(_call_html(doc["calls"], part, fill) if kind == "call" else _state_html(part))
    return "\n".join(out) + "\n"


def _pre(text: Any, slot: str, fill: bool) -> str:
    """A text's box: the text itself, or (a string, not filled) the slot the page's script fills."""
    return f"<pre>{escape(_text(text))}</pre>" if fill or not isinstance(text, str) else f"<pre {slot}></pre>"


def _call_html(calls: Sequence[Mapping[str, Any]], k: int, fill: bool = True) -> str:
    e, call = escape, calls[k]
    cls = "call replayed" if call["replayed"] else "call"
    parts = [f'<div class="{cls}" id="c{k + 1}"><h2>{e(call_line(k, call))}</h2>']
    j, m = shared_prefix(calls, k)
    if m:
        said = _as_in(calls, j, m).replace(f"call {j + 1}", f'<a href="#c{j + 1}">call {j + 1}</a>')
        parts.append(f'<div class="msg same">messages 1–{m}: {said}</div>')
    last = len(call["messages"])
    for i, msg in enumerate(call["messages"][m:], start=m + 1):
        role, slot = str(msg.get("role", "?")), f'data-m="{k}.{i - 1}"'
        # the message the model answers, in full: its end is the turn's own line (the picture game's command)
        box = "msg last" if i == last else "msg"
        parts.append(
            f'<div class="{box}"><div class="role {e(role)}">[{i}] {e(role)}</div>'
            f"{_pre(msg.get('content'), slot, fill)}</div>"
        )
    for c, reply in enumerate(call.get("choices") or [call["reply"]]):
        label = "reply" if c == 0 else f"choice {c + 1}"
        blank = empty_reply(reply)
        if blank:
            box = f'<pre class="empty">{e(blank)}</pre>'
        elif isinstance(reply, str):
            box = _pre(reply, f'data-r="{k}.{c}"', fill)
        else:
            box = f"<pre>{e(str(reply))}</pre>"
        parts.append(f'<div class="msg reply"><div class="role reply">{label}</div>{box}</div>')
    parts.append("</div>")
    return "".join(parts)


def empty_reply(reply: Any) -> str | None:
    """The label an empty reply (or one of whitespace only) is shown with, where a box would look blank."""
    if not isinstance(reply, str) or reply.strip():
        return None
    return "(an empty reply: no text at all)" if not reply else f"(a reply of {len(reply)} blank character(s))"


def score_text(score: Any) -> str:
    """A trial's score on its page: four significant digits, so a score that is not 0 never reads as 0."""
    return f"{score:.4g}" if isinstance(score, float) else str(score)


def _state_html(state: Mapping[str, Any]) -> str:
    e = escape
    parts = [f'<div class="state"><h3>{e(str(state.get("title", "")))}</h3>']
    for line in state.get("lines") or ():
        parts.append(f"<div>{e(str(line))}</div>")
    if state.get("grid"):
        rows = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in state["grid"])
        parts.append(f'<table class="g">{rows}</table>')
    if state.get("image"):
        src, alt = e(state["image"]), e(str(state.get("title", "")))
        parts.append(f'<a href="../{src}"><img loading="lazy" src="../{src}" alt="{alt}"></a>')
    links = [f'<a href="../{e(rel)}">{e(label)}</a>' for label, rel in state.get("links") or ()]
    if links:
        parts.append("<div>" + " · ".join(links) + "</div>")
    parts.append("</div>")
    return "".join(parts)


# The one trial page: loads trials/<id>.js (named after the "?"), the shared messages it names, and shows the
# stored markup with each text put in as text. Works from file: (script elements, no fetch).
VIEW_HTML = """<!doctype html><html lang="en"><meta charset="utf-8"><title>trial</title>
<link rel="stylesheet" href="viewer.css">
<main id="pcg-trial"><p class="meta"><a href="../report.html">report</a></p>\
<p class="meta">Loading the trial…</p></main>
<script>(function(){
var id=location.search.slice(1),main=document.getElementById('pcg-trial'),shared={},waiting=0,got=null;
function fail(m){var p=document.createElement('p');p.className='err';p.textContent=m;main.appendChild(p)}
function load(src,what){var s=document.createElement('script');s.src=src;
 s.onerror=function(){fail('Cannot read '+src+' ('+what+') beside this page.')};document.head.appendChild(s)}
function unzip(b64){var bin=atob(b64),u=new Uint8Array(bin.length);for(var i=0;i<bin.length;i++)u[i]=bin.charCodeAt(i);
 return new Response(new Blob([u]).stream().pipeThrough(new DecompressionStream('gzip'))).text().then(JSON.parse)}
function show(){var doc=got.doc;\
(doc.refs||[]).forEach(function(r){doc.calls[r[0]].messages[r[1]].content=shared[r[2]]});
 main.innerHTML=got.page;document.title=doc.nodeid;
 main.querySelectorAll('[data-m]').forEach(function(e){var p=e.dataset.m.split('.');
  e.textContent=doc.calls[+p[0]].messages[+p[1]].content});
 main.querySelectorAll('[data-r]').forEach(function(e){var p=e.dataset.r.split('.'),c=doc.calls[+p[0]];
  e.textContent=(c.choices&&c.choices.length?c.choices:[c.reply])[+p[1]]});
 if(location.hash){var at=document.getElementById(location.hash.slice(1));if(at)at.scrollIntoView()}}
window.pcgTrial=function(b64){unzip(b64).then(function(v){got=v;var need={};
 (v.doc.refs||[]).forEach(function(r){need[r[2]]=1});waiting=Object.keys(need).length;if(!waiting)show();
 Object.keys(need).forEach(function(h){load('m/'+h+'.js','a message this trial sent')})},function(e){fail(String(e))})};
window.pcgMessage=function(h,b64){\
unzip(b64).then(function(v){if(!(h in shared)){shared[h]=v;if(--waiting===0)show()}})};
if(/^[0-9a-f]{16}$/.test(id))load(id+'.js',"the trial's transcript");\
else fail('No trial named: open view.html?<trial id> from the report.');
})();</script>
"""


def write_style(run_dir: Path) -> Path:
    """The trial page and its stylesheet (once per run folder)."""
    folder = Path(run_dir) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write(folder / CSS, STYLE)
    return atomic_write(folder / VIEW, VIEW_HTML)
