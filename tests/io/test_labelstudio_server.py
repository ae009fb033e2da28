"""A running Label Studio project as an input, and written back to (docs/labelstudio.md).

The tests marked ``live`` run against a real Label Studio server, started once per run
(tests/labelstudio_server.py); without a ``label-studio`` install they skip and say why. The
timeout and a project changing between pages are played by a small local fake server."""
from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest

import labelstudio_server as ls

ROOT = Path(__file__).resolve().parents[2]

CONFIG = """<View>
  <Labels name="label" toName="text"><Label value="PER"/><Label value="ORG"/></Labels>
  <Text name="text" value="$body"/>
  <Relations><Relation value="works_for"/></Relations>
  <Choices name="kind" toName="text" perRegion="true"><Choice value="named"/><Choice value="title"/></Choices>
</View>"""

NAMES = ["Dan", "Eve", "Fay", "Gus", "Hal", "Ivy"]
TEXTS = ["Ann works for Acme in Paris.", "Bob met her at Initech.", "Carol left Globex.", "Nobody is here.",
         *(f"{name} joined Hooli{i}." for i, name in enumerate(NAMES))]


def region(rid, text, start, end, label):
    assert text[start:end]
    return {"id": rid, "from_name": "label", "to_name": "text", "type": "labels",
            "value": {"start": start, "end": end, "text": text[start:end], "labels": [label]}}


def relation(a, b):
    return {"type": "relation", "from_id": a, "to_id": b, "direction": "right", "labels": ["works_for"]}


def kind(rid, value):
    return {"id": rid, "from_name": "kind", "to_name": "text", "type": "choices", "value": {"choices": [value]}}


def annotations():
    """Per task: (user index, result, cancelled) of three users; the fourth task nobody annotated."""
    t0, t1, t2 = TEXTS[:3]
    return [
        [(0, [region("a", t0, 0, 3, "PER"), region("b", t0, 14, 18, "ORG"), relation("a", "b"), kind("a", "named")], False),
         (1, [region("a", t0, 0, 3, "PER"), region("b", t0, 14, 18, "ORG"), relation("a", "b"), kind("a", "named")], False),
         (2, [region("a", t0, 0, 3, "PER"), region("b", t0, 14, 18, "PER"), kind("a", "title")], False)],
        [(0, [region("c", t1, 0, 3, "PER"), region("d", t1, 15, 22, "ORG")], False),
         (1, [region("c", t1, 0, 3, "PER")], False),
         (2, [], True)],  # skipped
        [(0, [region("e", t2, 0, 5, "PER"), region("f", t2, 11, 17, "ORG")], False),
         (1, [region("e", t2, 0, 5, "PER"), region("f", t2, 11, 17, "ORG")], False),
         (2, [region("e", t2, 0, 5, "PER")], False)],
        [],
        # enough spans for an annotator model: a name all three mark, a company two or three do
        *([(u, [region("g", text, 0, 3, "PER"), *([region("h", text, 11, 17, "ORG")] if u < 2 or i % 2 else [])], False)
           for u in range(3)] for i, text in enumerate(TEXTS[4:])),
    ]


@pytest.fixture(scope="session")
def server():
    command = ls.executable()
    if command is None:
        pytest.skip("no label-studio install: set SPANAGREE_LABEL_STUDIO to its label-studio executable "
                    "(.ci/run installs one in .ci/ls-venv)")
    running = ls.Server(command)
    yield running
    running.stop()


@pytest.fixture(scope="session")
def project(server):
    """A project with three users' annotations: a relation, a per-region choice, a skipped task."""
    made = server.api("POST", "/api/projects/", json={"title": "spanagree live test", "label_config": CONFIG})
    pid = made["id"]
    users = [server.api("POST", "/api/users/", json={"email": f"rater{i}-{pid}@example.org", "username": f"r{i}p{pid}",
                                                     "password": "rater-password-1"})["id"] for i in range(3)]
    server.api("POST", f"/api/projects/{pid}/import", json=[{"body": text} for text in TEXTS])
    tasks = server.api("GET", "/api/tasks", params={"project": pid, "page_size": 100})["tasks"]
    ids = sorted(t["id"] for t in tasks)
    for task, done in zip(ids, annotations()):
        for user, result, cancelled in done:
            server.api("POST", f"/api/tasks/{task}/annotations/",
                       json={"result": result, "completed_by": users[user], "was_cancelled": cancelled})
    return {"id": pid, "url": f"{server.base}/projects/{pid}", "tasks": ids, "users": users}


