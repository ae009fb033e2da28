"""The alternative annotator test: can a candidate (a model) replace one of the human raters?

Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge: How to
Statistically Justify Replacing Human Annotators with LLMs", ACL 2025, pp. 16051-16081.
On spans, the alignment of two raters on a document is their PSA on that document (the a, b, c
counts of :mod:`spanagree.core.counts`, never re-aligned), under PSA's one undefined policy
(docs/agreement.md): where both raters marked nothing it is undefined, and that comparison is
left out and counted (``both_empty_pairs``).

With H the humans (every rater but the candidates) and c one candidate, for each human h:

- a document d takes part when c, h and at least one other human submitted it; G_d is the set
  of the other humans g who submitted it and for whom both PSA(h, g) and PSA(c, g) are defined
  (the same g on both sides, so the two means stay paired); a document whose G_d is empty is
  left out for h and counted (``documents_undefined``);
- ``S_h(d) = mean_{g in G_d} PSA(h, g)`` and ``S_c(d) = mean_{g in G_d} PSA(c, g)``;
- ``W_c(d) = [S_c(d) >= S_h(d)]``, ``W_h(d) = [S_h(d) >= S_c(d)]`` (a tie gives 1 to both;
  ties are decided exactly: sums whose float difference is within 1e-9 are recomputed with
  :class:`fractions.Fraction` from the exact per-pair values);
- h is *tested* when it has at least ``min_documents`` (30) such documents; with
  ``d = W_h - W_c`` the p-value is that of the one-sided one-sample t-test of
  H0: mean(d) >= ε against H1: mean(d) < ε, ``t = (mean(d) - ε) / (sd(d)/sqrt(n))`` on n - 1
  degrees of freedom; when d never varies, p = 0 if mean(d) < ε and 1 otherwise;
- the p-values of the tested humans are corrected by Benjamini & Yekutieli (2001) at α;
  the **winning rate** is (humans whose H0 is rejected) / (humans tested), the **advantage
  probability** ρ is the mean over tested humans of mean_d W_c(d).

Verdict: ``trusted`` when the winning rate is at least 0.5, ``untrusted`` otherwise, and
``inconclusive`` when fewer than three humans could be tested (the paper's advice: with two
humans the test only asks which one the candidate resembles more).

The Student-t distribution function comes from :mod:`spanagree.measures.student_t` (no SciPy
at run time). Definitions in full: ``docs/alt-test.md``.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Real
from typing import Any, Hashable, Iterable, Mapping, Sequence, overload

import numpy as np

from ...errors import UsageError
from ...core import validate
from ...core.validate import shown
from ..psa.specific import psa
from ..student_t import t_cdf
from ...core.templates import render

#: Fewest documents for a human to be tested (the paper's floor for the t-test's normality).
MIN_DOCUMENTS = 30
#: Fewest tested humans for a verdict.
MIN_HUMANS = 3
#: Float sums closer than this (per compared rater) are re-decided with exact fractions.
TIE_TOLERANCE = 1e-9

TRUSTED, UNTRUSTED, INCONCLUSIVE = "trusted", "untrusted", "inconclusive"
#: Why a document compared for no human is left out: every PSA it needed is undefined.
UNDEFINED = "PSA undefined in every comparison (nothing marked)"


# --- the test's statistics ----------------------------------------------------------------------


def one_sided_t_test(d: Sequence[int], epsilon: float) -> tuple[float | None, float]:
    """``(t, p)`` of the one-sample t-test of H1: mean(d) < ε on n - 1 degrees of freedom.

    ``d`` holds W_h - W_c in {-1, 0, 1}; mean and variance are computed exactly from the counts.
    When d never varies the statistic is undefined (None) and p is 0 if mean(d) < ε, else 1.

    >>> one_sided_t_test([0, 0, 0], 0.2)
    (None, 0.0)
    """
    n = len(d)
    if n < 2:
        raise ValueError(f"the t-test needs at least two documents, got {n}")
    mean = Fraction(sum(d), n)
    variance = _variance(d, mean)
    eps = Fraction(epsilon)
    if variance == 0:
        return None, 0.0 if mean < eps else 1.0
    t = float(mean - eps) / math.sqrt(float(variance) / n)
    return t, t_cdf(t, n - 1)


def _variance(d: Sequence[int], mean: Fraction) -> Fraction:
    """Sample variance (n - 1 denominator), exactly."""
    counts: dict[int, int] = {}
    for x in d:
        counts[int(x)] = counts.get(int(x), 0) + 1
    return sum(k * (Fraction(x) - mean) ** 2 for x, k in counts.items()) / (len(d) - 1)


def benjamini_yekutieli(p_values: Sequence[float], alpha: float) -> tuple[list[bool], list[float]]:
    """Rejections and adjusted p-values under the Benjamini–Yekutieli (2001) procedure.

    With m p-values sorted ascending and c(m) = Σ_{i<=m} 1/i, reject the k smallest for the
    largest k with p_(k) <= k·α / (m·c(m)); the adjusted p-value of p_(i) is
    min_{j>=i} min(1, m·c(m)·p_(j)/j).

    >>> benjamini_yekutieli([0.001, 0.02, 0.04], 0.05)[0]
    [True, False, False]
    """
    m = len(p_values)
    if m == 0:
        return [], []
    c_m = sum(1.0 / i for i in range(1, m + 1))
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    k_max = 0
    for rank, i in enumerate(order, start=1):
        if p_values[i] <= rank * alpha / (m * c_m):
            k_max = rank
    rejected = [False] * m
    for i in order[:k_max]:
        rejected[i] = True
    adjusted = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, m * c_m * p_values[i] / rank, 1.0)
        adjusted[i] = running
    return rejected, adjusted


# --- per-document comparisons -------------------------------------------------------------------


@dataclass
class _Scores:
    """Per-(document, rater pair) alignment scores: ``doc``, ``r1``, ``r2`` (codes) and
    ``value`` (float; NaN undefined), with ``exact`` holding each value exactly (for ties)."""

    doc: np.ndarray
    r1: np.ndarray
    r2: np.ndarray
    value: np.ndarray
    exact: Any  # callable: row index -> Fraction
    doc_names: Sequence[Any] = ()


def _compare(scores: _Scores, candidate: int, human: int, humans: set[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray]:
    """For one human h: ``(documents, W_c, W_h, ties, undefined)`` over the documents where the
    candidate, h and at least one other human g were all compared, each on the g whose PSA with
    h and with the candidate are both defined; ``undefined`` holds the documents with no such g."""
    r1, r2 = scores.r1, scores.r2
    others = np.array(sorted(humans - {human}), dtype=np.int64)

    def rows_with(rater: int) -> np.ndarray:
        """Rows pairing ``rater`` with another human g != h."""
        partner = np.where(r1 == rater, r2, np.where(r2 == rater, r1, -1))
        return np.flatnonzero(np.isin(partner, others))

    h_rows, c_rows = rows_with(human), rows_with(candidate)
    both = np.flatnonzero(((r1 == human) & (r2 == candidate)) | ((r1 == candidate) & (r2 == human)))
    docs = np.intersect1d(np.unique(scores.doc[h_rows]), np.unique(scores.doc[both]))
    h_rows = h_rows[np.isin(scores.doc[h_rows], docs)]
    c_rows = c_rows[np.isin(scores.doc[c_rows], docs)]
    # each side's rows by (document, partner g): counted scores pair up (hand-given ones may not)
    keys, n = [], int(max(r1.max(initial=0), r2.max(initial=0))) + 1
    for rows, rater in ((h_rows, human), (c_rows, candidate)):
        key = np.searchsorted(docs, scores.doc[rows]) * n + np.where(r1[rows] == rater, r2[rows], r1[rows])
        keys.append((rows[np.argsort(key)], np.sort(key)))
    (h_rows, key_h), (c_rows, key_c) = keys
    if not np.array_equal(key_h, key_c):
        d = int(docs[np.setxor1d(key_h, key_c).min() // n])
        raise UsageError(
            f"document {scores.doc_names[d] if d < len(scores.doc_names) else d!r}: the candidate and the human are both scored with other raters, but not "
            "with the same ones: give a score for every pair of raters who submitted the document"
        )
    # a g whose PSA with h or with the candidate is undefined is left out of both means
    defined = ~np.isnan(scores.value[h_rows]) & ~np.isnan(scores.value[c_rows])
    h_rows, c_rows, index_h = h_rows[defined], c_rows[defined], key_h[defined] // n
    kept = np.unique(index_h)
    undefined = np.setdiff1d(docs, docs[kept])
    docs, index_h = docs[kept], np.searchsorted(kept, index_h)
    index_c, n_h = index_h, np.bincount(index_h, minlength=len(kept))
    sum_h = np.bincount(index_h, weights=scores.value[h_rows], minlength=len(docs))
    sum_c = np.bincount(index_c, weights=scores.value[c_rows], minlength=len(docs))
    diff = sum_c - sum_h
    near = np.flatnonzero(np.abs(diff) <= TIE_TOLERANCE * np.maximum(n_h, 1))
    sign = np.sign(diff)
    if len(near):  # decide near-ties exactly (same denominator |G_d| on both sides)
        rows_c, bounds_c = _grouped(c_rows, index_c, len(docs))
        rows_h, bounds_h = _grouped(h_rows, index_h, len(docs))
        whole = (scores.value == 0) | (scores.value == 1)  # sums of 0s and 1s are exact in floats
        for k in near.tolist():
            group_c, group_h = rows_c[bounds_c[k]:bounds_c[k + 1]], rows_h[bounds_h[k]:bounds_h[k + 1]]
            if whole[group_c].all() and whole[group_h].all():
                continue
            exact_c = sum((scores.exact(i) for i in group_c.tolist()), Fraction(0))
            exact_h = sum((scores.exact(i) for i in group_h.tolist()), Fraction(0))
            sign[k] = (exact_c > exact_h) - (exact_c < exact_h)
    w_c = (sign >= 0).astype(np.int64)
    w_h = (sign <= 0).astype(np.int64)
    return docs, w_c, w_h, int((sign == 0).sum()), undefined


def _grouped(rows: np.ndarray, group: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` sorted by ``group``, and where each group starts (``n_groups + 1`` bounds)."""
    order = np.argsort(group, kind="stable")
    return rows[order], np.searchsorted(group[order], np.arange(n_groups + 1))


