"""Which unit a file's offsets count in, decided from where its spans' ends fall.

An export that does not say its unit (doccano: UTF-16 code units, or grapheme clusters when the
project counts "grapheme clusters as one character") can still show it. Where the units differ in
a text (an emoji, a flag, CRLF, a letter with combining marks before a span), a span read in the
wrong unit is shifted: it takes in the white space before or after it, cuts a word, or cuts a
character (a grapheme cluster) apart. medkit's doccano file, read in UTF-16 code units, marks
``' 202'``; in grapheme clusters, ``'2022'``.

For every span whose code-point extent depends on the unit, each unit's reading *falls badly*
when its offsets are not boundaries of the text in that unit, or the text it covers begins or ends
with white space, or an end cuts a grapheme cluster apart, or an end falls between two letters or
digits (a mid-word cut). A span that falls badly in every unit (an annotator's own slip) tells
nothing and is left out. Over the spans that tell (a file's first :data:`ENOUGH`), the unit whose readings fall badly least often
is chosen when they fall badly for at most one in ten of them and, for every other unit, on the
spans where that unit reads otherwise, its readings fall badly at least half of the time;
otherwise the evidence is mixed (or absent) and the file is refused, naming the option and the
units to try. (Two units that read every telling span alike are one answer: the tool's default
is taken, then the tool's other units in order.)
A unit named by the user is used as named; evidence against it is said in a note.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..errors import InputError, Location, option
from .offsets import UNIT_NAMES, UNITS, boundaries, to_codepoints

#: The share of the telling spans that the chosen unit may read badly, and the share every other
#: unit must read badly (see the module docstring).
MOST_BAD_CHOSEN, LEAST_BAD_OTHERS = 0.1, 0.5
#: Telling spans enough to decide: a file's first this many are weighed, the rest not (a unit
#: read wrong shifts every span after the same characters, so the first ones show it).
ENOUGH = 2000


@dataclass
class Evidence:
    """What a file's spans say about its unit: the spans that tell (their place depends on the
    unit, and some unit reads them well), how many each unit reads badly, and an example of each
    unit's bad reading (``'covered text' (why)``)."""

    telling: int = 0
    bad: dict[str, int] = field(default_factory=lambda: dict.fromkeys(UNITS, 0))
    example: dict[str, str] = field(default_factory=dict)
    #: per telling span, each unit's reading (code-point place or None) and whether it falls badly
    readings: list[tuple[tuple, tuple]] = field(default_factory=list)

    @property
    def enough(self) -> bool:
        """Enough spans told to decide (:data:`ENOUGH`): the reader weighs no more."""
        return self.telling >= ENOUGH

    def weigh(self, text: str, spans: Sequence[tuple[int, int, str]]) -> None:
        """Add the evidence of one text's ``(start, end, label)`` spans, as the file holds them."""
        if not spans or self.enough:
            return
        starts, ends = [s for s, _, _ in spans], [e for _, e, _ in spans]
        readings = {unit: to_codepoints(text, starts, ends, unit) for unit in UNITS}
        clusters = set(boundaries(text, "grapheme").tolist())
        for i in range(len(spans)):
            places = {unit: (int(s[i]), int(e[i])) if ok[i] else None for unit, (s, e, ok) in readings.items()}
            if None not in places.values() and len(set(places.values())) == 1:
                continue  # every unit reads it alike
            why = {unit: _falls_badly(text, place, clusters) for unit, place in places.items()}
            if all(why.values()):
                continue  # bad in every unit: an annotator's slip, not evidence
            self.telling += 1
            self.readings.append((tuple(places[u] for u in UNITS), tuple(bool(why[u]) for u in UNITS)))
            for unit, reason in why.items():
                if reason:
                    self.bad[unit] += 1
                    self.example.setdefault(unit, reason)

    def decide(
        self, given: str | None, preference: Sequence[str], tool: str, where: Location
    ) -> tuple[str, str | None]:
        """The unit to read in, and the note that says which and why (None: nothing to say).
        ``preference``: the tool's units, its default first (a tie goes to the earlier)."""
        preference = (*preference, *(u for u in UNITS if u not in preference))
        if not self.telling:
            return (given or preference[0]), None
        ranked = sorted(preference, key=lambda unit: (self.bad[unit], preference.index(unit)))
        best = ranked[0]
        decided = self.bad[best] <= MOST_BAD_CHOSEN * self.telling and all(
            self._against(unit, best) for unit in ranked[1:])
        counts = "; ".join(
            f"in {UNIT_NAMES[unit]} {self.bad[unit]} fall badly" + (f" (e.g. {self.example[unit]})" if unit in self.example else "")
            for unit in ranked)
        if given is not None:
            if decided and best != given and not self._alike(given, best):
                return given, (f"{tool} offsets read as the option names them, though in this file only "
                               f"{UNIT_NAMES[best]} put the spans' ends on word and character boundaries")
            return given, None
        if decided:
            return best, (f"{tool} offsets read as {UNIT_NAMES[best]}, decided per file from the spans whose place "
                          "depends on the unit: only so do their ends fall on word and character boundaries without "
                          "taking in white space")
        raise InputError(
            f"cannot tell which unit the offsets count in: of {self.telling} spans whose place depends on the unit, "
            f"{counts}; name the unit with {' or '.join(option('offsets', unit) for unit in ranked[:2])}",
            where=where,
        )


    def _alike(self, unit: str, other: str) -> bool:
        """The two units read every telling span alike."""
        i, j = UNITS.index(unit), UNITS.index(other)
        return all(places[i] == places[j] for places, _ in self.readings)

    def _against(self, unit: str, best: str) -> bool:
        """``unit`` loses to ``best``: where it reads a span otherwise, it falls badly at least half
        of the time (or it reads every span as ``best`` does)."""
        i, j = UNITS.index(unit), UNITS.index(best)
        differ = [bad[i] for places, bad in self.readings if places[i] != places[j]]
        return not differ or sum(differ) >= LEAST_BAD_OTHERS * len(differ)


def _falls_badly(text: str, place: tuple[int, int] | None, clusters: set[int]) -> str | None:
    """Why a reading of a span falls badly (``'covered' (why)``), or None when it falls well."""
    if place is None:
        return "offsets that are not boundaries of the text"
    start, end = place
    covered = text[start:end]
    shown = repr(covered if len(covered) <= 30 else covered[:27] + "...")
    if covered != covered.strip():
        return f"{shown} (white space at an end)"
    if start not in clusters or end not in clusters:
        return f"{shown} (a character cut apart)"
    if 0 < start and text[start - 1].isalnum() and text[start].isalnum() or \
            end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        return f"{shown} (a word cut)"
    return None
