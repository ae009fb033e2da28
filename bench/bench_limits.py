"""Whole processes side by side with the limit or the peer: wall time and peak memory.

    python bench/bench_limits.py --real-dir DIR [--runs 3] [--write-results]
        [--large bench/data/synth_1m.jsonl] [--medium bench/data/synth_100k.jsonl]

Each row runs spanagree as a user would (``python -m spanagree ...``, from this checkout) and,
beside it, the process it is measured against: a process that only parses the same file with
orjson (the floor for reading it at all), the same file parsed with the standard library, or a
plain ``score`` when the row adds work to it (intervals, the HTML report). The commands of one
row run interleaved, ``--runs`` times each, and the medians are kept (the machine is shared).
Peak memory is the child's maximum resident set size (with worker processes: the largest one
process's, not their sum; ``bench/bench_scale.py`` samples the sum).

``--candidates-documents N`` adds ``score --candidates tokens`` on N generated documents (about 31
tokens each, 3 raters, tokens in the input) beside a process that loads the same items × raters
matrix of token labels (``.npy``) and runs ``krippendorff.alpha`` (nominal) on it, nothing else.

``--large FILE`` adds the run with no option on a large grouped corpus (the engine on every core,
chosen by size) beside an orjson parse of the same file; ``--medium FILE`` adds ``--jobs 2``
beside ``--jobs 1 --stream`` (the same engine in one process) and ``--no-stream`` (in memory).
Corpora: ``python bench/generate.py --documents 1000000 -o bench/data/synth_1m.jsonl`` (and 100000).
"""
from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_core import machine, publish  # noqa: E402

SECTION = "## Limits: whole processes"
PY = sys.executable


def parse_only(path: Path, parser: str) -> list[str]:
    """A process that parses every line of ``path`` and does nothing else."""
    loads = "orjson.loads" if parser == "orjson" else "json.loads"
    code = f"import {parser}\nfor line in open({str(path)!r}, 'rb'):\n    {loads}(line)\n"
    return [PY, "-c", code]


def spanagree(*args: str) -> list[str]:
    return [PY, "-m", "spanagree", *args]


#: GNU time, a small process, starts each command: on Linux a child's peak resident set starts
#: from its parent's at the fork, so a command forked from this (larger) process would report
#: at least this process's memory.
TIME = "/usr/bin/time" if Path("/usr/bin/time").exists() else None


