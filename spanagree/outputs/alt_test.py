"""The alternative annotator test's results as tables (text and Markdown); definitions in
``docs/alt-test.md``."""
from __future__ import annotations

from typing import Any, Sequence

from .tables import num, tables_as_markdown, tables_as_text


def tables(results: Sequence[dict[str, Any]]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """The results (dicts of :meth:`AltTestResult.to_dict`, ranked) as titled tables."""
    out = []
    if len(results) > 1:
        rows = [[k, r["candidate"], num(r["advantage_probability"]), num(r["winning_rate"]), r["verdict"]]
                for k, r in enumerate(results, start=1)]
        out.append(("Candidates ranked by advantage probability ρ", ["rank", "candidate", "ρ", "winning rate", "verdict"], rows))
    for r in results:
        shah = r.get("shah_s") or {}
        shah_text = num(shah["value"]) if shah.get("value") is not None else f"undefined: {shah.get('undefined')}"
        docs = r["documents"]
        summary = [
            ["verdict", f"{r['verdict'].upper()}: {r['reason']}"],
            ["humans", ", ".join(r["humans"])],
            ["ε / α", f"{r['epsilon']:g} / {r['alpha']:g} (Benjamini–Yekutieli)"],
            ["winning rate (humans beaten / tested)", num(r["winning_rate"])],
            ["advantage probability ρ", num(r["advantage_probability"])],
            ["Shah's S, candidate against the humans", shah_text],
            ["documents in the test", docs["tested"]],
            ["pairs where both marked nothing (PSA undefined: left out)", r["both_empty_pairs"]],
            ["exact ties S_c = S_h (a win for both)", r["ties"]],
        ]
        summary += [[f"documents left out: {reason}", n] for reason, n in docs["excluded"].items()]
        out.append((f"Alternative annotator test: {r['candidate']}", ["", ""], summary))
        psa_rows = {row["rater"]: row for row in r.get("psa_with_humans") or []}
        rows = [
            [h["rater"], h["documents"], num(h["mean_w_candidate"]), num(h["mean_w_human"]),
             "-" if h["t"] is None else f"{h['t']:.3f}", _p(h["p_value"]), _p(h["p_adjusted"]),
             {True: "yes", False: "no", None: "not tested"}[h["rejected"]],
             num(psa_rows[h["rater"]]["psa"]) if h["rater"] in psa_rows else "-", h["reason"] or ""]
            for h in r["per_human"]
        ]
        out.append((f"Per human ({r['candidate']} against each)",
                    ["human", "docs", "mean W_c", "mean W_h", "t", "p", "p (BY)", "candidate wins", "PSA with candidate", "note"], rows))
        if psa_rows:
            labels = sorted({label for row in psa_rows.values() for label in row["labels"]})
            rows = [
                [label, *(num(row["labels"][label]["psa"]) if label in row["labels"] else "-" for row in psa_rows.values())]
                for label in labels
            ]
            rows += [["spans only the human / only the candidate marked",
                      *(f"{num(row['human_only'], 2)} / {num(row['candidate_only'], 2)}" for row in psa_rows.values())]]
            out.append((f"PSA of {r['candidate']} with each human, per label", ["label", *psa_rows], rows))
    return out


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2e}" if 0 < value < 1e-3 else f"{value:.4f}"


def as_text(results: Sequence[dict[str, Any]]) -> str:
    return tables_as_text(tables(results))


def as_markdown(results: Sequence[dict[str, Any]]) -> str:
    return tables_as_markdown(tables(results))