# --- the result ---------------------------------------------------------------------------------


@dataclass
class AltTestResult:
    """The alternative annotator test of one candidate; :meth:`to_dict` is the JSON."""

    candidate: str
    humans: list[str]
    epsilon: float
    alpha: float
    min_documents: int
    per_human: list[dict[str, Any]]
    winning_rate: float | None
    advantage_probability: float | None
    verdict: str
    reason: str
    documents: int = 0
    excluded: dict[str, int] = field(default_factory=dict)
    both_empty_pairs: int = 0
    ties: int = 0
    shah_s: dict[str, Any] | None = None
    psa_with_humans: list[dict[str, Any]] | None = None
    rule: dict[str, Any] | None = None

    def _repr_html_(self) -> str:
        """The verdict, the winning rate, ρ and the per-human tests, for Jupyter."""
        return render("alt_test.html.j2", r=self.to_dict())

    @property
    def trusted(self) -> bool:
        return self.verdict == TRUSTED

    def to_dict(self) -> dict[str, Any]:
        out = {
            "candidate": self.candidate,
            "humans": list(self.humans),
            "epsilon": self.epsilon,
            "alpha": self.alpha,
            "winning_rate": self.winning_rate,
            "advantage_probability": self.advantage_probability,
            "per_human": [dict(row) for row in self.per_human],
            "verdict": self.verdict,
            "reason": self.reason,
            "min_documents": self.min_documents,
            "documents": {"tested": self.documents, "excluded": dict(sorted(self.excluded.items()))},
            "both_empty_pairs": self.both_empty_pairs,
            "ties": self.ties,
        }
        if self.rule is not None:
            out["rule"] = dict(self.rule)
        if self.shah_s is not None:
            out["shah_s"] = dict(self.shah_s)
        if self.psa_with_humans is not None:
            out["psa_with_humans"] = [dict(row) for row in self.psa_with_humans]
        return out


