"""Columnar JSON-lines readers against the orjson parse: is there a faster way into columns?

    python bench/bench_readers.py FILE [FILE ...] [--runs 3] [--write-results]

Each row is a fresh process that reads spanagree JSONL into span columns (document, rater,
start, end, label) in one way, timed whole (start-up and imports included), the rows of one file
interleaved ``--runs`` times, medians kept:

* an orjson parse of every line and nothing else (the limit);
* ``import numpy, orjson`` and nothing else (what any reader of ours starts with);
* orjson plus a plain Python loop that appends the five columns (no validation);
* msgspec's typed decoding (``Decoder(Line).decode_lines``) into Structs, then the columns;
* pyarrow's ``pyarrow.json.read_json`` and the flattened span struct column;
* polars' ``read_ndjson``, spans exploded and unnested;
* ``spanagree.read`` (validation, the corpus builder, canonical sorting) and ``spanagree score``.

Peers that are not installed are left out (``pip install msgspec pyarrow polars``; they are not
dependencies of spanagree). ``--write-results`` writes the section "## Columnar readers" of
``bench/RESULTS.md``.
"""
from __future__ import annotations

import argparse
import importlib.util
import platform
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_core import machine, publish  # noqa: E402

SECTION = "## Columnar readers"

ROWS: list[tuple[str, str | None, str]] = [  # (name, module it needs, code; P is the path)
    ("orjson parse (the limit)", None, "import orjson\nfor line in open(P, 'rb'):\n    orjson.loads(line)"),
    ("`import numpy, orjson` only", None, "import numpy, orjson"),
    ("orjson + a Python loop into columns", None, """import orjson
doc, rater, start, end, label = [], [], [], [], []
for line in open(P, 'rb'):
    o = orjson.loads(line)
    d, r = o['doc_id'], o.get('annotator')
    for s in o['spans']:
        doc.append(d); rater.append(r); start.append(s['start']); end.append(s['end']); label.append(s['label'])"""),
    ("msgspec typed `decode_lines`, then columns", "msgspec", """import msgspec
from typing import Optional
class Span(msgspec.Struct):
    start: int
    end: int
    label: str
class Line(msgspec.Struct):
    doc_id: str
    text: str
    spans: list[Span]
    annotator: Optional[str] = None
lines = msgspec.json.Decoder(Line).decode_lines(open(P, 'rb').read())
start = [s.start for x in lines for s in x.spans]; end = [s.end for x in lines for s in x.spans]
label = [s.label for x in lines for s in x.spans]"""),
    ("pyarrow `json.read_json`, spans flattened", "pyarrow", """import pyarrow.json
spans = pyarrow.json.read_json(P).column('spans').combine_chunks().flatten()
start, end, label = spans.field('start').to_numpy(), spans.field('end').to_numpy(), spans.field('label')"""),
    ("polars `read_ndjson`, spans exploded", "polars", """import polars
frame = polars.read_ndjson(P).select(['doc_id', 'annotator', 'spans']).explode('spans').unnest('spans')
start = frame['start'].to_numpy()"""),
    ("`spanagree.read`", None, "import spanagree\nspanagree.read(P)"),
]


def run(code: str, path: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", f"P = {str(path)!r}\n{code}"], cwd=ROOT, capture_output=True)
    if done.returncode:
        raise SystemExit(done.stderr.decode()[-2000:])
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args(argv)
    rows = [(n, code) for n, module, code in ROWS if module is None or importlib.util.find_spec(module)]
    rows.append(("`spanagree score` (table)", None))
    out = [
        f"`python bench/bench_readers.py {' '.join(shlex.quote(str(f)) for f in args.files)} --runs {args.runs}`"
        f" ({machine()['cpu']}; Python {platform.python_version()}); whole processes, medians of "
        f"{args.runs} interleaved runs.",
        "",
        "| reader | " + " | ".join(f"`{f.name}`" for f in args.files) + " |",
        "|---|" + "---:|" * len(args.files),
    ]
    table: dict[str, list[str]] = {name: [] for name, _ in rows}
    for path in args.files:
        times: dict[str, list[float]] = {name: [] for name, _ in rows}
        for _ in range(args.runs):
            for name, code in rows:
                if code is None:
                    start = time.perf_counter()
                    subprocess.run([sys.executable, "-m", "spanagree", "score", str(path)], cwd=ROOT,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                    times[name].append(time.perf_counter() - start)
                else:
                    times[name].append(run(code, path))
        limit = statistics.median(times[rows[0][0]])
        for name, _ in rows:
            value = statistics.median(times[name])
            table[name].append(f"{value:.2f} s ({value / limit:.1f}×)")
    out += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in table.items()]
    publish("\n".join(out) + "\n", SECTION, args.write_results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
