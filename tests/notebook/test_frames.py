"""The report's tables as DataFrames: columns and dtypes, agreement with ``to_dict()``, the CLI's
folder of CSV files, and the message when pandas is missing."""
from __future__ import annotations

import csv
import importlib.util
import math
import sys

import pytest

pd = pytest.importorskip("pandas")

import spanagree
from spanagree.app.cli import app
from spanagree.core.counts import OUTCOMES
from spanagree.core.sanitize import csv_cell
from spanagree.errors import UsageError
from spanagree.notebook import frames
from click.testing import CliRunner


@pytest.fixture(scope="module")
def full(request):
    """The example scored with every optional section (intervals, candidates, α_U/γ, raters)."""
    from conftest import EXAMPLE

    report = spanagree.score(EXAMPLE, bootstrap=60, candidates="tokens", unitizing=True, per_rater=True)
    return report, report.to_dict()


@pytest.fixture(scope="module")
def plain():
    from conftest import EXAMPLE

    report = spanagree.score(EXAMPLE, rule="overlap")
    return report, report.to_dict()


def same(x, y) -> bool:
    """Equal, with None (JSON) and NaN/NA (frame) both meaning missing."""
    missing_x = x is None or x is pd.NA or (isinstance(x, float) and math.isnan(x))
    missing_y = y is None or y is pd.NA or (isinstance(y, float) and math.isnan(y))
    if missing_x or missing_y:
        return missing_x and missing_y
    return x == pytest.approx(y) if isinstance(x, float) or isinstance(y, float) else x == y


@pytest.mark.parametrize("name", frames.TABLES)
def test_columns_and_dtypes_are_the_same_whatever_the_options(full, plain, name):
    for report, data in (full, plain):
        if name not in frames.available(report, data):
            with pytest.raises(UsageError, match="candidates|unitizing"):
                report.frame(name)
            continue
        table = frames.frame(report, name, data)
        assert list(table.columns) == [c for c, _ in frames.COLUMNS[name]]
        assert [str(t) for t in table.dtypes] == [kind for _, kind in frames.COLUMNS[name]]
        assert len(table) > 0


def test_pairs_labels_documents_agree_with_to_dict(full):
    report, data = full
    pairs = report.frame("pairs")
    assert len(pairs) == len(data["pairs"])
    for row, pair in zip(pairs.to_dict("records"), data["pairs"]):
        assert [row["rater_a"], row["rater_b"]] == pair["raters"]
        for key in ("documents", "a", "b", "c", "psa"):
            assert same(row[key], pair[key])
        assert same(row["psa_low"], pair["psa_interval"]["low"]) and same(row["psa_high"], pair["psa_interval"]["high"])
        assert {kind: row[kind] for kind in OUTCOMES} == pair["outcomes"]
    labels = report.frame("labels").set_index("label")
    assert list(labels.index) == list(data["labels"])
    for name, entry in data["labels"].items():
        for key in ("pairwise_mean_psa", "pooled_psa", "a", "b", "c", "pairs_undefined"):
            assert same(labels.loc[name, key], entry[key])
        assert same(labels.loc[name, "pooled_psa_low"], entry["pooled_psa_interval"]["low"])
    documents = report.frame("documents")
    for row, doc in zip(documents.to_dict("records"), data["per_document"], strict=True):
        assert all(same(row[k], doc[k]) for k in doc), (row, doc)
    assert len(documents) == data["documents"]["scored"]


def test_outcomes_and_disagreements_add_up_to_the_report(full):
    report, data = full
    outcomes = report.frame("outcomes")
    assert outcomes.groupby("outcome")["count"].sum().to_dict() == data["overall"]["outcomes"]
    disagreements = report.frame("disagreements")
    expected = {kind: n for kind, n in data["overall"]["outcomes"].items() if kind != "correct" and n}
    assert disagreements["kind"].value_counts().to_dict() == expected
    # a missed span has no B side: a missing whole number, not a float NaN
    missed = disagreements[disagreements["kind"] == "missed"]
    assert missed["b_start"].isna().all() and (missed["only_in"] == missed["rater_a"]).all()


def test_raters_chance_unitizing_agree_with_to_dict(full):
    report, data = full
    raters = report.frame("raters").set_index("rater")
    for row in data["per_rater"]:
        assert same(raters.loc[row["rater"], "mean_psa"], row["mean_psa"])
        assert same(raters.loc[row["rater"], "f"], row["against_others"]["f"])
        assert same(raters.loc[row["rater"], "consensus_f"], row["against_consensus"]["f"])
    chance = report.frame("chance")
    section = data["chance_corrected"]
    kappa = chance[(chance.scope == "pair") & (chance.coefficient == "cohen_kappa")]
    assert list(kappa["value"]) == pytest.approx([p["coefficients"]["cohen_kappa"]["value"] for p in section["pairs"]])
    assert list(kappa["bootstrap_low"]) == pytest.approx(
        [p["coefficients"]["cohen_kappa"]["interval"]["low"] for p in section["pairs"]])
    alpha = chance[(chance.scope == "all_raters") & (chance.coefficient == "krippendorff_alpha")]
    assert alpha["value"].item() == pytest.approx(section["all_raters"]["krippendorff_alpha"]["value"])
    unitizing = report.frame("unitizing")
    overall = unitizing[unitizing["label"].isna()].set_index("measure")
    assert overall.loc["alpha_u", "value"] == pytest.approx(data["unitizing"]["alpha_u"]["value"])
    assert overall.loc["gamma", "value"] == pytest.approx(data["unitizing"]["gamma"]["value"])
    per_label = unitizing[(unitizing.measure == "alpha_u") & unitizing["label"].notna()]
    assert dict(zip(per_label["label"], per_label["value"])) == pytest.approx(
        {k: v["value"] for k, v in data["unitizing"]["alpha_u_per_label"].items()})


