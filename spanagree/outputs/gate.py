"""A pass/fail gate on agreement, for CI: ``spanagree gate PATH... --min NAME=BOUND``.

Each check compares one statistic of the report with a lower bound: it passes when the value is
at least the bound. ``on = "point"`` (default) compares the point estimate; ``on = "lower"``
compares the lower end of the statistic's bootstrap interval (docs/intervals.md), so a check passes only
when the data make the bound credible, not just reached by luck; ``lower`` needs intervals and
uses 1,000 bootstrap replicates unless told otherwise. ``min_documents`` adds a check that at
least that many documents were scored.

Statistic names (``--min NAME=BOUND``; in a config, ``[gate.min]`` for the plain names and a
sub-table for the names with an argument, e.g. ``[gate.min.label]`` ``PER = 0.75``) are the
catalogue's (:mod:`spanagree.catalogue`; ``spanagree info --statistics``), with what each needs:
unitizing turns ``[unitizing] on``, structure ``[report] structure``, the model fits Dawid–Skene
with its default priors on the run's spans (``spanagree raters --min-accuracy`` for others).

A name the gate does not know, a statistic that needs candidates when none are configured, and
``on = "lower"`` with a statistic that has no interval are usage errors (exit code 2). A
statistic that is **undefined** for the data (no spans of the label, a label or pair that is not
in the corpus, κ with a single category, an interval whose every replicate is undefined) makes
its check **fail** (exit code 1), with the reason: a gate must not pass on numbers that do not
exist.

With ``on = "lower"``, a check whose interval straddles its bound (lower end below it, upper end
at or above it) is **inconclusive**, not failed: the data neither support nor rule out the bound.
Its row says so, with an estimate of how many documents would likely decide it
(:func:`spanagree.measures.psa.deciding.documents_to_decide`). An inconclusive check still makes the gate exit with code 1, like a
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
from typing import Any, Mapping, Sequence

from .. import catalogue
from ..errors import UsageError, option
from ..core.files import write_bytes
from ..core.templates import render
from ..core.sanitize import cut, markdown, visible
from .tables import plain_table
from ..measures.psa.deciding import documents_to_decide

#: Bootstrap replicates used when ``on = "lower"`` and no ``--bootstrap`` was given.
DEFAULT_REPLICATES = 1000
ON = ("point", "lower")


@dataclass(frozen=True)
class Check:
    """``statistic >= bound`` (``argument``: the label, or the pair ``A~B``)."""

    statistic: str
    bound: float
    argument: str | None = None

    @property
    def name(self) -> str:
        return self.statistic if self.argument is None else f"{self.statistic}:{self.argument}"


def parse_check(text: str, option: str = "--min") -> Check:
    """A ``--min`` value (or one of ``option``): ``NAME=BOUND`` (split at the last ``=``, so a label may contain one).

    >>> parse_check("label:PER=0.75")
    Check(statistic='label', bound=0.75, argument='PER')
    """
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
    """A check from a statistic name of the catalogue; an unknown name is a usage error listing
    the known ones."""
    statistic, argument = catalogue.find(name, source)
    if not math.isfinite(bound):
        raise UsageError(f"{source}: the bound must be a finite number, got {bound!r}")
    return Check(statistic.key, float(bound), argument)


def checks_from_settings(gate: Mapping[str, Any], extra: Sequence[str] = ()) -> list[Check]:
    """The checks of a ``[gate]`` section, then the ``--min`` values (a ``--min`` for a
    statistic the config also bounds replaces the config's bound, in place)."""
    checks: list[Check] = []
    # the plain names first, then the tables of labels and pairs (as a config file lists them)
    for name, value in sorted(gate.get("min", {}).items(), key=lambda item: isinstance(item[1], Mapping)):
        if isinstance(value, Mapping):
            for key, bound in value.items():
                # a key may be written in double quotes, as for a name with spaces: not part of it
                argument = key[1:-1] if len(key) >= 2 and key[0] == key[-1] == '"' else key
                checks.append(make_check(f"{name}:{argument}", bound, source=f"[gate.min.{name}] {key}"))
        else:
            checks.append(make_check(name, value, source=f"[gate.min] {name}"))
    # [gate] checks are written as --min takes them: any label, ':' and '=' included
    checks += [parse_check(text, "[gate] checks") for text in gate.get("checks", ())]
    checks += [parse_check(text) for text in extra]
    return list({check.name: check for check in checks}.values())  # a later bound of a name replaces, in place


def prepare(request: Any, checks: Sequence[Check], *, on: str = "point", min_documents: int | None = None) -> Any:
    """Check the checks against the request before any scoring; the request with what they
    need turned on: unitizing, structure, and intervals for ``on = "lower"`` (1,000 replicates
    unless set). Raises UsageError."""
    if on not in ON:
        raise UsageError(f"on must be one of {', '.join(ON)}; got {on!r}")
    if not checks and min_documents is None:
        raise UsageError(
            "no checks: give --min NAME=BOUND (or --min-documents N), or a config with a [gate.min] table; "
            f"statistics: {', '.join(catalogue.names())}"
        )
    settings = request.settings
    needs = {c.name: catalogue.STATISTICS[c.statistic].needs for c in checks}
    if settings["candidates"] is None:
        need = [name for name, what in needs.items() if what == "candidates"]
        if need:
            raise UsageError(
                f"{', '.join(need)} need{'s' if len(need) == 1 else ''} candidate items: "
                f"give them with {option('candidates', 'tokens')} (or documents, or a file of candidate spans)"
            )
    changes: dict[str, Any] = {}
    if "unitizing" in needs.values() and not settings["unitizing"]:
        changes["unitizing"] = True
    if "structure" in needs.values():
        changes["structure"] = True
    if on == "lower":
        without = [c.name for c in checks if catalogue.STATISTICS[c.statistic].interval == "none"]
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
        reason = None if scored >= min_documents else f"{scored} documents scored, fewer than {min_documents}"
        results.append(_row("documents", "documents scored", min_documents, scored, None, scored, reason))
    for check in checks:
        statistic = catalogue.STATISTICS[check.statistic]
        value, interval, reason = statistic.read(report, check.argument)
        compared = value
        if on == "lower":
            compared = None if interval is None else interval.get("low")
            if reason is None and compared is None:
                reason = "the interval is undefined (no bootstrap replicate defines it)"
        passed = reason is None and compared is not None and compared >= check.bound
        if reason is None and not passed:
            what = "value" if on == "point" else "interval's lower bound"
            reason = f"{what} {compared:.4f} is below {check.bound:g}"
        row = _row(check.name, statistic.describe(check.argument), check.bound, value, interval, compared, reason)
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


def _row(name: str, description: str, bound: float, value: Any, interval: dict | None, compared: Any,
         reason: str | None) -> dict[str, Any]:
    """A check's row of :func:`evaluate`: passed when there is no ``reason`` it failed."""
    passed = reason is None
    return {"name": name, "description": description, "bound": bound, "value": value, "interval": interval,
            "compared": compared, "passed": passed, "reason": reason, "verdict": "pass" if passed else "fail"}


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
    """The checks as a plain-text table, and a closing verdict line (with wasabi's icon and colour
    when ``color``, for a terminal)."""
    from wasabi import Printer

    rows = [[visible(c["name"]), _value(c["value"]), _interval(c["interval"], result.get("replicates")),
             f">= {c['bound']:g}", _verdict(c), visible(c["reason"] or "")] for c in result["checks"]]
    header = ["check", "value", _interval_header(result), "bound" + (" (lower)" if result["on"] == "lower" else ""),
              "verdict", "reason"]
    text = plain_table(rows, header)
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
            f"| `{_code(c['name'])}` | {_value(c['value'])} | {_interval(c['interval'], result.get('replicates'))} "
            f"| >= {c['bound']:g} | {verdict} |"
        )
    return "\n".join(lines) + "\n"


