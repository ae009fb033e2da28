"""A pass/fail gate on agreement, for CI: ``spanagree gate PATH... --min NAME=BOUND``.

Each check compares one statistic of the report with a lower bound: it passes when the value is
at least the bound. ``on = "point"`` (default) compares the point estimate; ``on = "lower"``
compares the lower end of the statistic's bootstrap interval (docs/intervals.md), so a check passes only
when the data make the bound credible, not just reached by luck; ``lower`` needs intervals and
uses 1,000 bootstrap replicates unless told otherwise. ``min_documents`` adds a check that at
least that many documents were scored.

Statistic names (``--min NAME=BOUND``; in a config, ``[gate.min]`` for the plain names and a
sub-table for the names with an argument, e.g. ``[gate.min.label]`` ``PER = 0.75``):

==========================  =================================================================
name                        statistic
==========================  =================================================================
``pairwise_mean_psa``       mean over rater pairs of each pair's PSA (the headline)
``pooled_psa``              PSA of a, b, c summed over all pairs
``macro_psa``               mean over labels of each label's pairwise mean PSA
``macro_pooled_psa``        mean over labels of each label's pooled PSA
``label:<LABEL>``           the label's pairwise mean PSA
``label_pooled:<LABEL>``    the label's pooled PSA
``pair:<A>~<B>``            the PSA of raters A and B (either order)
``kappa``                   Cohen's κ on the pooled marked/NONE table (candidates)
``alpha``                   Krippendorff's α, nominal, all raters (candidates)
``pair_kappa:<A>~<B>``      Cohen's κ of raters A and B over all categories (candidates)
``fleiss_kappa``            Fleiss' κ, all raters, every rating (candidates; analytic interval)
``fleiss_kappa_complete``   Fleiss' κ on the items every rater rated (candidates; analytic)
``conger_kappa``            Conger's κ, all raters, every rating (candidates; analytic)
``conger_kappa_complete``   Conger's κ on the items every rater rated (candidates; analytic)
``davies_fleiss_kappa``     Davies & Fleiss' κ = Conger's κ (candidates; analytic)
``brennan_prediger``        Brennan–Prediger / Bennett's S, all raters (candidates; analytic)
``percent_agreement``       percent agreement, all raters (candidates; analytic)
``gwet_ac1``                Gwet's AC1, all raters (candidates; analytic interval)
``light_kappa``             Light's κ, the mean pairwise Cohen's κ (candidates; no interval)
``kappa_s``                 Shah's fixed-expert κ_S, all raters (candidates; no interval)
``category_kappa:<CAT>``    Fleiss' κ of one category (or label) against the rest (candidates)
``alpha_u``                 Krippendorff's unitizing α_U, all labels
``alpha_u_label:<LABEL>``   the label's α_U
``gamma``                   Mathet et al.'s γ (no interval)
``gamma_k:<LABEL>``         the label's γ-k (no interval)
``relation_psa``            mean over rater pairs of each pair's relation PSA (docs/structure.md)
``relation_pooled_psa``     relation PSA of a, b, c summed over all pairs
``relation_both_psa``       relation pairwise mean PSA on relations whose two spans both raters marked
``relation:<LABEL>``        the relation label's pairwise mean PSA
``attribute_alpha:<NAME>``  Krippendorff's α of the attribute over all raters (no interval)
``attribute_kappa:<NAME>``  mean over rater pairs of the attribute's Cohen's κ (no interval)
``rater_accuracy:<RATER>``  the rater's accuracy under the Dawid–Skene model (posterior interval)
``min_rater_accuracy``      the lowest rater accuracy under the Dawid–Skene model
==========================  =================================================================

"analytic" statistics have Gwet's standard-error interval (docs/chance-corrected.md); with
``on = "lower"`` they use it, and a bootstrap interval when there is one. The unitizing
statistics turn ``[unitizing] on`` for the run (docs/unitizing.md), the relation and attribute
statistics ``[report] structure`` (docs/structure.md). The rater-accuracy statistics fit the
Dawid–Skene model with its default priors on the run's spans, under the run's rule (accuracy: the
chance that the rater's answer to an item is its true class; docs/annotators.md); ``on = "lower"``
uses its posterior interval (for ``min_rater_accuracy``, the lowest lower end). ``spanagree raters
--model mace --min-accuracy`` gates on the other model or other priors.

A name the gate does not know, a statistic that needs candidates when none are configured, and
``on = "lower"`` with a statistic that has no interval are usage errors (exit code 2). A
statistic that is **undefined** for the data (no spans of the label, a label or pair that is not
in the corpus, κ with a single category, an interval whose every replicate is undefined) makes
its check **fail** (exit code 1), with the reason: a gate must not pass on numbers that do not
exist.

With ``on = "lower"``, a check whose interval straddles its bound (lower end below it, upper end
at or above it) is **inconclusive**, not failed: the data neither support nor rule out the bound.
Its row says so, with an estimate of how many documents would likely decide it
(:func:`documents_to_decide`). An inconclusive check still makes the gate exit with code 1, like a
failed one: a gate passes only on evidence, and CI that treated "undecided" as success would
let an unproven agreement through; exit code 2 stays reserved for bad input. The JSON and the
last line tell the two apart (``verdict``: ``failed`` or ``inconclusive``). Definitions:
``docs/deciding.md``.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ..errors import UsageError, option
from ..core.files import write_bytes
from ..core.templates import render
from ..core.sanitize import cut, markdown, visible
from .structure_text import mean_pair_kappa

if TYPE_CHECKING:
    from .request import Request

#: Bootstrap replicates used when ``on = "lower"`` and no ``--bootstrap`` was given.
DEFAULT_REPLICATES = 1000
ON = ("point", "lower")


@dataclass(frozen=True)
class Statistic:
    """One kind of statistic the gate can check."""

    name: str
    description: str
    candidates: bool = False  # needs a candidate set
    interval: bool = True  # has a bootstrap interval
    argument: str | None = None  # "label" or "pair" for names like label:PER
    analytic: bool = False  # has an analytic (standard-error) interval
    unitizing: bool = False  # needs the unitizing measures
    structure: bool = False  # needs relation and attribute agreement
    model: bool = False  # needs the annotator model fitted on the spans


STATISTICS: dict[str, Statistic] = {
    s.name: s
    for s in (
        Statistic("pairwise_mean_psa", "mean over rater pairs of each pair's PSA"),
        Statistic("pooled_psa", "PSA of a, b, c summed over all rater pairs"),
        Statistic("macro_psa", "mean over labels of each label's pairwise mean PSA"),
        Statistic("macro_pooled_psa", "mean over labels of each label's pooled PSA"),
        Statistic("label", "the label's pairwise mean PSA", argument="label"),
        Statistic("label_pooled", "the label's pooled PSA", argument="label"),
        Statistic("pair", "the PSA of one rater pair", argument="pair"),
        Statistic("kappa", "Cohen's κ on the pooled marked/NONE table", candidates=True),
        Statistic("alpha", "Krippendorff's α (nominal, all raters)", candidates=True),
        Statistic("pair_kappa", "Cohen's κ of one rater pair over all categories", candidates=True, argument="pair"),
        Statistic("fleiss_kappa", "Fleiss' κ (all raters, every rating)", candidates=True, interval=False, analytic=True),
        Statistic("fleiss_kappa_complete", "Fleiss' κ (items every rater rated)", candidates=True, interval=False,
                  analytic=True),
        Statistic("conger_kappa", "Conger's κ (all raters, every rating)", candidates=True, interval=False, analytic=True),
        Statistic("conger_kappa_complete", "Conger's κ (items every rater rated)", candidates=True, interval=False,
                  analytic=True),
        Statistic("davies_fleiss_kappa", "Davies & Fleiss' κ (all raters)", candidates=True, interval=False, analytic=True),
        Statistic("brennan_prediger", "Brennan–Prediger coefficient (all raters)", candidates=True, interval=False,
                  analytic=True),
        Statistic("percent_agreement", "percent agreement (all raters)", candidates=True, interval=False, analytic=True),
        Statistic("kappa_s", "Shah's fixed-expert κ_S (all raters)", candidates=True, interval=False),
        Statistic("gwet_ac1", "Gwet's AC1 (all raters)", candidates=True, interval=False, analytic=True),
        Statistic("light_kappa", "Light's κ (mean pairwise Cohen's κ)", candidates=True, interval=False),
        Statistic("category_kappa", "Fleiss' κ of one category against the rest", candidates=True, interval=False,
                  analytic=True, argument="label"),
        Statistic("alpha_u", "Krippendorff's unitizing α_U (all labels)", unitizing=True),
        Statistic("alpha_u_label", "the label's unitizing α_U", argument="label", unitizing=True),
        Statistic("gamma", "Mathet et al.'s γ", interval=False, unitizing=True),
        Statistic("gamma_k", "the label's γ-k", interval=False, argument="label", unitizing=True),
        Statistic("relation_psa", "mean over rater pairs of each pair's relation PSA", structure=True),
        Statistic("relation_pooled_psa", "relation PSA of a, b, c summed over all rater pairs", structure=True),
        Statistic("relation_both_psa", "relation pairwise mean PSA, relations whose two spans both raters marked",
                  interval=False, structure=True),
        Statistic("relation", "the label's relation pairwise mean PSA", argument="label", structure=True),
        Statistic("attribute_alpha", "the label's Krippendorff's α over all raters (attribute)", interval=False,
                  argument="label", structure=True),
        Statistic("attribute_kappa", "the label's mean pairwise Cohen's κ (attribute)", interval=False,
                  argument="label", structure=True),
        Statistic("rater_accuracy", "the rater's accuracy (Dawid–Skene model)", interval=False, analytic=True,
                  argument="rater", model=True),
        Statistic("min_rater_accuracy", "the lowest rater accuracy (Dawid–Skene model)", interval=False,
                  analytic=True, model=True),
    )
}


def allowed_names() -> list[str]:
    """Every statistic name as written on the command line (``label:<LABEL>``, ...)."""
    placeholder = {"label": "<LABEL>", "pair": "<A>~<B>", "rater": "<RATER>"}
    return [s.name if s.argument is None else f"{s.name}:{placeholder[s.argument]}" for s in STATISTICS.values()]


@dataclass(frozen=True)
class Check:
    """``statistic >= bound`` (``argument``: the label, or the pair ``A~B``)."""

    statistic: str
    bound: float
    argument: str | None = None

    @property
    def name(self) -> str:
        return self.statistic if self.argument is None else f"{self.statistic}:{self.argument}"


def parse_check(text: str) -> Check:
    """A ``--min`` value: ``NAME=BOUND`` (split at the last ``=``, so a label may contain one).

    >>> parse_check("label:PER=0.75")
    Check(statistic='label', bound=0.75, argument='PER')
    """
    return _check_text(text, "--min")


def _check_text(text: str, option: str) -> Check:
    name, bound = name_and_number(text, option, "BOUND", "pairwise_mean_psa=0.8")
    return make_check(name.strip(), bound, source=f"{option} {text!r}")


def name_and_number(text: str, option: str, what: str, example: str) -> tuple[str, float]:
    """``NAME=NUMBER`` split at the last ``=`` (so a label may contain one); a usage error
    naming ``option`` otherwise."""
    name, sep, raw = text.rpartition("=")
    if not sep or not name:
        raise UsageError(f"{option} {text!r}: expected NAME={what}, e.g. {example}")
    try:
        return name, float(raw)
    except ValueError:
        raise UsageError(f"{option} {text!r}: the {what.lower()} {raw!r} is not a number") from None


def make_check(name: str, bound: float, *, source: str) -> Check:
    """A check from a statistic name; an unknown name is a usage error listing the allowed ones."""
    statistic, sep, argument = name.partition(":")
    kind = STATISTICS.get(statistic)
    if kind is None or (kind.argument is None) != (not sep) or (sep and not argument):
        raise UsageError(f"{source}: unknown statistic {name!r}; allowed: {', '.join(allowed_names())}")
    if not math.isfinite(bound):
        raise UsageError(f"{source}: the bound must be a finite number, got {bound!r}")
    return Check(statistic, float(bound), argument or None)


def checks_from_settings(gate: Mapping[str, Any], extra: Sequence[str] = ()) -> list[Check]:
    """The checks of a ``[gate]`` section, then the ``--min`` values (a ``--min`` for a
    statistic the config also bounds replaces the config's bound, in place)."""
    checks: dict[str, Check] = {}
    bounds = gate.get("min", {})
    # the plain names first, then the tables of labels and pairs (as a config file lists them)
    ordered = sorted(bounds.items(), key=lambda item: isinstance(item[1], Mapping))
    for name, value in ordered:
        if isinstance(value, Mapping):
            for key, bound in value.items():
                # a key may be written in double quotes, as for a name with spaces: not part of it
                argument = key[1:-1] if len(key) >= 2 and key[0] == key[-1] == '"' else key
                check = make_check(f"{name}:{argument}", bound, source=f"[gate.min.{name}] {key}")
                checks[check.name] = check
        else:
            check = make_check(name, value, source=f"[gate.min] {name}")
            checks[check.name] = check
    for text in gate.get("checks", ()):  # written as --min takes them: any label, ':' and '=' included
        check = _check_text(text, "[gate] checks")
        checks[check.name] = check
    for text in extra:
        check = parse_check(text)
        checks[check.name] = check
    return list(checks.values())


def prepare(request: "Request", checks: Sequence[Check], *, on: str = "point",
            min_documents: int | None = None) -> "Request":
    """Check the checks against the request before any scoring; the request with what they
    need turned on: unitizing, structure, and intervals for ``on = "lower"`` (1,000 replicates
    unless set). Raises UsageError."""
    if on not in ON:
        raise UsageError(f"on must be one of {', '.join(ON)}; got {on!r}")
    if not checks and min_documents is None:
        raise UsageError(
            "no checks: give --min NAME=BOUND (or --min-documents N), or a config with a [gate.min] table; "
            f"statistics: {', '.join(allowed_names())}"
        )
    settings = request.settings
    if settings["candidates"] is None:
        need = [c.name for c in checks if STATISTICS[c.statistic].candidates]
        if need:
            raise UsageError(
                f"{', '.join(need)} need{'s' if len(need) == 1 else ''} candidate items: "
                f"give them with {option('candidates', 'tokens')} (or documents, or a file of candidate spans)"
            )
    changes: dict[str, Any] = {}
    if any(STATISTICS[c.statistic].unitizing for c in checks) and not settings["unitizing"]:
        changes["unitizing"] = True
    if any(STATISTICS[c.statistic].structure for c in checks):
        changes["structure"] = True
    if on == "lower":
        without = [c.name for c in checks if not (STATISTICS[c.statistic].interval or STATISTICS[c.statistic].analytic)]
        if without:
            raise UsageError(
                f"--on lower compares the interval's lower bound, and {', '.join(without)} "
                f"{'has' if len(without) == 1 else 'have'} no bootstrap interval (nor an analytic one); check "
                f"{'it' if len(without) == 1 else 'them'} with --on point, or leave it out"
            )
        if settings["bootstrap"] is None:
            changes["bootstrap"] = DEFAULT_REPLICATES
    return request.replace(**changes) if changes else request


class GateResult(dict):
    """A gate's result: the dict :func:`evaluate` describes, shown as a table in a notebook."""

    def _repr_html_(self) -> str:
        return render("gate.html.j2", g=self)


def evaluate(report: dict[str, Any], checks: Sequence[Check], *, on: str = "point",
             min_documents: int | None = None) -> dict[str, Any]:
    """Run the checks on a report dict (:meth:`AgreementReport.to_dict`).

    Returns ``{"passed", "on", "level", "checks": [{"name", "description", "bound", "value",
    "interval", "compared", "passed", "reason"}, ...]}``; ``compared`` is the number held
    against the bound (the value, or the interval's lower end), None when undefined.
    """
    if on not in ON:
        raise UsageError(f"on must be one of {', '.join(ON)}; got {on!r}")
    results = []
    if min_documents is not None:
        scored = report["documents"]["scored"]
        results.append({
            "name": "documents",
            "description": "documents scored",
            "bound": min_documents,
            "value": scored,
            "interval": None,
            "compared": scored,
            "passed": scored >= min_documents,
            "reason": None if scored >= min_documents else f"{scored} documents scored, fewer than {min_documents}",
            "verdict": "pass" if scored >= min_documents else "fail",
        })
    for check in checks:
        value, interval, reason = _lookup(report, check)
        compared = value
        if on == "lower":
            compared = None if interval is None else interval.get("low")
            if reason is None and compared is None:
                reason = "the interval is undefined (no bootstrap replicate defines it)"
        passed = reason is None and compared is not None and compared >= check.bound
        if reason is None and not passed:
            what = "value" if on == "point" else "interval's lower bound"
            reason = f"{what} {compared:.4f} is below {check.bound:g}"
        row = {
            "name": check.name,
            "description": _describe(check),
            "bound": check.bound,
            "value": value,
            "interval": interval,
            "compared": compared,
            "passed": passed,
            "reason": None if passed else reason,
            "verdict": "pass" if passed else "fail",
        }
        if on == "lower" and not passed and compared is not None and value is not None and interval.get("high") is not None \
                and interval["high"] >= check.bound:
            _inconclusive(row, report["documents"]["scored"])
        results.append(row)
    intervals = report.get("intervals")
    failed = sum(r.get("verdict", "fail") == "fail" for r in results)
    inconclusive = sum(r.get("verdict") == "inconclusive" for r in results)
    return GateResult({
        "passed": all(r["passed"] for r in results),
        "verdict": "passed" if not failed and not inconclusive else "failed" if failed else "inconclusive",
        "inconclusive": inconclusive,
        "on": on,
        "level": intervals["level"] if intervals else None,
        "replicates": intervals["replicates"] if intervals else None,
        "checks": results,
    })


def documents_to_decide(value: float, low: float, high: float, bound: float, documents: int) -> tuple[int | None, str | None]:
    """How many documents in all would likely decide a check whose interval straddles its bound,
    and which way (``"pass"`` or ``"fail"``); ``(None, None)`` when the estimate sits on the bound.

    The model: the estimate stays where it is and each side of the interval shrinks as
    1/sqrt(documents) (the standard error of a mean over independent documents), so the side
    facing the bound, ``h`` at n documents, reaches the distance ``|value - bound|`` at
    ``n' = n · (h / |value - bound|)²``. That is where the interval's edge is expected to reach
    the bound, so at n' the check is about as likely to stay undecided as to be decided: a floor
    for planning, not a promise (the estimate moves too).

    >>> documents_to_decide(0.80, 0.74, 0.86, 0.77, 100)
    (400, 'pass')
    """
    if value > bound:
        side, gap, way = value - low, value - bound, "pass"
    elif value < bound:
        side, gap, way = high - value, bound - value, "fail"
    else:
        return None, None
    return max(documents + 1, math.ceil(documents * (side / gap) ** 2)), way


def _inconclusive(row: dict[str, Any], documents: int) -> None:
    """Mark a check whose interval straddles its bound as inconclusive, with an estimate of the
    documents that would decide it."""
    interval, bound = row["interval"], row["bound"]
    total, way = documents_to_decide(row["value"], interval["low"], interval["high"], bound, documents)
    row["verdict"] = "inconclusive"
    row["documents"] = documents
    row["documents_to_decide"] = total
    row["likely"] = way
    row["reason"] = (
        f"interval's lower bound {interval['low']:.4f} is below {bound:g} but its upper bound "
        f"{interval['high']:.4f} is not: inconclusive; "
        + (f"it needs about {total - documents} more documents ({total} in all, the interval narrowing as "
           f"1/sqrt(documents)) to decide, likely as {way}" if total is not None
           else "the estimate sits on the bound: more documents may not decide it")
    )



# --- output -------------------------------------------------------------------------------------


def as_text(result: dict[str, Any], *, color: bool = False) -> str:
    """The checks as a wasabi table, and a closing verdict line (with wasabi's icon and colour
    when ``color``, for a terminal)."""
    from wasabi import Printer, table

    rows = [[visible(c["name"]), _value(c["value"]), _interval(c["interval"]), f">= {c['bound']:g}",
             _verdict(c), visible(c["reason"] or "")] for c in result["checks"]]
    header = ["check", "value", _interval_header(result), "bound" + (" (lower)" if result["on"] == "lower" else ""),
              "verdict", "reason"]
    text = table(rows, header=header, divider=True, max_col=60)
    failed = sum(not c["passed"] for c in result["checks"])
    printer = Printer(no_print=True, pretty=color)
    n = len(result["checks"])
    undecided = result.get("inconclusive", 0)
    if failed and undecided == failed:
        verdict = printer.warn(f"gate inconclusive: {undecided} of {n} {_checks(n)} undecided (exit code 1)")
    elif failed:
        verdict = printer.fail(f"gate failed: {failed} of {n} {_checks(n)}"
                               + (f" ({undecided} of them inconclusive)" if undecided else ""))
    else:
        verdict = printer.good(f"gate passed: {'the' if n == 1 else 'all'} {n} {_checks(n)}")
    return text + "\n" + verdict


def as_markdown(result: dict[str, Any]) -> str:
    """A Markdown summary (for ``$GITHUB_STEP_SUMMARY``)."""
    failed = sum(not c["passed"] for c in result["checks"])
    n = len(result["checks"])
    title = (f"spanagree gate: failed ({failed} of {n} {_checks(n)})" if failed
             else f"spanagree gate: passed ({n} {_checks(n)})")
    icon = "❌" if failed else "✅"
    if failed and result.get("verdict") == "inconclusive":
        title, icon = f"spanagree gate: inconclusive ({failed} of {n} {_checks(n)} undecided)", "⚠️"
    on = "the interval's lower bound" if result["on"] == "lower" else "the point estimate"
    lines = [f"### {icon} {title}", "", f"Bounds apply to {on}.", "",
             f"| check | value | {_interval_header(result)} | bound | verdict |", "|---|---|---|---|---|"]
    for c in result["checks"]:
        verdict = "pass" if c["passed"] else f"**{_verdict(c)}**: {_md(c['reason'])}"
        lines.append(
            f"| `{_code(c['name'])}` | {_value(c['value'])} | {_interval(c['interval'])} | >= {c['bound']:g} | {verdict} |"
        )
    return "\n".join(lines) + "\n"


def as_junit(result: dict[str, Any]) -> bytes:
    """JUnit XML: one test case per check, a ``<failure>`` for each failed one."""
    import xml.etree.ElementTree as ET

    checks = result["checks"]
    failures = sum(not c["passed"] for c in checks)
    suites = ET.Element("testsuites", name="spanagree gate", tests=str(len(checks)), failures=str(failures))
    suite = ET.SubElement(suites, "testsuite", name="spanagree gate", tests=str(len(checks)),
                          failures=str(failures), errors="0", skipped="0", time="0")
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="on", value=result["on"])
    if result["level"] is not None:
        ET.SubElement(properties, "property", name="level", value=f"{result['level']:g}")
    for c in checks:
        case = ET.SubElement(suite, "testcase", classname="spanagree.outputs.gate",
                             name=_xml(f"{c['name']} >= {c['bound']:g}"), time="0")
        detail = f"{c['description']}: value {_value(c['value'])}"
        if c["interval"] is not None:
            detail += f", interval {_interval(c['interval'])}"
        if not c["passed"]:
            kind = "GateInconclusive" if c.get("verdict") == "inconclusive" else "GateFailure"
            failure = ET.SubElement(case, "failure", message=_xml(c["reason"] or "failed"), type=kind)
            failure.text = _xml(detail)
        else:
            ET.SubElement(case, "system-out").text = _xml(detail)
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n"


