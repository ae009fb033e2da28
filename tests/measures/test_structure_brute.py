"""Relation and attribute agreement, checked against an independent brute force on random
documents (random spans, triggers, relations, events and attributes for several raters, every
rule and label mode), through the command line's JSON; κ and α against nltk and krippendorff."""
from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from itertools import combinations

import numpy as np
import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app

krippendorff = pytest.importorskip("krippendorff")
agreement = pytest.importorskip("nltk.metrics.agreement")

RULES = ["exact", "overlap", "partial", "proportional"]
LABELS = ["strict", "ignore"]
RELATION_LABELS = ["works_for", "knows", "same_as"]  # same_as is symmetric
KINDS = ["x", "y", "z"]


def random_corpus(seed: int, n_docs: int = 12, n_raters: int = 3) -> list[dict]:
    """Raters copy a random gold markup with changes: spans kept, moved, relabelled or added;
    relations kept (sometimes reversed or relabelled) or added; attribute values kept or drawn anew."""
    rng = random.Random(seed)
    lines = []
    for d in range(n_docs):
        text = "".join(rng.choice("ab ") for _ in range(40))
        gold_spans = sorted({
            (start, start + rng.randint(1, 5), rng.choice(["PER", "ORG"])) for start in rng.sample(range(36), rng.randint(1, 7))
        })
        gold_attributes = {
            span: {"flag": rng.random() < 0.4, "kind": rng.choice(KINDS + [None]), "score": rng.choice([1, 2, 3, None])}
            for span in gold_spans
        }
        gold_relations = [
            (*rng.sample(range(len(gold_spans)), 2), rng.choice(RELATION_LABELS)) for _ in range(rng.randint(0, 5))
        ] if len(gold_spans) > 1 else []
        gold_trigger = rng.randrange(0, 36)
        for r in range(n_raters):
            if rng.random() < 0.15:
                continue  # this rater did not submit the document
            seen, spans, of_gold = set(), [], {}
            for g, span in enumerate(gold_spans):
                roll = rng.random()
                if roll < 0.15:
                    continue
                if roll < 0.3:
                    span = (span[0], min(40, span[1] + rng.choice([-1, 1, 2])) if span[1] - span[0] > 1 else span[1] + 1, span[2])
                elif roll < 0.38:
                    span = (span[0], span[1], "ORG" if span[2] == "PER" else "PER")
                if span in seen:
                    continue
                seen.add(span)
                of_gold[g] = f"s{len(spans)}"
                item = {"start": span[0], "end": span[1], "label": span[2], "id": f"s{len(spans)}"}
                attributes = {}
                for name, value in gold_attributes[gold_spans[g]].items():
                    if rng.random() < 0.25:
                        value = {"flag": rng.random() < 0.5, "kind": rng.choice(KINDS + [None]),
                                 "score": rng.choice([1, 2, 3, None])}[name]
                    if value not in (None, False):
                        attributes[name] = value
                if attributes:
                    item["attributes"] = attributes
                spans.append(item)
            for _ in range(rng.randint(0, 2)):  # spans of this rater only
                start = rng.randrange(0, 36)
                span = (start, start + rng.randint(1, 4), rng.choice(["PER", "ORG"]))
                if span not in seen:
                    seen.add(span)
                    spans.append({"start": span[0], "end": span[1], "label": span[2], "id": f"s{len(spans)}",
                                  **({"attributes": {"kind": rng.choice(KINDS)}} if rng.random() < 0.5 else {})})
            ids = [s["id"] for s in spans]
            relations = []
            for head, child, label in gold_relations:
                if head in of_gold and child in of_gold and rng.random() < 0.8:
                    if rng.random() < (0.5 if label == "same_as" else 0.15):
                        head, child = child, head
                    if rng.random() < 0.1:
                        label = rng.choice(RELATION_LABELS)
                    relations.append({"head": of_gold[head], "child": of_gold[child], "label": label,
                                      "symmetric": label == "same_as"})
            if len(ids) > 1 and rng.random() < 0.5:
                head, child = rng.sample(ids, 2)
                label = rng.choice(RELATION_LABELS)
                relations.append({"head": head, "child": child, "label": label, "symmetric": label == "same_as"})
            triggers, events = [], []
            trigger = (gold_trigger, gold_trigger + 2, "Move")
            if ids and trigger not in seen and rng.random() < 0.6:
                triggers.append({"start": trigger[0], "end": trigger[1], "label": "Move", "id": "t0"})
                arguments = [{"role": "Agent", "span": of_gold.get(0, ids[0])}]
                if rng.random() < 0.5:
                    arguments.append({"role": rng.choice(["Agent", "Theme"]), "span": rng.choice(ids)})
                events.append({"trigger": "t0", "arguments": arguments})
            line = {"doc_id": f"d{d}", "text": text, "annotator": f"r{r}", "spans": spans}
            for key, value in (("triggers", triggers), ("relations", relations), ("events", events)):
                if value:
                    line[key] = value
            lines.append(line)
    return lines