def check_parameters(epsilon: float, alpha: float, min_documents: int) -> None:
    if not isinstance(epsilon, Real) or not 0 <= epsilon <= 1:
        raise UsageError(f"epsilon must be a number from 0 to 1, got {epsilon!r}")
    if not isinstance(alpha, Real) or not 0 < alpha < 1:
        raise UsageError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    validate.whole("min_documents", min_documents, 2)


def _run(scores: _Scores, names: list[str], candidate: int, humans: list[int], *, epsilon: float, alpha: float,
         min_documents: int) -> AltTestResult:
    """The procedure on scores whose rater codes index ``names``."""
    human_set = set(humans)
    rows: list[dict[str, Any]] = []
    tested: list[int] = []
    used_docs: set[int] = set()
    undefined_docs: set[int] = set()
    ties = 0
    w_c_means: list[float] = []
    for h in humans:
        docs, w_c, w_h, h_ties, undefined = _compare(scores, candidate, h, human_set)
        used_docs.update(docs.tolist())
        undefined_docs.update(undefined.tolist())
        ties += h_ties
        n = len(docs)
        row: dict[str, Any] = {
            "rater": names[h],
            "documents": n,
            "mean_w_candidate": float(w_c.mean()) if n else None,
            "mean_w_human": float(w_h.mean()) if n else None,
            "ties": h_ties,
            "documents_undefined": len(undefined),
            "t": None,
            "p_value": None,
            "p_adjusted": None,
            "rejected": None,
            "tested": n >= min_documents,
            "reason": None,
        }
        if n >= min_documents:
            t, p = one_sided_t_test((w_h - w_c).tolist(), epsilon)
            row["t"], row["p_value"] = t, p
            if t is None:
                row["reason"] = "W_h - W_c is the same on every document: p is 0 or 1 by its sign against ε"
            tested.append(len(rows))
            w_c_means.append(float(w_c.mean()))
        else:
            row["reason"] = f"{n} documents, fewer than {min_documents}"
        rows.append(row)
    rejected, adjusted = benjamini_yekutieli([rows[i]["p_value"] for i in tested], alpha)
    for i, rej, adj in zip(tested, rejected, adjusted):
        rows[i]["rejected"], rows[i]["p_adjusted"] = rej, adj
    n_tested = len(tested)
    winning_rate = sum(rejected) / n_tested if n_tested else None
    rho = sum(w_c_means) / n_tested if n_tested else None
    if n_tested < MIN_HUMANS:
        verdict = INCONCLUSIVE
        untested = [f"{r['rater']} ({r['documents']} documents)" for r in rows if not r["tested"]]
        if len(humans) < MIN_HUMANS:
            reason = (f"only {len(humans)} human{'s' if len(humans) != 1 else ''} besides the candidate; the test "
                      f"needs at least {MIN_HUMANS}")
        else:
            reason = (f"only {n_tested} of {len(humans)} humans could be tested; the test needs at least {MIN_HUMANS} "
                      f"humans with {min_documents} or more documents shared with the candidate and another human")
        if untested:
            reason += "; too few documents: " + ", ".join(untested)
    else:
        won = sum(rejected)
        verdict = TRUSTED if winning_rate >= 0.5 else UNTRUSTED
        reason = (f"the candidate won against {won} of {n_tested} humans (winning rate {winning_rate:.2f} "
                  f"{'>=' if verdict == TRUSTED else '<'} 0.5; ε = {epsilon:g}, Benjamini–Yekutieli at α = {alpha:g})")
    used = np.isin(scores.doc, np.array(sorted(used_docs | undefined_docs), dtype=np.int64))  # compared, or left out
    involved = used & np.isin(scores.r1, [candidate, *humans]) & np.isin(scores.r2, [candidate, *humans])
    return AltTestResult(
        candidate=names[candidate], humans=[names[h] for h in humans], epsilon=float(epsilon), alpha=float(alpha),
        min_documents=min_documents, per_human=rows, winning_rate=winning_rate, advantage_probability=rho,
        verdict=verdict, reason=reason, documents=len(used_docs), both_empty_pairs=int(np.isnan(scores.value[involved]).sum()),
        ties=ties, excluded={UNDEFINED: n} if (n := len(undefined_docs - used_docs)) else {},
    )