def test_raters_table_without_the_per_rater_option_equals_the_one_with_it(full):
    report, _ = full
    again = spanagree.score(report.corpus, bootstrap=60)
    pd.testing.assert_frame_equal(again.frame("raters"), report.frame("raters"))


def test_undefined_is_nan_not_zero(write_jsonl):
    path = write_jsonl([
        {"doc_id": "d", "annotator": "A", "text": "abc def", "spans": [{"start": 0, "end": 3, "label": "X"}]},
        {"doc_id": "d", "annotator": "B", "text": "abc def", "spans": [{"start": 4, "end": 7, "label": "Y"}]},
        {"doc_id": "e", "annotator": "A", "text": "ghi", "spans": []},
        {"doc_id": "e", "annotator": "B", "text": "ghi", "spans": []},
    ])
    report = spanagree.score(path)
    documents = report.frame("documents").set_index("doc_id")
    assert documents.loc["d", "pooled_psa"] == 0.0
    assert math.isnan(documents.loc["e", "pooled_psa"])


def test_unknown_table_names_the_tables(plain):
    with pytest.raises(UsageError, match="tables: pairs, labels, documents"):
        plain[0].frame("pair")


def test_missing_pandas_names_the_extra(plain, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(UsageError, match=r"spanagree\[notebook\]"):
        plain[0].frame("labels")


def test_cli_writes_a_folder_of_csv_tables_equal_to_the_frames(example_path, tmp_path):
    result = CliRunner().invoke(app, ["score", str(example_path), "--output", "csv", "-o", str(tmp_path / "tables")])
    assert result.exit_code == 0, result.output
    report = spanagree.score(example_path)
    data = report.to_dict()
    assert sorted(p.name for p in (tmp_path / "tables").iterdir()) == sorted(
        f"{name}.csv" for name in frames.available(report, data))
    for name in frames.available(report, data):
        written = pd.read_csv(tmp_path / "tables" / f"{name}.csv", keep_default_na=True)
        expected = report.frame(name)
        assert list(written.columns) == list(expected.columns)
        assert len(written) == len(expected)
    labels = pd.read_csv(tmp_path / "tables" / "labels.csv")
    assert list(labels["pooled_psa"]) == pytest.approx(list(report.frame("labels")["pooled_psa"]))


def test_cli_tables_need_a_folder_and_escape_formulas(write_jsonl, tmp_path):
    path = write_jsonl([
        {"doc_id": "d", "annotator": "=cmd|' /C calc'!A0", "text": "abc", "spans": [{"start": 0, "end": 3, "label": "@SUM(1)"}]},
        {"doc_id": "d", "annotator": "B", "text": "abc", "spans": [{"start": 0, "end": 3, "label": "@SUM(1)"}]},
    ])
    runner = CliRunner()
    no_folder = runner.invoke(app, ["score", str(path), "--output", "csv"])
    assert no_folder.exit_code == 2 and "-o FOLDER" in no_folder.output
    a_file = tmp_path / "taken.csv"
    a_file.write_text("x")
    assert runner.invoke(app, ["score", str(path), "--output", "csv", "-o", str(a_file)]).exit_code == 2
    result = runner.invoke(app, ["score", str(path), "--output", "csv", "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    with open(tmp_path / "out" / "labels.csv", newline="", encoding="utf-8") as f:
        assert [row["label"] for row in csv.DictReader(f)] == ["'@SUM(1)"]
    with open(tmp_path / "out" / "pairs.csv", newline="", encoding="utf-8") as f:
        names = next(csv.DictReader(f))
    assert "'=cmd|' /C calc'!A0" in (names["rater_a"], names["rater_b"])


@pytest.mark.parametrize("missing", [("pyarrow",), ("pandas",), ("pandas", "pyarrow")])
def test_parquet_without_pyarrow_says_so_before_scoring(example_path, tmp_path, monkeypatch, missing):
    """The message names what is missing and the extra that installs both (the notebook extra,
    which installs pandas, lacks pyarrow)."""
    absent = [name for name in ("pandas", "pyarrow") if name in missing or importlib.util.find_spec(name) is None]
    for name in missing:
        monkeypatch.setitem(sys.modules, name, None)
    result = CliRunner().invoke(app, ["score", str(example_path), "--output", "parquet", "-o", str(tmp_path / "t")])
    assert result.exit_code == 2
    assert f"Parquet tables need pandas and pyarrow, CSV tables neither ({' and '.join(absent)} missing here): " \
           "pip install 'spanagree[parquet]'" in result.output
    assert not (tmp_path / "t").exists()
    import tomllib

    from conftest import ROOT

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert {requirement.split(">")[0] for requirement in extras["parquet"]} == {"pandas", "pyarrow"}


def test_the_python_page_shows_the_frames_the_code_prints(monkeypatch):
    import contextlib
    import io
    import re

    from conftest import ROOT

    page = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    at = page.index("## In a notebook")
    code = re.compile(r"```python\n(.*?)```", re.S).search(page, at).group(1)
    shown = re.compile(r"```text\n(.*?)```", re.S).search(page, at).group(1)
    monkeypatch.chdir(ROOT)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "docs/python.md", "exec"), {})
    assert printed.getvalue() == shown


def test_parquet_tables_read_back_as_the_frames(example_path, tmp_path):
    pytest.importorskip("pyarrow", reason="Parquet tables need pyarrow (pip install 'spanagree[parquet]')")
    report = spanagree.score(example_path)
    written = frames.write(report, tmp_path / "t", output="parquet")
    for name in written:
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "t" / f"{name}.parquet"), report.frame(name))


