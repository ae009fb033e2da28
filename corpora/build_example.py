"""Build the spanagree example corpus: ``corpora/news_ner.jsonl``.

The corpus is 50 short, fictional news-style documents written for this
project (people, organisations and places are made up; any resemblance to
real ones is coincidental), each annotated for named entities by three raters: ``alice``, ``bob`` and
``carol``.  Labels are PERSON, ORG, GPE, DATE and MONEY.

The output mimics what ``prodigy db-out`` writes for datasets created with
the ``ner.manual`` recipe: one JSON object per line and per
(document, rater), ordered by rater session and then by document, with
character offsets (end exclusive), spaCy tokens, and ``token_end``
*inclusive* (Prodigy's convention).

Each document lists the annotations all three raters agree on (``shared``)
plus what each rater marked on top of that.  The differences between the
raters are deliberate and reproduce what real annotation teams disagree on:
span boundaries (titles, "the", weekdays in dates), labels (ORG vs GPE for a
city or a national team, PERSON vs ORG for a company named after its
founder), missed entities, extra spans, empty accepted answers, and carol
ignoring, rejecting or never seeing some documents.

The script is deterministic (no randomness): hashes come from ``zlib.crc32``
and timestamps from a fixed start time.  Regenerate with::

    python corpora/build_example.py
"""

from __future__ import annotations

import json
import sys
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import spacy
from spacy.language import Language
from spacy.tokens import Doc as SpacyDoc

OUTPUT = Path(__file__).resolve().parent / "news_ner.jsonl"
RATERS: tuple[str, ...] = ("alice", "bob", "carol")
DATASET = "news_ner"
SOURCE = "spanagree example"
LABELS = frozenset({"PERSON", "ORG", "GPE", "DATE", "MONEY"})
START_TIME = 1_700_000_000  # 2023-11-14T22:13:20Z; first alice answer
SESSION_GAP = 86_400  # each rater's session starts one day after the previous

# (phrase, label) or (phrase, label, occurrence): occurrence is the 0-based
# index among the token-aligned matches of phrase; needed only when the
# phrase occurs more than once in the text.
Ann = tuple[str, str] | tuple[str, str, int]

ACCEPT, IGNORE, REJECT, MISSING = "accept", "ignore", "reject", "missing"


@dataclass(frozen=True)
class Document:
    """One document and its annotations.

    A rater's spans are ``shared`` plus that rater's own list.  ``carol``
    is the answer carol gave: with ``IGNORE`` her line has no spans (she
    skipped without marking anything), with ``REJECT`` it keeps the spans she
    had highlighted before rejecting, with ``MISSING`` she has no line.
    """

    text: str
    shared: list[Ann] = field(default_factory=list)
    alice: list[Ann] = field(default_factory=list)
    bob: list[Ann] = field(default_factory=list)
    carol: list[Ann] = field(default_factory=list)
    carol_answer: str = ACCEPT


