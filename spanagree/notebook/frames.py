"""The report's tables as pandas DataFrames (and as CSV or Parquet files).

Each table is one list of flat rows read from :meth:`~spanagree.report.AgreementReport.to_dict`
(so a table never says anything the JSON does not), with the same columns in the same order
and of the same dtypes whatever the options: a statistic that was not computed (an interval
without ``bootstrap``, an undefined PSA) is NaN, a missing text ``<NA>``. Column names are the
JSON's keys; an interval's bounds are ``<statistic>_low`` and ``<statistic>_high`` (the percentile
bootstrap's; the ``chance`` table has the analytic and the bootstrap bounds apart).

========================  ===================================================================
table                     one row per
========================  ===================================================================
``pairs``                 rater pair: its documents, a, b, c, PSA (interval), outcome counts
``labels``                label: pairwise mean and pooled PSA (intervals), a, b, c
``documents``             scored document: raters, pairs, a, b, c, pooled and mean PSA
``raters``                rater: mean PSA, F against the others and against their consensus
``outcomes``              rater pair and outcome (correct, wrong_label, partial, missed, spurious)
``disagreements``         disagreement between two raters (kind, both spans, context)
``chance``                coefficient of the chance-corrected family, per pair and all raters
``unitizing``             α_U or γ, overall and per label
========================  ===================================================================
"""
from __future__ import annotations

import csv
import importlib.metadata
import json
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from ..core.counts import OUTCOMES
from ..core.extras import have, need
from ..core.files import atomic_write
from ..core.heap import release_memory
from ..core.sanitize import csv_cell
from ..errors import UsageError

#: pandas dtypes by kind of column.
_TEXT, _INT, _FLOAT = "string", "int64", "float64"
_OPTIONAL_INT = "Int64"  # a whole number that may be missing (a missed span has no B offsets)


def _interval_columns(name: str) -> list[tuple[str, str]]:
    return [(f"{name}_low", _FLOAT), (f"{name}_high", _FLOAT)]


#: Every table's columns, in order, with their dtypes.
COLUMNS: dict[str, list[tuple[str, str]]] = {
    "pairs": [
        ("rater_a", _TEXT), ("rater_b", _TEXT), ("documents", _INT),
        ("a", _FLOAT), ("b", _FLOAT), ("c", _FLOAT), ("psa", _FLOAT), *_interval_columns("psa"),
        *[(kind, _INT) for kind in OUTCOMES],
    ],
    "labels": [
        ("label", _TEXT), ("pairwise_mean_psa", _FLOAT), *_interval_columns("pairwise_mean_psa"),
        ("pooled_psa", _FLOAT), *_interval_columns("pooled_psa"),
        ("a", _FLOAT), ("b", _FLOAT), ("c", _FLOAT), ("pairs_undefined", _INT),
    ],
    "documents": [
        ("doc_id", _TEXT), ("raters", _INT), ("pairs", _INT), ("a", _FLOAT), ("b", _FLOAT), ("c", _FLOAT),
        ("pooled_psa", _FLOAT), ("pairwise_mean_psa", _FLOAT),
    ],
    "raters": [
        ("rater", _TEXT), ("documents", _INT), ("spans", _INT), ("pairs", _INT), ("pairs_undefined", _INT),
        ("mean_psa", _FLOAT), *_interval_columns("mean_psa"),
        ("precision", _FLOAT), ("recall", _FLOAT), ("f", _FLOAT), *_interval_columns("f"),
        ("consensus_precision", _FLOAT), ("consensus_recall", _FLOAT), ("consensus_f", _FLOAT),
        *_interval_columns("consensus_f"), ("only_theirs", _INT),
    ],
    "outcomes": [("rater_a", _TEXT), ("rater_b", _TEXT), ("outcome", _TEXT), ("count", _INT)],
    "disagreements": [
        ("kind", _TEXT), ("doc_id", _TEXT), ("rater_a", _TEXT), ("rater_b", _TEXT),
        ("a_start", _OPTIONAL_INT), ("a_end", _OPTIONAL_INT), ("a_label", _TEXT), ("a_text", _TEXT),
        ("b_start", _OPTIONAL_INT), ("b_end", _OPTIONAL_INT), ("b_label", _TEXT), ("b_text", _TEXT),
        ("context_left", _TEXT), ("context_right", _TEXT), ("only_in", _TEXT),
    ],
    "chance": [
        ("scope", _TEXT), ("rater_a", _TEXT), ("rater_b", _TEXT), ("coefficient", _TEXT),
        ("value", _FLOAT), ("observed", _FLOAT), ("expected", _FLOAT), ("standard_error", _FLOAT),
        ("analytic_low", _FLOAT), ("analytic_high", _FLOAT), ("bootstrap_low", _FLOAT), ("bootstrap_high", _FLOAT),
        ("p_value", _FLOAT), ("n_items", _FLOAT),
    ],
    "unitizing": [
        ("measure", _TEXT), ("label", _TEXT), ("value", _FLOAT), *_interval_columns("value"), ("units", _FLOAT),
    ],
}