def _resolve_candidates(candidate: str | Sequence[str], raters: Sequence[str]) -> tuple[list[str], bool]:
    single = isinstance(candidate, str)
    if not single and (not isinstance(candidate, Iterable) or isinstance(candidate, (bytes, Mapping))):
        raise UsageError(f"candidate must be a rater's name or a list of names, got {shown(candidate)}")
    wanted = [candidate] if single else list(candidate)
    if not all(isinstance(name, str) for name in wanted):
        raise UsageError(f"candidate names must be strings, got {shown(wanted)}")
    if not wanted:
        raise UsageError("give at least one candidate rater")
    for name in wanted:
        if name not in raters:
            raise UsageError(f"candidate rater {name!r} not found; raters: {', '.join(raters)}")
    if len(set(wanted)) != len(wanted):
        raise UsageError(f"a candidate is named twice: {', '.join(wanted)}")
    if len(raters) == len(wanted):
        raise UsageError(f"every rater is a candidate ({', '.join(wanted)}): the test needs human raters too")
    return wanted, single


def _ranked(results: list[AltTestResult]) -> list[AltTestResult]:
    """By advantage probability, highest first (undefined last); the input order breaks ties."""
    return sorted(results, key=lambda r: -1.0 if r.advantage_probability is None else -r.advantage_probability)