# fmt: off
DOCUMENTS: list[Document] = [
    # 0: boundary, title ("President Maria Lopez" vs "Maria Lopez")
    Document(
        "President Maria Lopez of the Norvale Farmers Union met growers in Kellsbridge "
        "on Monday to discuss the drought relief package.",
        shared=[("Norvale Farmers Union", "ORG"), ("Kellsbridge", "GPE"), ("Monday", "DATE")],
        alice=[("Maria Lopez", "PERSON")],
        bob=[("President Maria Lopez", "PERSON")],
        carol=[("Maria Lopez", "PERSON")],
    ),
    # 1: full agreement
    Document(
        "Harlow Motors said on 3 March 2023 that it would cut 400 jobs at its plant in "
        "Dunmore, citing weaker demand for compact vans.",
        shared=[("Harlow Motors", "ORG"), ("3 March 2023", "DATE"), ("Dunmore", "GPE")],
    ),
    # 2: boundary, leading "the"
    Document(
        "The Riverton City Council voted 7-2 on Wednesday to raise parking fees, a move "
        "opposed by the Riverton Chamber of Commerce.",
        shared=[("Wednesday", "DATE"), ("Riverton Chamber of Commerce", "ORG")],
        alice=[("Riverton City Council", "ORG")],
        bob=[("The Riverton City Council", "ORG")],
        carol=[("Riverton City Council", "ORG")],
    ),
    # 3: label, city as government (GPE vs ORG); miss (carol skips June)
    Document(
        "Lakemont announced a hiring freeze for all municipal departments after the "
        "budget shortfall reached $12 million in June. "
        "Libraries and pools will keep their current hours.",
        shared=[("$12 million", "MONEY")],
        alice=[("Lakemont", "GPE"), ("June", "DATE")],
        bob=[("Lakemont", "ORG"), ("June", "DATE")],
        carol=[("Lakemont", "GPE")],
    ),
    # 4: label, company named after its founder (ORG vs PERSON)
    Document(
        "Shares of Delacroix fell 4 percent on Friday after the fashion house, founded "
        "by Celine Delacroix in 1981, warned of slower sales in Marlow.",
        shared=[("Friday", "DATE"), ("Celine Delacroix", "PERSON"), ("1981", "DATE"),
                ("Marlow", "GPE")],
        alice=[("Delacroix", "ORG", 0)],
        bob=[("Delacroix", "PERSON", 0)],
        carol=[("Delacroix", "ORG", 0)],
    ),
    # 5: boundary, title (carol includes "Chief")
    Document(
        "Police in Westbrook arrested two men on Saturday in connection with a string "
        "of burglaries, Chief Aaron Mills told reporters.",
        shared=[("Westbrook", "GPE"), ("Saturday", "DATE")],
        alice=[("Aaron Mills", "PERSON")],
        bob=[("Aaron Mills", "PERSON")],
        carol=[("Chief Aaron Mills", "PERSON")],
    ),
    # 6: boundary, date with/without weekday; extra span (carol)
    Document(
        "The Marlow Arts Festival will open on Friday, 14 July, with a concert by the "
        "Eastgate Youth Orchestra. "
        "Tickets for the opening night sold out within hours.",
        shared=[("Eastgate Youth Orchestra", "ORG")],
        alice=[("Friday, 14 July", "DATE")],
        bob=[("14 July", "DATE")],
        carol=[("Friday, 14 July", "DATE"), ("Marlow", "GPE")],
    ),
    # 7: miss (carol skips Brisk Harbour)
    Document(
        "Senator Joan Whitfield criticised the Ministry of Transport on Thursday for "
        "delays to the Northline rail project between Calder and Brisk Harbour.",
        shared=[("Joan Whitfield", "PERSON"), ("Ministry of Transport", "ORG"),
                ("Thursday", "DATE"), ("Calder", "GPE")],
        alice=[("Brisk Harbour", "GPE")],
        bob=[("Brisk Harbour", "GPE")],
    ),
    # 8: miss (bob skips "a year earlier")
    Document(
        "Greenfield Bank reported a quarterly profit of $48 million, up from $39 million "
        "a year earlier, chief executive Nora Quist said.",
        shared=[("Greenfield Bank", "ORG"), ("$48 million", "MONEY"), ("$39 million", "MONEY"),
                ("Nora Quist", "PERSON")],
        alice=[("a year earlier", "DATE")],
        carol=[("a year earlier", "DATE")],
    ),
    # 9: no entities; all three accept an empty answer
    Document(
        "Residents were told to boil tap water until further notice after a main pipe "
        "burst near the old mill on the north side of town.",
    ),
    # 10: extra span (bob marks "the second half" as DATE); boundary, leading "The" (carol)
    Document(
        "The Kellsbridge Rovers beat Port Aldan United 3-1 on Sunday, with striker Tomas "
        "Reyes scoring twice in the second half.",
        shared=[("Port Aldan United", "ORG"), ("Sunday", "DATE"), ("Tomas Reyes", "PERSON")],
        alice=[("Kellsbridge Rovers", "ORG")],
        bob=[("Kellsbridge Rovers", "ORG"), ("the second half", "DATE")],
        carol=[("The Kellsbridge Rovers", "ORG")],
    ),
    # 11: boundary, title ("Dr. Priya Raman")
    Document(
        "Dr. Priya Raman, a researcher at Northgate University, said the new vaccine "
        "trial would begin in January 2025. "
        "About 600 volunteers have signed up so far.",
        shared=[("Northgate University", "ORG"), ("January 2025", "DATE")],
        alice=[("Priya Raman", "PERSON")],
        bob=[("Priya Raman", "PERSON")],
        carol=[("Dr. Priya Raman", "PERSON")],
    ),
    # 12: miss (carol skips Monday)
    Document(
        "Vantage Airways will add daily flights from Lakemont to Brisk Harbour starting "
        "in October, the carrier said on Monday. "
        "Fares have not yet been announced.",
        shared=[("Vantage Airways", "ORG"), ("Lakemont", "GPE"), ("Brisk Harbour", "GPE"),
                ("October", "DATE")],
        alice=[("Monday", "DATE")],
        bob=[("Monday", "DATE")],
    ),
    # 13: extra span (alice marks "more than a decade")
    Document(
        "Norvale and Estrada signed a fishing agreement in Calder on 2 May, ending a "
        "dispute that had lasted more than a decade.",
        shared=[("Norvale", "GPE"), ("Estrada", "GPE"), ("Calder", "GPE"), ("2 May", "DATE")],
        alice=[("more than a decade", "DATE")],
    ),
    # 14: label, company named after its founder; boundary, date
    Document(
        "Hollis Brandt, the retailer founded by Walter Hollis, will close 30 stores "
        "across Estrada by the end of 2024. "
        "About 900 staff are affected.",
        shared=[("Walter Hollis", "PERSON"), ("Estrada", "GPE")],
        alice=[("Hollis Brandt", "ORG"), ("the end of 2024", "DATE")],
        bob=[("Hollis Brandt", "ORG"), ("2024", "DATE")],
        carol=[("Hollis Brandt", "PERSON"), ("the end of 2024", "DATE")],
    ),
    # 15: carol ignores
    Document(
        "Rumours about a merger of Pell Media and Quarry Broadcasting spread quickly on "
        "Tuesday, though neither company would comment. "
        "Both stocks ended the day higher.",
        shared=[("Pell Media", "ORG"), ("Quarry Broadcasting", "ORG"), ("Tuesday", "DATE")],
        carol_answer=IGNORE,
    ),
    # 16: extra span (bob marks a river as GPE); boundary, title (carol)
    Document(
        "Governor Samuel Okafor declared a state of emergency in Teller County on "
        "Thursday as floodwaters rose along the Amber River.",
        shared=[("Teller County", "GPE"), ("Thursday", "DATE")],
        alice=[("Samuel Okafor", "PERSON")],
        bob=[("Samuel Okafor", "PERSON"), ("Amber River", "GPE")],
        carol=[("Governor Samuel Okafor", "PERSON")],
    ),
    # 17: boundary, date with/without weekday
    Document(
        "Fire crews from Westbrook and Dunmore worked through the night of Saturday, "
        "9 September, to contain the blaze at the Calloway Paper warehouse.",
        shared=[("Westbrook", "GPE"), ("Dunmore", "GPE"), ("Calloway Paper", "ORG")],
        alice=[("Saturday, 9 September", "DATE")],
        bob=[("Saturday, 9 September", "DATE")],
        carol=[("9 September", "DATE")],
    ),
    # 18: boundary, date ("the first week of April" vs "April")
    Document(
        "The Estrada Ministry of Health confirmed 18 new cases of measles in Calder "
        "during the first week of April. "
        "Most of the patients are young children.",
        shared=[("Estrada Ministry of Health", "ORG"), ("Calder", "GPE")],
        alice=[("the first week of April", "DATE")],
        bob=[("April", "DATE")],
        carol=[("the first week of April", "DATE")],
    ),
    # 19: bob accepts with no spans at all
    Document(
        "Talks between Pell Media and the broadcasters' union collapsed late on "
        "Wednesday, according to two people familiar with the matter.",
        alice=[("Pell Media", "ORG"), ("Wednesday", "DATE")],
        carol=[("Pell Media", "ORG"), ("Wednesday", "DATE")],
    ),
    # 20: extra span (carol marks a duration)
    Document(
        "Olga Brenner, 72, was named chair of the Calder Heritage Trust, succeeding "
        "Martin Doyle, who retired in March after 15 years.",
        shared=[("Olga Brenner", "PERSON"), ("Calder Heritage Trust", "ORG"),
                ("Martin Doyle", "PERSON"), ("March", "DATE")],
        carol=[("15 years", "DATE")],
    ),
    # 21: carol rejects (boilerplate, not news) without marking anything
    Document(
        "Click here to subscribe to our newsletter and receive the latest headlines "
        "from Riverton in your inbox every morning. "
        "You can unsubscribe at any time.",
        alice=[("Riverton", "GPE")],
        bob=[("Riverton", "GPE")],
        carol_answer=REJECT,
    ),
    # 22: label, city as litigant (GPE vs ORG)
    Document(
        "Port Aldan has sued Harlow Motors over pollution from its former paint shop, "
        "seeking $3.5 million in cleanup costs. "
        "The carmaker denies any wrongdoing.",
        shared=[("Harlow Motors", "ORG"), ("$3.5 million", "MONEY")],
        alice=[("Port Aldan", "GPE")],
        bob=[("Port Aldan", "GPE")],
        carol=[("Port Aldan", "ORG")],
    ),
    # 23: miss (carol skips Ines Albu)
    Document(
        "Tennis player Lena Kovac won her first title of the season in Marlow on Sunday, "
        "beating Ines Albu in straight sets.",
        shared=[("Lena Kovac", "PERSON"), ("Marlow", "GPE"), ("Sunday", "DATE")],
        alice=[("Ines Albu", "PERSON")],
        bob=[("Ines Albu", "PERSON")],
    ),
    # 24: miss (bob skips Lakemont)
    Document(
        "Quarry Broadcasting appointed Daniel Osei as head of news on 1 February, the "
        "network said in a statement from its Lakemont headquarters.",
        shared=[("Quarry Broadcasting", "ORG"), ("Daniel Osei", "PERSON"), ("1 February", "DATE")],
        alice=[("Lakemont", "GPE")],
        carol=[("Lakemont", "GPE")],
    ),
    # 25: carol has no line; miss (bob skips "next year")
    Document(
        "Stormwater fees in Dunmore will double next year, the Dunmore Water Authority "
        "said on Monday. "
        "The average household will pay about twice as much as it does now.",
        shared=[("Dunmore", "GPE", 0), ("Dunmore Water Authority", "ORG"), ("Monday", "DATE")],
        alice=[("next year", "DATE")],
        carol_answer=MISSING,
    ),
    # 26: label + boundary ("Estrada" GPE vs "Estrada government" ORG)
    Document(
        "Felix Amadi, chief executive of Brightline Energy, said the Estrada government "
        "had approved a new solar farm near Tarsk. "
        "Construction could start within months.",
        shared=[("Felix Amadi", "PERSON"), ("Brightline Energy", "ORG"), ("Tarsk", "GPE")],
        alice=[("Estrada", "GPE")],
        bob=[("Estrada", "GPE")],
        carol=[("Estrada government", "ORG")],
    ),
    # 27: boundary, nested organisation name
    Document(
        "The Northgate University Board of Regents approved a tuition increase of "
        "4 percent for the 2025 academic year. "
        "Student groups have called for a protest.",
        shared=[("2025", "DATE")],
        alice=[("Northgate University Board of Regents", "ORG")],
        bob=[("Northgate University", "ORG")],
        carol=[("Northgate University Board of Regents", "ORG")],
    ),
    # 28: carol ignores; boundary, abbreviated title (alice)
    Document(
        "Gov. Samuel Okafor and Mayor Ellen Park will hold a joint briefing in Riverton "
        "at 10 a.m. on Tuesday. "
        "Flood damage is expected to top the agenda.",
        shared=[("Ellen Park", "PERSON"), ("Riverton", "GPE"), ("Tuesday", "DATE")],
        alice=[("Gov. Samuel Okafor", "PERSON")],
        bob=[("Samuel Okafor", "PERSON")],
        carol_answer=IGNORE,
    ),
    # 29: full agreement
    Document(
        "Brightline Energy agreed to buy Solano Grid for $210 million, the companies "
        "said on 22 August. "
        "The deal still needs approval from regulators.",
        shared=[("Brightline Energy", "ORG"), ("Solano Grid", "ORG"), ("$210 million", "MONEY"),
                ("22 August", "DATE")],
    ),
    # 30: carol accepts with no spans at all
    Document(
        "A spokesman for Vantage Airways declined to comment on the report, saying the "
        "investigation was still under way. "
        "Flights continued as scheduled.",
        alice=[("Vantage Airways", "ORG")],
        bob=[("Vantage Airways", "ORG")],
    ),
    # 31: label + boundary, company named after a person
    Document(
        "Customers of Mabel Finch Bakeries in Westbrook found the shops closed on Monday "
        "after the chain filed for bankruptcy. "
        "Gift cards will no longer be honoured.",
        shared=[("Westbrook", "GPE"), ("Monday", "DATE")],
        alice=[("Mabel Finch Bakeries", "ORG")],
        bob=[("Mabel Finch", "PERSON")],
        carol=[("Mabel Finch Bakeries", "ORG")],
    ),
    # 32: boundary, title (carol includes "Governor")
    Document(
        "Estrada's central bank held its key interest rate at 3.25 percent on Thursday, "
        "Governor Lucia Ferreira said. "
        "Most economists had expected a cut.",
        shared=[("Estrada", "GPE"), ("Thursday", "DATE")],
        alice=[("Lucia Ferreira", "PERSON")],
        bob=[("Lucia Ferreira", "PERSON")],
        carol=[("Governor Lucia Ferreira", "PERSON")],
    ),
    # 33: carol rejects (a correction notice) but her highlighted spans are kept
    Document(
        "Correction: An article on Monday misstated the name of the Calder Heritage "
        "Trust's director. She is Olga Brenner. "
        "We regret the error.",
        shared=[("Calder Heritage Trust", "ORG"), ("Olga Brenner", "PERSON")],
        alice=[("Monday", "DATE")],
        bob=[("Monday", "DATE")],
        carol_answer=REJECT,
    ),
    # 34: boundary, date with/without weekday
    Document(
        "Voters in Teller County will decide on the school levy on Tuesday, 5 November, "
        "county clerk Ruth Adler said. "
        "Early voting begins next week.",
        shared=[("Teller County", "GPE"), ("Ruth Adler", "PERSON")],
        alice=[("Tuesday, 5 November", "DATE")],
        bob=[("5 November", "DATE")],
        carol=[("Tuesday, 5 November", "DATE")],
    ),
    # 35: extra span (alice marks "three-year" as DATE); miss (carol skips the MONEY)
    Document(
        "Port Aldan United signed midfielder Kofi Mensah from Tarsk Athletic on a "
        "three-year contract worth $6 million. "
        "He passed a medical without problems.",
        shared=[("Port Aldan United", "ORG"), ("Kofi Mensah", "PERSON"), ("Tarsk Athletic", "ORG")],
        alice=[("three-year", "DATE"), ("$6 million", "MONEY")],
        bob=[("$6 million", "MONEY")],
    ),
    # 36: carol ignores; label + boundary ("Lakemont" GPE vs "Lakemont police" ORG)
    Document(
        "Lakemont police have identified the cyclist killed on Route 9 on Sunday as "
        "Gareth Lowe, 34, of Westbrook. "
        "The driver stayed at the scene and is cooperating.",
        shared=[("Sunday", "DATE"), ("Gareth Lowe", "PERSON"), ("Westbrook", "GPE")],
        alice=[("Lakemont", "GPE")],
        bob=[("Lakemont police", "ORG")],
        carol_answer=IGNORE,
    ),
    # 37: miss (bob skips Brisk Harbour)
    Document(
        "The Harbour Workers Union said 1,200 members at Brisk Harbour would strike from "
        "1 June unless the Calder Port Authority restored overtime pay.",
        shared=[("Harbour Workers Union", "ORG"), ("1 June", "DATE"),
                ("Calder Port Authority", "ORG")],
        alice=[("Brisk Harbour", "GPE")],
        carol=[("Brisk Harbour", "GPE")],
    ),
    # 38: extra spans: bob marks "Norvale" inside a prize name, alice the prize as ORG
    Document(
        "Author Isabel Marsh will receive the Norvale Book Prize at a ceremony in "
        "Kellsbridge on 30 November. "
        "Her debut novel follows three sisters running a ferry.",
        shared=[("Isabel Marsh", "PERSON"), ("Kellsbridge", "GPE"), ("30 November", "DATE")],
        alice=[("Norvale Book Prize", "ORG")],
        bob=[("Norvale", "GPE")],
    ),
    # 39: boundary, leading "the"
    Document(
        "The Calder Port Authority raised docking fees by 8 percent, blaming higher "
        "insurance costs since 2022. "
        "Shipping firms said the increase would be passed on to customers.",
        shared=[("2022", "DATE")],
        alice=[("Calder Port Authority", "ORG")],
        bob=[("Calder Port Authority", "ORG")],
        carol=[("The Calder Port Authority", "ORG")],
    ),
    # 40: alice accepts with no spans; extra span (bob marks a duration)
    Document(
        "Officials in Tarsk said the damaged coastal road would reopen to traffic in "
        "about two weeks. "
        "Buses will take a longer inland route until then.",
        bob=[("Tarsk", "GPE"), ("about two weeks", "DATE")],
        carol=[("Tarsk", "GPE")],
    ),
    # 41: carol has no line; boundary, split vs joined date
    Document(
        "Meridian Foods recalled 40,000 jars of peanut butter sold in Norvale and "
        "Estrada between March and May. "
        "No illnesses have been reported, the company said.",
        shared=[("Meridian Foods", "ORG"), ("Norvale", "GPE"), ("Estrada", "GPE")],
        alice=[("March", "DATE"), ("May", "DATE")],
        bob=[("March and May", "DATE")],
        carol_answer=MISSING,
    ),
    # 42: label, national team (GPE vs ORG); boundary, "Tuesday night"
    Document(
        "Estrada beat Norvale 2-0 in a regional qualifier in Tarsk on Tuesday night, "
        "securing a place in the final round.",
        shared=[("Tarsk", "GPE")],
        alice=[("Estrada", "GPE"), ("Norvale", "GPE"), ("Tuesday night", "DATE")],
        bob=[("Estrada", "ORG"), ("Norvale", "ORG"), ("Tuesday", "DATE")],
        carol=[("Estrada", "GPE"), ("Norvale", "GPE"), ("Tuesday night", "DATE")],
    ),
    # 43: boundary, title (carol includes "Mayor")
    Document(
        "Kellsbridge voters re-elected Mayor Hugo Brandt with 61 percent of the vote on "
        "7 November 2023. "
        "Turnout was the highest in two decades.",
        shared=[("Kellsbridge", "GPE"), ("7 November 2023", "DATE")],
        alice=[("Hugo Brandt", "PERSON")],
        bob=[("Hugo Brandt", "PERSON")],
        carol=[("Mayor Hugo Brandt", "PERSON")],
    ),
    # 44: carol ignores
    Document(
        "Meridian Foods chief executive Alan Voss will step down in September, the "
        "company said on Wednesday. "
        "The board has begun searching for a successor.",
        shared=[("Meridian Foods", "ORG"), ("Alan Voss", "PERSON"), ("September", "DATE"),
                ("Wednesday", "DATE")],
        carol_answer=IGNORE,
    ),
    # 45: boundary, date ("the next decade" vs "next decade")
    Document(
        "The Dunmore Water Authority will spend $75 million upgrading treatment plants "
        "over the next decade, director Sofia Lind said. "
        "Bills are expected to rise gradually.",
        shared=[("Dunmore Water Authority", "ORG"), ("$75 million", "MONEY"),
                ("Sofia Lind", "PERSON")],
        alice=[("the next decade", "DATE")],
        bob=[("the next decade", "DATE")],
        carol=[("next decade", "DATE")],
    ),
    # 46: carol has no line; miss (bob skips Norvale)
    Document(
        "Pell Media named former Norvale finance minister Rosa Castell to its board on "
        "Friday. "
        "She will chair the audit committee and advise on expansion abroad.",
        shared=[("Pell Media", "ORG"), ("Rosa Castell", "PERSON"), ("Friday", "DATE")],
        alice=[("Norvale", "GPE")],
        carol_answer=MISSING,
    ),
    # 47: boundary + label, foundation named after a person
    Document(
        "Northgate University received a $5 million gift from the Ada Winslow "
        "Foundation to build a new science library. "
        "Work is due to begin after the summer.",
        shared=[("Northgate University", "ORG"), ("$5 million", "MONEY")],
        alice=[("Ada Winslow Foundation", "ORG")],
        bob=[("the Ada Winslow Foundation", "ORG")],
        carol=[("Ada Winslow", "PERSON")],
    ),
    # 48: extra span (alice marks a street as GPE); boundary, "early on Sunday" (carol)
    Document(
        "Calder firefighters rescued a family of four from a burning apartment building "
        "on Elm Street early on Sunday, fire chief Wendy Osgood said.",
        shared=[("Calder", "GPE"), ("Wendy Osgood", "PERSON")],
        alice=[("Elm Street", "GPE"), ("Sunday", "DATE")],
        bob=[("Sunday", "DATE")],
        carol=[("early on Sunday", "DATE")],
    ),
    # 49: full agreement
    Document(
        "Tarsk Athletic fired manager Pavel Novak on Monday after a run of six straight "
        "defeats. "
        "The club sits second from bottom of the league table.",
        shared=[("Tarsk Athletic", "ORG"), ("Pavel Novak", "PERSON"), ("Monday", "DATE")],
    ),
]
# fmt: on