# --- the brute force: nothing from spanagree but align_spans (the aligner, under test elsewhere) ---


def annotation(line: dict, by_position: bool):
    """(span keys, relations as (head key, child key, label, symmetric), attributes per key)."""
    def key(span):
        return (span["start"], span["end"]) if by_position else (span["start"], span["end"], span["label"])

    of_id = {s["id"]: key(s) for s in line["spans"] + line.get("triggers", [])}
    spans = {key(s): s["label"] for s in line["spans"] + line.get("triggers", [])}
    relations = [(of_id[r["head"]], of_id[r["child"]], r["label"], r["symmetric"]) for r in line.get("relations", [])]
    for event in line.get("events", []):
        relations += [(of_id[event["trigger"]], of_id[a["span"]], a["role"], False) for a in event["arguments"]]
    values = defaultdict(lambda: defaultdict(set))
    for s in line["spans"]:
        for name, value in s.get("attributes", {}).items():
            values[name][key(s)].add(value)
    attributes = {name: {k: next(iter(v)) for k, v in held.items() if len(v) == 1} for name, held in values.items()}
    return spans, relations, attributes


def alignment(spans_a: dict, spans_b: dict, rule: str, labels: str) -> dict:
    if rule == "exact" and labels == "strict":
        return {k: k for k in spans_a if k in spans_b}  # identical spans only: no aligner needed
    as_spans = lambda spans: [(k[0], k[1], spans[k] if labels == "strict" else "_") for k in spans]
    found = spanagree.align_spans(as_spans(spans_a), as_spans(spans_b), rule=rule, labels=labels)
    cut = (lambda s: s) if labels == "strict" else (lambda s: s[:2])
    return {cut(a): cut(b) for a, b, _ in found}


def max_matching(left: list, right: list, fits) -> int:
    """Kuhn's augmenting paths on the bipartite graph of fitting pairs."""
    owner = [-1] * len(right)

    def augment(i, seen):
        for j in range(len(right)):
            if j not in seen and fits(left[i], right[j]):
                seen.add(j)
                if owner[j] < 0 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return sum(augment(i, set()) for i in range(len(left)))


def relation_abc(rel_a, rel_b, mapping, by_label, inverse):
    mapped = [(mapping.get(h), mapping.get(c), lab, sym) for h, c, lab, sym in rel_a]

    def fits(x, y):
        if x[0] is None or x[1] is None or (by_label and x[2] != y[2]) or x[3] != y[3]:
            return False
        return (x[0], x[1]) == (y[0], y[1]) or (x[3] and (x[0], x[1]) == (y[1], y[0]))

    a = max_matching(mapped, rel_b, fits)
    both_a = sum(1 for x in mapped if x[0] is not None and x[1] is not None)
    both_b = sum(1 for h, c, _, _ in rel_b if h in inverse and c in inverse)
    return (a, len(rel_a) - a, len(rel_b) - a), (a, both_a - a, both_b - a)