def as_junit(result: dict[str, Any]) -> bytes:
    """JUnit XML: one test case per check, a ``<failure>`` for each failed one."""
    import xml.etree.ElementTree as ET

    checks = result["checks"]
    suites, suite = _suites(len(checks), sum(not c["passed"] for c in checks))
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="on", value=result["on"])
    if result["level"] is not None:
        ET.SubElement(properties, "property", name="level", value=f"{result['level']:g}")
    for c in checks:
        case = ET.SubElement(suite, "testcase", classname="spanagree.outputs.gate",
                             name=_xml(f"{c['name']} >= {c['bound']:g}"), time="0")
        detail = f"{c['description']}: value {_value(c['value'])}"
        if c["interval"] is not None:
            detail += f", interval {_interval(c['interval'], result.get('replicates'))}"
        if not c["passed"]:
            kind = "GateInconclusive" if c.get("verdict") == "inconclusive" else "GateFailure"
            failure = ET.SubElement(case, "failure", message=_xml(c["reason"] or "failed"), type=kind)
            failure.text = _xml(detail)
        else:
            ET.SubElement(case, "system-out").text = _xml(detail)
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n"


def _suites(tests: int, failures: int, errors: int = 0):
    """The JUnit ``<testsuites>`` element and its one ``<testsuite>``, with their counts."""
    import xml.etree.ElementTree as ET

    counts = {"tests": str(tests), "failures": str(failures)}
    suites = ET.Element("testsuites", name="spanagree gate", **counts, **({"errors": str(errors)} if errors else {}))
    suite = ET.SubElement(suites, "testsuite", name="spanagree gate", **counts, errors=str(errors), skipped="0", time="0")
    return suites, suite