def signed32(value: int) -> int:
    """Map an unsigned 32-bit int to the signed range, as Prodigy's hashes are."""
    return value - (1 << 32) if value >= (1 << 31) else value


def stable_hash(payload: Any) -> int:
    """A signed 32-bit CRC of the canonical JSON encoding of ``payload``."""
    data = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return signed32(zlib.crc32(data))


def tokens_of(doc: SpacyDoc) -> list[dict[str, Any]]:
    """Prodigy-style token dicts for a spaCy Doc."""
    return [
        {
            "text": t.text,
            "start": t.idx,
            "end": t.idx + len(t.text),
            "id": t.i,
            "ws": bool(t.whitespace_),
        }
        for t in doc
    ]


def locate(ann: Ann, doc: SpacyDoc) -> dict[str, Any]:
    """Turn (phrase, label[, occurrence]) into a Prodigy span dict.

    Only matches whose start and end fall on token boundaries count; a phrase
    with several such matches needs an explicit occurrence index.
    """
    phrase, label = ann[0], ann[1]
    assert label in LABELS, f"unknown label {label!r}"
    starts = {t.idx: t.i for t in doc}
    ends = {t.idx + len(t.text): t.i for t in doc}
    text = doc.text
    matches: list[tuple[int, int]] = []
    pos = text.find(phrase)
    while pos != -1:
        end = pos + len(phrase)
        if pos in starts and end in ends:
            matches.append((pos, end))
        pos = text.find(phrase, pos + 1)
    assert matches, f"{phrase!r} not found on token boundaries in {text!r}"
    if len(ann) == 3:
        start, end = matches[ann[2]]
    else:
        assert len(matches) == 1, f"{phrase!r} occurs {len(matches)} times; give an occurrence"
        start, end = matches[0]
    assert text[start:end] == phrase
    return {
        "start": start,
        "end": end,
        "token_start": starts[start],
        "token_end": ends[end],  # inclusive, as in Prodigy
        "label": label,
    }