@pytest.fixture(scope="session")
def outputs():
    """Every stdout, stderr and file the live tests saw, for the check that no key is in them."""
    return []


def spanagree(*args, key=None, config_home=None, seen=None, cwd=None):
    env = {k: v for k, v in os.environ.items() if k != "LABEL_STUDIO_API_KEY"}
    env["XDG_CONFIG_HOME"] = str(config_home or ROOT / "tests" / "fixtures" / "no-config-home")
    if key is not None:
        env["LABEL_STUDIO_API_KEY"] = key
    done = subprocess.run([sys.executable, "-m", "spanagree", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd or ROOT, timeout=600)
    if seen is not None:
        seen.extend([done.stdout, done.stderr])
    return done


def export_file(server, pid, path):
    """The project's JSON export, every task, through the export API."""
    answer = server.session.get(f"{server.base}/api/projects/{pid}/export",
                                params={"exportType": "JSON", "download_all_tasks": "true"}, timeout=600)
    answer.raise_for_status()
    path.write_bytes(answer.content)
    return path


@pytest.mark.parametrize("kind_of_key", ["legacy", "personal access token"])
def test_the_live_report_is_the_report_of_the_export(server, project, tmp_path, outputs, kind_of_key):
    key = ls.LEGACY_TOKEN if kind_of_key == "legacy" else server.personal_access_token()
    flags = ["--output", "json", "--structure", "--per-rater"]
    live = spanagree("score", project["url"], *flags, key=key, seen=outputs)
    assert live.returncode == 0, live.stderr
    exported = export_file(server, project["id"], tmp_path / "export.json")
    from_file = spanagree("score", exported, *flags, "--labelstudio-config", _config(tmp_path), seen=outputs)
    assert from_file.returncode == 0, from_file.stderr
    live_report, file_report = json.loads(live.stdout), json.loads(from_file.stdout)
    assert live_report == file_report
    # what the project holds was read: three raters, the relation, the per-region choice, the skipped task
    assert live_report["documents"]["read"] == len(TEXTS)
    assert live_report["raters"] == [str(u) for u in project["users"]]
    assert "relations" in live_report["structure"] and live_report["structure"]["attributes"]
    assert any("cancelled" in reason for reason in live_report["annotations"]["excluded"]) or \
        any("cancelled" in reason for reason in live_report["documents"]["excluded"])


def _config(tmp_path):
    path = tmp_path / "label_config.xml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


def test_consensus_is_posted_as_predictions_and_replaces_only_its_own(server, project, tmp_path, outputs):
    pid, first_task = project["id"], project["tasks"][0]
    other = server.api("POST", "/api/predictions/", json={"task": first_task, "model_version": "someone else",
                                                          "result": [region("z", TEXTS[0], 22, 27, "ORG")]})
    out = tmp_path / "consensus.jsonl"
    for _ in range(2):  # posting twice replaces spanagree's predictions of the same model version
        made = spanagree("consensus", project["url"], "--method", "dawid-skene", "-o", out, "--post",
                         "--report-file", tmp_path / "report.json", key=ls.LEGACY_TOKEN, seen=outputs)
        assert made.returncode == 0, made.stderr
        assert "posted predictions of model version 'spanagree dawid-skene exact'" in made.stderr
    predictions = server.api("GET", "/api/predictions/", params={"project": pid})
    ours = [p for p in predictions if p["model_version"] == "spanagree dawid-skene exact"]
    assert any(p["id"] == other["id"] and p["model_version"] == "someone else" for p in predictions)
    consensus = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(p["task"] for p in ours) == sorted(int(r["doc_id"]) for r in consensus)
    for record in consensus:
        posted = next(p for p in ours if p["task"] == int(record["doc_id"]))
        assert sorted((r["value"]["start"], r["value"]["end"], r["value"]["labels"][0], r["from_name"], r["to_name"])
                      for r in posted["result"]) == sorted((s["start"], s["end"], s["label"], "label", "text")
                                                           for s in record["spans"])
        assert all(abs(r["score"] - s["probability"]) < 1e-5 for r, s in zip(
            sorted(posted["result"], key=lambda r: (r["value"]["start"], r["value"]["end"])),
            sorted(record["spans"], key=lambda s: (s["start"], s["end"]))))
    vote = spanagree("consensus", project["url"], "-k", "2", "-o", tmp_path / "vote.jsonl", "--post",
                     key=ls.LEGACY_TOKEN, seen=outputs)
    assert vote.returncode == 0, vote.stderr
    versions = {p["model_version"] for p in server.api("GET", "/api/predictions/", params={"project": pid})}
    assert versions == {"someone else", "spanagree dawid-skene exact", "spanagree vote k=2 exact"}


def test_next_writes_its_tasks_as_a_tab(server, project, tmp_path, outputs):
    out = tmp_path / "next.jsonl"
    for _ in range(2):  # written again, the tab is replaced
        made = spanagree("next", project["url"], "--budget", "2", "--output", "jsonl", "-o", out, "--post",
                         key=ls.LEGACY_TOKEN, seen=outputs)
        assert made.returncode == 0, made.stderr
    chosen = sorted(int(json.loads(line)["doc_id"]) for line in out.read_text().splitlines())
    views = [v for v in server.api("GET", "/api/dm/views/", params={"project": project["id"]})
             if v["data"].get("title", "").startswith("spanagree next")]
    assert len(views) == 1
    assert sorted(item["value"] for item in views[0]["data"]["filters"]["items"]) == chosen
    listed = server.api("GET", "/api/tasks", params={"view": views[0]["id"], "page_size": 100})["tasks"]
    assert sorted(t["id"] for t in listed) == chosen


def test_gate_on_a_live_project(server, project, outputs):
    passed = spanagree("gate", project["url"], "--min", "pairwise_mean_psa=0.5", key=ls.LEGACY_TOKEN, seen=outputs)
    assert passed.returncode == 0, passed.stderr
    failed = spanagree("gate", project["url"], "--min", "pairwise_mean_psa=0.99", key=ls.LEGACY_TOKEN, seen=outputs)
    assert failed.returncode == 1


def test_the_key_from_the_config_file(server, project, tmp_path, outputs):
    folder = tmp_path / "spanagree"
    folder.mkdir()
    (folder / "labelstudio.cfg").write_text(f"[{server.base}]\napi_key = {ls.LEGACY_TOKEN}\n", encoding="utf-8")
    done = spanagree("score", project["url"], "--output", "json", config_home=tmp_path, seen=outputs)
    assert done.returncode == 0, done.stderr
    missing = spanagree("score", project["url"], seen=outputs)
    assert missing.returncode == 2 and "no key for the Label Studio server" in missing.stderr


@pytest.mark.parametrize("case", ["wrong key", "missing project", "server down"])
def test_server_faults_are_one_line_and_exit_2(server, project, case, outputs):
    url, key = project["url"], ls.LEGACY_TOKEN
    if case == "wrong key":
        key = "not-" + ls.LEGACY_TOKEN
    elif case == "missing project":
        url = f"{server.base}/projects/{project['id'] + 1000}"
    else:
        url = f"http://127.0.0.1:{ls.free_port()}/projects/1"
    done = spanagree("score", url, key=key, seen=outputs)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"spanagree: error: {url}: ")
    expected = {"wrong key": "refused the key (401", "missing project": "has no project",
                "server down": "cannot reach the Label Studio server"}[case]
    assert expected in lines[0]
    assert "not-" + ls.LEGACY_TOKEN not in done.stderr