def brute(lines: list[dict], rule: str, labels: str):
    by_position = labels == "ignore"
    docs = defaultdict(dict)
    for line in lines:
        docs[line["doc_id"]][line["annotator"]] = annotation(line, by_position)
    pair_abc = defaultdict(lambda: np.zeros(3))
    pair_both = defaultdict(lambda: np.zeros(3))
    label_abc = defaultdict(lambda: np.zeros(3))
    pair_items = defaultdict(lambda: defaultdict(list))  # name -> pair -> [(a, b)]
    pair_skipped = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    flags = {"flag"}
    nodes, edges = [], []
    for doc, raters in sorted(docs.items()):
        for r in raters:
            nodes += [(doc, r, k) for k in raters[r][0]]
        for ra, rb in combinations(sorted(raters), 2):
            spans_a, rel_a, att_a = raters[ra]
            spans_b, rel_b, att_b = raters[rb]
            mapping = alignment(spans_a, spans_b, rule, labels)
            inverse = {v: k for k, v in mapping.items()}
            abc, both = relation_abc(rel_a, rel_b, mapping, labels == "strict", inverse)
            pair_abc[ra, rb] += abc
            pair_both[ra, rb] += both
            for lab in {x[2] for x in rel_a + rel_b}:
                la, _ = relation_abc([x for x in rel_a if x[2] == lab], [x for x in rel_b if x[2] == lab], mapping, True, inverse)
                label_abc[lab] += la
            for ka, kb in mapping.items():
                edges.append(((doc, ra, ka), (doc, rb, kb)))
                for name in ("flag", "kind", "score"):
                    va = att_a.get(name, {}).get(ka, False if name in flags else None)
                    vb = att_b.get(name, {}).get(kb, False if name in flags else None)
                    if va is None and vb is None:
                        pair_skipped[name][ra, rb]["attribute on neither span"] += 1
                    elif va is None or vb is None:
                        pair_skipped[name][ra, rb]["attribute on one span only"] += 1
                    else:
                        pair_items[name][ra, rb].append((va, vb))
    # clusters of matched spans (union-find)
    parent = {n: n for n in nodes}

    def root(n):
        while parent[n] != n:
            n = parent[n]
        return n

    for x, y in edges:
        parent[root(x)] = root(y)
    groups = defaultdict(list)
    for x, y in edges:
        groups[root(x)]
    for n in nodes:
        if root(n) in groups:
            groups[root(n)].append(n)
    values_of = {}
    for doc, raters in docs.items():
        for r, (_, _, att) in raters.items():
            values_of[doc, r] = att
    clusters = defaultdict(list)  # name -> rows of rater -> value
    cluster_skipped = defaultdict(lambda: defaultdict(int))
    all_raters = sorted({line["annotator"] for line in lines})
    for members in groups.values():
        who = [r for _, r, _ in members]
        for name in ("flag", "kind", "score"):
            if len(set(who)) < len(who):
                cluster_skipped[name]["cluster holds two spans of one rater"] += 1
                continue
            row = {r: values_of[doc, r].get(name, {}).get(k, False if name in flags else None) for doc, r, k in members}
            if all(v is None for v in row.values()):
                cluster_skipped[name]["attribute on neither span"] += 1
                continue
            clusters[name].append([row.get(r) for r in all_raters])
    return pair_abc, pair_both, label_abc, pair_items, pair_skipped, clusters, cluster_skipped, len(groups)