def rater_spans(document: Document, rater: str, doc: SpacyDoc) -> list[dict[str, Any]]:
    """The sorted, non-overlapping spans ``rater`` marked on ``document``."""
    anns = document.shared + getattr(document, rater)
    spans = sorted((locate(a, doc) for a in anns), key=lambda s: (s["start"], s["end"]))
    for left, right in zip(spans, spans[1:]):
        assert left["end"] <= right["start"], f"overlapping spans for {rater}: {left} {right}"
    return spans


def answer_of(document: Document, rater: str) -> str:
    """The answer ``rater`` gave on ``document`` (alice and bob always accept)."""
    return document.carol_answer if rater == "carol" else ACCEPT


def build_task(document: Document, rater: str, doc: SpacyDoc, timestamp: int) -> dict[str, Any]:
    """One db-out line: ``rater``'s answer on ``document``."""
    answer = answer_of(document, rater)
    spans = [] if answer == IGNORE else rater_spans(document, rater, doc)
    input_hash = stable_hash({"text": document.text})
    task_hash = stable_hash(
        {"input": input_hash, "spans": [[s["start"], s["end"], s["label"]] for s in spans]}
    )
    session = f"{DATASET}-{rater}"
    return {
        "text": document.text,
        "meta": {"source": SOURCE},
        "_input_hash": input_hash,
        "_task_hash": task_hash,
        "tokens": tokens_of(doc),
        "_view_id": "ner_manual",
        "spans": spans,
        "answer": answer,
        "_timestamp": timestamp,
        "_annotator_id": session,
        "_session_id": session,
    }


