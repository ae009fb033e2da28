"""The chance-corrected family on the HTML page: every coefficient with its uncertainty.

One table with value, standard error, interval, p-value, the items and categories used and what
was skipped, and Gwet's probabilistic benchmarking on the Landis–Koch, Altman and Fleiss scales
(the band reached with 95 % probability, and the probability of each band), followed by the plain
words that explain bands that seem to contradict each other. Definitions:
docs/chance-corrected.md. The rows are data; ``report_page.html.j2`` writes them.
"""
from __future__ import annotations

from typing import Any

from ..chance_text import SCHEME_WORDS, family_entries, level

SCALES = (("landis_koch", "Landis–Koch"), ("altman", "Altman"), ("fleiss", "Fleiss"))


def _bands(entry: dict) -> list[dict[str, Any]]:
    """Per scale: its name, the band at 95 % (None: point only), the point's band and each
    band's probability (those of at least half a percent)."""
    bench = entry.get("benchmark") or {}
    out = []
    for scale, name in SCALES:
        b = bench.get(scale)
        if not b:
            continue
        out.append({
            "scale": name, "band": None if b["bands"] is None else b["band"], "point_band": b["point_band"],
            "probabilities": [(r["band"], r["probability"]) for r in b["bands"] or () if r["probability"] >= 0.005],
        })
    return out


def section(chance: dict, replicates: int | None = None) -> dict[str, Any]:
    """The family section's data: ``rows``, ``scheme``, ``categories``, ``level``, ``notes``
    (``replicates``: the report's bootstrap replicates, named beside a bootstrap interval)."""
    rows = [{**row, "bands": _bands(row["entry"]) if row["value"] is not None else []}
            for row in family_entries(chance["all_raters"], replicates)]
    scheme = chance.get("scheme", "spans")
    return {
        "rows": rows, "scheme": SCHEME_WORDS.get(scheme, scheme), "categories": ", ".join(map(str, chance["categories"])),
        "level": level(chance), "notes": list(chance.get("band_notes", [])),
    }