def cli_json(path, *args) -> dict:
    result = CliRunner().invoke(app, ["score", str(path), "--structure", "--output", "json", *map(str, args)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def psa(a, b, c):
    return 2 * a / (2 * a + b + c) if 2 * a + b + c else None


def close(x, y):
    return (x is None and y is None) or (x is not None and y is not None and math.isclose(x, y, abs_tol=1e-9))


def alpha_peer(rows: list[list], level: str) -> float | None:
    values = sorted({v for row in rows for v in row if v is not None}, key=str)
    code = {v: i for i, v in enumerate(values)}
    if level != "nominal":
        code = {v: float(v) for v in values}
    data = np.array([[np.nan if v is None else code[v] for v in row] for row in rows], dtype=float).T
    pairable = sum(1 for row in rows if sum(v is not None for v in row) >= 2)
    if len(values) < 2 or not pairable:
        return None
    try:
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    except (ValueError, ZeroDivisionError):
        return None


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("labels", LABELS)
@pytest.mark.parametrize("rule", RULES)
def test_relation_and_attribute_counts_match_a_brute_force(tmp_path, rule, labels, seed):
    lines = random_corpus(seed)
    path = tmp_path / "random.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = cli_json(path, "--rule", rule, "--labels", labels, "--attribute-scales", "score=ordinal")["structure"]
    pair_abc, pair_both, label_abc, items, skipped, clusters, cluster_skipped, n_clusters = brute(lines, rule, labels)
    relations = report["relations"]
    got = {tuple(p["raters"]): p for p in relations["pairs"]}
    assert set(got) == set(pair_abc)
    for pair, abc in pair_abc.items():
        assert [got[pair]["a"], got[pair]["b"], got[pair]["c"]] == abc.tolist(), pair
        both = got[pair]["both_spans_marked"]
        assert [both["a"], both["b"], both["c"]] == pair_both[pair].tolist(), pair
        assert close(got[pair]["psa"], psa(*abc))
    total = sum(pair_abc.values())
    assert [relations["overall"][k] for k in "abc"] == total.tolist()
    defined = [psa(*abc) for abc in pair_abc.values() if psa(*abc) is not None]
    assert close(relations["overall"]["pairwise_mean_psa"], sum(defined) / len(defined) if defined else None)
    assert close(relations["overall"]["pooled_psa"], psa(*total))
    assert {name: [v[k] for k in "abc"] for name, v in relations["labels"].items()} == {
        name: abc.tolist() for name, abc in label_abc.items()
    }
    attributes = report["attributes"]["attributes"]
    for name, level in (("flag", "nominal"), ("kind", "nominal"), ("score", "ordinal")):
        entry = attributes[name]
        assert entry["binary"] == (name == "flag")
        for pair_entry in entry["pairs"]:
            pair = tuple(pair_entry["raters"])
            pairs_items = items[name][pair]
            assert pair_entry["items"] == len(pairs_items)
            assert pair_entry["skipped"] == dict(skipped[name][pair])
            if not pairs_items:
                continue
            agree = sum(a == b for a, b in pairs_items) / len(pairs_items)
            assert math.isclose(pair_entry["percent_agreement"]["value"], agree)
            task = agreement.AnnotationTask(
                data=[(c, i, str(v)) for i, pair_values in enumerate(pairs_items) for c, v in zip("AB", pair_values)]
            )
            kappa = pair_entry["cohen_kappa"]["value"]
            if kappa is not None:
                assert math.isclose(kappa, task.kappa(), abs_tol=1e-9)
            alpha = pair_entry["krippendorff_alpha"]["value"]
            assert close(alpha, alpha_peer([list(p) for p in pairs_items], level))
        everyone = entry["all_raters"]
        assert everyone["clusters"] == n_clusters
        assert everyone["skipped"] == dict(cluster_skipped[name])
        alpha = everyone["krippendorff_alpha"]["value"] if everyone["krippendorff_alpha"] else None
        assert close(alpha, alpha_peer(clusters[name], level))


def test_identical_raters_agree_fully_and_order_does_not_matter(tmp_path):
    lines = [line for line in random_corpus(5, n_raters=1)]
    twin = [{**line, "annotator": "twin"} for line in lines]
    forward, backward = tmp_path / "f.jsonl", tmp_path / "b.jsonl"
    forward.write_text("".join(json.dumps(x) + "\n" for x in lines + twin), encoding="utf-8")
    backward.write_text("".join(json.dumps(x) + "\n" for x in reversed(twin + lines)), encoding="utf-8")
    one, two = (cli_json(p, "--rule", "overlap")["structure"] for p in (forward, backward))
    assert one == two
    overall = one["relations"]["overall"]
    assert overall["b"] == overall["c"] == 0 and overall["pooled_psa"] in (1.0, None)
    for entry in one["attributes"]["attributes"].values():
        for pair in entry["pairs"]:
            assert pair["percent_agreement"] is None or pair["percent_agreement"]["value"] == 1.0


@pytest.mark.parametrize("rule, labels", [("exact", "strict"), ("overlap", "ignore")])
def test_the_disagreement_list_has_one_record_per_unmatched_relation_and_differing_attribute(tmp_path, rule, labels):
    lines = random_corpus(3)
    path = tmp_path / "random.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = cli_json(path, "--rule", rule, "--labels", labels)["structure"]
    out = tmp_path / "cases.jsonl"
    result = CliRunner().invoke(app, ["disagreements", str(path), "--structure", "--rule", rule, "--labels", labels,
                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    records = [json.loads(x) for x in out.read_text().splitlines()]
    for pair in report["relations"]["pairs"]:
        mine = [r for r in records if (r["rater_a"], r["rater_b"]) == tuple(pair["raters"])]
        assert sum(r["kind"] == "relation_missed" for r in mine) == pair["b"]
        assert sum(r["kind"] == "relation_spurious" for r in mine) == pair["c"]
        both = pair["both_spans_marked"]
        assert sum(r["kind"] == "relation_missed" and r["both_spans_marked"] for r in mine) == both["b"]
        for name, entry in report["attributes"]["attributes"].items():
            (stats,) = [p for p in entry["pairs"] if p["raters"] == pair["raters"]]
            differ = sum(r["kind"] == "attribute" and r["attribute"] == name for r in mine)
            agree = stats["percent_agreement"]["value"] if stats["percent_agreement"] else 1.0
            assert differ == round(stats["items"] * (1 - agree))


def test_attribute_kappa_reproduces_a_published_table(tmp_path):
    """Artstein & Poesio's example (the doctest of spanagree.stats.cohen_kappa): the 2x2 table
    [[2, 2], [1, 5]] gives Cohen's kappa 0.348; here the items are ten matched spans and the
    coders' values an attribute."""
    cells = [("yes", "yes")] * 2 + [("yes", "no")] * 2 + [("no", "yes")] * 1 + [("no", "no")] * 5
    text = " ".join(f"w{i}" for i in range(len(cells)))
    lines = []
    for rater, side in (("A", 0), ("B", 1)):
        spans = [{"start": 3 * i, "end": 3 * i + 2, "label": "X", "attributes": {"q": cell[side]}}
                 for i, cell in enumerate(cells)]
        lines.append({"doc_id": "d", "text": text, "annotator": rater, "spans": spans})
    path = tmp_path / "kappa.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    pair = cli_json(path)["structure"]["attributes"]["attributes"]["q"]["pairs"][0]
    assert pair["items"] == 10 and pair["percent_agreement"]["value"] == 0.7
    assert round(pair["cohen_kappa"]["value"], 3) == 0.348


def test_attribute_codes_that_look_like_a_table_are_still_ratings():
    """Two matched span pairs coded [[0, 12], [12, 12]] (codes are corpus-wide) form a square matrix
    with a zero and a large value: the coefficients must read it as ratings, not refuse it as a
    contingency table."""
    import numpy as np

    from spanagree.measures.structure.attributes import _pair_entry

    entry = _pair_entry(["x", "y"], np.array([0.0, 12.0]), np.array([12.0, 12.0]), {}, "nominal")
    assert entry["percent_agreement"]["value"] == 0.5
    assert entry["krippendorff_alpha"]["value"] is not None
