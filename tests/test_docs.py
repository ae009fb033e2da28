"""Every fenced block of README.md and docs/*.md runs as a user would run it, on the files the
repository ships; CI fails when one breaks.

How a block runs depends on its language:

- ``bash``, ``sh``, ``console``: a page's shell blocks run in order, each with ``bash -e -o
  pipefail``, in a temporary folder holding copies of ``corpora/`` and ``configs/`` (so what the
  examples write does not land in the checkout), with ``spanagree`` on PATH meaning
  ``python -m spanagree`` of this interpreter and this checkout. A line whose comment says
  ``# exits N`` must exit with N; every other line must exit 0. Left out, and why: ``pip install``
  and the virtual environment it installs into (this test runs where spanagree and its test
  extras are installed already), and ``python -m pytest`` (this very suite, which CI runs).
- ``python``: a whole script, run with this interpreter in that folder, after the page's blocks
  above it (whose outputs it may read); a block of ``>>>`` lines is a doctest, run in that folder.
- ``ini``, ``cfg``: a spanagree settings file is loaded with ``load_settings`` and used: ``spanagree
  gate`` (a block with ``[gate``) or ``spanagree score`` on the example corpus must exit 0. A spaCy
  config (a block naming ``@scorers`` or ``@readers``; a fragment gets its parent sections) is
  loaded with spaCy's config system and
  every function it names is made and used on the example corpus.
- ``json``: parsed, written as one line of spanagree JSONL and read.
- ``yaml``: the CI snippets of docs/gate.md, parsed here and checked further below.
- ``text``: output samples and grammar sketches, not run: the only blocks that are not.

A block without a language, or in one not listed, fails: every block says what it is.
"""
from __future__ import annotations

import doctest
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import EXAMPLE, ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL, PYTHON, CONFIG, NOT_RUN = {"bash", "sh", "console"}, {"python"}, {"ini", "cfg"}, {"text"}
FENCE = re.compile(r"^```(\S*)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
EXITS = re.compile(r"#.*\bexits (\d+)\b")
#: parts of a shell line that are left out (see the module's docstring)
LEFT_OUT = re.compile(r"^(python3? -m venv \S+|\. \S+/bin/activate|(python3? -m )?pip install .*|python3? -m pytest.*)$")


@dataclass
class Block:
    page: Path
    line: int
    language: str
    text: str

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line} ({self.language or 'no language'})"


def blocks(page: Path) -> list[Block]:
    source = page.read_text(encoding="utf-8")
    return [Block(page, source.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)) for m in FENCE.finditer(source)]


def shell_script(text: str) -> str:
    """The block as a bash script: continued lines joined, the parts of a line that are left out
    dropped, and each ``# exits N`` line checked for exit status N."""
    lines = ["set -eo pipefail", "trap 'echo \"spanagree docs: failed: $BASH_COMMAND\" >&2' ERR"]
    for line in text.replace("\\\n", " ").splitlines():
        command, _, comment = line.partition("  #") if "  #" in line else (line, "", "")
        parts = [part for part in command.strip().split(" && ") if part and not LEFT_OUT.match(part.strip())]
        if not parts:
            continue
        command = " && ".join(parts)
        expected = EXITS.search("#" + comment) if comment else None
        if expected is None:
            lines.append(command)
        else:
            lines += ["set +e", command, "status=$?", "set -e",
                      f'[ "$status" -eq {expected.group(1)} ] || {{ echo "spanagree docs: {command!r} exited $status, '
                      f'expected {expected.group(1)}" >&2; exit 1; }}']
    return "\n".join(lines) + "\n"


@pytest.fixture
def workdir(tmp_path) -> Path:
    """A folder as a fresh clone's root looks to the examples: corpora/ and configs/, and a
    ``spanagree`` command on PATH that is this checkout run by this interpreter."""
    for name in ("corpora", "configs"):
        shutil.copytree(ROOT / name, tmp_path / name)
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    shim = bin_dir / "spanagree"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m spanagree "$@"\n')
    shim.chmod(0o755)
    return tmp_path