def write_outputs(result: dict[str, Any], *, junit: Path | None = None, environ: Mapping[str, str] | None = None) -> list[str]:
    """Write the JUnit file (if asked) and append the Markdown summary to
    ``$GITHUB_STEP_SUMMARY`` (when set); returns the paths written."""
    return _write(junit, lambda: as_junit(result), environ, lambda: as_markdown(result) + "\n")


def write_error_outputs(message: str, *, junit: Path | None = None, environ: Mapping[str, str] | None = None) -> list[str]:
    """On bad input or usage (exit 2) the gate did not run: still write the JUnit file (one test
    case in ``<error>``) and the step summary, so that CI always has an artefact saying why."""
    import xml.etree.ElementTree as ET

    def junit_xml() -> bytes:
        suites, suite = _suites(1, 0, errors=1)
        case = ET.SubElement(suite, "testcase", classname="spanagree.outputs.gate", name="spanagree gate could run", time="0")
        ET.SubElement(case, "error", message=_xml(message), type="InputError").text = _xml(message)
        return ET.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n"

    shown = visible(cut(message, 2000), keep_newlines=True).replace("`", "'")
    summary = f"### ❌ spanagree gate: could not run (exit 2)\n\n```\n{shown}\n```\n\n"
    # passing over a path that cannot be written: the error being reported may be about it
    return _write(junit, junit_xml, environ, lambda: summary, passed_over=OSError)


def _write(junit: Path | None, junit_xml, environ: Mapping[str, str] | None, summary_text,
           passed_over: type[Exception] | tuple = ()) -> list[str]:
    """Write ``junit_xml()`` to ``junit`` (when given) and append ``summary_text()`` to
    ``$GITHUB_STEP_SUMMARY`` (when set); returns the paths written."""
    summary = (os.environ if environ is None else environ).get("GITHUB_STEP_SUMMARY")
    written = []
    for path, write in ((junit, lambda: write_bytes(junit, junit_xml())), (summary, lambda: _append(summary, summary_text()))):
        if path:
            try:
                write()
                written.append(str(path))
            except passed_over:
                pass
    return written


def _append(path: str, text: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


# --- helpers ------------------------------------------------------------------------------------


def _value(value) -> str:
    if value is None:
        return "undefined"
    if isinstance(value, int):
        return str(value)
    return f"{value:.4f}"


def _interval(interval: dict | None, replicates: int | None) -> str:
    if not interval or interval.get("low") is None:
        return "-"
    return f"[{interval['low']:.4f}, {interval['high']:.4f}] {catalogue.interval_method(interval, replicates)}"


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