#: The tables, in the order the CLI writes them.
TABLES = tuple(COLUMNS)


def pandas():
    """pandas, or a UsageError naming the extra that installs it."""
    return need("notebook", "tables need pandas", "pandas")


def rows(report, name: str, data: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The rows of table ``name`` (plain dicts keyed by the table's columns); ``data`` is the
    report's :meth:`to_dict` when the caller has it already."""
    if name not in COLUMNS:
        raise UsageError(f"no table {name!r}; tables: {', '.join(TABLES)}")
    if name == "disagreements":
        from ..diagnostics.disagreements import cases, from_report

        if not hasattr(report.corpus, "span_start"):
            raise UsageError("the disagreements table needs the spans and texts, which a run with jobs, stream or "
                             "engine does not keep (it holds counts only); score without them")

        return list(cases(report.corpus, from_report(report)))
    if name == "raters":
        return _raters(rater_section(report, data))
    data = report.to_dict() if data is None else data
    return _FROM_DICT[name](data)


def rater_section(report, data: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The report's ``per_rater`` section: from ``data`` when it has one, else made as
    ``score(per_rater=True)`` makes it (with intervals when the report has a bootstrap)."""
    if data is not None and "per_rater" in data:
        return data["per_rater"]
    with_raters = replace(report, per_rater=True, _intervals=None)
    return with_raters.rater_rows(with_raters._interval_lookup(None))


def frame(report, name: str, data: dict[str, Any] | None = None):
    """Table ``name`` of ``report`` as a pandas DataFrame (columns :data:`COLUMNS`)."""
    return _as_frame(pandas(), name, rows(report, name, data))


def _as_frame(pd, name: str, found: list[dict[str, Any]]):
    columns = COLUMNS[name]
    table = pd.DataFrame.from_records(found, columns=[c for c, _ in columns]) if found else pd.DataFrame(
        {c: [] for c, _ in columns})
    return table.astype(dict(columns))


#: Rows of the documents table made and written at a time by :func:`write` (a million documents
#: would otherwise be a million dicts and their frame at once).
DOCUMENTS_PER_PIECE = 10_000


def _row_pieces(report, name: str, data: dict[str, Any]):
    """The rows of table ``name`` in lists to write one after the other: the documents table in
    pieces of :data:`DOCUMENTS_PER_PIECE` rows made from the report's per-document arrays (as
    :meth:`~spanagree.report.AgreementReport.json_chunks` writes them), any other table whole."""
    if name != "documents":
        yield rows(report, name, data)
        return
    empty = True
    for columns in report._per_document_pieces(DOCUMENTS_PER_PIECE):
        piece = report._per_document_rows(*columns)
        if piece:
            empty = False
            yield piece
    if empty:  # one piece at least: the header
        yield []


def _csv_value(value: Any, kind: str) -> Any:
    """One CSV cell as pandas' ``to_csv`` writes the frame's column of dtype ``kind``: missing and
    NaN empty, floats in their shortest round-trip form, text a spreadsheet would run as a
    formula with a leading ``'``."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if kind == _FLOAT:
        return repr(float(value))
    if kind in (_INT, _OPTIONAL_INT):
        return int(value)
    return csv_cell(str(value))


def available(report, data: dict[str, Any]) -> list[str]:
    """The tables ``report`` has (``chance`` needs candidates, ``unitizing`` α_U/γ, and
    ``disagreements`` the spans and texts, which an engine's counts do not keep)."""
    return [name for name in TABLES if (name != "chance" or "chance_corrected" in data)
            and (name != "unitizing" or "unitizing" in data)
            and (name != "disagreements" or hasattr(report.corpus, "span_start"))]


def check_writer(output: str) -> None:
    """Raise a UsageError unless tables can be written as ``output`` here (Parquet: pandas and
    pyarrow installed; CSV needs neither)."""
    if output not in ("csv", "parquet"):
        raise UsageError(f"tables are written as csv or parquet, got {output!r}")
    if output == "parquet":  # written by pyarrow, with the dtypes pandas reads back; the parquet extra installs both
        have("parquet", "Parquet tables need pandas and pyarrow, CSV tables neither", "pandas", "pyarrow")


def write(report, folder: str | Path, *, output: str = "csv") -> dict[str, Any]:
    """Every table ``report`` has as ``folder/<table>.csv`` (or ``.parquet``, which needs pandas
    and pyarrow); returns ``{table: rows}``. CSV goes through the standard library's ``csv``
    module, row by row, the same text as the frames' ``to_csv`` (so pandas is not needed, nor its
    memory, for a million documents)."""
    check_writer(output)
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder}: tables are written to a folder, and this is a file")
    folder.mkdir(parents=True, exist_ok=True)
    data = report._build(None, None, per_document="the documents table is written in pieces")
    written = {}
    for name in available(report, data):
        release_memory()  # what the table before freed goes back, not under the next one's peak
        path = folder / f"{name}.{output}"
        columns = COLUMNS[name]
        written[name] = 0
        if output == "csv":
            with atomic_write(path, "w", encoding="utf-8", newline="") as f:
                out = csv.writer(f, lineterminator="\n")
                out.writerow([column for column, _ in columns])
                for piece in _row_pieces(report, name, data):
                    out.writerows([_csv_value(row.get(column), kind) for column, kind in columns] for row in piece)
                    written[name] += len(piece)
        else:
            with atomic_write(path, "wb") as f, _parquet_writer(f, name) as (parquet, schema):
                for piece in _row_pieces(report, name, data):
                    parquet.write_table(_arrow_table(piece, name, schema))
                    written[name] += len(piece)
    return written


#: The Arrow type of each kind of column: what ``pyarrow.Table.from_pandas`` makes of the frame's
#: dtypes (pandas' strings as large strings; a missing value, NaN included, as a null).
_ARROW_TYPES = {_TEXT: "large_string", _INT: "int64", _OPTIONAL_INT: "int64", _FLOAT: "float64"}
#: The ``pandas_type`` of each kind of column in the schema's pandas metadata.
_PANDAS_TYPES = {_TEXT: "object", _INT: "int64", _OPTIONAL_INT: "int64", _FLOAT: "float64"}


@contextmanager
def _parquet_writer(f, name: str):
    """A Parquet writer of table ``name`` into the open file ``f``, and its schema: the columns'
    Arrow types, and the pandas metadata (the Arrow format's ``pandas`` key: each column's dtype)
    that makes ``pandas.read_parquet`` give back the table's frame (:func:`frame`) without pandas
    writing it. Closed (its footer written) on the way out."""
    import pyarrow
    import pyarrow.parquet

    columns = COLUMNS[name]
    described = [{"name": column, "field_name": column, "pandas_type": _PANDAS_TYPES[kind], "numpy_type": kind,
                  "metadata": None} for column, kind in columns]
    pandas_metadata = {"index_columns": [], "column_indexes": [], "columns": described, "attributes": {},
                       "creator": {"library": "pyarrow", "version": pyarrow.__version__},
                       "pandas_version": importlib.metadata.version("pandas")}
    schema = pyarrow.schema([(column, getattr(pyarrow, _ARROW_TYPES[kind])()) for column, kind in columns],
                            metadata={"pandas": json.dumps(pandas_metadata)})
    writer = pyarrow.parquet.ParquetWriter(f, schema)
    try:
        yield writer, schema
    finally:
        writer.close()
        # Arrow's allocator keeps what the table's pieces freed; the next table's peak would count it
        pyarrow.default_memory_pool().release_unused()


def _arrow_table(piece: list[dict[str, Any]], name: str, schema):
    """Rows of table ``name`` as an Arrow table of ``schema``, column by column (text as ``str``,
    like the frame's ``astype("string")``; NaN null, like ``from_pandas``)."""
    import pyarrow

    arrays = []
    for (column, kind), field in zip(COLUMNS[name], schema):
        values = [row.get(column) for row in piece]
        if kind == _TEXT:
            values = [None if v is None else str(v) for v in values]
        arrays.append(pyarrow.array(values, type=field.type, from_pandas=True))
    return pyarrow.Table.from_arrays(arrays, schema=schema)


# --- rows from the report's dict --------------------------------------------------------------


def _row(table: str, source: dict, **given: Any) -> dict[str, Any]:
    """One row of ``table``: each column from ``given``, else ``source``'s value of that name, and
    an interval's bounds ``<name>_low``, ``<name>_high`` from ``source``'s ``<name>_interval``."""
    row = {}
    for column, _ in COLUMNS[table]:
        name, _, end = column.rpartition("_")
        if column in given:
            row[column] = given[column]
        elif end in ("low", "high"):
            row[column] = (source.get(f"{name}_interval") or {}).get(end)
        else:
            row[column] = source.get(column)
    return row


def _pairs(data: dict) -> list[dict]:
    return [_row("pairs", {**pair, **pair["outcomes"]}, rater_a=pair["raters"][0], rater_b=pair["raters"][1])
            for pair in data["pairs"]]


def _labels(data: dict) -> list[dict]:
    return [_row("labels", row, label=label) for label, row in data["labels"].items()]


def _documents(data: dict) -> list[dict]:
    return [dict(row) for row in data["per_document"]]


def _raters(view: list[dict]) -> list[dict]:
    return [_row("raters", {
        **(row.get("against_others") or {}),
        **{f"consensus_{key}": value for key, value in (row.get("against_consensus") or {}).items()}, **row,
    }, only_theirs=(row.get("only_theirs") or {}).get("spans", 0)) for row in view]


def _outcomes(data: dict) -> list[dict]:
    return [{"rater_a": pair["raters"][0], "rater_b": pair["raters"][1], "outcome": kind, "count": pair["outcomes"][kind]}
            for pair in data["pairs"] for kind in OUTCOMES]


def _coefficient_row(scope: str, raters: list[str] | None, name: str, entry: dict) -> dict:
    return _row("chance", {**entry, "bootstrap_interval": entry.get("interval")}, scope=scope, coefficient=name,
                rater_a=raters[0] if raters else None, rater_b=raters[1] if raters else None)


def _chance(data: dict) -> list[dict]:
    section = data.get("chance_corrected")
    if section is None:
        raise UsageError("the chance-corrected table needs candidate items: score with candidates='tokens' "
                         "(or 'documents', or a file of candidate spans)")
    found = []
    for pair in section["pairs"]:
        found.extend(_coefficient_row("pair", pair["raters"], name, entry) for name, entry in pair["coefficients"].items())
    found.extend(_coefficient_row("pooled", None, name, entry) for name, entry in (section.get("pooled") or {}).items()
                 if isinstance(entry, dict) and "value" in entry)
    found.extend(_coefficient_row("all_raters", None, name, entry) for name, entry in section["all_raters"].items()
                 if isinstance(entry, dict) and "value" in entry)
    return found


def _unitizing(data: dict) -> list[dict]:
    section = data.get("unitizing")
    if section is None:
        raise UsageError("the unitizing table needs α_U and γ: score with unitizing=True")
    found = []
    for measure in ("alpha_u", "gamma"):
        overall = section.get(measure)
        if overall is not None:
            found.append(_unitizing_row(measure, None, overall))
        for label, entry in (section.get(f"{measure}_per_label") or {}).items():
            found.append(_unitizing_row(measure, label, entry))
    return found


def _unitizing_row(measure: str, label: str | None, entry: dict) -> dict:
    return _row("unitizing", {**entry, "value_interval": entry.get("interval")}, measure=measure, label=label)


_FROM_DICT: dict[str, Callable[[dict], list[dict]]] = {
    "pairs": _pairs, "labels": _labels, "documents": _documents,
    "outcomes": _outcomes, "chance": _chance, "unitizing": _unitizing,
}
