"""The command line as the ecosystem expects it: ``python -m spanagree``, ``--version``, ``info``,
formats in the help, help pointing to the shipped docs, every imported library declared."""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from importlib import metadata

from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.io import formats
from conftest import ROOT

runner = CliRunner()


def test_python_dash_m_and_version():
    proc = subprocess.run([sys.executable, "-m", "spanagree", "--version"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.strip() == f"spanagree {spanagree.__version__}"
    assert spanagree.__version__ == metadata.version("spanagree")
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"] == spanagree.__version__


def test_info_names_versions_formats_and_entry_points():
    result = runner.invoke(app, ["info", "--output", "json"])
    assert result.exit_code == 0, result.output
    facts = json.loads(result.stdout)
    assert facts["spanagree"] == spanagree.__version__ and facts["packages"]["spacy"]
    assert {f["name"] for f in facts["formats"]} == set(formats())
    assert {f["name"] for f in facts["formats"] if f["write"]} >= {"spanagree", "prodigy", "docbin"}
    assert "span_agreement = spanagree.integrations.component:make_span_agreement" in facts["entry_points"]["spacy_factories"]
    assert facts["entry_points"]["spacy_readers"] == ["spanagree.RaterCorpus.v1 = spanagree.integrations.corpus:make_rater_corpus"]
    text = runner.invoke(app, ["info"]).stdout
    assert f"spanagree   {spanagree.__version__}" in text and "spacy_scorers: spanagree.agreement_scorer.v1" in text


def _help(*command: str) -> str:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "400", "TERM": "dumb"})
    assert result.exit_code == 0
    return re.sub(r"\s+", " ", re.sub(r"[│╭╮╰╯─]", " ", result.stdout))


def test_help_lists_the_formats_and_points_to_shipped_docs():
    for command in ("score", "convert", "consensus", "gate", "report", "disagreements"):
        text = _help(command)
        assert "SPEC" not in text, command
        if "--format" in text:
            assert ", ".join(formats()) in text, command
    assert "docs/alignment.md" in _help("score")


def test_every_imported_library_is_declared():
    """Each third-party module spanagree imports is a dependency or in an extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = set()
    for requirement in project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]:
        declared.add(re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower().replace("-", "_"))
    imported = set()
    for path in (ROOT / "spanagree").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {name for name in imported if name not in sys.stdlib_module_names and name != "spanagree"}
    distribution = {"distributed": "dask", "cassis": "dkpro_cassis"}  # dask[distributed] installs it; dkpro-cassis is imported as cassis
    missing = {name for name in third_party if distribution.get(name, name) not in declared}
    assert not missing, f"imported but not declared in pyproject.toml: {sorted(missing)}"
    assert {"click", "confection", "wasabi"} <= {r.split(">")[0].split("<")[0] for r in project["dependencies"]}


def test_single_rater_input_is_warned_about_before_the_tables(write_jsonl):
    path = write_jsonl([{"doc_id": "1", "annotator": "a", "text": "Hi Bob", "spans": [{"start": 3, "end": 6, "label": "P"}]}])
    proc = subprocess.run([sys.executable, "-m", "spanagree", "score", str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0
    assert "warning: the input has 1 rater (a); agreement needs at least two" in proc.stderr
    two = write_jsonl([
        {"doc_id": "1", "annotator": r, "text": "Hi Bob", "spans": [{"start": 3, "end": 6, "label": "P"}]} for r in "ab"
    ], "two.jsonl")
    assert "warning" not in runner.invoke(app, ["score", str(two)]).output
