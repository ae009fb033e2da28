"""The annotator model's report as tables: convergence, the competence ranking, competence per
label, the gold comparison and the start of the adjudication list."""
from __future__ import annotations

from typing import Any

from .tables import MAX_LABELS, Table, num, shown_of, tables_as_markdown, tables_as_text

#: How many items of the adjudication list, raters in the ranking and raters in the per-label
#: table the tables show (the JSON has them all).
MAX_ADJUDICATION = 10
MAX_RANKED = 50
MAX_LABEL_RATERS = 20


def _interval(entry: dict, key: str) -> str:
    bounds = entry.get(f"{key}_interval")
    value = num(entry.get(key))
    return value if bounds is None else f"{value} [{num(bounds[0])}, {num(bounds[1])}]"


def _part(total: int, limit: int) -> str:
    note = shown_of(min(total, limit), total, "the first {n} raters")
    return f" ({note})" if note else ""


def annotator_tables(report: dict[str, Any]) -> list[Table]:
    """The sections of a model report (:func:`spanagree.diagnostics.annotators.model_consensus`)."""
    model = report["model"]
    convergence = model["convergence"]
    sections: list[Table] = [(
        f"Annotator model: {report['method']}", ["", ""], [
            ["items (distinct boundaries)", model["items"]["items"]],
            ["clusters", model["items"]["clusters"]],
            ["raters", model["items"]["raters"]],
            ["iterations", convergence["iterations"]],
            ["converged", "yes" if convergence["converged"] else "NO"],
            ["largest last change", f"{convergence['change']:.1g}"],
            ["log-likelihood", num(convergence["log_likelihood"], 1)],
            *([["note", convergence["note"]]] if convergence.get("note") else []),
            ["consensus spans", report["spans"]["in_consensus"]],
        ],
    )]
    header = ["rank", "rater", "items", "marked", "accuracy"]
    has_competence = any("competence" in row for row in report["competence"])
    if has_competence:
        header.append("competence")
    rows = []
    table = report["competence"]
    for row in table[:MAX_RANKED]:
        line = [row["rank"], row["rater"], row["items"], row["marked"], _interval(row, "accuracy")]
        if has_competence:
            line.append(_interval(row, "competence"))
        rows.append(line)
    sections.append(("Raters, most accurate first" + _part(len(table), MAX_RANKED), header, rows))
    label_rows = []
    for row in table[:MAX_LABEL_RATERS]:
        for label, shares in list(row["labels"].items())[:MAX_LABELS]:
            label_rows.append([row["rater"], label, _interval(shares, "marks_present"), _interval(shares, "marks_absent"),
                               _interval(shares, "other_label")])
    sections.append(("Competence per label (when the label is there: marks it / gives another label; "
                     "when nothing is there: marks it)" + _part(len(table), MAX_LABEL_RATERS),
                     ["rater", "label", "marks what is there", "marks what is not", "other label"], label_rows))
    if "gold" in report:
        gold = report["gold"]
        rows = []
        if gold["consensus"] is not None:
            rows.append([f"consensus ({report['method']})", num(gold["consensus"]["precision"]),
                         num(gold["consensus"]["recall"]), num(gold["consensus"]["f"])])
        for name, entry in sorted(gold["raters"].items(), key=lambda kv: -(kv[1]["f"] or 0)):
            rows.append([name, num(entry["precision"]), num(entry["recall"]), num(entry["f"])])
        sections.append((f"Against the gold rater {gold['rater']}", ["", "precision", "recall", "F"], rows))
    adjudication = report.get("adjudication", [])
    if adjudication:
        sections.append((
            f"Adjudicate first ({min(len(adjudication), MAX_ADJUDICATION)} of {len(adjudication)} listed)",
            ["document", "text", "reading", "probability", "expected change"],
            [[a["doc_id"], a["text"], a["reading"], num(a["probability"]), num(a["expected_change"])]
             for a in adjudication[:MAX_ADJUDICATION]],
        ))
    return sections


def render(report: dict[str, Any], output: str = "table") -> str:
    """The model report as ``table`` (plain text) or ``markdown``."""
    sections = annotator_tables(report)
    return tables_as_markdown(sections) if output == "markdown" else tables_as_text(sections)