def run(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MB of one child process."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        launched = [TIME, "-f", "%M", "-o", rss.name, *command] if TIME else command
        start = time.perf_counter()
        child = subprocess.Popen(launched, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise SystemExit(f"failed: {shlex.join(command)}")
        peak_kb = float(rss.read().split()[-1]) if TIME else usage.ru_maxrss
    return wall, peak_kb / 1024


def token_corpus(out_dir: Path, n_documents: int) -> tuple[Path, Path, int]:
    """A generated corpus with whitespace tokens, and the items × raters matrix of its token
    labels as spanagree's candidates see it (NaN where a rater did not see the document), for
    ``krippendorff.alpha``; and the number of tokens."""
    import numpy as np

    sys.path.insert(0, str(ROOT))
    import spanagree
    from spanagree.io.synthetic import generate_corpus, write_jsonl
    from spanagree.io.candidates import document_tokens
    from spanagree.measures.chance.candidates import build_items

    def with_tokens(records):
        for record in records:
            text, start, tokens = record["text"], 0, []
            for word in text.split(" "):
                tokens.append({"start": start, "end": start + len(word)})
                start += len(word) + 1
            yield {**record, "tokens": tokens}

    corpus_path, matrix_path = out_dir / "tokens.jsonl", out_dir / "tokens.npy"
    write_jsonl(with_tokens(generate_corpus(n_documents, 3, seed=0)), corpus_path)
    corpus = spanagree.read(corpus_path)
    items = build_items(corpus, "tokens", spanagree.AlignmentRule(), tokens=document_tokens(corpus, "en"))
    matrix = np.full((len(corpus.raters), items.n_items), np.nan)
    matrix[items.rating_rater, items.rating_item] = items.rating_code
    np.save(matrix_path, matrix)
    return corpus_path, matrix_path, items.n_items


def krippendorff_only(matrix: Path) -> list[str]:
    """A process that loads the matrix and computes nominal α with the krippendorff package."""
    code = (f"import numpy, krippendorff\nm = numpy.load({str(matrix)!r})\n"
            "krippendorff.alpha(reliability_data=m, level_of_measurement='nominal')\n")
    return [PY, "-c", code]


def rows(
    real: Path, out_dir: Path, large: Path | None = None, medium: Path | None = None, candidates_documents: int = 0
) -> list[tuple[str, list[str], list[tuple[str, list[str]]]]]:
    """(work, spanagree command, [(peer name, peer command), ...]) for each row."""
    toxic = real / "toxic_spans.jsonl"
    plain = spanagree("score", str(toxic))
    extra = []
    if candidates_documents:
        corpus, matrix, n_tokens = token_corpus(out_dir, candidates_documents)
        extra.append((f"`score --candidates tokens`, {n_tokens:,} tokens × 3 raters",
                      spanagree("score", str(corpus), "--candidates", "tokens"),
                      [("`krippendorff.alpha` alone on the same matrix", krippendorff_only(matrix))]))
    if medium is not None:
        extra.append((f"`score {medium.name} --jobs 2`", spanagree("score", str(medium), "--jobs", "2"),
                      [("`--jobs 1 --stream`", spanagree("score", str(medium), "--jobs", "1", "--stream")),
                       ("`--no-stream`", spanagree("score", str(medium), "--no-stream"))]))
    if large is not None:
        extra.append((f"`score {large.name}`, no option", spanagree("score", str(large)),
                      [("orjson parse", parse_only(large, "orjson"))]))
    return extra + [
        ("`score toxic_spans.jsonl`, table", plain,
         [("orjson parse", parse_only(toxic, "orjson")), ("json parse", parse_only(toxic, "json"))]),
        ("the same, `--output json`", spanagree("score", str(toxic), "--output", "json"),
         [("orjson parse", parse_only(toxic, "orjson"))]),
        ("`score toxic_spans.jsonl --bootstrap 1000`", spanagree("score", str(toxic), "--bootstrap", "1000"),
         [("plain score", plain)]),
        ("`report toxic_spans.jsonl`", spanagree("report", str(toxic), "-o", str(out_dir / "report.html")),
         [("plain score", plain)]),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real-dir", type=Path, required=True, help="directory with toxic_spans.jsonl")
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs per command; medians kept")
    parser.add_argument("--write-results", action="store_true", help=f"write the section '{SECTION}' of bench/RESULTS.md")
    parser.add_argument("--large", type=Path, help="a large grouped corpus (e.g. 1M documents): the run with no option")
    parser.add_argument("--medium", type=Path, help="a grouped corpus of about 100k documents: --jobs 2 against one process")
    parser.add_argument("--candidates-documents", type=int, default=0,
                        help="generated documents for the --candidates tokens row (about 31 tokens each; 0: no row)")
    args = parser.parse_args(argv)
    command = "python " + shlex.join(sys.argv if argv is None else [sys.argv[0], *argv])
    lines = [
        f"`{command}` ({machine()['cpu']}; load average {os.getloadavg()[0]:.1f} at the start).",
        "Medians of interleaved runs; memory is the peak resident set of the process.",
        "",
        "| work | spanagree | peer or limit | ratio |",
        "|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for work, ours, peers in rows(args.real_dir, Path(tmp), args.large, args.medium, args.candidates_documents):
            commands = [ours] + [c for _, c in peers]
            samples: list[list[tuple[float, float]]] = [[] for _ in commands]
            for _ in range(args.runs):
                for k, c in enumerate(commands):
                    samples[k].append(run(c))
            wall = [statistics.median(s[0] for s in runs) for runs in samples]
            peak = [max(s[1] for s in runs) for runs in samples]
            peer_text = "; ".join(f"{name}: {wall[k + 1]:.2f} s, {peak[k + 1]:.0f} MB" for k, (name, _) in enumerate(peers))
            ratio = "; ".join(f"{wall[0] / wall[k + 1]:.1f}× {name}" for k, (name, _) in enumerate(peers))
            row = f"| {work} | {wall[0]:.2f} s, {peak[0]:.0f} MB | {peer_text} | {ratio} |"
            print(row, flush=True)
            lines.append(row)
    publish("\n".join(lines) + "\n", SECTION, args.write_results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