def think_time(text: str) -> int:
    """Deterministic seconds a rater 'spent' on a text (20-79 s)."""
    return 20 + zlib.crc32(text.encode("utf-8")) % 60


def build_tasks(nlp: Language) -> list[dict[str, Any]]:
    """All lines, ordered by rater session and then by document."""
    docs = [nlp(d.text) for d in DOCUMENTS]
    hashes = {stable_hash({"text": d.text}) for d in DOCUMENTS}
    assert len(hashes) == len(DOCUMENTS), "duplicate document text or hash collision"
    tasks: list[dict[str, Any]] = []
    for r, rater in enumerate(RATERS):
        timestamp = START_TIME + r * SESSION_GAP
        for document, doc in zip(DOCUMENTS, docs):
            if answer_of(document, rater) == MISSING:
                continue
            timestamp += think_time(document.text)
            tasks.append(build_task(document, rater, doc, timestamp))
    return tasks


def check_task(task: dict[str, Any]) -> None:
    """Assert a line is internally consistent (tokens, offsets, spans)."""
    text, tokens = task["text"], task["tokens"]
    for i, tok in enumerate(tokens):
        assert tok["id"] == i and text[tok["start"]:tok["end"]] == tok["text"]
    for span in task["spans"]:
        first, last = tokens[span["token_start"]], tokens[span["token_end"]]
        assert first["start"] == span["start"] and last["end"] == span["end"], span