def environment(workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    env.update(PATH=f"{workdir / '.bin'}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    return env


def run_shell(block: Block, workdir: Path) -> None:
    done = subprocess.run(["bash", "-c", shell_script(block.text)], cwd=workdir, env=environment(workdir),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{block}: {done.stderr[-3000:]}"


def run_python(block: Block, workdir: Path, monkeypatch) -> None:
    if block.text.lstrip().startswith(">>>"):
        monkeypatch.chdir(workdir)
        test = doctest.DocTestParser().get_doctest(block.text, {}, str(block), str(block.page), block.line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        failures = []
        runner.run(test, out=failures.append)
        assert runner.failures == 0, f"{block}:\n" + "".join(failures)
        return
    script = workdir / f"block_{block.page.stem}_{block.line}.py"
    script.write_text(block.text, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=workdir, env=environment(workdir),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{block}: {done.stderr[-3000:]}"


def run_config(block: Block, workdir: Path, monkeypatch) -> None:
    if re.search(r"^@(scorers|readers)\b", block.text, re.M):
        monkeypatch.chdir(workdir)
        use_spacy_config(block)
        return
    from spanagree.app.config import load_settings

    path = workdir / f"block_{block.line}.cfg"
    path.write_text(block.text, encoding="utf-8")
    load_settings(path)
    command = "gate" if "[gate" in block.text else "score"
    done = subprocess.run(["spanagree", command, "corpora/news_ner.jsonl", "--config", path.name], cwd=workdir,
                          env=environment(workdir), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{block}: spanagree {command} with it exited {done.returncode}: {done.stdout[-2000:]}{done.stderr[-2000:]}"


def use_spacy_config(block: Block) -> None:
    """Make every function the block names and use it: a reader reads the example corpus into
    Examples; a scorer scores alice's spans (reference) against bob's and gives every score."""
    spacy = pytest.importorskip("spacy")
    from thinc.api import Config

    sections = re.findall(r"^\[([^\]]+)\]", block.text, re.M)
    parents = sorted({".".join(s.split(".")[:i]) for s in sections for i in range(1, s.count(".") + 1)} - set(sections))
    config = Config().from_str("".join(f"[{p}]\n" for p in parents) + block.text)  # a fragment of a training config
    nlp = spacy.blank("en")
    named = list(_named_functions(config))
    assert named, block
    example_reader = {"@readers": "spanagree.RaterCorpus.v1", "path": str(EXAMPLE),
                      "reference": "news_ner-alice", "predicted": "news_ner-bob"}
    for node in named:
        made = spacy.util.registry.resolve({"made": node})["made"]
        if "@readers" in node:
            examples = list(made(nlp))
            assert examples and any(eg.reference.ents for eg in examples), block
        else:
            reader = spacy.util.registry.resolve({"made": example_reader})["made"]
            scores = made(list(reader(nlp)))
            assert scores["ents_f"] is not None and scores["ents_psa"] is not None, (block, scores)


def _named_functions(node):
    if isinstance(node, dict):
        if "@scorers" in node or "@readers" in node:
            yield node
        for value in node.values():
            yield from _named_functions(value)


def run_json(block: Block, workdir: Path) -> None:
    import spanagree

    path = workdir / f"block_{block.line}.jsonl"
    path.write_text(json.dumps(json.loads(block.text)) + "\n", encoding="utf-8")
    corpus = spanagree.read(path, format="spanagree")
    assert len(corpus.doc_ids) == 1 and corpus.raters, block


def run_yaml(block: Block) -> None:
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load(block.text), block


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_of_the_page_runs(page, workdir, monkeypatch):
    for block in blocks(page):
        language = block.language.lower()
        if language in SHELL:
            run_shell(block, workdir)
        elif language in PYTHON:
            run_python(block, workdir, monkeypatch)
        elif language in CONFIG:
            run_config(block, workdir, monkeypatch)
        elif language == "json":
            run_json(block, workdir)
        elif language == "yaml":
            run_yaml(block)
        else:
            assert language in NOT_RUN, f"{block}: say what the block is (bash, python, ini, json, yaml, or text for output)"


def test_the_pages_hold_runnable_examples():
    found = [block for page in PAGES for block in blocks(page)]
    run = [b for b in found if b.language.lower() not in NOT_RUN]
    assert len(run) > 30 and {b.language for b in run} >= {"bash", "python", "ini", "json", "yaml"}


@pytest.mark.parametrize("script, status", [
    ("true", 0),
    ("false", 1),
    ("true  # exits 1: said to fail, and it passed", 1),
    ("false  # exits 1", 0),
    ("exit 2  # exits 1", 1),
    ("python3 -m venv .venv && . .venv/bin/activate && pip install . && true", 0),
    ("pip install \".[report]\"  # never run", 0),
    ("python -m pytest && false", 1),
    ("echo one \\\n  two | grep -q 'one two'", 0),
])
def test_the_shell_runner_holds_each_line_to_its_exit_status(script, status, tmp_path):
    done = subprocess.run(["bash", "-c", shell_script(script)], cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode != 0) == bool(status), (script, done.stderr)


def test_the_derived_example_files_are_what_their_script_writes(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_derived", ROOT / "corpora" / "build_derived.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert len(written) == 4 + 2 * 2 * len(module.BRAT_DOCUMENTS)
    for name in written:
        assert (tmp_path / name).read_bytes() == (ROOT / "corpora" / name).read_bytes(), name


def test_the_readme_says_in_its_first_screen_what_it_is_and_how_to_run_it():
    first_screen = "\n".join((ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:40])
    assert "agree" in first_screen and "span" in first_screen
    assert "pip install . && spanagree score corpora/news_ner.jsonl" in first_screen
    assert 'pip install ".[test]" && python -m pytest' in first_screen
    assert "spanagree[" not in (ROOT / "README.md").read_text(encoding="utf-8")  # no package index to install from


LINK = re.compile(r"\]\(([^)\s#]+\.(?:md|ipynb|py|png|cfg|jsonl))(?:#([\w-]+))?\)")


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as dashes."""
    headings = re.findall(r"^#+ (.*)$", page.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_of_the_page_leads_somewhere(page):
    broken = []
    for target, anchor in LINK.findall(page.read_text(encoding="utf-8")):
        if "://" in target:
            continue
        path = (page.parent / target).resolve()
        if not path.exists() or (anchor and path.suffix == ".md" and anchor not in _anchors(path)):
            broken.append(f"{target}#{anchor}" if anchor else target)
    assert not broken, f"{page.name}: {broken}"


# --- the CI snippets of docs/gate.md, run or validated with this checkout's placeholders filled in ---

GATE_PAGE = ROOT / "docs" / "gate.md"


def _yaml_block(after: str) -> str:
    """The first yaml block of docs/gate.md after the text ``after``."""
    source = GATE_PAGE.read_text(encoding="utf-8")
    match = re.compile(r"```yaml\n(.*?)```", re.S).search(source, source.index(after))
    assert match, f"no yaml block after {after!r}"
    return match.group(1)


def _git(*args, cwd=ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def commit():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    return _git("rev-parse", "HEAD")


def _pre_commit() -> list[str]:
    pytest.importorskip("pre_commit")
    return [sys.executable, "-m", "pre_commit"]


def _filled(snippet: str, commit: str) -> str:
    return snippet.replace("<the spanagree repository URL>", str(ROOT)).replace("<commit>", commit)


def test_pre_commit_snippet_names_a_revision_that_exists_and_a_hook_the_manifest_has(commit, tmp_path):
    pre_commit = _pre_commit()
    snippet = _yaml_block("pre-commit (`.pre-commit-config.yaml`)")
    rev = re.search(r"rev:\s*(\S+)", snippet).group(1)
    assert rev == "<commit>" or subprocess.run(["git", "rev-parse", "--verify", "-q", rev], cwd=ROOT).returncode == 0
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(_filled(snippet, commit))
    for command, path in (("validate-config", config), ("validate-manifest", ROOT / ".pre-commit-hooks.yaml")):
        proc = subprocess.run([*pre_commit, command, str(path)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    hook = re.search(r"id:\s*(\S+)", snippet).group(1)
    assert re.search(rf"^- id: {re.escape(hook)}$", (ROOT / ".pre-commit-hooks.yaml").read_text(), re.M)


@pytest.mark.skipif(not os.environ.get("SPANAGREE_SLOW_TESTS"), reason="installs spanagree in a fresh environment (minutes); set SPANAGREE_SLOW_TESTS=1")
def test_pre_commit_runs_the_hook_of_the_docs_at_a_real_commit(commit, tmp_path):
    pre_commit = _pre_commit()
    project = tmp_path / "project"
    (project / "annotations").mkdir(parents=True)
    shutil.copy(EXAMPLE, project / "annotations")
    _git("init", "-q", cwd=project)
    _git("add", ".", cwd=project)
    _git("-c", "user.email=ci@example.org", "-c", "user.name=ci", "commit", "-qm", "annotations", cwd=project)
    config = project / ".pre-commit-config.yaml"
    snippet = _yaml_block("pre-commit (`.pre-commit-config.yaml`)")
    config.write_text(_filled(snippet, commit).replace("configs/gate.cfg", str(ROOT / "configs" / "gate.cfg")))
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([*pre_commit, "run", "--all-files", "--config", str(config)], cwd=project, capture_output=True, text=True, env=env)
    assert "spanagree agreement gate" in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # the gate ran: passed or failed, not a usage error


def test_github_actions_snippet_installs_from_the_repository(commit):
    snippet = _yaml_block("GitHub Actions,")
    yaml = pytest.importorskip("yaml")
    steps = yaml.safe_load(snippet)["jobs"]["agreement"]["steps"]
    install = next(step["run"] for step in steps if "pip install" in step.get("run", ""))
    assert "pip install spanagree\n" not in install + "\n"  # no release on a package index to install from
    requirement = re.search(r'pip install "([^"]+)"', install).group(1)
    from packaging.requirements import Requirement

    parsed = Requirement(requirement.replace("<the spanagree repository URL>", f"file://{ROOT}").replace("<commit>", commit))
    assert parsed.name == "spanagree" and parsed.url.startswith("git+file://") and parsed.url.endswith(commit)
    gate = next(step["run"] for step in steps if step.get("run", "").startswith("spanagree gate"))
    upload = next(step for step in steps if "upload-artifact" in step.get("uses", ""))
    assert upload["if"] == "always()" and upload["with"]["path"] in gate