def test_no_key_in_any_output_or_file_written(server, project, tmp_path_factory, outputs):
    """After the other live tests (it follows them in this file): no key in what they printed or wrote."""
    pat = server.personal_access_token()
    outputs.append(spanagree("score", project["url"], "--output", "json", key=pat).stdout)
    base = tmp_path_factory.getbasetemp()
    # every file the runs wrote (the config file that gives the key is the test's own)
    written = [p.read_bytes().decode("utf-8", "replace") for p in base.rglob("*")
               if p.is_file() and p.name != "labelstudio.cfg"]
    assert outputs and written
    for text in [*outputs, *written]:
        assert ls.LEGACY_TOKEN not in text and pat not in text


# --- faults a fake server plays: a page that times out, a project changing between pages ----------


class Fake(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, behaviour):
        self.behaviour, self.requests = behaviour, []
        super().__init__(("127.0.0.1", 0), FakeHandler)


class FakeHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.requests.append(self.path)
        answer = self.server.behaviour(self.path, len(self.server.requests))
        if answer is None:
            return
        body = orjson.dumps(answer)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def fake_task(i):
    text = f"Task {i} names Ann."
    return {"id": i, "data": {"body": text}, "updated_at": "2026-01-01T00:00:00Z",
            "annotations": [{"id": 10 * i + u, "completed_by": u, "result": [region("a", text, 13, 16, "PER")],
                             "updated_at": "2026-01-01T00:00:00Z"} for u in (1, 2)]}