def write_jsonl(tasks: list[dict[str, Any]], path: Path) -> None:
    """Write one compact JSON object per line."""
    with path.open("w", encoding="utf-8") as f:
        for task in tasks:
            f.write(json.dumps(task, ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read the lines back, one JSON object each."""
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def span_key(span: dict[str, Any]) -> tuple[int, int, str]:
    """Exact-match identity of a span: offsets and label."""
    return span["start"], span["end"], span["label"]


def summary(tasks: list[dict[str, Any]]) -> str:
    """Counts for the README, plus pairwise exact-match F on accepted lines.

    F for two raters is 2 * matched / (spans_a + spans_b), pooled over the
    documents both accepted; a span matches only with equal offsets and label.
    """
    n_docs = len({t["_input_hash"] for t in tasks})
    lines = [f"documents: {n_docs}", f"lines: {len(tasks)}"]
    accepted: dict[str, dict[int, set[tuple[int, int, str]]]] = {r: {} for r in RATERS}
    for rater in RATERS:
        mine = [t for t in tasks if t["_annotator_id"] == f"{DATASET}-{rater}"]
        answers = Counter(t["answer"] for t in mine)
        labels = Counter(s["label"] for t in mine if t["answer"] == ACCEPT for s in t["spans"])
        empty = sum(1 for t in mine if t["answer"] == ACCEPT and not t["spans"])
        rejected_spans = sum(len(t["spans"]) for t in mine if t["answer"] == REJECT)
        lines.append(
            f"{rater}: lines={len(mine)} answers={dict(sorted(answers.items()))} "
            f"missing={n_docs - len(mine)} empty_accepts={empty} "
            f"accepted_spans={sum(labels.values())} {dict(sorted(labels.items()))} "
            f"spans_on_rejected={rejected_spans}"
        )
        for t in mine:
            if t["answer"] == ACCEPT:
                accepted[rater][t["_input_hash"]] = {span_key(s) for s in t["spans"]}
    for i, a in enumerate(RATERS):
        for b in RATERS[i + 1:]:
            common = accepted[a].keys() & accepted[b].keys()
            both = sum(len(accepted[a][h] & accepted[b][h]) for h in common)
            total = sum(len(accepted[a][h]) + len(accepted[b][h]) for h in common)
            lines.append(f"F({a},{b}) = {2 * both / total:.3f} over {len(common)} docs")
    return "\n".join(lines)


def main() -> None:
    nlp = spacy.blank("en")
    tasks = build_tasks(nlp)
    for task in tasks:
        check_task(task)
    write_jsonl(tasks, OUTPUT)
    written = read_jsonl(OUTPUT)
    assert written == tasks, "file does not round-trip"
    print(f"wrote {len(written)} lines to {OUTPUT}", file=sys.stderr)
    print(summary(written))


if __name__ == "__main__":
    main()
