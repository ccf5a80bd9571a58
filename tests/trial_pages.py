"""What a report's link to a trial opens, for the tests: the trial page with its texts in place (from the stored
transcript, as ``trials/view.html``'s script shows it), and the page as headless Chromium renders it."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from pcg_plugin.core.records import transcript


def opened(run_dir: Path, link: str) -> str:
    """The page ``link`` (``trials/view.html?<id>``, relative to the run folder) opens, every text in place."""
    page, _, tid = link.partition("?")
    assert page == f"{transcript.FOLDER}/{transcript.VIEW}" and (Path(run_dir) / page).is_file(), link
    return transcript.page(transcript.load(Path(run_dir) / transcript.FOLDER / f"{tid}.js"))


def browser() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def rendered(run_dir: Path, link: str, profile: Path) -> str:
    """The DOM Chromium builds from ``link`` opened as a file: URL (no server, the network off)."""
    exe = browser()
    assert exe is not None
    url = (Path(run_dir) / link.partition("?")[0]).as_uri() + "?" + link.partition("?")[2]
    return subprocess.run(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={profile}",
            "--proxy-server=127.0.0.1:9",
            "--virtual-time-budget=3000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout


def measured(page: Path, script: str, *, width: int = 1280, query: str = "", ready: str = "true") -> Any:
    """What ``script`` (a function body returning JSON-able values) returns in the page as Chromium lays it out
    in a ``width`` px window (opened as a file: URL, the network off): a copy of the page beside it, with the
    script added at its end, run once ``ready`` (a JS expression) holds (a trial page fills its texts late)."""
    exe = browser()
    assert exe is not None
    probe = Path(page).with_name(f"probe-{Path(page).name}")
    run = (
        "(function poll(){if(!(" + ready + ")){setTimeout(poll,50);return}"
        "var o=document.createElement('pre');o.id='pcg-measured';"
        f"o.textContent=JSON.stringify((function(){{{script}}})());document.body.appendChild(o)}})()"
    )
    text = Path(page).read_text(encoding="utf-8")
    at = text.rfind("</body>")  # a page without one (the trial page) takes the script at its end
    at = at if at >= 0 else len(text)
    probe.write_text(text[:at] + f"<script>{run}</script>" + text[at:])
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(
            [
                exe,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--window-size={width},900",
                f"--user-data-dir={profile}",
                "--proxy-server=127.0.0.1:9",
                "--virtual-time-budget=5000",
                "--dump-dom",
                probe.as_uri() + (f"?{query}" if query else ""),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    probe.unlink()
    found = re.search(r'<pre id="pcg-measured">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


# Layout probes for ``measured``: the page's width, the chart's legend and axis labels, where words break.
PAGE_WIDTH = "return document.documentElement.scrollWidth"
CHART = """var svg=document.querySelector('svg.pcg-chart'),box=svg.getBoundingClientRect();
var legend=[].filter.call(svg.querySelectorAll('text'),function(t){var r=t.previousElementSibling;
 return r&&r.tagName==='rect'&&r.getAttribute('width')==='10'});
function corners(t){var b=t.getBBox(),m=t.getScreenCTM(),p=svg.createSVGPoint(),out=[];
 [[b.x,b.y],[b.x+b.width,b.y],[b.x+b.width,b.y+b.height],[b.x,b.y+b.height]].forEach(function(c){
  p.x=c[0];p.y=c[1];var q=p.matrixTransform(m);out.push([q.x,q.y])});return out}
function apart(a,b){var polys=[a,b];for(var k=0;k<2;k++){var P=polys[k];for(var i=0;i<4;i++){
 var p1=P[i],p2=P[(i+1)%4],nx=p2[1]-p1[1],ny=p1[0]-p2[0];
 var pa=a.map(function(c){return c[0]*nx+c[1]*ny}),pb=b.map(function(c){return c[0]*nx+c[1]*ny});
 if(Math.max.apply(0,pa)<=Math.min.apply(0,pb)+0.01||Math.max.apply(0,pb)<=Math.min.apply(0,pa)+0.01)return true}}
 return false}
var labels=[].filter.call(svg.querySelectorAll('text'),function(t){return legend.indexOf(t)<0&&!t.closest('title')
 &&t.getAttribute('text-anchor')!=='end'||t.hasAttribute('transform')});
var boxes=labels.map(corners),overlaps=0;
for(var i=1;i<boxes.length;i++)if(!apart(boxes[i-1],boxes[i]))overlaps++;
return {width:Math.round(box.width),legend:legend.length,
 legend_visible:legend.filter(function(t){var r=t.getBoundingClientRect();return r.right<=box.right+0.5
  &&r.bottom<=box.bottom+0.5&&r.width>0}).length,labels:labels.length,overlaps:overlaps}"""
MID_WORD = """var bad=[];document.querySelectorAll(SELECTOR).forEach(function(td){
 var w=document.createTreeWalker(td,NodeFilter.SHOW_TEXT),chars=[],n;
 while(n=w.nextNode())for(var i=0;i<n.data.length;i++){var r=document.createRange();r.setStart(n,i);r.setEnd(n,i+1);
  var rs=r.getClientRects();if(rs.length)chars.push([n.data[i],rs[0].top])}
 for(var k=1;k<chars.length;k++)if(chars[k][1]>chars[k-1][1]+2&&':/_-,. '.indexOf(chars[k-1][0])<0)
  bad.push(td.textContent.slice(0,k)+'|'+td.textContent.slice(k))});return bad"""
# how many lines each cell that SELECTOR names takes: [its text, the distinct tops of its text's line boxes]
LINES = """return [].map.call(document.querySelectorAll(SELECTOR),function(td){var r=document.createRange();
 r.selectNodeContents(td);var tops={};[].forEach.call(r.getClientRects(),function(c){tops[Math.round(c.top)]=1});
 return [td.textContent,Object.keys(tops).length]})"""
