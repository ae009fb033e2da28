"""The statistics the report gives, each declared once (``spanagree info --statistics`` lists
them): the name ``gate --min`` and ``compare --min`` take (``label:<LABEL>`` for one with an
argument), the family, what the run needs (by family: :data:`NEEDS`), the interval method, a
description, and the reader of its value and interval in the report dict; and the headline
every rendering shows first, each statistic with its interval and the interval's method.

Interval methods: ``bootstrap`` (percentile, over documents: docs/intervals.md), ``analytic``
(Gwet's standard error: docs/chance-corrected.md), ``posterior`` (the annotator model's:
docs/annotators.md), ``none``. A statistic with a ``path`` is a sum of per-document counts
(:meth:`~spanagree.measures.psa.intervals.DocumentCounts.statistics` has it at that path), which
``plan`` resamples (docs/planning.md) and, in the PSA family, ``compare`` resamples paired over
two rounds (docs/deciding.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from .errors import UsageError, did_you_mean
from .measures.structure.means import mean_pair_kappa

#: What a run needs to compute the statistics of each family.
NEEDS = {"psa": "nothing", "chance-corrected": "candidates", "unitizing": "unitizing", "structure": "structure",
         "annotator model": "the model"}

#: (value, interval or None, the reason the value is undefined or None)
Reading = tuple[Any, "dict | None", "str | None"]


@dataclass(frozen=True)
class Statistic:
    """One statistic of the report: ``key`` as written before any ``:``, ``argument`` the
    placeholder of what follows it (``<LABEL>``), ``read(report, argument)`` its reading, and
    ``path`` (with ``...`` for the argument) where a paired bootstrap of two rounds finds it."""

    key: str
    family: str
    interval: str
    description: str
    read: Callable[[Mapping[str, Any], str | None], Reading]
    argument: str | None = None
    path: tuple | None = None

    @property
    def name(self) -> str:
        return self.key if self.argument is None else f"{self.key}:{self.argument}"

    @property
    def needs(self) -> str:
        return NEEDS[self.family]

    def path_of(self, argument: str | None) -> tuple:
        """The statistic's path in the report, its argument put in."""
        return tuple(argument if part is ... else part for part in self.path)

    def describe(self, argument: str | None) -> str:
        return self.description if argument is None else self.description.replace(self.argument, argument)

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "family": self.family, "needs": self.needs, "interval": self.interval,
                "description": self.description}


# --- readers ------------------------------------------------------------------------------------


def _psa(holder: Mapping, key: str, what: str) -> Reading:
    value = holder.get(key)
    return value, holder.get(f"{key}_interval"), None if value is not None else f"undefined: {what}"


def _counted(path: tuple, what: str) -> dict[str, Any]:
    """``read`` and ``path`` of a PSA of the report at ``path`` (``...``: a label)."""

    def read(report, label):
        if label is not None and label not in report["labels"]:
            seen = ", ".join(report["labels"]) or "none"
            return None, None, f"undefined: label {label!r} is not in the corpus (labels: {seen})"
        holder = report[path[0]] if label is None else report["labels"][label]
        return _psa(holder, path[-1], what.format(label))

    return {"read": read, "path": path}


def _find_pair(rows: list[dict], pair: str, raters: list[str]) -> tuple[dict | None, str | None]:
    """The row of pair ``A~B`` (either order; a name may hold ``~``), or a reason."""
    splits = [sorted([pair[:k], pair[k + 1:]]) for k, char in enumerate(pair) if char == "~"]
    row = next((row for wanted in splits for row in rows if sorted(row["raters"]) == wanted), None)
    return row, None if row is not None else f"undefined: no pair {pair!r} (raters: {', '.join(raters)}; pairs are written A~B)"


def _pair(report, pair) -> Reading:
    row, reason = _find_pair(report["pairs"], pair, report["raters"])
    return (None, None, reason) if row is None else _psa(row, "psa", "neither rater marked a span in their shared documents")


#: The end of the reason of a statistic the run did not compute (rather than one it found undefined).
NOT_COMPUTED = "was not computed"


def coefficient_interval(entry: Mapping) -> dict | None:
    """The interval of a coefficient's entry: its bootstrap interval when replicates were drawn,
    else its analytic one (the statistics declared ``analytic`` have no other)."""
    return entry.get("interval") or entry.get("analytic_interval")


def interval_method(interval: Mapping | None, replicates: int | None = None) -> str:
    """How ``interval`` was made, as the renderings name it: ``bootstrap percentile, N replicates``
    (it has a ``bootstrap_se``), ``analytic (<its method>)`` or the posterior it names."""
    if not interval or interval.get("low") is None:
        return ""
    if "bootstrap_se" in interval:
        n = interval.get("replicates") or replicates
        return "bootstrap percentile" + (f", {n} replicates" if n else "")
    method = interval.get("method", "")
    return method if method.startswith("posterior") else f"analytic ({method})"


