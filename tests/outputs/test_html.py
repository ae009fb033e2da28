"""The HTML report: one self-contained file, escaped data, and charts that render in Chromium.

The browser tests drive Debian's headless ``chromium`` over the DevTools protocol (standard
library plus ``websocket-client``) and skip, saying why, when either is missing.
"""
from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.outputs.html import bands
from records import line
from locations import ROOT

pytest.importorskip("matplotlib", reason="the HTML report needs matplotlib (pip install 'spanagree[report]')")

runner = CliRunner()
EVIL_TEXT = (
    "Alice met <script>document.title='pwned';window.__pwned=1</script> Bob "
    "<img src=x onerror=\"window.__pwned=2\"> in Paris & \"Lyon\" on $x$."
)
# (no "." in the label: the interval paths of the report split on dots)
EVIL_LABEL = "<script>top['__pwned']=3</script>"
EVIL_RATER = "<img src=x onerror=top['__pwned']=4>"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def example_html(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    example = ROOT / "corpora" / "news_ner.jsonl"
    result = run("report", example, "--candidates", "tokens", "--bootstrap", "300", "-o", out)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def evil_html(tmp_path_factory):
    folder = tmp_path_factory.mktemp("evil")
    records = [
        line("d1", "ann", [(0, 5, "PER"), (14, 22, EVIL_LABEL)], text=EVIL_TEXT),
        line("d1", EVIL_RATER, [(0, 5, EVIL_LABEL), (23, 29, "PER")], text=EVIL_TEXT),
        line("<b>d2</b>", "ann", [(0, 5, "PER")], text=EVIL_TEXT),
        line("<b>d2</b>", EVIL_RATER, [], text=EVIL_TEXT),
    ]
    path = folder / "evil.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = folder / "evil.html"
    result = run("report", path, "--bootstrap", "50", "--title", "<i>t</i>", "-o", out)
    assert result.exit_code == 0, result.output
    return out


def test_the_page_is_self_contained(example_html):
    html = example_html.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert "<script" not in html.lower()
    # nothing to fetch: no URL at all, no external stylesheet, font or image
    assert not re.search(r"https?:|//[a-z0-9]", html, re.I)
    assert not re.search(r"<(link|iframe|object|embed|img|image)\b|@import|@font-face|url\((?!#)|data:", html, re.I)
    assert "default-src 'none'" in html
    assert html.count("<svg") == 5  # labels, raters, pairs, κ(d), the planning chart


def test_the_page_has_the_numbers(example_html, example_path):
    html = example_html.read_text(encoding="utf-8")
    report = spanagree.score(spanagree.read(example_path), candidates="tokens", bootstrap=300).to_dict()
    overall = report["overall"]
    assert f"{overall['pairwise_mean_psa']:.3f}" in html
    interval = overall["pairwise_mean_psa_interval"]
    assert f"[{interval['low']:.3f}, {interval['high']:.3f}]" in html
    kappa = report["chance_corrected"]["pooled"]["cohen_kappa"]
    alpha = report["chance_corrected"]["all_raters"]["krippendorff_alpha"]
    assert f"{kappa['value']:.3f}" in html and bands.landis_koch(kappa["value"]) in html
    assert f"{alpha['value']:.3f}" in html and bands.krippendorff(alpha["value"]) in html
    for label in report["labels"]:
        assert f"<td>{label}</td>" in html
    assert "300 bootstrap replicates" in html
    assert "Label confusion among position-matched spans" in html
    assert html.count('class="doc"') == 10


def test_the_same_input_gives_the_same_bytes(example_path, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    # the same name in two folders: the page links the CSV beside it by name
    first, second = tmp_path / "a" / "r.html", tmp_path / "b" / "r.html"
    assert run("report", example_path, "--bootstrap", "100", "-o", first).exit_code == 0
    assert run("report", example_path, "--bootstrap", "100", "-o", second).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    assert (tmp_path / "a" / "r.documents.csv").read_bytes() == (tmp_path / "b" / "r.documents.csv").read_bytes()
    assert "<svg" in first.read_text() and "κ as d grows" not in first.read_text()  # no candidates, no curve


def test_intervals_default_to_1000_replicates(example_path, tmp_path):
    out = tmp_path / "r.html"
    result = run("report", example_path, "-o", out, "--documents", "2")
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert "1000 bootstrap replicates" in html and html.count('class="doc"') == 2


def test_text_labels_and_raters_are_escaped(evil_html):
    html = evil_html.read_text(encoding="utf-8")
    assert "<script" not in html.lower() and "<img" not in html.lower() and "<b>" not in html
    assert "&lt;script&gt;document.title=&#39;pwned&#39;" in html
    assert "&lt;img src=x onerror=top[&#39;__pwned&#39;]=4&gt;" in html  # the rater's name
    assert "&lt;script&gt;top[&#39;__pwned&#39;]=3&lt;/script&gt;" in html  # the label
    assert "&lt;b&gt;d2&lt;/b&gt;" in html and "<title>&lt;i&gt;t&lt;/i&gt;</title>" in html


def test_bands_are_labels_beside_the_number():
    assert [bands.landis_koch(v) for v in (-0.2, 0.0, 0.2, 0.21, 0.5, 0.7, 0.9)] == [
        "poor", "slight", "slight", "fair", "moderate", "substantial", "almost perfect"]
    assert bands.krippendorff(0.8).startswith("reliable") and bands.krippendorff(0.667).startswith("tentative")


# --- in the browser -----------------------------------------------------------------------------


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("Debian's chromium is not installed (apt-get install chromium): the browser check cannot run")


class Page:
    """A headless Chromium page driven over the DevTools protocol; records console messages,
    uncaught exceptions and network requests."""

    def __init__(self, tmp_path: Path) -> None:
        websocket = pytest.importorskip("websocket", reason="the browser check needs websocket-client")
        binary = _chromium()
        profile = tmp_path / "profile"
        self.log = open(tmp_path / "chromium.log", "wb")
        self.process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
             "--disable-default-apps", "--mute-audio", f"--user-data-dir={profile}",
             "--remote-debugging-port=0", "--remote-allow-origins=*", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=self.log,
        )
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                pytest.skip("chromium did not start a DevTools endpoint (see chromium.log)")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as response:
            targets = json.load(response)
        url = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
        self.socket = websocket.create_connection(url, timeout=60, suppress_origin=True)
        self.next_id = 0
        self.events: list[dict] = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride", width=1200, height=900, deviceScaleFactor=1, mobile=False)

    def send(self, method: str, **params) -> dict:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def open(self, path: Path) -> None:
        self.send("Page.navigate", url=path.resolve().as_uri())
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(json.loads(self.socket.recv()))

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def screenshot(self, path: Path) -> bytes:
        height = self.evaluate("document.documentElement.scrollHeight")
        self.send("Emulation.setDeviceMetricsOverride", width=1200, height=min(int(height), 16000),
                  deviceScaleFactor=1, mobile=False)
        data = base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])
        path.write_bytes(data)
        return data

    def errors(self) -> list[str]:
        out = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert", "warning"):
                out.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                out.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Log.entryAdded" and params["entry"].get("level") in ("error", "warning"):
                out.append(f"log: {params['entry'].get('text')}")
        return out

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            if hasattr(self, "socket"):
                self.socket.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)
            self.log.close()


