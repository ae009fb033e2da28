"""docs/notebook.ipynb runs clean in a real Jupyter kernel, and shows what it says it shows."""
from __future__ import annotations

import html
import os
import re

import pytest

nbformat = pytest.importorskip("nbformat", reason="the notebook test needs nbclient, nbformat and ipykernel ('spanagree[test]')")
nbclient = pytest.importorskip("nbclient", reason="the notebook test needs nbclient ('spanagree[test]')")
pytest.importorskip("ipykernel", reason="the notebook test needs ipykernel ('spanagree[test]')")
pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

import spanagree
from locations import ROOT

NOTEBOOK = ROOT / "docs" / "notebook.ipynb"


@pytest.fixture(scope="module")
def executed():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    with pytest.MonkeyPatch.context() as patch:  # the kernel imports this checkout's spanagree
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        client.execute()  # raises CellExecutionError on the first cell that fails
    return notebook


def outputs(notebook, text: str) -> list:
    """The outputs of the code cell whose source holds ``text``."""
    found = [cell for cell in notebook.cells if cell.cell_type == "code" and text in cell.source]
    assert len(found) == 1, text
    return found[0].outputs


def test_the_notebook_is_stored_without_outputs():
    stored = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in stored.cells if cell.cell_type == "code")


def test_every_cell_runs_without_an_error_or_a_warning(executed):
    for cell in executed.cells:
        if cell.cell_type != "code":
            continue
        assert cell.outputs, cell.source  # every cell shows something
        for out in cell.outputs:
            assert out.output_type != "error", out
            if out.output_type == "stream":
                assert out.name == "stderr" and "Traceback" not in out.text and "Warning" not in out.text, out.text


def test_the_report_shows_its_headline_as_the_api_computes_it(executed):
    (shown,) = outputs(executed, "report = spanagree.score(")
    page = html.unescape(shown.data["text/html"])
    data = spanagree.score(ROOT / "corpora" / "news_ner.jsonl", bootstrap=1000, candidates="tokens", seed=0).to_dict()
    overall = data["overall"]
    interval = overall["pairwise_mean_psa_interval"]
    assert f"{overall['pairwise_mean_psa']:.3f}" in page and f"[{interval['low']:.3f}, {interval['high']:.3f}]" in page


def test_tables_are_dataframes_and_charts_are_images(executed):
    (labels,) = outputs(executed, 'labels = report.frame("labels")')
    assert re.search(r"<table[^>]*class=\"dataframe", labels.data["text/html"])
    for chart in ("report.plot.labels()", "report.plot.pairs()", "report.plot.kappa_curve()",
                  "report.plot.plan(half_width=0.02)"):
        (shown,) = outputs(executed, chart)
        assert "image/png" in shown.data, chart
    (kinds,) = outputs(executed, 'disagreements["kind"].value_counts()')
    assert "wrong_label" in kinds.data["text/plain"]