# --- public API ---------------------------------------------------------------------------------


@overload
def alt_test_scores(scores: Mapping[tuple[Hashable, str, str], Any], candidate: str, **kwargs) -> AltTestResult: ...
@overload
def alt_test_scores(scores: Mapping[tuple[Hashable, str, str], Any], candidate: Sequence[str], **kwargs) -> list[AltTestResult]: ...


def alt_test_scores(
    scores: Mapping[tuple[Hashable, str, str], Any],
    candidate: str | Sequence[str],
    *,
    epsilon: float = 0.2,
    alpha: float = 0.05,
    min_documents: int = MIN_DOCUMENTS,
):
    """The alternative annotator test on given per-document alignment scores.

    Parameters
    ----------
    scores : mapping ``(document, rater_a, rater_b) -> score`` with one entry per unordered pair
        of raters who both submitted the document (either order; a number, ``Fraction`` for
        exact ties). For spans use :func:`alt_test`, which builds them from the PSA counts.
    candidate : the candidate rater, or several (each tested against the humans, who are every
        other rater; several are returned ranked by advantage probability).
    epsilon, alpha, min_documents : ε of the test, α of the Benjamini–Yekutieli correction,
        fewest documents for a human to be tested.
    """
    check_parameters(epsilon, alpha, min_documents)
    names = sorted({r for (_, a, b) in scores for r in (a, b)}, key=str)
    wanted, single = _resolve_candidates(candidate, names)
    code = {r: i for i, r in enumerate(names)}
    doc_code: dict[Hashable, int] = {}
    doc, r1, r2, values, exact = [], [], [], [], []
    for (d, a, b), value in scores.items():
        if a == b:
            raise UsageError(f"document {d!r}: a score of rater {a!r} with itself")
        doc.append(doc_code.setdefault(d, len(doc_code)))
        r1.append(code[a])
        r2.append(code[b])
        if value is None or not isinstance(value, (Real, Fraction)) or not math.isfinite(float(value)):
            raise UsageError(f"document {d!r}, raters {a!r} and {b!r}: the score must be a finite number, got {value!r}")
        values.append(float(value))
        exact.append(Fraction(value))
    table = _Scores(
        doc=np.array(doc, dtype=np.int64), r1=np.array(r1, dtype=np.int64), r2=np.array(r2, dtype=np.int64),
        value=np.array(values, dtype=np.float64), exact=exact.__getitem__,
        doc_names=list(doc_code),
    )
    _check_unique_pairs(table)
    results = [
        _run(table, names, code[c], [code[r] for r in names if r not in wanted], epsilon=epsilon, alpha=alpha,
             min_documents=min_documents)
        for c in wanted
    ]
    return results[0] if single else _ranked(results)


def _check_unique_pairs(table: _Scores) -> None:
    lo, hi = np.minimum(table.r1, table.r2), np.maximum(table.r1, table.r2)
    n = int(max(lo.max(initial=0), hi.max(initial=0))) + 1
    key = (table.doc * n + lo) * n + hi
    if len(np.unique(key)) != len(key):
        raise UsageError("two scores for the same document and pair of raters")


def from_report(report, candidate: str | Sequence[str], *, epsilon: float = 0.2, alpha: float = 0.05,
                min_documents: int = MIN_DOCUMENTS):
    """The test on an :class:`~spanagree.AgreementReport`: the per-document PSA of every pair it
    counted (undefined where both marked nothing), Shah's S of the candidate against the humans (when the
    report has candidate items) and the candidate's PSA with each human, per label too."""
    check_parameters(epsilon, alpha, min_documents)
    names = list(report.corpus.raters)
    wanted, single = _resolve_candidates(candidate, names)
    counts = report.counts
    comparisons = counts.comparisons
    a, b, c = (counts.abc[:, k] for k in range(3))
    value = psa(a, b, c)  # NaN where both raters marked nothing

    @functools.lru_cache(maxsize=None)
    def exact(i: int) -> Fraction:
        return psa(*(Fraction(float(x[i])) for x in (a, b, c)))

    pairs = comparisons.pairs
    table = _Scores(doc=comparisons.doc, r1=pairs[comparisons.pair, 0], r2=pairs[comparisons.pair, 1], value=value, exact=exact)
    rule = {**counts.rule.to_dict(), "unit": counts.unit_name}
    results = []
    for cand in wanted:
        humans = [i for i, r in enumerate(names) if r not in wanted]
        result = _run(table, names, names.index(cand), humans, epsilon=epsilon, alpha=alpha,
                      min_documents=min_documents)
        result.excluded = {**_excluded(report.corpus, table, names.index(cand), humans), **result.excluded}
        result.rule = rule
        result.psa_with_humans = _psa_with_humans(report, names.index(cand), humans)
        result.shah_s = _shah_s(report, names.index(cand), humans)
        results.append(result)
    return results[0] if single else _ranked(results)