@pytest.fixture
def page(tmp_path):
    browser = Page(tmp_path)
    yield browser
    browser.close()


def test_charts_render_in_chromium_without_console_errors(page, example_html, tmp_path):
    page.open(example_html)
    charts = page.evaluate(
        "JSON.stringify([...document.querySelectorAll('.chart')].map(c => { const s = c.querySelector('svg');"
        " const r = s.getBoundingClientRect(); return {id: c.id, w: r.width, h: r.height,"
        " shapes: s.querySelectorAll('path, use, image').length}; }))"
    )
    charts = json.loads(charts)
    assert [c["id"] for c in charts] == ["chart-labels", "chart-raters", "chart-pairs", "chart-kappa", "chart-plan"]
    for chart in charts:
        assert chart["w"] > 100 and chart["h"] > 100 and chart["shapes"] > 10, chart
    assert page.evaluate("document.scripts.length") == 0
    assert page.evaluate("document.querySelectorAll('.doc mark').length") > 10
    png = page.screenshot(tmp_path / "report.png")
    assert png.startswith(b"\x89PNG") and _not_blank(tmp_path / "report.png")
    assert page.errors() == []
    assert [u for u in page.requests() if not u.startswith("file:")] == []


def test_nothing_from_the_data_runs_in_chromium(page, evil_html, tmp_path):
    page.open(evil_html)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.title") == "<i>t</i>"
    assert page.evaluate("document.querySelectorAll('script, img, b, i').length") == 0
    body = page.evaluate("document.body.innerText")
    assert "<script>document.title='pwned';window.__pwned=1</script>" in body
    assert EVIL_RATER in body and EVIL_LABEL in body and "$x$" in body
    page.screenshot(tmp_path / "evil.png")
    assert page.errors() == []
    assert [u for u in page.requests() if not u.startswith("file:")] == []


