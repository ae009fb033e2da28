"""Benchmark the chance-corrected coefficients against krippendorff, NLTK and statsmodels.

    python bench/bench_stats.py [--items 600000] [--raters 3] [--categories 5] [--write-results]

In one run, on one seeded items × raters matrix of integer categories (2 % missing):

* spanagree: Krippendorff's α (nominal), Fleiss' κ and the three pairwise Cohen κ computed
  together, from one coding of the matrix (``stats.long_ratings``, whose items × categories
  counts every coefficient shares);
* the ``krippendorff`` package's ``alpha`` (nominal) alone on the same data;
* statsmodels' ``fleiss_kappa`` (on its aggregated table) and ``cohens_kappa`` per pair;
* NLTK's ``AnnotationTask`` α on a 20,000-item slice (it is pure Python), scaled to
  the full size for the ratio (marked as scaled);

and the whole chance-corrected family with Gwet's standard errors on every rating
(``spanagree.stats.family``: percent agreement, Brennan–Prediger, Fleiss, Conger, AC1, α),
with the values side by side (they must agree to 1e-9), and the peak memory of α (tracemalloc)
for 5 and for 200 categories, to show that memory grows with the items, not items × k².
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_core import best_of, write_results  # noqa: E402
from spanagree import stats  # noqa: E402
cac = stats  # the family (stats.family) is the same API

SECTION = "## Chance-corrected coefficients"


def make_codes(n_items: int, n_raters: int, k: int, seed: int = 0) -> np.ndarray:
    """Correlated raters: each item has a true category, each rater keeps it with p = 0.7."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    codes = np.where(rng.random((n_items, n_raters)) < 0.7, truth[:, None], rng.integers(0, k, (n_items, n_raters)))
    codes[rng.random((n_items, n_raters)) < 0.02] = -1
    return codes


def ours(codes: np.ndarray, k: int) -> dict:
    item, rater = np.nonzero(codes >= 0)  # coded once: the coefficients share its counts
    coded = stats.long_ratings(item, rater, codes[item, rater], n_items=len(codes), n_raters=codes.shape[1],
                               categories=range(k))
    out = {
        "alpha": stats.krippendorff_alpha(coded).value,
        "fleiss": stats.fleiss_kappa(coded, missing="complete").value,  # the peers' textbook form
    }
    for i in range(codes.shape[1]):
        for j in range(i + 1, codes.shape[1]):
            pair = codes[:, [i, j]]
            pair = pair[(pair >= 0).all(axis=1)]
            table = np.bincount(pair[:, 0] * k + pair[:, 1], minlength=k * k).reshape(k, k)
            out[f"kappa {i}-{j}"] = stats.cohen_kappa(table).value
    return out


def peers_statsmodels(codes: np.ndarray, k: int) -> dict:
    from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

    complete = codes[(codes >= 0).all(axis=1)]
    out = {"fleiss": fleiss_kappa(aggregate_raters(complete, n_cat=k)[0])}
    for i in range(codes.shape[1]):
        for j in range(i + 1, codes.shape[1]):
            pair = codes[:, [i, j]]
            pair = pair[(pair >= 0).all(axis=1)]
            table = np.bincount(pair[:, 0] * k + pair[:, 1], minlength=k * k).reshape(k, k)
            out[f"kappa {i}-{j}"] = cohens_kappa(table).kappa
    return out


def nltk_task(codes: np.ndarray):
    from nltk.metrics.agreement import AnnotationTask

    data = [(str(r), str(i), int(codes[i, r])) for i in range(len(codes)) for r in range(codes.shape[1]) if codes[i, r] >= 0]
    return AnnotationTask(data=data)