def _coefficient(entry: Mapping | None, name: str) -> Reading:
    if entry is None:
        return None, None, f"undefined: {name} {NOT_COMPUTED}"
    value = entry.get("value")
    reason = None if value is not None else f"undefined: {entry.get('undefined') or 'no value'}"
    return value, coefficient_interval(entry), reason


def _chance(part: str, key: str):
    return lambda report, _: _coefficient((report.get("chance_corrected") or {}).get(part, {}).get(key), key)


def _pair_kappa(report, pair) -> Reading:
    row, reason = _find_pair(report["chance_corrected"]["pairs"], pair, report["raters"])
    return (None, None, reason) if row is None else _coefficient(row["coefficients"]["cohen_kappa"], "cohen_kappa")


def _category_kappa(report, category) -> Reading:
    per = report["chance_corrected"]["all_raters"].get("fleiss_kappa_per_category") or {}
    if category not in per:
        return None, None, f"undefined: category {category!r} is not among {', '.join(per) or 'none'}"
    return _coefficient(per[category], f"category_kappa:{category}")


def _unitizing(key: str, value_key: str = "value"):
    """A value of the report's ``unitizing`` section (overall, or one label's)."""

    def read(report, label):
        section = report.get("unitizing")
        if section is None:
            return None, None, f"undefined: unitizing agreement {NOT_COMPUTED}"
        entry = section[key]
        if label is not None:
            if label not in entry:
                return None, None, f"undefined: label {label!r} has no unit in documents every rater annotated"
            entry = entry[label]
        value = entry.get(value_key)
        reason = None if value is not None else f"undefined: {entry.get('reason') or 'no value'}"
        return value, entry.get("interval"), reason

    return read


def _structure(read_section: Callable[[Mapping, str | None], Reading]):
    """A reader of the report's ``structure`` section, undefined when it has no relations."""

    def read(report, argument):
        section = report.get("structure")
        if section is None:
            return None, None, f"undefined: relation and attribute agreement {NOT_COMPUTED}"
        if section.get("relations") is None:
            why = "; ".join(section["lost"]) if section.get("lost") else section.get("note", "no relations or attributes")
            return None, None, f"undefined: {why}"
        return read_section(section, argument)

    return read


def _relation(key: str, part: str = "overall"):
    """A relation statistic: overall, on relations with both spans marked, or one label's."""

    def read(section, label):
        relations = section["relations"]
        if label is None:
            return _psa(relations[part], key, "no rater pair has a defined relation PSA (no relations)")
        if label not in relations["labels"]:
            seen = ", ".join(relations["labels"]) or "none"
            return None, None, f"undefined: relation label {label!r} is not in the corpus (labels: {seen})"
        return _psa(relations["labels"][label], key, f"no rater pair marked a relation labelled {label!r}")

    return _structure(read)


def _attribute(alpha: bool):
    """An attribute's α over all raters, or the mean over pairs of its Cohen's κ."""

    def read(section, name):
        attributes = section["attributes"]["attributes"]
        if name not in attributes:
            return None, None, f"undefined: attribute {name!r} is not in the corpus (attributes: {', '.join(attributes) or 'none'})"
        if alpha:
            return _coefficient(attributes[name]["all_raters"].get("krippendorff_alpha"), f"attribute_alpha:{name}")
        value = mean_pair_kappa(attributes[name])
        return value, None, None if value is not None else f"undefined: no rater pair has a defined Cohen's κ for attribute {name!r}"

    return _structure(read)


def _accuracy(report, rater) -> Reading:
    """A rater's accuracy from the annotator model's competence table, or (``rater`` None) the
    lowest, with the lowest lower end of the posterior intervals."""
    section = report.get("annotators")
    if section is None:
        return None, None, "undefined: the annotator model was not fitted"
    rows = section["competence"]
    if not rows:
        return None, None, "undefined: no rater is in the model"
    method = f"posterior ({section['method']})"
    if rater is None:
        worst = min(rows, key=lambda row: (row["accuracy"], row["rater"]))
        low = min(row["accuracy_interval"][0] for row in rows)
        return worst["accuracy"], {"low": low, "high": worst["accuracy_interval"][1], "method": method}, None
    row = next((row for row in rows if row["rater"] == rater), None)
    if row is None:
        shown = ", ".join(row["rater"] for row in rows[:10])
        return None, None, f"undefined: rater {rater!r} is not in the model (raters: {shown})"
    low, high = row["accuracy_interval"]
    return row["accuracy"], {"low": low, "high": high, "method": method}, None