def write_outputs(result: dict[str, Any], *, junit: Path | None = None, environ: Mapping[str, str] | None = None) -> list[str]:
    """Write the JUnit file (if asked) and append the Markdown summary to
    ``$GITHUB_STEP_SUMMARY`` (when set); returns the paths written."""
    environ = os.environ if environ is None else environ
    written = []
    if junit is not None:
        write_bytes(junit, as_junit(result))
        written.append(str(junit))
    summary = environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(as_markdown(result) + "\n")
        written.append(summary)
    return written


def write_error_outputs(message: str, *, junit: Path | None = None, environ: Mapping[str, str] | None = None) -> list[str]:
    """On bad input or usage (exit 2) the gate did not run: still write the JUnit file (one test
    case in ``<error>``) and the step summary, so that CI always has an artefact saying why."""
    import xml.etree.ElementTree as ET

    environ = os.environ if environ is None else environ
    written = []
    if junit is not None:
        suites = ET.Element("testsuites", name="spanagree gate", tests="1", failures="0", errors="1")
        suite = ET.SubElement(suites, "testsuite", name="spanagree gate", tests="1", failures="0", errors="1",
                              skipped="0", time="0")
        case = ET.SubElement(suite, "testcase", classname="spanagree.outputs.gate", name="spanagree gate could run", time="0")
        ET.SubElement(case, "error", message=_xml(message), type="InputError").text = _xml(message)
        try:
            write_bytes(junit, ET.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n")
            written.append(str(junit))
        except OSError:
            pass  # the error being reported may be this very path
    summary = environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as f:
                shown = visible(cut(message, 2000), keep_newlines=True).replace("`", "'")
                f.write(f"### ❌ spanagree gate: could not run (exit 2)\n\n```\n{shown}\n```\n\n")
            written.append(summary)
        except OSError:
            pass
    return written


# --- helpers ------------------------------------------------------------------------------------


def _lookup(report: dict[str, Any], check: Check) -> tuple[float | None, dict | None, str | None]:
    """(value, interval object or None, reason it is undefined or None)."""
    getter: Callable = _GETTERS[check.statistic]
    return getter(report, check.argument)


def _psa_holder(holder: dict, key: str, what: str):
    value = holder.get(key)
    reason = None if value is not None else f"undefined: {what}"
    return value, holder.get(f"{key}_interval"), reason


def _overall(key: str, what: str):
    return lambda report, _: _psa_holder(report["overall"], key, what)


def _macro(key: str):
    return lambda report, _: _psa_holder(report["macro"], key, "no label has a defined PSA")


def _label(key: str):
    def get(report, label):
        labels = report["labels"]
        if label not in labels:
            seen = ", ".join(labels) or "none"
            return None, None, f"undefined: label {label!r} is not in the corpus (labels: {seen})"
        return _psa_holder(labels[label], key, f"no rater pair marked a span labelled {label!r}")

    return get


def _find_pair(rows: list[dict], pair: str, raters: list[str]):
    """The row of pair ``A~B`` (either order), or a reason."""
    for k in range(len(pair)):
        if pair[k] != "~":
            continue
        a, b = pair[:k], pair[k + 1:]
        for row in rows:
            if sorted(row["raters"]) == sorted([a, b]):
                return row, None
    return None, f"undefined: no pair {pair!r} (raters: {', '.join(raters)}; pairs are written A~B)"


def _pair(report, pair):
    row, reason = _find_pair(report["pairs"], pair, report["raters"])
    if row is None:
        return None, None, reason
    return _psa_holder(row, "psa", "neither rater marked a span in their shared documents")


def _coefficient(entry: dict | None, name: str):
    if entry is None:
        return None, None, f"undefined: {name} was not computed"
    value = entry.get("value")
    reason = None if value is not None else f"undefined: {entry.get('undefined') or 'no value'}"
    return value, entry.get("interval") or entry.get("analytic_interval"), reason


def _chance(path: tuple[str, ...]):
    def get(report, _):
        holder = report["chance_corrected"]
        for key in path[:-1]:
            holder = holder[key]
        return _coefficient(holder.get(path[-1]), path[-1])

    return get


def _pair_kappa(report, pair):
    chance = report["chance_corrected"]
    row, reason = _find_pair(chance["pairs"], pair, report["raters"])
    if row is None:
        return None, None, reason
    return _coefficient(row["coefficients"]["cohen_kappa"], "cohen_kappa")


def _category_kappa(report, category):
    per = report["chance_corrected"]["all_raters"].get("fleiss_kappa_per_category") or {}
    if category not in per:
        return None, None, f"undefined: category {category!r} is not among {', '.join(per) or 'none'}"
    return _coefficient(per[category], f"category_kappa:{category}")


def _unitizing(key: str, label_key: str | None = None):
    """A value of the report's ``unitizing`` section (overall, or one label's)."""

    def get(report, label):
        section = report.get("unitizing")
        if section is None:
            return None, None, "undefined: unitizing agreement was not computed"
        entry = section[key]
        if label is not None:
            if label not in entry:
                return None, None, f"undefined: label {label!r} has no unit in documents every rater annotated"
            entry = entry[label]
        value = entry.get(label_key or "value")
        reason = None if value is not None else f"undefined: {entry.get('reason') or 'no value'}"
        return value, entry.get("interval"), reason

    return get


def _structure_part(report) -> tuple[dict | None, str | None]:
    section = report.get("structure")
    if section is None:
        return None, "undefined: relation and attribute agreement was not computed"
    if section.get("relations") is None:
        why = "; ".join(section["lost"]) if section.get("lost") else section.get("note", "no relations or attributes")
        return None, f"undefined: {why}"
    return section, None


def _relation(key: str, part: str = "overall"):
    """A relation statistic: overall, on relations with both spans marked, or one label's."""

    def get(report, label):
        section, reason = _structure_part(report)
        if section is None:
            return None, None, reason
        relations = section["relations"]
        if label is None:
            return _psa_holder(relations[part], key, "no rater pair has a defined relation PSA (no relations)")
        if label not in relations["labels"]:
            seen = ", ".join(relations["labels"]) or "none"
            return None, None, f"undefined: relation label {label!r} is not in the corpus (labels: {seen})"
        return _psa_holder(relations["labels"][label], key, f"no rater pair marked a relation labelled {label!r}")

    return get


def _attribute(coefficient: str):
    """An attribute's α over all raters, or the mean over pairs of its Cohen's κ."""

    def get(report, name):
        section, reason = _structure_part(report)
        if section is None:
            return None, None, reason
        attributes = section["attributes"]["attributes"]
        if name not in attributes:
            return None, None, f"undefined: attribute {name!r} is not in the corpus (attributes: {', '.join(attributes) or 'none'})"
        entry = attributes[name]
        if coefficient == "alpha":
            return _coefficient(entry["all_raters"].get("krippendorff_alpha"), f"attribute_alpha:{name}")
        value = mean_pair_kappa(entry)
        if value is None:
            return None, None, f"undefined: no rater pair has a defined Cohen's κ for attribute {name!r}"
        return value, None, None

    return get


def _accuracy(report, rater):
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


_GETTERS: dict[str, Callable] = {
    "pairwise_mean_psa": _overall("pairwise_mean_psa", "no rater pair has a defined PSA (no spans)"),
    "pooled_psa": _overall("pooled_psa", "no rater marked any span"),
    "macro_psa": _macro("pairwise_mean_psa"),
    "macro_pooled_psa": _macro("pooled_psa"),
    "label": _label("pairwise_mean_psa"),
    "label_pooled": _label("pooled_psa"),
    "pair": _pair,
    "kappa": _chance(("pooled", "cohen_kappa")),
    "alpha": _chance(("all_raters", "krippendorff_alpha")),
    "pair_kappa": _pair_kappa,
    "fleiss_kappa": _chance(("all_raters", "fleiss_kappa")),
    "davies_fleiss_kappa": _chance(("all_raters", "davies_fleiss_kappa")),
    "kappa_s": _chance(("all_raters", "kappa_s")),
    "gwet_ac1": _chance(("all_raters", "gwet_ac1")),
    "fleiss_kappa_complete": _chance(("all_raters", "fleiss_kappa_complete")),
    "conger_kappa": _chance(("all_raters", "conger_kappa")),
    "conger_kappa_complete": _chance(("all_raters", "conger_kappa_complete")),
    "brennan_prediger": _chance(("all_raters", "brennan_prediger")),
    "percent_agreement": _chance(("all_raters", "percent_agreement")),
    "light_kappa": _chance(("all_raters", "light_kappa")),
    "category_kappa": _category_kappa,
    "alpha_u": _unitizing("alpha_u"),
    "alpha_u_label": _unitizing("alpha_u_per_label"),
    "gamma": _unitizing("gamma"),
    "gamma_k": _unitizing("gamma_per_label", "gamma_k"),
    "relation_psa": _relation("pairwise_mean_psa"),
    "relation_pooled_psa": _relation("pooled_psa"),
    "relation_both_psa": _relation("pairwise_mean_psa", "both_spans_marked"),
    "relation": _relation("pairwise_mean_psa"),
    "attribute_alpha": _attribute("alpha"),
    "attribute_kappa": _attribute("kappa"),
    "rater_accuracy": _accuracy,
    "min_rater_accuracy": _accuracy,
}



def _describe(check: Check) -> str:
    text = STATISTICS[check.statistic].description
    if check.argument is None:
        return text
    if STATISTICS[check.statistic].argument == "label":
        return text.replace("the label's", f"label {check.argument!r}:")
    if STATISTICS[check.statistic].argument == "rater":
        return text.replace("the rater's", f"rater {check.argument!r}:")
    return text.replace("one rater pair", f"raters {check.argument.replace('~', ' and ')}")


def _value(value) -> str:
    if value is None:
        return "undefined"
    if isinstance(value, int):
        return str(value)
    return f"{value:.4f}"


def _interval(interval: dict | None) -> str:
    if not interval or interval.get("low") is None:
        return "-"
    return f"[{interval['low']:.4f}, {interval['high']:.4f}]"


def _interval_header(result: dict) -> str:
    return f"{result['level']:.0%} interval" if result["level"] is not None else "interval"


def _verdict(check: dict) -> str:
    return "pass" if check["passed"] else "inconclusive" if check.get("verdict") == "inconclusive" else "FAIL"


def _checks(n: int) -> str:
    return "check" if n == 1 else "checks"


def _md(text: str) -> str:
    """Text from the data for the Markdown summary: HTML, Markdown and controls escaped."""
    return markdown(str(text).replace("\n", " "))


def _code(text: str) -> str:
    """Text from the data inside a Markdown code span: no backtick to close it, ``|`` escaped."""
    return visible(str(text)).replace("`", "'").replace("|", "\\|")


def _xml(text: str) -> str:
    """Text without the characters XML 1.0 cannot hold."""
    return "".join(
        ch for ch in str(text)
        if ch in "\t\n\r" or 0x20 <= ord(ch) <= 0xD7FF or 0xE000 <= ord(ch) <= 0xFFFD or 0x10000 <= ord(ch) <= 0x10FFFF
    )