def peak_memory(fn) -> int:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=600_000)
    parser.add_argument("--raters", type=int, default=3)
    parser.add_argument("--categories", type=int, default=5)
    parser.add_argument("--nltk-items", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    k = args.categories
    load = os.getloadavg()
    codes = make_codes(args.items, args.raters, k)
    as_nan = np.where(codes >= 0, codes, np.nan).astype(float)

    import krippendorff

    t_ours, ours_values = best_of(args.repeats, lambda: ours(codes, k))
    t_alpha_only, _ = best_of(args.repeats, lambda: stats.krippendorff_alpha(stats.CodedRatings(codes, np.arange(k))))
    t_kripp, kripp_alpha = best_of(
        args.repeats, lambda: krippendorff.alpha(reliability_data=as_nan.T, level_of_measurement="nominal")
    )
    t_sm, sm_values = best_of(args.repeats, lambda: peers_statsmodels(codes, k))
    def family():
        item, rater = np.nonzero(codes >= 0)
        data = cac.long_ratings(item, rater, codes[item, rater], n_items=len(codes), n_raters=codes.shape[1],
                                categories=range(k))
        return cac.family(data), cac.family(data, missing="complete", coefficients=["fleiss_kappa"])

    t_family, (family_values, family_complete) = best_of(args.repeats, family)
    assert abs(family_complete["fleiss_kappa"].value - sm_values["fleiss"]) < 1e-9
    assert abs(family_values["krippendorff_alpha"].value - kripp_alpha) < 1e-9
    slice_ = codes[: args.nltk_items]
    t_nltk, nltk_values = best_of(1, lambda: (nltk_task(slice_).alpha(),))
    ours_slice = ours(slice_, k)
    scale = args.items / args.nltk_items

    assert abs(ours_values["alpha"] - kripp_alpha) < 1e-9, (ours_values["alpha"], kripp_alpha)
    assert abs(ours_values["fleiss"] - sm_values["fleiss"]) < 1e-9
    assert abs(ours_slice["alpha"] - nltk_values[0]) < 1e-9
    for key, value in sm_values.items():
        assert abs(ours_values[key] - value) < 1e-9, key

    memory = {}
    for n_cat in (k, 200):
        many = make_codes(args.items, args.raters, n_cat, seed=1)
        memory[n_cat] = peak_memory(lambda: stats.krippendorff_alpha(stats.CodedRatings(many, np.arange(n_cat))))

    command = "python " + shlex.join(sys.argv if argv is None else [sys.argv[0], *argv])
    lines = [
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}  ",
        f"Machine: {platform.platform()}; Python {platform.python_version()}; numpy {np.__version__}; "
        f"load average {load[0]:.1f} at the start (other work on the machine slows every row alike)  ",
        f"{args.items:,} items × {args.raters} raters, {k} categories, 2 % missing; best of {args.repeats} runs.",
        "",
        "| what | seconds | vs `krippendorff.alpha` |",
        "|---|---:|---:|",
        f"| spanagree: α (nominal) + Fleiss' κ + {len(sm_values) - 1} pairwise Cohen κ, together | {t_ours:.3f} | {t_ours / t_kripp:.2f}× |",
        f"| spanagree: α (nominal) alone | {t_alpha_only:.3f} | {t_alpha_only / t_kripp:.2f}× |",
        f"| `krippendorff.alpha` (nominal) alone | {t_kripp:.3f} | 1.00× |",
        f"| statsmodels: `fleiss_kappa` + `cohens_kappa` per pair (after aggregation) | {t_sm:.3f} | {t_sm / t_kripp:.2f}× |",
        f"| spanagree: the family with standard errors, every rating (6 coefficients) | {t_family:.3f} | {t_family / t_kripp:.2f}× |",
        f"| NLTK `AnnotationTask` α on {args.nltk_items:,} items, scaled ×{scale:g} | {t_nltk * scale:.1f} (scaled) | {t_nltk * scale / t_kripp:.0f}× |",
        "",
        f"Values agree to 1e-9: α = {ours_values['alpha']:.6f} (krippendorff {kripp_alpha:.6f}); "
        f"Fleiss' κ = {ours_values['fleiss']:.6f} (statsmodels {sm_values['fleiss']:.6f}); "
        + ", ".join(f"κ {key.split()[1]} = {ours_values[key]:.6f}" for key in sm_values if key.startswith("kappa"))
        + f". On the NLTK slice α = {ours_slice['alpha']:.6f} (NLTK {nltk_values[0]:.6f}). "
        f"The family: AC1 = {family_values['gwet_ac'].value:.6f} (SE {family_values['gwet_ac'].standard_error:.6f}), "
        f"Fleiss' κ on every rating = {family_values['fleiss_kappa'].value:.6f}, on complete items "
        f"{family_complete['fleiss_kappa'].value:.6f} (statsmodels {sm_values['fleiss']:.6f}).",
        "",
        f"Peak memory of α (tracemalloc): {memory[k] / 1e6:.1f} MB with {k} categories, "
        f"{memory[200] / 1e6:.1f} MB with 200 categories (an items × k² array would need "
        f"{args.items * 200 * 200 * 8 / 1e9:.0f} GB).",
    ]
    body = "\n".join(lines) + "\n"
    print(body)
    if args.write_results:
        write_results(body, ROOT / "bench" / "RESULTS.md", SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