def fake_server(behaviour):
    server = Fake(behaviour)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run_fake(server, tmp_path):
    folder = tmp_path / "spanagree"
    folder.mkdir()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    (folder / "labelstudio.cfg").write_text(f"[{base}]\ntimeout = 0.5\n", encoding="utf-8")
    return spanagree("score", f"{base}/projects/1", key="fake-key-123456", config_home=tmp_path)


def test_a_page_that_times_out_is_retried_said_and_given_up(tmp_path):
    def behaviour(path, n):
        if path.startswith("/api/projects/1"):
            return {"id": 1, "label_config": CONFIG}
        if "fields=all" in path:
            time.sleep(1.5)  # longer than the timeout
            return None
        return {"total": 1, "total_annotations": 2, "total_predictions": 0, "tasks": [fake_task(1)]}

    server = fake_server(behaviour)
    try:
        done = run_fake(server, tmp_path)
    finally:
        server.shutdown()
    assert done.returncode == 2
    assert "spanagree: note:" in done.stderr and "page 1 of the tasks timed out after 0.5 s; retrying (2 of 3)" in done.stderr
    assert "retrying (3 of 3)" in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("spanagree: error: http://127.0.0.1:")
    assert "3 times; the read is given up" in done.stderr
    assert sum("fields=all" in p for p in server.requests) == 3
    assert done.stdout == ""


@pytest.mark.parametrize("change", ["count", "updated"])
def test_a_project_changed_between_pages_is_refused(tmp_path, monkeypatch, change):
    tasks = [fake_task(i) for i in range(1, 301)]  # two pages of 250

    def behaviour(path, n):
        if path.startswith("/api/projects/1"):
            return {"id": 1, "label_config": CONFIG}
        if "page=2" in path and "fields=all" in path:
            if change == "count":  # a task added while page 1 was read
                return {"total": 301, "total_annotations": 602, "total_predictions": 0, "tasks": tasks[250:]}
            later = [dict(t, updated_at="2026-06-01T00:00:00Z") for t in tasks[250:]]
            return {"total": 300, "total_annotations": 600, "total_predictions": 0, "tasks": later}
        page = tasks[:250] if "fields=all" in path else tasks[:1]
        return {"total": 300, "total_annotations": 600, "total_predictions": 0, "tasks": page}

    server = fake_server(behaviour)
    try:
        done = run_fake(server, tmp_path)
    finally:
        server.shutdown()
    assert done.returncode == 2, done.stderr
    assert "the project changed while it was read" in done.stderr and "nothing was reported" in done.stderr
    assert done.stdout == ""
