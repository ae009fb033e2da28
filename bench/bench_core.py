"""Benchmark the core path (read, align, score) against json parsing and nervaluate.

    python bench/generate.py --documents 10000 --raters 3 --seed 0 -o bench/data/synth_10k.jsonl
    python bench/bench_core.py --data bench/data/synth_10k.jsonl --real-dir ../shared/corpora-real \\
        [--write-results]

On the synthetic corpus it times, best of ``--repeats`` (default 3):
 * the standard ``json`` module parsing the file line by line (the floor for any reader);
 * ``spanagree.read`` (parsing into a Corpus);
 * ``spanagree.score(corpus, rule="overlap", labels="strict")`` (all pairs, per label) and the
   same with ``rule="exact"``;
 * nervaluate's ``Evaluator(...).evaluate()`` on each rater pair (A = "true", B = "pred"), with
   its default ``min_overlap_percentage``;
and checks that spanagree's exact-rule counts equal nervaluate's strict counts for every pair
(``a == correct``, ``b == missed + incorrect``, ``c == spurious + incorrect``; see
``tests/measures/test_nervaluate_parity.py`` for why they must).

For each real corpus in ``--real-dir`` (toxic_spans, potts, btc_crowd) it times
``spanagree score FILE --output json`` end to end as a subprocess against json parsing of the
file, and records the headline figures (pairwise mean and pooled PSA, exact and overlap).

``--write-results`` writes (or replaces) the section "## Core: read, align, score" of
``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

import peers  # noqa: E402
import spanagree  # noqa: E402

SECTION = "## Core: read, align, score"
REAL_CORPORA = ("toxic_spans.jsonl", "potts.jsonl", "btc_crowd.jsonl")
T = TypeVar("T")


# --- measuring ------------------------------------------------------------------------------


def best_of(repeats: int, fn: Callable[[], T]) -> tuple[float, T]:
    """The shortest wall time of ``repeats`` calls of ``fn``, and the last call's result."""
    best = float("inf")
    result: Any = None
    for _ in range(repeats):
        result = None  # free the previous result before the next run
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def json_parse(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def cli_command() -> tuple[list[str], dict[str, str]]:
    """How to run ``spanagree`` as a subprocess: the console script if installed next to this
    interpreter, else ``python -m spanagree.app.cli`` with the checkout on PYTHONPATH."""
    env = dict(os.environ)
    script = Path(sys.executable).parent / "spanagree"
    if script.exists():
        return [str(script)], env
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return [sys.executable, "-m", "spanagree.app.cli"], env


def run_cli(path: Path, *options: str) -> dict[str, Any] | None:
    """Run ``spanagree score FILE [options]``; return the parsed JSON (None if not JSON)."""
    command, env = cli_command()
    done = subprocess.run(
        [*command, "score", str(path), *options],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"spanagree score {path} exited with {done.returncode}:\n{done.stderr[-2000:]}"
        )
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        return None


def json_parse_process(path: Path) -> None:
    """Parse the file with the standard json module in a fresh interpreter (the like-for-like
    baseline of a CLI run: both pay interpreter start-up)."""
    code = "import json, sys\nwith open(sys.argv[1], 'rb') as f:\n    [json.loads(line) for line in f]"
    subprocess.run([sys.executable, "-c", code, str(path)], check=True)


def cli_startup() -> None:
    """``spanagree --help``: interpreter start-up and imports, the fixed cost of every CLI run."""
    command, env = cli_command()
    subprocess.run([*command, "--help"], capture_output=True, check=True, env=env, cwd=ROOT)


def headline(report: dict[str, Any]) -> tuple[float | None, float | None]:
    overall = report["overall"]
    return overall.get("pairwise_mean_psa"), overall.get("pooled_psa")


# --- the benchmark --------------------------------------------------------------------------


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        nervaluate_version = version("nervaluate")
    except PackageNotFoundError:
        nervaluate_version = "?"
    return {
        "platform": platform.platform(),
        "cpu": f"{cpu}, {os.cpu_count()} logical CPUs",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "nervaluate": nervaluate_version,
    }


def corpus_facts(path: Path, lines: list[dict[str, Any]]) -> dict[str, Any]:
    """Size, lines, spans, documents and raters of a parsed JSONL corpus."""
    return {
        "file": path,
        "bytes": path.stat().st_size,
        "lines": len(lines),
        "spans": sum(len(x["spans"]) for x in lines),
        "documents": len({x["doc_id"] for x in lines}),
        "raters": len(peers.raters_of(lines)),
    }


def bench_synthetic(path: Path, repeats: int) -> dict[str, Any]:
    """Time json, read, score (overlap, exact) and nervaluate on one synthetic corpus."""
    t_json, lines = best_of(repeats, lambda: json_parse(path))
    t_read, corpus = best_of(repeats, lambda: spanagree.read([path]))
    t_overlap, overlap = best_of(
        repeats, lambda: spanagree.score(corpus, rule="overlap", labels="strict")
    )
    t_exact, exact = best_of(repeats, lambda: spanagree.score(corpus, rule="exact", labels="strict"))
    t_tree, _ = best_of(
        repeats, lambda: spanagree.score(corpus, rule="overlap", labels="strict", search="tree")
    )
    overlap, exact = overlap.to_dict(), exact.to_dict()

    labels = peers.labels_of(lines)
    peer_rows = []
    for ra, rb in peers.rater_pairs(lines):
        results = [peers.run_nervaluate(lines, ra, rb, labels=labels) for _ in range(repeats)]
        peer_rows.append(min(results, key=lambda r: r.seconds))

    # Parity: spanagree's exact-rule counts are nervaluate's strict counts, pair by pair.
    ours = {tuple(p["raters"]): p for p in exact["pairs"]}
    assert sorted(ours) == [r.raters for r in peer_rows], (sorted(ours), peer_rows)
    for r in peer_rows:
        p = ours[r.raters]
        assert p["a"] == r.correct, (r.raters, p["a"], r.counts())
        assert p["b"] == r.missed + r.incorrect, (r.raters, p["b"], r.counts())
        assert p["c"] == r.spurious + r.incorrect, (r.raters, p["c"], r.counts())

    return {
        **corpus_facts(path, lines),
        "json": t_json,
        "read": t_read,
        "score_overlap": t_overlap,
        "score_exact": t_exact,
        "score_tree": t_tree,
        "peers": peer_rows,
        "exact": headline(exact),
        "overlap": headline(overlap),
        "pairs_exact": [(tuple(p["raters"]), p["a"], p["psa"]) for p in exact["pairs"]],
    }


def bench_real(path: Path, repeats: int) -> dict[str, Any]:
    """Time the CLI end to end against json parsing; compute the headline figures."""
    t_json, lines = best_of(repeats, lambda: json_parse(path))
    t_json_process, _ = best_of(repeats, lambda: json_parse_process(path))
    t_cli, _ = best_of(repeats, lambda: run_cli(path))
    t_cli_json, cli_report = best_of(repeats, lambda: run_cli(path, "--output", "json"))
    corpus = spanagree.read([path])
    figures = {
        rule: headline(spanagree.score(corpus, rule=rule, labels="strict").to_dict())
        for rule in ("exact", "overlap")
    }
    return {
        **corpus_facts(path, lines),
        "json": t_json,
        "json_process": t_json_process,
        "cli": t_cli,
        "cli_json": t_cli_json,
        "cli_json_ok": isinstance(cli_report, dict),
        **figures,
    }


# --- reporting ------------------------------------------------------------------------------


def fmt_psa(x: float | None) -> str:
    return "undefined" if x is None else f"{x:.3f}"


def ratio(x: float, base: float) -> str:
    return f"{x / base:.2f}×" if base > 0 else "–"


def render(synth: dict[str, Any], real: list[dict[str, Any]], skipped: list[str],
           startup: float | None, info: dict[str, str], command: str, repeats: int) -> str:
    s = synth
    out = [
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}  ",
        f"Machine: {info['platform']}; {info['cpu']}; Python {info['python']}; "
        f"numpy {info['numpy']}; nervaluate {info['nervaluate']}  ",
        f"Each time is the best of {repeats} runs, in seconds.",
        "",
        f"### Synthetic corpus `{s['file'].name}`",
        "",
        f"{s['documents']:,} documents, {s['raters']} raters, {s['lines']:,} lines, "
        f"{s['spans']:,} spans, {s['bytes'] / 1e6:.1f} MB.",
        "",
        "| step | seconds | vs json parsing |",
        "|---|---:|---:|",
        f"| `json.loads` line by line | {s['json']:.3f} | 1.00× |",
        f"| `spanagree.read` | {s['read']:.3f} | {ratio(s['read'], s['json'])} |",
        f"| `spanagree.score(rule=\"overlap\")`, all pairs and labels | {s['score_overlap']:.3f} "
        f"| {ratio(s['score_overlap'], s['json'])} |",
        f"| `spanagree.score(rule=\"exact\")`, all pairs and labels | {s['score_exact']:.3f} "
        f"| {ratio(s['score_exact'], s['json'])} |",
        f"| `spanagree.score(rule=\"overlap\", search=\"tree\")`: interval trees instead of the "
        f"sorted sweep | {s['score_tree']:.3f} | {ratio(s['score_tree'], s['json'])} |",
    ]
    peer_total = sum(r.seconds for r in s["peers"])
    for r in s["peers"]:
        out.append(f"| nervaluate `{r.raters[0]}` vs `{r.raters[1]}` | {r.seconds:.3f} "
                   f"| {ratio(r.seconds, s['json'])} |")
    out += [
        f"| nervaluate, all {len(s['peers'])} pairs | {peer_total:.3f} "
        f"| {ratio(peer_total, s['json'])} |",
        "",
        f"nervaluate (all pairs) takes {ratio(peer_total, s['score_overlap'])} the time of "
        f"`spanagree.score(rule=\"overlap\")` and {ratio(peer_total, s['read'] + s['score_overlap'])} "
        f"that of `read` + `score` together. spanagree's exact-rule counts equal nervaluate's "
        f"strict counts for every pair (a = correct, b = missed + incorrect, "
        f"c = spurious + incorrect): "
        + ", ".join(f"{ra}–{rb} a = {a:,.0f} (PSA {fmt_psa(psa)})"
                    for (ra, rb), a, psa in s["pairs_exact"])
        + ".",
        "",
        f"Headline: pairwise mean PSA {fmt_psa(s['exact'][0])} exact, "
        f"{fmt_psa(s['overlap'][0])} overlap; pooled PSA {fmt_psa(s['exact'][1])} exact, "
        f"{fmt_psa(s['overlap'][1])} overlap.",
    ]
    if real or skipped:
        out += [
            "",
            "### Real corpora: `spanagree score FILE` end to end",
            "",
            "Both sides run as a fresh process: `python -c` parsing every line with the standard "
            "`json` module, against `spanagree score FILE` (interpreter start-up, imports, reading, "
            "aligning all pairs, the table) and `spanagree score FILE --output json` (the whole "
            "report, every pair and document, as JSON). The in-process json time is given too"
            + (f"; start-up and imports alone (`spanagree --help`) take {startup:.3f} s."
               if startup is not None else "."),
            "",
            "| corpus | docs | raters | spans | MB | json in-process | json process "
            "| `spanagree score` | ratio | `--output json` | ratio "
            "| mean PSA exact | pooled PSA exact | mean PSA overlap | pooled PSA overlap |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in real:
            out.append(
                f"| `{r['file'].name}` | {r['documents']:,} | {r['raters']:,} "
                f"| {r['spans']:,} | {r['bytes'] / 1e6:.1f} | {r['json']:.3f} | {r['json_process']:.3f} "
                f"| {r['cli']:.3f} | {ratio(r['cli'], r['json_process'])} "
                f"| {r['cli_json']:.3f} | {ratio(r['cli_json'], r['json_process'])} "
                f"| {fmt_psa(r['exact'][0])} "
                f"| {fmt_psa(r['exact'][1])} | {fmt_psa(r['overlap'][0])} "
                f"| {fmt_psa(r['overlap'][1])} |"
            )
        for name in skipped:
            out.append(f"| `{name}` | not found, skipped |" + " |" * 13)
    return "\n".join(out) + "\n"


def checkout_options(parser, section_title: str) -> None:
    """The options of a benchmark that compares this checkout with another (``--other DIR``)."""
    parser.add_argument("--other", type=Path, required=True, help="a checkout of the commit to compare with")
    parser.add_argument("--other-name", default="before", help="its name in the table")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--write-results", action="store_true",
                        help=f"write the section '{section_title}' of bench/RESULTS.md")


