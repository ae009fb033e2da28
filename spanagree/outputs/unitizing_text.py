"""The unitizing section (α_U and γ, ``docs/unitizing.md``) as table rows."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from ..catalogue import STATISTICS, interval_method
from .tables import bounds, largest, shown_of


def tables(section: Mapping[str, Any], num: Callable) -> list[tuple[str, list[str], list[list[Any]]]]:
    """The section as ``(title, header, rows)`` tables for the text and Markdown outputs."""
    a, g = section["alpha_u"], section["gamma"]
    rows = [
        ["unitizing α_U, all labels", _value(a, num) + bounds(a.get("interval"), interval_method(a.get("interval")))],
        ["", STATISTICS["alpha_u"].description],
        ["α_U observed / expected disagreement", f"{num(a.get('observed'), 6)} / {num(a.get('expected'), 6)}"],
    ]
    mean = a.get("per_document_mean")
    if mean is not None:
        rows.append(["α_U, mean of per-document values", f"{num(mean['value'])} over {mean['documents']} documents"])
    rows += [
        ["γ", _value(g, num)],
        ["", STATISTICS["gamma"].description],
        ["γ observed / expected disorder", f"{num(g.get('observed_disorder'))} / {num(g.get('expected_disorder'))}"],
        *([["γ expected disorder from", f"{g['samples']} random continua ({g['sampler'].split(' (')[0]} sampler), seed {g['seed']}, 95% relative "
            f"precision {num(g.get('precision'))}"]] if "samples" in g else []),
        ["γ-cat (labels of aligned units)", num(g.get("gamma_cat"))],
        ["documents (every rater annotated)", section["documents"]],
    ]
    for kind in ("documents_excluded", "spans_excluded"):
        rows += [[f"{kind.split('_')[0]} left out: {reason}", n] for reason, n in section[kind].items()]
    if a.get("overlapping_units_left_out"):
        rows.append(["α_U: overlapping units of one rater and label left out", a["overlapping_units_left_out"]])
    every = sorted(set(section["alpha_u_per_label"]) | set(section["gamma_per_label"]))
    labels = largest(every, lambda name: section["alpha_u_per_label"].get(name, {}).get("units", 0))
    note = shown_of(len(labels), len(every), "the {n} with most units")
    per_label = [
        [name, num(section["alpha_u_per_label"].get(name, {}).get("value")),
         num(section["gamma_per_label"].get(name, {}).get("gamma_k")),
         section["alpha_u_per_label"].get(name, {}).get("units", 0)]
        for name in labels
    ]
    return [
        ("Unitizing agreement (spans, no candidates)", ["", ""], rows),
        ("Unitizing per label" + (f" ({note})" if note else ""), ["label", "α_U", "γ-k", "units"], per_label),
    ]


def _value(entry: Mapping[str, Any], num: Callable) -> str:
    value = entry.get("value")
    return num(value) if value is not None else f"undefined: {entry.get('reason', 'no value')}"