def _not_blank(path: Path) -> bool:
    """True when the image has more than one colour (PIL comes with matplotlib)."""
    from PIL import Image

    with Image.open(path) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    return colours is None or len(colours) > 50


def test_huge_names_and_texts_are_cut_and_said_so(write_jsonl, tmp_path):
    """A 1 MB label, rater name and document id and a 1 MB text: the page shows their first
    characters, says where and why it cut, and stays small (drawing the whole label as a chart
    tick took minutes). Not timed: the bound is on what the page holds."""
    from spanagree.core.templates import MAX_SHOWN
    from spanagree.notebook.figures import MAX_CHART_NAME

    big = "L" * 1_000_000
    text = ("Alice met Bob in Paris. " * 42_000)[:1_000_000]
    rows = [
        line(f"d{d}" + "D" * 1_000_000, rater, [(0, 5, big), (10, 13, "PER"), (999_000, 999_005, big + "2")], text=text)
        for d in range(2) for rater in ("A" * 1_000_000, "B")
    ]
    path = write_jsonl(rows)
    out = tmp_path / "huge.html"
    result = run("report", path, "-o", out, "--bootstrap", "5")
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert len(page) < 1_000_000  # the names and texts are not on it whole
    assert "L" * (MAX_SHOWN + 1) not in page and "A" * (MAX_SHOWN + 1) not in page and "D" * (MAX_SHOWN + 1) not in page
    assert "L" * MAX_SHOWN + "… (cut: 1,000,000 characters in all)" in page
    assert "A" * MAX_SHOWN + "… (cut: 1,000,000 characters in all)" in page
    assert "Some labels and raters and document ids are longer than 300 characters" in page
    assert f"(charts: {MAX_CHART_NAME})" in page
    assert "more characters not shown" in page  # the text, cut at its own limit
    # the CSV beside the page keeps the ids whole
    assert "D" * 1_000_000 in (tmp_path / "huge.documents.csv").read_text(encoding="utf-8")


def test_short_names_get_no_cut_note(write_jsonl, tmp_path):
    path = write_jsonl([line("d1", "ann1", [(0, 5, "PER")]), line("d1", "ann2", [(0, 5, "PER")])])
    out = tmp_path / "r.html"
    assert run("report", path, "-o", out, "--bootstrap", "5").exit_code == 0
    page = out.read_text(encoding="utf-8")
    assert "longer than 300 characters" not in page and "(cut:" not in page