# --- the catalogue ------------------------------------------------------------------------------

_PSA, _CHANCE, _UNITIZING, _STRUCTURE, _MODEL = NEEDS  # the families
_LABEL, _PAIR = "<LABEL>", "<A>~<B>"


def _kappa_family(key: str, description: str) -> Statistic:
    """A coefficient of all raters on the candidate items, with Gwet's analytic interval."""
    return Statistic(key, _CHANCE, "analytic", description, _chance("all_raters", key))


STATISTICS: dict[str, Statistic] = {s.key: s for s in (
    Statistic("pairwise_mean_psa", _PSA, "bootstrap", "mean over rater pairs of each pair's PSA (the headline)",
              **_counted(("overall", "pairwise_mean_psa"), "no rater pair has a defined PSA (no spans)")),
    Statistic("pooled_psa", _PSA, "bootstrap", "PSA of a, b, c summed over all rater pairs",
              **_counted(("overall", "pooled_psa"), "no rater marked any span")),
    Statistic("macro_psa", _PSA, "bootstrap", "mean over labels of each label's pairwise mean PSA",
              **_counted(("macro", "pairwise_mean_psa"), "no label has a defined PSA")),
    Statistic("macro_pooled_psa", _PSA, "bootstrap", "mean over labels of each label's pooled PSA",
              **_counted(("macro", "pooled_psa"), "no label has a defined PSA")),
    Statistic("label", _PSA, "bootstrap", "pairwise mean PSA of label <LABEL>", argument=_LABEL,
              **_counted(("labels", ..., "pairwise_mean_psa"), "no rater pair marked a span labelled {!r}")),
    Statistic("label_pooled", _PSA, "bootstrap", "pooled PSA of label <LABEL>", argument=_LABEL,
              **_counted(("labels", ..., "pooled_psa"), "no rater pair marked a span labelled {!r}")),
    Statistic("pair", _PSA, "bootstrap", "PSA of raters <A>~<B> (either order)", _pair, _PAIR),
    Statistic("kappa", _CHANCE, "bootstrap", "Cohen's κ on the pooled marked/NONE table",
              _chance("pooled", "cohen_kappa"), path=("chance", "pooled", "cohen_kappa")),
    Statistic("alpha", _CHANCE, "bootstrap", "Krippendorff's α, nominal, all raters",
              _chance("all_raters", "krippendorff_alpha"), path=("chance", "all_raters", "krippendorff_alpha")),
    Statistic("pair_kappa", _CHANCE, "bootstrap", "Cohen's κ of raters <A>~<B> over all categories", _pair_kappa, _PAIR),
    _kappa_family("fleiss_kappa", "Fleiss' κ, all raters, every rating"),
    _kappa_family("fleiss_kappa_complete", "Fleiss' κ on the items every rater rated"),
    _kappa_family("conger_kappa", "Conger's κ, all raters, every rating"),
    _kappa_family("conger_kappa_complete", "Conger's κ on the items every rater rated"),
    _kappa_family("davies_fleiss_kappa", "Davies & Fleiss' κ (= Conger's κ), all raters"),
    _kappa_family("brennan_prediger", "Brennan–Prediger coefficient (Bennett's S), all raters"),
    _kappa_family("percent_agreement", "percent agreement, all raters"),
    _kappa_family("gwet_ac1", "Gwet's AC1, all raters"),
    Statistic("light_kappa", _CHANCE, "none", "Light's κ, the mean pairwise Cohen's κ",
              _chance("all_raters", "light_kappa")),
    Statistic("kappa_s", _CHANCE, "none", "Shah's fixed-expert κ_S, all raters", _chance("all_raters", "kappa_s")),
    Statistic("category_kappa", _CHANCE, "analytic", "Fleiss' κ of category <CATEGORY> against the rest",
              _category_kappa, "<CATEGORY>"),
    Statistic("alpha_u", _UNITIZING, "bootstrap", "Krippendorff's α_U: unitizing agreement of all labels, how alike "
              "the raters cut the text into units and gaps, 1 − observed/expected squared-offset disagreement",
              _unitizing("alpha_u")),
    Statistic("alpha_u_label", _UNITIZING, "bootstrap", "unitizing α_U of label <LABEL>",
              _unitizing("alpha_u_per_label"), _LABEL),
    Statistic("gamma", _UNITIZING, "none", "Mathet et al.'s γ: units aligned one-to-one across raters, 1 − "
              "observed/expected disorder (position and label) against random annotations", _unitizing("gamma")),
    Statistic("gamma_k", _UNITIZING, "none", "γ-k of label <LABEL>", _unitizing("gamma_per_label", "gamma_k"), _LABEL),
    Statistic("relation_psa", _STRUCTURE, "bootstrap", "mean over rater pairs of each pair's relation PSA",
              _relation("pairwise_mean_psa")),
    Statistic("relation_pooled_psa", _STRUCTURE, "bootstrap", "relation PSA of a, b, c summed over all rater pairs",
              _relation("pooled_psa")),
    Statistic("relation_both_psa", _STRUCTURE, "none",
              "relation pairwise mean PSA on relations whose two spans both raters marked",
              _relation("pairwise_mean_psa", "both_spans_marked")),
    Statistic("relation", _STRUCTURE, "bootstrap", "relation pairwise mean PSA of relation label <LABEL>",
              _relation("pairwise_mean_psa"), _LABEL),
    Statistic("attribute_alpha", _STRUCTURE, "analytic", "Krippendorff's α of attribute <NAME> over all raters",
              _attribute(alpha=True), "<NAME>"),
    Statistic("attribute_kappa", _STRUCTURE, "none", "mean over rater pairs of attribute <NAME>'s Cohen's κ",
              _attribute(alpha=False), "<NAME>"),
    Statistic("rater_accuracy", _MODEL, "posterior", "accuracy of rater <RATER> under the annotator model (gate --method; default dawid-skene)",
              _accuracy, "<RATER>"),
    Statistic("min_rater_accuracy", _MODEL, "posterior", "the lowest rater accuracy under the annotator model (gate --method; default dawid-skene)",
              _accuracy),
)}