def _excluded(corpus, table: _Scores, candidate: int, humans: list[int]) -> dict[str, int]:
    """Documents read but left out of the test, by reason (from who submitted each document;
    the parallel engines keep no rater per annotation, and then the pairs counted tell, which
    cannot see a document the candidate submitted alone)."""
    n_docs = corpus.n_documents
    if corpus.has_spans:
        is_human = np.isin(corpus.ann_rater, humans)
        n_humans = np.bincount(corpus.ann_doc[is_human], minlength=n_docs)
        has_candidate = np.bincount(corpus.ann_doc[corpus.ann_rater == candidate], minlength=n_docs) > 0
        submitted = np.bincount(corpus.ann_doc, minlength=n_docs) > 0
    else:
        is_h1, is_h2 = np.isin(table.r1, humans), np.isin(table.r2, humans)
        with_candidate = ((table.r1 == candidate) & is_h2) | ((table.r2 == candidate) & is_h1)
        n_humans = np.bincount(table.doc[with_candidate], minlength=n_docs)  # humans beside the candidate
        has_candidate = n_humans > 0
        submitted = np.bincount(table.doc, minlength=n_docs) > 0
    out = {}
    missing = int((submitted & ~has_candidate).sum())
    if missing:
        out["the candidate did not submit it"] = missing
    lonely = int((has_candidate & (n_humans < 2)).sum())
    if lonely:
        out["fewer than two humans submitted it"] = lonely
    return out


def _psa_with_humans(report, candidate: int, humans: list[int]) -> list[dict[str, Any]]:
    """The candidate's PSA with each human over their shared documents (the usual PSA: undefined
    when neither marked a span), with the spans only one of them marked, and per label."""

    pairs = report.counts.comparisons.pairs.tolist()
    pair_abc, pair_label = report.pair_abc(), report.pair_label_abc()
    docs = np.bincount(report.counts.comparisons.pair, minlength=len(pairs))
    names, labels = report.corpus.raters, report.corpus.labels
    out = []
    for h in humans:
        key = sorted((candidate, h))
        if key not in pairs:
            out.append({"rater": names[h], "documents": 0, "psa": None, "matched": 0.0, "human_only": 0.0,
                        "candidate_only": 0.0, "labels": {}})
            continue
        p = pairs.index(key)
        human_first = key[0] == h
        a, b, c = pair_abc[p].tolist()
        human_only, candidate_only = (b, c) if human_first else (c, b)
        by_label = {}
        for k, label in enumerate(labels):
            la, lb, lc = pair_label[p, k].tolist()
            if la or lb or lc:
                by_label[label] = {"psa": psa(la, lb, lc), "human_only": lb if human_first else lc,
                                   "candidate_only": lc if human_first else lb}
        out.append({"rater": names[h], "documents": int(docs[p]), "psa": psa(a, b, c), "matched": a,
                    "human_only": human_only, "candidate_only": candidate_only, "labels": by_label})
    return out


def _shah_s(report, candidate: int, humans: list[int]) -> dict[str, Any]:
    """Shah's S of the candidate against the human group on the candidate items (items where a
    human or the candidate is missing are skipped and counted), or why it is undefined."""
    import warnings

    from ..chance import coefficients as stats  # only with candidate items; keeps stats off `import spanagree` (import time)

    items = getattr(report, "items", None)
    if items is None:
        return {"value": None, "undefined": "Shah's S needs candidate items: give candidates (--candidates tokens|documents|FILE)"}
    dense = np.full((items.n_items, len(report.corpus.raters)), np.nan)
    dense[items.rating_item, items.rating_rater] = items.rating_code
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.UndefinedAgreementWarning)
        parts = stats.s_against_group(
            dense[:, candidate], dense[:, humans], categories=np.arange(len(items.categories), dtype=float)
        )
    return parts.to_dict()