def compiled_checkouts(args) -> dict[str, Path]:
    """``{name: folder}`` of the other checkout and this one, both byte-compiled first, as an
    install leaves them (a module is not timed compiling)."""
    trees = {args.other_name: args.other.resolve(), "this checkout": ROOT}
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "spanagree")], check=True)
    return trees


def publish(body: str, section_title: str, write: bool) -> None:
    """Print a section's body and, when ``write``, put it in bench/RESULTS.md."""
    print(body)
    if write:
        write_results(body, ROOT / "bench" / "RESULTS.md", section_title)


def write_results(body: str, path: Path, section_title: str = SECTION) -> None:
    """Write or replace one section of ``path`` (default SECTION), leaving the others alone."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    lines = text.splitlines(keepends=True)
    start = next((i for i, x in enumerate(lines) if x.rstrip() == section_title), None)
    section = f"{section_title}\n\n{body}"
    if start is None:
        new = text.rstrip("\n") + "\n\n" + section
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        after = "".join(lines[end:])
        new = "".join(lines[:start]) + section + ("\n" + after if after else "")
    path.write_text(new, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "bench/data/synth_10k.jsonl",
                        help="synthetic JSONL (bench/generate.py)")
    parser.add_argument("--real-dir", type=Path, default=None,
                        help="directory with toxic_spans.jsonl, potts.jsonl, btc_crowd.jsonl")
    parser.add_argument("--repeats", type=int, default=3, help="runs per timing; best is kept")
    parser.add_argument("--write-results", action="store_true",
                        help=f"write the section '{SECTION}' of bench/RESULTS.md")
    args = parser.parse_args(argv)
    if not args.data.exists():
        parser.error(f"{args.data} not found: generate it with bench/generate.py")
    command = "python " + shlex.join(sys.argv if argv is None else [sys.argv[0], *argv])

    info = machine()
    print(f"synthetic corpus {args.data} ...", file=sys.stderr)
    synth = bench_synthetic(args.data, args.repeats)
    real, skipped = [], []
    startup = None
    if args.real_dir is not None:
        startup, _ = best_of(args.repeats, cli_startup)
        for name in REAL_CORPORA:
            path = args.real_dir / name
            if not path.exists():
                print(f"{path} not found: skipped", file=sys.stderr)
                skipped.append(name)
                continue
            print(f"real corpus {path} ...", file=sys.stderr)
            real.append(bench_real(path, args.repeats))

    body = render(synth, real, skipped, startup, info, command, args.repeats)
    print(body)
    if args.write_results:
        results = ROOT / "bench" / "RESULTS.md"
        write_results(body, results)
        print(f"wrote section '{SECTION}' of {results}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
