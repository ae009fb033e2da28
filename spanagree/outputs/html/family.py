"""The chance-corrected family on the HTML page: every coefficient with its uncertainty.

One table with value, standard error, interval, p-value, the items and categories used and what
was skipped, and Gwet's probabilistic benchmarking on the Landis–Koch, Altman and Fleiss scales
(the band reached with 95 % probability, and the probability of each band), followed by the plain
words that explain bands that seem to contradict each other. Definitions:
docs/chance-corrected.md.
"""
from __future__ import annotations

from ..chance_text import FAMILY_ROWS, SCHEME_WORDS, interval_text, items_text, skipped_text, level
from .page import esc, table


def _bands(entry: dict) -> str:
    bench = entry.get("benchmark") or {}
    out = []
    for scale, name in (("landis_koch", "Landis–Koch"), ("altman", "Altman"), ("fleiss", "Fleiss")):
        b = bench.get(scale)
        if not b:
            continue
        if b["bands"] is None:
            out.append(f"{name}: {esc(b['point_band'])} (point; no standard error)")
            continue
        probs = ", ".join(f"{esc(r['band'])} {r['probability']:.0%}" for r in b["bands"] if r["probability"] >= 0.005)
        out.append(f"{name}: <b>{esc(b['band'])}</b> at 95% (point {esc(b['point_band'])}; {probs})")
    return "<br>".join(out)


def section(chance: dict) -> list[str]:
    """The family section of the page (empty when there is no chance-corrected report)."""
    everyone = chance["all_raters"]
    rows = []
    for key, name in FAMILY_ROWS:
        entry = everyone.get(key)
        if entry is None:
            continue
        value = entry.get("value")
        if value is None:
            rows.append([esc(name), f"undefined: {esc(entry.get('undefined'))}", "", "", "", esc(items_text(entry)),
                         esc(skipped_text(entry)), ""])
            continue
        se = entry.get("standard_error")
        p = entry.get("p_value")
        rows.append([esc(name), f"{value:.3f}", "" if se is None else f"{se:.3f}", esc(interval_text(entry)),
                     "" if p is None else f"{p:.2g}", esc(items_text(entry)), esc(skipped_text(entry)), _bands(entry)])
    scheme = chance.get("scheme", "spans")
    out = [
        "<h2>Chance-corrected family</h2>",
        f"<p class=\"note\">Items: {esc(SCHEME_WORDS.get(scheme, scheme))}; categories "
        f"{esc(', '.join(map(str, chance['categories'])))}. Every coefficient uses every rating (Gwet's "
        f"missing-ratings forms) unless it says complete items; standard errors and {level(chance)} intervals are Gwet's "
        "(Student t), p-values one-sided (coefficient &gt; 0). A band is reached with 95% probability given the "
        "standard error (Gwet's benchmarking), so it can sit below the band of the point.</p>",
        table(["coefficient", "value", "SE", f"{level(chance)} interval", "p", "items used", "skipped", "bands"], rows,
              css="family", numeric={1, 2, 4}),
    ]
    out += [f"<p class=\"note\">{esc(note, limit=None)}</p>" for note in chance.get("band_notes", [])]
    return out
