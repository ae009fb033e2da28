"""Reference values for γ from pygamma-agreement, computed once and committed as a fixture.

Needs pygamma-agreement (with a MIP solver: ``pip install "pygamma-agreement[CBC]"``), which the
test suite does not install. Writes ``tests/fixtures/pygamma_gamma.json``; see
``tests/fixtures/README.md`` for the version and command used.

    python bench/pygamma_reference.py DATA_DIR

``DATA_DIR`` holds pygamma-agreement's own test continua (``AlexPaulSuzan.csv``,
``3by100.csv``, ``2by1000.csv`` from its ``tests/data``; lines ``annotator,label,start,end``).
"""
from __future__ import annotations

import csv
import json
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "pygamma_gamma.json"


def read_csv(path: Path) -> tuple[list[str], list[str], list[list[int]]]:
    rows = [(a, lab, int(float(s)), int(float(e))) for a, lab, s, e in csv.reader(path.open())]
    raters = sorted({r[0] for r in rows})
    labels = sorted({r[1] for r in rows})
    units = sorted({(raters.index(a), labels.index(lab), s, e) for a, lab, s, e in rows})
    return raters, labels, [list(u) for u in units]


def random_case(rng: np.random.Generator, n_raters: int, n_labels: int, length: int = 40):
    units = set()
    for r in range(n_raters):
        for _ in range(int(rng.integers(0, 7))):
            s = int(rng.integers(0, length - 1))
            units.add((r, int(rng.integers(n_labels)), s, min(length, s + int(rng.integers(1, 8)))))
    return [f"r{r}" for r in range(n_raters)], [f"L{k}" for k in range(n_labels)], [list(u) for u in sorted(units)]


def solve(pa, Segment, raters, labels, units, alpha, beta, matrix, samples, seed):
    continuum = pa.Continuum()
    for r in raters:
        continuum.add_annotator(r)
    for r, lab, s, e in units:
        continuum.add(raters[r], Segment(s, e), labels[lab])
    cat = None
    if matrix is not None:
        from sortedcontainers import SortedSet

        cat = pa.PrecomputedCategoricalDissimilarity(SortedSet(labels), np.array(matrix, dtype=np.float32))
    dissim = pa.CombinedCategoricalDissimilarity(alpha=alpha, beta=beta, cat_dissim=cat)
    best = continuum.get_best_alignment(dissim)
    index = {tuple(u): k for k, u in enumerate(units)}
    tuples = []
    for unitary in best:
        row = [-1] * len(raters)
        for annotator, unit in unitary.n_tuple:
            if unit is not None:
                key = (raters.index(annotator), labels.index(unit.annotation), int(unit.segment.start), int(unit.segment.end))
                row[key[0]] = index[key]
        tuples.append(row)
    out = {
        "observed_disorder": float(best.disorder),
        "alignment": sorted(tuples),
        "cat_disorder": float(best.gamma_k_disorder(dissim, None)),
        "k_disorder": {lab: float(best.gamma_k_disorder(dissim, lab)) for lab in sorted({labels[u[1]] for u in units})},
    }
    if samples:
        np.random.seed(seed)
        result = continuum.compute_gamma(dissim, n_samples=samples, sampler=pa.ShuffleContinuumSampler())
        chance = [a.disorder for a in result.chance_alignments]
        out["gamma"] = {
            "samples": samples,
            "expected_disorder": float(np.mean(chance)),
            "expected_disorder_sd": float(np.std(chance)),
            "value": float(result.gamma),
            "gamma_cat": float(result.gamma_cat),
            "gamma_k": {lab: float(result.gamma_k(lab)) for lab in out["k_disorder"]},
        }
    return out


def main(data_dir: str) -> None:
    import pygamma_agreement as pa
    from pyannote.core import Segment

    cases = []

    def add(name, raters, labels, units, alpha=1.0, beta=1.0, matrix=None, samples=0, seed=0):
        print(name, file=sys.stderr)
        ref = solve(pa, Segment, raters, labels, units, alpha, beta, matrix, samples, seed)
        cases.append({"name": name, "raters": raters, "labels": labels, "units": units, "alpha": alpha,
                      "beta": beta, "matrix": matrix, **ref})

    data = Path(data_dir)
    aps = read_csv(data / "AlexPaulSuzan.csv")
    add("AlexPaulSuzan", *aps, samples=300, seed=1)
    add("AlexPaulSuzan alpha=3", *aps, alpha=3.0)
    add("3by100", *read_csv(data / "3by100.csv"), samples=30, seed=2)
    add("2by1000", *read_csv(data / "2by1000.csv"), samples=30, seed=3)
    rng = np.random.default_rng(2024)
    for k in range(40):
        n_raters = 2 if k % 3 else 3
        n_labels = 2 + k % 2
        matrix = None
        if k % 5 == 4:
            matrix = [[0.0, 0.5, 1.0], [0.5, 0.0, 0.25], [1.0, 0.25, 0.0]][:n_labels]
            matrix = [row[:n_labels] for row in matrix]
        raters, labels, units = random_case(rng, n_raters, n_labels)
        if not units:
            continue
        add(f"random {k}", raters, labels, units, matrix=matrix, samples=300 if k < 8 else 0, seed=k)
    meta = {
        "tool": "pygamma-agreement",
        "version": version("pygamma-agreement"),
        "sampler": "ShuffleContinuumSampler (int pivots)",
        "command": "python bench/pygamma_reference.py DATA_DIR",
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"meta": meta, "cases": cases}, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
