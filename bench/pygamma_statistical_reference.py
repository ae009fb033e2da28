"""Reference values for γ's expected disorder under pygamma-agreement's default sampler.

pygamma-agreement's ``compute_gamma`` draws its random continua with ``StatisticalContinuumSampler``
unless told otherwise. This script runs that sampler on each continuum in ``DATA_DIR`` (spanagree
JSONL, one line per rater, one document: the ``pygamma_*`` and ``dkpro_gamma_*`` files of the
shared unitizing cases) and records, per continuum, the observed disorder and the disorder of each
sampled continuum's best alignment (their mean is pygamma's expected disorder). Needs
pygamma-agreement with a MIP solver (``pip install "pygamma-agreement[CBC]"``), which the test
suite does not install; writes ``tests/fixtures/pygamma_statistical.json``.

    python bench/pygamma_statistical_reference.py DATA_DIR
"""
from __future__ import annotations

import json
import sys
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "pygamma_statistical.json"
SEED = 0
#: Continua left out, and why.
SKIP = {
    "pygamma_5by100.jsonl": "5 raters whose 500 units all lie close together: spanagree's exact alignment refuses it "
    "(γ undefined, with that reason), and pygamma-agreement did not finish it (30 samples) in 20 minutes here",
}


def read_case(path: Path):
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    raters = sorted({r["annotator"] for r in rows})
    labels = sorted({s["label"] for r in rows for s in r["spans"]})
    units = sorted({(raters.index(r["annotator"]), labels.index(s["label"]), s["start"], s["end"]) for r in rows for s in r["spans"]})
    return raters, labels, [list(u) for u in units]


def main(data_dir: Path) -> None:
    import pygamma_agreement as pa
    from pyannote.core import Segment

    np.random.seed(SEED)
    cases = []
    paths = [*data_dir.glob("pygamma_*.jsonl"), *data_dir.glob("dkpro_gamma_*.jsonl")]
    for path in sorted(paths, key=lambda p: (len(read_case(p)[2]), p.name)):  # the slowest last
        if path.name in SKIP:
            continue
        raters, labels, units = read_case(path)
        continuum = pa.Continuum()
        for r in raters:
            continuum.add_annotator(r)
        for r, lab, s, e in units:
            continuum.add(raters[r], Segment(s, e), labels[lab])
        dissim = pa.CombinedCategoricalDissimilarity(alpha=1.0, beta=1.0)
        n_samples = 200 if len(units) < 50 else 30
        began = time.time()
        observed = continuum.get_best_alignment(dissim).disorder
        sampler = pa.StatisticalContinuumSampler()
        sampler.init_sampling(continuum)
        disorders = []
        for _ in range(n_samples):
            sample = sampler.sample_from_continuum
            disorders.append(float(sample.get_best_alignment(dissim).disorder))
        expected = float(np.mean(disorders))
        cases.append({
            "name": path.stem, "file": path.name, "units": len(units), "raters": len(raters),
            "observed_disorder": float(observed), "expected_disorder": expected,
            "expected_disorder_sd": float(np.std(disorders)), "samples": n_samples,
            "gamma": 1 - float(observed) / expected if expected > 0 else None,
            "sample_disorders": [round(d, 6) for d in disorders],
        })
        print(path.name, len(units), f"{time.time() - began:.1f}s", cases[-1]["gamma"], flush=True)
        OUT.write_text(json.dumps({"meta": {
            "tool": "pygamma-agreement", "version": version("pygamma-agreement"),
            "sampler": "StatisticalContinuumSampler (compute_gamma's default)",
            "dissimilarity": "CombinedCategoricalDissimilarity(alpha=1, beta=1)", "numpy_seed": SEED,
            "command": "python bench/pygamma_statistical_reference.py ../shared/unitizing-cases",
            "left_out": SKIP,
        }, "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
