"""The README's CI snippets, run or validated as written (placeholders filled in with this checkout)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block(after: str, language: str) -> str:
    """The first fenced block of ``language`` after the text ``after``."""
    at = README.index(after)
    match = re.compile(rf"```{language}\n(.*?)```", re.S).search(README, at)
    assert match, f"no {language} block after {after!r}"
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
    snippet = _block("pre-commit (`.pre-commit-config.yaml`)", "yaml")
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
def test_pre_commit_runs_the_readme_hook_at_a_real_commit(commit, tmp_path):
    pre_commit = _pre_commit()
    project = tmp_path / "project"
    (project / "annotations").mkdir(parents=True)
    shutil.copy(ROOT / "corpora" / "news_ner.jsonl", project / "annotations")
    _git("init", "-q", cwd=project)
    _git("add", ".", cwd=project)
    _git("-c", "user.email=ci@example.org", "-c", "user.name=ci", "commit", "-qm", "annotations", cwd=project)
    config = project / ".pre-commit-config.yaml"
    snippet = _block("pre-commit (`.pre-commit-config.yaml`)", "yaml")
    config.write_text(_filled(snippet, commit).replace("configs/gate.cfg", str(ROOT / "configs" / "gate.cfg")))
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([*pre_commit, "run", "--all-files", "--config", str(config)], cwd=project, capture_output=True, text=True, env=env)
    assert "spanagree agreement gate" in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # the gate ran: passed or failed, not a usage error


def test_github_actions_snippet_installs_from_the_repository(commit):
    snippet = _block("GitHub Actions:", "yaml")
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