def names() -> list[str]:
    """Every statistic's name as written on the command line (``label:<LABEL>``, ...)."""
    return [s.name for s in STATISTICS.values()]


def comparable() -> list[Statistic]:
    """The statistics ``compare`` resamples paired over two rounds: the PSA family's with a
    ``path`` (``plan`` resamples every statistic with one)."""
    return [s for s in STATISTICS.values() if s.path is not None and s.family == _PSA]


def find(name: str, source: str) -> tuple[Statistic, str | None]:
    """The statistic a name calls (``label:PER``) and its argument (``PER``, or None); an unknown
    name is a usage error listing the known ones, with the closest."""
    key, sep, argument = name.partition(":")
    statistic = STATISTICS.get(key)
    if statistic is None or (statistic.argument is None) == bool(sep) or (sep and not argument):
        written = [s.key if s.argument is None else f"{s.key}:{argument or s.argument}" for s in STATISTICS.values()]
        raise UsageError(f"{source}: unknown statistic {name!r}{did_you_mean(name, written)}; allowed: {', '.join(names())}")
    return statistic, argument or None


# --- the headline --------------------------------------------------------------------------------

#: The headline every rendering shows first (text, Markdown, HTML page, notebook): catalogue keys,
#: in order, and the name each rendering gives them.
HEADLINE = {
    "pairwise_mean_psa": "pairwise mean PSA (headline)",
    "pooled_psa": "pooled PSA",
    "macro_psa": "macro PSA (mean over labels)",
    "kappa": "Cohen's κ, pooled",
    "alpha": "Krippendorff's α (nominal)",
    "fleiss_kappa": "Fleiss' κ",
    "davies_fleiss_kappa": "Davies–Fleiss κ",
    "gwet_ac1": "Gwet's AC1",
    "alpha_u": "Krippendorff's α_U (unitizing)",
    "gamma": "Mathet et al.'s γ",
    "relation_psa": "relation pairwise mean PSA",
    "relation_both_psa": "relation PSA, both spans marked",
}


def replicates(report: Mapping[str, Any]) -> int | None:
    """The bootstrap replicates of the report's intervals (None: none were drawn)."""
    return (report.get("intervals") or {}).get("replicates")


def headline(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``{"key", "name", "value", "interval", "method", "what", "undefined"}`` per statistic of
    :data:`HEADLINE` the report has: its reading, the interval's method, its description, and
    (``undefined``) why the value is None."""
    drawn = replicates(report)
    out = []
    for key, name in HEADLINE.items():
        statistic = STATISTICS[key]
        value, interval, reason = statistic.read(report, None)
        if reason is not None and reason.endswith(NOT_COMPUTED):  # not asked for (or no pooled κ for document labels)
            continue
        out.append({"key": key, "name": name, "value": value, "interval": interval,
                    "method": interval_method(interval, drawn), "what": statistic.description,
                    "undefined": None if reason is None else reason.removeprefix("undefined: ")})
    return out


def reference_note(report: Mapping[str, Any]) -> str | None:
    """Which raters the headline is over, when a reference rater is left out of it (None without one)."""
    reference = report.get("reference")
    return None if reference is None else (
        f"headline over {len(reference['headline_raters'])} raters; reference {reference['rater']!r} left out "
        "(each rater is scored against it in its own section)")
