"""Reference values for α_U from DKPro Statistics, computed once and committed as a fixture.

Needs Java and DKPro Statistics' agreement classes compiled with ``bench/dkpro/AlphaU.java``
(a small reader of units on stdin); pass the class path. Writes
``tests/fixtures/dkpro_alpha_u.json``; see ``tests/fixtures/README.md``.

    python bench/dkpro_alpha_u_reference.py CLASSPATH
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "dkpro_alpha_u.json"


def random_case(rng: np.random.Generator):
    """Documents of random lengths; each rater's units of one label never overlap."""
    n_raters = int(rng.integers(2, 5))
    n_labels = int(rng.integers(1, 4))
    lengths = [int(x) for x in rng.integers(5, 60, size=int(rng.integers(1, 4)))]
    units = []
    for d, length in enumerate(lengths):
        for r in range(n_raters):
            for lab in range(n_labels):
                pos = 0
                while True:
                    pos += int(rng.integers(0, 12))
                    size = int(rng.integers(1, 10))
                    if pos + size > length or rng.random() < 0.15:
                        break
                    units.append([d, r, lab, pos, pos + size])
                    pos += size
    return n_raters, n_labels, lengths, units


def main(classpath: str) -> None:
    rng = np.random.default_rng(15)
    cases = [random_case(rng) for _ in range(60)]
    lines = []
    for n_raters, _, lengths, units in cases:
        offset = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        lines.append(f"case {n_raters} {sum(lengths)} {len(units)}")
        lines += [f"{r} L{lab} {s + offset[d]} {e + offset[d]}" for d, r, lab, s, e in units]
    run = subprocess.run(["java", "-cp", classpath, "AlphaU"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True)
    out = []
    for (n_raters, n_labels, lengths, units), row in zip(cases, run.stdout.strip().splitlines()):
        overall, _, *per_label = row.split(" ")
        labels = {k: float(v) for k, v in (p.split(":") for p in per_label)}
        out.append({"raters": n_raters, "labels": n_labels, "lengths": lengths, "units": units,
                    "value": float(overall), "per_label": labels})
    meta = {"tool": "DKPro Statistics (dkpro-statistics-agreement), KrippendorffAlphaUnitizingAgreement",
            "command": "python bench/dkpro_alpha_u_reference.py CLASSPATH"}
    OUT.write_text(json.dumps({"meta": meta, "cases": out}, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({len(out)} cases)", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
