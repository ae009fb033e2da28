"""Benchmark the engines (issue 7): time and peak memory on 10k, 100k and 1M documents.

    python bench/bench_scale.py [--sizes 10k,100k,1m] [--repeats 3] [--write-results] [--delete-data]

Corpora: ``spanagree.io.synthetic.generate_corpus(n, n_raters=3, seed=0)``, one line per (document,
rater), grouped by document, written to ``bench/data/synth_<size>.jsonl`` when missing (the same
files ``bench/generate.py`` writes; the 1M one is about 1.6 GB; ``--delete-data`` removes the
files this run generated).

Each run is a fresh process that calls ``spanagree.score(FILE, rule="overlap", ...)`` and
``report.summary()`` (what ``spanagree score FILE`` prints), in one of these modes:

* ``serial``: ``stream=False``, the in-memory path (the whole corpus read into memory, then counted);
* ``default``: no option at all: in memory below ``spanagree.engine.mode.AUTO_ENGINE_BYTES``,
  the engine on every core above it (input grouped by document);
* ``stream``: ``stream=True``, one process reading chunk by chunk (bounded memory);
* ``jobs2``: ``jobs=2``, a pool of two processes;
* ``dask2``: ``engine="dask"`` on a ``distributed.LocalCluster(n_workers=2, threads_per_worker=1,
  processes=True)`` started in the same process beforehand (its start-up is timed separately).

Time is the wall time of score + summary (best of ``--repeats``; one run for 1M documents).
Memory: the main process's peak resident set (``VmHWM``, exact), and the peak of the sum of
the resident sets of the main process and all its descendants (workers), sampled every 50 ms
from ``/proc`` (Linux). Every mode must give the same headline figures; the run checks it.

Other layouts (``--layouts-size``, default 100k): the same corpus as one file per rater
(``bench/data/synth_<size>_by_rater/rater_<k>.jsonl``, in document order) and as one file with its
lines shuffled (``synth_<size>_shuffled.jsonl``: not grouped, so the engines read the documents
again through the line index).

``--write-results`` writes (or replaces) the section "## Scale" of ``bench/RESULTS.md`` and the
plot ``bench/scale.png``.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout
sys.path.insert(0, str(ROOT / "bench"))

SECTION = "## Scale"
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}
MODES = ("serial", "default", "stream", "jobs2", "dask2")
MODE_LABELS = {
    "serial": "`stream=False` (serial, in memory)",
    "default": "no option (chosen by size)",
    "stream": "`stream=True` (1 process)",
    "jobs2": "`jobs=2`",
    "dask2": "Dask, 2 local workers",
}


# --- the measured process -----------------------------------------------------------------------


def child(mode: str, path: str) -> None:
    """One measured run; prints a JSON line with the timings and the headline figures."""
    import spanagree

    out: dict[str, Any] = {"mode": mode}
    options: dict[str, Any] = {"rule": "overlap"}
    cluster = client = None
    if mode == "serial":
        options["stream"] = False
    elif mode == "stream":
        options["stream"] = True
    elif mode == "jobs2":
        options["jobs"] = 2
    elif mode == "dask2":
        from distributed import Client, LocalCluster

        t0 = time.perf_counter()
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        out["cluster_seconds"] = time.perf_counter() - t0
        options.update(engine="dask", client=client)
    t0 = time.perf_counter()
    report = spanagree.score(path, **options)
    summary = report.summary()
    out["seconds"] = time.perf_counter() - t0
    out["headline"] = [summary["overall"][k] for k in ("pairwise_mean_psa", "pooled_psa", "a", "b", "c")]
    out["documents"] = summary["documents"]["scored"]
    out["engine"] = getattr(report.corpus, "engine", None)
    if client is not None:
        client.close()
        cluster.close()
    out["main_peak_mb"] = peak_mb()
    print(json.dumps(out))


def peak_mb() -> float:
    """This process's peak resident set: ``VmHWM`` (Linux), else ``ru_maxrss`` (which, after a
    fork and exec, starts from the parent's size)."""
    try:
        with open("/proc/self/status", "rb") as f:
            for text in f:
                if text.startswith(b"VmHWM:"):
                    return int(text.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- measuring ----------------------------------------------------------------------------------


class TreeMemory:
    """Samples the summed resident set of a process and its descendants (Linux ``/proc``)."""

    def __init__(self, pid: int, every: float = 0.05) -> None:
        self.pid, self.every = pid, every
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak_kb / 1024

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_kb = max(self.peak_kb, self._sample())
            self._stop.wait(self.every)

    def _sample(self) -> int:
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as f:
                        stat = f.read()
                    parents[int(entry)] = int(stat[stat.rindex(b")") + 2 :].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
        tree, frontier = {self.pid}, [self.pid]
        children: dict[int, list[int]] = {}
        for pid, ppid in parents.items():
            children.setdefault(ppid, []).append(pid)
        while frontier:
            for kid in children.get(frontier.pop(), []):
                if kid not in tree:
                    tree.add(kid)
                    frontier.append(kid)
        total = 0
        for pid in tree:
            try:
                with open(f"/proc/{pid}/status", "rb") as f:
                    for text in f:
                        if text.startswith(b"VmRSS:"):
                            total += int(text.split()[1])
                            break
            except OSError:
                continue
        return total


def measure(mode: str, path: Path) -> dict[str, Any]:
    process = subprocess.Popen(
        [sys.executable, __file__, "--child", mode, str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    memory = TreeMemory(process.pid)
    stdout, stderr = process.communicate()
    tree_peak = memory.stop()
    if process.returncode != 0:
        raise RuntimeError(f"{mode} on {path} exited with {process.returncode}:\n{stderr[-3000:]}")
    result = json.loads(stdout.strip().splitlines()[-1])
    result["tree_peak_mb"] = max(tree_peak, result["main_peak_mb"])
    return result


def ensure_layouts(path: Path) -> dict[str, Path]:
    """The corpus as one file per rater and as one shuffled file, written when missing."""
    import random

    by_rater = path.with_name(path.stem + "_by_rater")
    shuffled = path.with_name(path.stem + "_shuffled.jsonl")
    if not by_rater.exists():
        by_rater.mkdir()
        handles: dict[str, Any] = {}
        with open(path, "rb") as f:
            for raw in f:
                rater = json.loads(raw)["annotator"]
                if rater not in handles:
                    handles[rater] = open(by_rater / f"{rater}.jsonl", "wb")
                handles[rater].write(raw)
        for handle in handles.values():
            handle.close()
    if not shuffled.exists():
        with open(path, "rb") as f:
            lines = f.readlines()
        random.Random(0).shuffle(lines)
        with open(shuffled, "wb") as f:
            f.writelines(lines)
        del lines
    return {"one file per rater": by_rater, "lines shuffled": shuffled}


def ensure_corpus(size: str) -> tuple[Path, bool]:
    """The corpus file, generated if missing; True when this run generated it."""
    from spanagree.io.synthetic import generate_corpus, write_jsonl

    path = ROOT / "bench" / "data" / f"synth_{size}.jsonl"
    if path.exists():
        return path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    print(f"generating {path} ...", file=sys.stderr)
    partial = path.with_suffix(".part")
    write_jsonl(generate_corpus(SIZES[size], n_raters=3, seed=0), partial)
    partial.rename(path)
    return path, True


# --- results ------------------------------------------------------------------------------------


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| documents | MB | mode | seconds | vs in memory | main process peak MB | all processes peak MB |",
        "|---:|---:|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        base = next((r["seconds"] for r in rows if r["size"] == row["size"] and r["mode"] == "serial"), None)
        seconds = f"{row['seconds']:.2f}"
        if row["mode"] == "dask2":
            seconds += f" (+{row['cluster_seconds']:.1f} cluster start)"
        ratio = "–" if base is None else f"{base / row['seconds']:.2f}×"
        lines.append(
            f"| {row['n_documents']:,} | {row['mb']:,.0f} | {MODE_LABELS[row['mode']]} | {seconds} "
            f"| {ratio} | {row['main_peak_mb']:,.0f} | {row['tree_peak_mb']:,.0f} |"
        )
    return "\n".join(lines)


def layout_table(rows: list[dict[str, Any]], base_rows: list[dict[str, Any]]) -> str:
    lines = [
        "| layout | mode | seconds | vs in memory | main process peak MB | all processes peak MB | read |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        base = next(r["seconds"] for r in rows if r["layout"] == row["layout"] and r["mode"] == "serial")
        engine = row.get("engine") or {}
        if not engine:
            how = "in memory"
        elif engine.get("grouped"):
            how = "one pass" + (f", {engine['files_aligned']} files cut at the same documents" if engine.get("files_aligned") else "")
        else:
            how = f"{engine['documents_split']:,} documents read again ({engine['bytes_read_again'] / 1e6:,.0f} MB)"
        seconds = f"{row['seconds']:.2f}"
        if row["mode"] == "dask2":
            seconds += f" (+{row['cluster_seconds']:.1f})"
        lines.append(
            f"| {row['layout']} | {MODE_LABELS[row['mode']]} | {seconds} | {base / row['seconds']:.2f}× "
            f"| {row['main_peak_mb']:,.0f} | {row['tree_peak_mb']:,.0f} | {how} |"
        )
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for mode in MODES:
        mine = sorted((r for r in rows if r["mode"] == mode), key=lambda r: r["n_documents"])
        if not mine:
            continue
        x = [r["n_documents"] for r in mine]
        label = MODE_LABELS[mode].replace("`", "")
        left.plot(x, [r["seconds"] for r in mine], marker="o", label=label)
        right.plot(x, [r["tree_peak_mb"] for r in mine], marker="o", label=label)
    for ax, title, unit in ((left, "time: score + summary", "seconds"),
                            (right, "peak memory, all processes", "MB")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("documents (3 raters)")
        ax.set_ylabel(unit)
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    right.axhline(500, color="grey", linestyle="--", linewidth=1)
    right.annotate("500 MB", (rows[0]["n_documents"], 500), textcoords="offset points", xytext=(0, 4), fontsize=8)
    left.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k,100k,1m", help="comma-separated, of: " + ", ".join(SIZES))
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated, of: " + ", ".join(MODES))
    parser.add_argument("--repeats", type=int, default=3, help="runs per timing below 1M documents; best kept")
    parser.add_argument("--layouts-size", default="100k", help="size for the other layouts ('' for none)")
    parser.add_argument("--write-results", action="store_true", help=f"write '{SECTION}' of bench/RESULTS.md and bench/scale.png")
    parser.add_argument("--delete-data", action="store_true", help="delete the corpora this run generated")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    command = "python " + shlex.join(sys.argv if argv is None else [sys.argv[0], *argv])
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    rows: list[dict[str, Any]] = []
    layout_rows: list[dict[str, Any]] = []
    load = os.getloadavg()[0]

    def run_modes(path: Path, repeats: int, **labels) -> list[dict[str, Any]]:
        out = []
        for mode in modes:
            runs = []
            for _ in range(repeats):
                print(f"{path.name} {mode} ...", file=sys.stderr)
                runs.append(measure(mode, path))
            best = min(runs, key=lambda r: r["seconds"])
            best["main_peak_mb"] = max(r["main_peak_mb"] for r in runs)
            best["tree_peak_mb"] = max(r["tree_peak_mb"] for r in runs)
            best.update(labels)
            out.append(best)
            print(json.dumps(best), file=sys.stderr)
        return out

    for size in sizes:
        path, new = ensure_corpus(size)
        repeats = 1 if SIZES[size] >= 1_000_000 else args.repeats
        rows += run_modes(path, repeats, size=size, n_documents=SIZES[size], mb=path.stat().st_size / 1e6)
        if size == args.layouts_size:
            for layout, other in ensure_layouts(path).items():
                layout_rows += run_modes(other, repeats, layout=layout, size=size)
        headlines = {json.dumps(r["headline"]) for r in rows + layout_rows if r["size"] == size}
        if len(headlines) != 1:
            raise SystemExit(f"the modes disagree on {size}: {headlines}")
        if args.delete_data and new:
            path.unlink()
    body = results(rows, command, load, layout_rows)
    print(body)
    if args.write_results:
        from bench_core import write_results

        plot(rows, ROOT / "bench" / "scale.png")
        write_results(body, ROOT / "bench" / "RESULTS.md", SECTION)
    return 0


def results(rows: list[dict[str, Any]], command: str, load: float, layout_rows: list[dict[str, Any]]) -> str:
    from bench_core import machine

    info = machine()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    by = {(r["size"], r["mode"]): r for r in rows}
    notes = []
    if ("100k", "serial") in by and ("100k", "jobs2") in by:
        speed = by["100k", "serial"]["seconds"] / by["100k", "jobs2"]["seconds"]
        stream = by.get(("100k", "stream"))
        also = f" ({stream['seconds'] / by['100k', 'jobs2']['seconds']:.2f}× `stream=True`)" if stream else ""
        notes.append(f"- 100k documents: `jobs=2` is {speed:.2f}× as fast as `jobs=1`{also} (target: 1.6×).")
    if ("1m", "stream") in by:
        notes.append(
            f"- 1M documents, grouped, streamed in one process: peak {by['1m', 'stream']['main_peak_mb']:,.0f} MB "
            f"(target: under 500 MB); `jobs=1` holds the whole corpus: {by['1m', 'serial']['main_peak_mb']:,.0f} MB."
            if ("1m", "serial") in by else
            f"- 1M documents, grouped, streamed in one process: peak {by['1m', 'stream']['main_peak_mb']:,.0f} MB."
        )
    for size in ("100k", "1m"):
        if (size, "default") in by:
            chosen = by[size, "default"]
            how = f"the engine on {chosen['engine']['workers']} processes" if chosen.get("engine") else "in memory"
            notes.append(
                f"- {size} documents, no option: {how}, {chosen['seconds']:.2f} s, all processes peak "
                f"{chosen['tree_peak_mb']:,.0f} MB (target at 1M: under 500 MB)."
            )
    if ("100k", "stream") in by and ("100k", "jobs2") in by:
        notes.append(
            f"- 100k documents, the engine in two processes against one (`jobs=2` against `stream=True`, "
            f"both chunk by chunk): {by['100k', 'stream']['seconds'] / by['100k', 'jobs2']['seconds']:.2f}× (target: 1.8×)."
        )
    if any(r["mode"] == "dask2" for r in rows):
        notes.append(
            "- Dask: the same chunks as `jobs=2`, as a `dask.bag` on a local cluster of two worker processes; "
            "its scheduler and client run in the main process, and results travel over TCP."
        )
    headline = rows[0]["headline"] if rows else None
    return (
        f"Command: `{command}`  \n"
        f"Date: {date}  \n"
        f"Machine: {info['platform']}; {info['cpu']}; Python {info['python']}; numpy {info['numpy']}; "
        f"load average {load:.2f} when the run started (other work on the machine makes times noisy)  \n"
        "Corpora: `spanagree.io.synthetic.generate_corpus(n, n_raters=3, seed=0)`, grouped by document "
        "(`bench/data/synth_<size>.jsonl`). Each run: a fresh process, `spanagree.score(FILE, rule=\"overlap\", ...)` "
        "then `report.summary()`; seconds are the best of "
        "the repeats (one run at 1M); memory is the highest of the repeats: the main process's peak resident set (`VmHWM`), "
        "and the sum over the main process and its workers sampled every 50 ms.\n\n"
        f"{table(rows)}\n\n"
        + "\n".join(notes)
        + ("\n\nEvery mode gives the same figures (checked on each size); at "
           f"{rows[0]['n_documents']:,} documents the pairwise mean PSA is {headline[0]:.6f}."
           if headline else "")
        + "\n\n![time and peak memory by mode](scale.png)\n"
        + (
            f"\n### The same {layout_rows[0]['size']} corpus in other layouts\n\n"
            "One file per rater (three files, each in document order) is grouped across files: the planner "
            "cuts every file at the same documents. Shuffled lines are not grouped: the first pass finds "
            "every document in several tasks, and the documents are read again, whole, from the line "
            "ranges it recorded (a `NotGroupedWarning` says so).\n\n"
            f"{layout_table(layout_rows, rows)}\n"
            if layout_rows else ""
        )
    )


if __name__ == "__main__":
    raise SystemExit(main())