def test_a_run_that_kept_counts_only_has_every_table_but_the_disagreements(example_path):
    counted = spanagree.score(example_path, stream=True)
    in_memory = spanagree.score(example_path)
    for name in ("pairs", "labels", "documents", "outcomes"):
        pd.testing.assert_frame_equal(counted.frame(name), in_memory.frame(name))
    with pytest.raises(UsageError, match="needs the spans"):
        counted.frame("disagreements")
    assert counted.plot.pairs() is not None


def _pandas_csv(table) -> str:
    """A frame as CSV the way pandas writes it, formula-like text escaped as the writer escapes it."""
    text = [c for c, kind in frames.COLUMNS[table.attrs.get("name", "")] if kind == "string"] if table.attrs.get("name") else []
    safe = table.assign(**{c: table[c].map(csv_cell, na_action="ignore") for c in text})
    return safe.to_csv(index=False, lineterminator="\n")


@pytest.mark.parametrize("options", [{}, {"stream": True, "jobs": 1}, {"candidates": "tokens", "bootstrap": 30, "seed": 1}])
def test_csv_tables_are_the_frames_as_pandas_writes_them_in_pieces(example_path, tmp_path, monkeypatch, options):
    """The CSV writer (the standard library's, row by row; the documents table a piece at a time,
    memory not growing with documents) writes what pandas' ``to_csv`` writes of each frame, byte
    for byte: from a report in memory, from one an engine counted, with intervals and the
    chance-corrected table."""
    monkeypatch.setattr(frames, "DOCUMENTS_PER_PIECE", 7)
    report = spanagree.score(example_path, **options)
    written = frames.write(report, tmp_path / "t", output="csv")
    assert written["documents"] > 7
    for name, n in written.items():
        whole = report.frame(name)
        whole.attrs["name"] = name
        assert n == len(whole)
        assert (tmp_path / "t" / f"{name}.csv").read_text(encoding="utf-8") == _pandas_csv(whole), name
    if importlib.util.find_spec("pyarrow") is not None:
        frames.write(report, tmp_path / "p", output="parquet")
        for name in written:
            pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "p" / f"{name}.parquet"), report.frame(name))


def test_an_engines_report_writes_every_table_but_the_disagreements_and_says_so(example_path, tmp_path):
    result = CliRunner().invoke(app, ["score", str(example_path), "--stream", "--jobs", "1", "--output", "csv",
                                      "-o", str(tmp_path / "t")])
    assert result.exit_code == 0, result.output
    assert "not written: disagreements" in result.output
    assert {p.stem for p in (tmp_path / "t").iterdir()} == {"pairs", "labels", "documents", "raters", "outcomes"}


def test_csv_doc_ids_are_the_json_doc_ids_for_negative_prodigy_hashes(tmp_path):
    """Prodigy's ``_input_hash`` is often negative: the CSV tables keep it as the number it is
    (the formula guard is for text), so the CSV's ids are the JSON report's."""
    import json

    path = tmp_path / "prodigy.jsonl"
    path.write_text("".join(json.dumps({
        "text": "Anna met Bob.", "_input_hash": h, "_task_hash": 7, "answer": "accept", "_annotator_id": rater,
        "spans": [{"start": 0, "end": 4, "label": "PER"}] + ([{"start": 9, "end": 12, "label": "PER"}] if rater == "a2" else []),
    }) + "\n" for rater in ("a1", "a2") for h in (-1164799570, -42, 7)), encoding="utf-8")
    report = spanagree.score(path)
    frames.write(report, tmp_path / "t", output="csv")
    expected = sorted(d["doc_id"] for d in report.to_dict()["per_document"])
    assert expected == ["-1164799570", "-42", "7"]
    for name in ("documents", "disagreements"):
        with (tmp_path / "t" / f"{name}.csv").open(encoding="utf-8", newline="") as f:
            assert sorted({row["doc_id"] for row in csv.DictReader(f)}) == expected
