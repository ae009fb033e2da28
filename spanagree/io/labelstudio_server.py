"""A running Label Studio project as an input, and the consensus and the next tasks written back.

A source given as the address of a project's page, ``http://HOST:PORT/projects/ID`` (what the
browser shows; a path after it, ``/data?tab=1``, is ignored), stands where a file would. It is
fetched once, where the paths of a run are expanded (:func:`spanagree.io.expand_globs`), into a
temporary JSON file in the shape of the project's JSON export, and read by the Label Studio
reader (:mod:`spanagree.io.labelstudio`) with the project's labeling config, as a file is read
with ``labelstudio_config=``: one reader, so the report equals the report of the project's JSON
export (exported with every task, annotated or not). Messages name the address, not the copy.

Reading (the REST API, plain HTTP with ``requests``):

- ``GET /api/projects/ID``: the labeling config;
- ``GET /api/tasks?project=ID&fields=all&resolve_uri=false&page=N&page_size=250``, ordered by task
  id: every task with its annotations, drafts and predictions (the fields the export holds);
- the read is refused, not cut short, when the project changed while it was read: a page whose
  totals (tasks, annotations, predictions) differ from the first page's, a task updated after the
  read began (the latest ``updated_at`` of the project, asked before and after the pages), or
  fewer tasks than the first page announced.

The key: ``LABEL_STUDIO_API_KEY`` (the Label Studio SDK's variable), else the ``api_key`` of the
server's section in ``$XDG_CONFIG_HOME/spanagree/labelstudio.cfg`` (``~/.config/...``), which
may also set the seconds a request may take (``timeout``, default :data:`TIMEOUT`)::

    [http://localhost:8080]
    api_key = ...
    timeout = 120

A Personal Access Token (a JWT refresh token, Label Studio 1.23's default) is exchanged at
``/api/token/refresh/`` for an access token (``Authorization: Bearer``), again when it expires;
any other key is a legacy token (``Authorization: Token``). The key is never shown: not in output,
messages, files written or the ``repr`` of these objects.

Faults: a refused key (401/403), a missing project (404), a server that cannot be reached, and
any other answer are one error each (exit 2); a request that times out, or a gateway's 502, 503
or 504, is retried up to :data:`RETRIES` times, each retry said as a warning.

Writing back (docs/labelstudio.md): :func:`post_consensus` posts a consensus as predictions
(``/api/projects/ID/import/predictions``) after deleting the predictions of its own model version
(``DELETE /api/projects/ID/model-versions/``), and nothing else; :func:`post_view` writes tasks as
a Data Manager tab (``/api/dm/views/``) filtered on their ids, replacing the tab of the same title.
"""
from __future__ import annotations

import os
import re
import time
import warnings
from pathlib import Path
from typing import Any, Iterable

import orjson

from ..errors import InputError, Location, UsageError
from .streams import temporary_copy

#: The address of a project's page: the server's base address (with any path prefix) and the id.
PROJECT_URL = re.compile(r"(?P<base>https?://[^/?#\s]+(?:/[^?#\s]*?)?)/projects/(?P<id>[0-9]+)(?:[/?#]\S*)?\Z")
#: Seconds a request may take before it is retried.
TIMEOUT = 60.0
#: Attempts of a request that times out (or meets a gateway error) before the read fails.
RETRIES = 3
#: Tasks asked for in one request.
PAGE_SIZE = 250
#: Task fields of the Data Manager's list that the JSON export does not hold (left out of the copy).
DM_ONLY = ("annotations_results", "predictions_results", "annotations_ids", "predictions_model_versions",
           "annotators", "updated_by", "comment_authors", "predictions_score", "draft_exists", "avg_lead_time")
#: The environment variable of the key (the Label Studio SDK's).
KEY_VARIABLE = "LABEL_STUDIO_API_KEY"
#: A JSON Web Token: three base64url parts (a Personal Access Token is one).
_JWT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\Z")

class RetryWarning(UserWarning):
    """A request to a Label Studio server timed out (or met a gateway error) and is sent again."""


def is_project(source: Any) -> bool:
    """``source`` is the address of a Label Studio project (a text, not a path)."""
    return isinstance(source, str) and PROJECT_URL.match(source.strip()) is not None


class ProjectPath(type(Path())):  # type: ignore[misc]
    """The local copy of a project's tasks, named (``str``) as the project's address, carrying the
    project's labeling config."""

    source: str = ""
    label_config: str = ""

    def __str__(self) -> str:
        return self.source or super().__str__()

    def __fspath__(self) -> str:
        return super().__str__()

    def __reduce__(self):  # to an engine's worker process: the copy, the address and the config
        return _restore, (super().__str__(), self.source, self.label_config)

    def described(self, source: str, label_config: str) -> "ProjectPath":
        self.source, self.label_config = source, label_config
        return self


def _restore(copy: str, source: str, label_config: str) -> ProjectPath:
    return ProjectPath(copy).described(source, label_config)


def config_file() -> Path:
    """Where keys are kept beside the environment: ``$XDG_CONFIG_HOME/spanagree/labelstudio.cfg``."""
    home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(home) / "spanagree" / "labelstudio.cfg"


def _section(base: str) -> tuple[dict[str, str], Path]:
    """The server's section of :func:`config_file` (empty when there is none), and the file."""
    import configparser  # only when a key is looked for (import time)

    path = config_file()
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as err:
        raise UsageError(f"{path}: not a config file of [SERVER] sections with api_key = ... "
                         f"({type(err).__name__})") from None
    for name in (base, base + "/"):
        if parser.has_section(name):
            return dict(parser.items(name)), path
    return {}, path


def api_key(base: str) -> str:
    """The key for the server at ``base``: ``LABEL_STUDIO_API_KEY``, else the config file."""
    key = os.environ.get(KEY_VARIABLE, "").strip()
    if key:
        return key
    section, path = _section(base)
    if section.get("api_key", "").strip():
        return section["api_key"].strip()
    raise UsageError(f"no key for the Label Studio server {base}: set {KEY_VARIABLE} (Account & Settings -> "
                     f"Personal Access Token or Legacy Token), or give it as api_key in the [{base}] section of "
                     f"{path}")


def timeout(base: str) -> float:
    """Seconds a request to ``base`` may take: the ``timeout`` of its section, else :data:`TIMEOUT`."""
    section, path = _section(base)
    try:
        seconds = float(section.get("timeout", TIMEOUT))
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise UsageError(f"{path}: [{base}] timeout: got {section.get('timeout')!r}; expected a number of seconds > 0")
    return seconds


class Client:
    """Requests to one Label Studio server, with its key; every failure an error that names the
    project's address and never the key."""

    def __init__(self, base: str, where: str) -> None:
        import requests  # imported when a server is asked (import time)

        self.base, self.where = base.rstrip("/"), where
        self._key = api_key(self.base)
        self.timeout = timeout(self.base)
        self._session = requests.Session()
        self._access: str | None = None  # the access token of a Personal Access Token

    def __repr__(self) -> str:
        return f"Client({self.base!r})"

    def _hidden(self, text: str) -> str:
        """``text`` without the key or the access token in it."""
        for secret in (self._key, self._access):
            if secret:
                text = text.replace(secret, "***")
        return text

    def _error(self, problem: str) -> InputError:
        return InputError(self._hidden(problem), where=Location(self.where))

    def _authorization(self, renew: bool = False) -> str:
        if not _JWT.match(self._key):
            return f"Token {self._key}"
        if self._access is None or renew:
            answer = self._send("POST", "/api/token/refresh/", json={"refresh": self._key}, auth=False)
            access = answer.json().get("access") if answer.headers.get("content-type", "").startswith("application/json") else None
            if not isinstance(access, str):
                raise self._error("the server gave no access token for the Personal Access Token")
            self._access = access
        return f"Bearer {self._access}"

    def call(self, method: str, path: str, **kwargs: Any):
        """The server's answer to one request (a ``requests.Response`` with a 2xx status)."""
        return self._send(method, path, **kwargs)

    def _send(self, method: str, path: str, *, auth: bool = True, what: str = "", **kwargs: Any):
        import requests

        renewed = False
        attempt = 0
        while True:
            attempt += 1
            headers = {"Authorization": self._authorization()} if auth else {}
            try:
                answer = self._session.request(method, self.base + path, headers=headers, timeout=self.timeout, **kwargs)
            except requests.Timeout:
                problem = f"{what or 'a request'} timed out after {self.timeout:g} s"
            except requests.ConnectionError as err:
                raise self._error(f"cannot reach the Label Studio server at {self.base} ({_reason(err)}); is it "
                                  "running, and is the address right?") from None
            except requests.RequestException as err:
                raise self._error(f"the request to {self.base} failed ({type(err).__name__})") from None
            else:
                status = answer.status_code
                if status < 400:
                    return answer
                if status == 401 and auth and _JWT.match(self._key) and not renewed:
                    renewed = True  # the access token expired: one more
                    self._authorization(renew=True)
                    attempt -= 1
                    continue
                if status in (401, 403):
                    raise self._error(
                        f"the server refused the key ({status} {_detail(answer)}); set {KEY_VARIABLE} to a Personal "
                        "Access Token or legacy token of a user who may read this project (legacy tokens work only "
                        "where the organization enables them)")
                if status == 404 and path.startswith("/api/projects/"):
                    raise self._error(f"the server has no project {path.split('/')[3]} (404 {_detail(answer)})")
                if status not in (502, 503, 504):
                    raise self._error(f"the server answered {status} ({_detail(answer)}) to {what or method + ' ' + path}")
                problem = f"{what or 'a request'} met {status} {_detail(answer)}"
            if attempt >= RETRIES:
                raise self._error(f"{problem}, {RETRIES} times; the read is given up (nothing was read in part)")
            warnings.warn(f"{self.where}: {self._hidden(problem)}; retrying ({attempt + 1} of {RETRIES})",
                          RetryWarning, stacklevel=2)
            time.sleep(min(2.0 ** (attempt - 1), 10.0))


def _reason(err: Exception) -> str:
    text = str(err)
    for known in ("Connection refused", "Name or service not known", "No route to host", "timed out"):
        if known in text:
            return known.lower()
    return type(err).__name__


def _detail(answer) -> str:
    """The server's own word on an error, short."""
    try:
        body = answer.json()
    except ValueError:
        body = None
    found = body.get("detail") if isinstance(body, dict) else None
    if isinstance(body, dict) and body.get("validation_errors"):
        found = f"{found}: {orjson.dumps(body['validation_errors']).decode()}"
    return str(found)[:300] if found else answer.reason or ""


def _project(source: str) -> tuple[str, int]:
    found = PROJECT_URL.match(source.strip())
    assert found is not None
    return found["base"], int(found["id"])


def fetch(source: str) -> ProjectPath:
    """Every task of the project at ``source`` in a temporary JSON file (removed at exit)."""
    base, project = _project(source)
    client = Client(base, source)
    label_config = client.call("GET", f"/api/projects/{project}/", what="the project").json().get("label_config")
    if not isinstance(label_config, str):
        raise InputError("the project's answer holds no label_config", where=Location(source))
    before = _latest_update(client, project)
    fd, copy = temporary_copy("spanagree-labelstudio-", ".json")
    with os.fdopen(fd, "wb") as handle:
        read, first = _write_pages(client, project, handle, before, source)
    after = _latest_update(client, project)
    totals = _totals(client.call("GET", "/api/tasks", params=_page_query(project, 1, 1), what="the totals").json())
    if after != before or totals != first:
        raise _changed(source, "tasks or annotations were added, removed or updated while the pages were read")
    if read != first[0]:
        raise _changed(source, f"the first page announced {first[0]} tasks and {read} were read")
    if not read:
        raise InputError("the project holds no tasks", where=Location(source))
    return ProjectPath(copy).described(source, label_config)


def _page_query(project: int, page: int, size: int, ordering: str = "tasks:id", fields: bool = False) -> dict:
    query = {"project": project, "page": page, "page_size": size, "resolve_uri": "false",
             "query": orjson.dumps({"ordering": [ordering]}).decode()}
    if fields:
        query["fields"] = "all"
    return query


def _totals(answer: dict) -> tuple[int, int, int]:
    return tuple(int(answer.get(k) or 0) for k in ("total", "total_annotations", "total_predictions"))  # type: ignore[return-value]


def _latest_update(client: Client, project: int) -> str:
    """The latest ``updated_at`` of the project's tasks (an annotation saved updates its task)."""
    tasks = client.call("GET", "/api/tasks", params=_page_query(project, 1, 1, "-tasks:updated_at"),
                        what="the latest update").json().get("tasks") or []
    return str(tasks[0].get("updated_at")) if tasks else ""


def _write_pages(client: Client, project: int, handle, before: str, source: str) -> tuple[int, tuple]:
    """Write every task, page by page, as one JSON array; the number written and the totals."""
    handle.write(b"[")
    first: tuple | None = None
    read = 0
    page = 1
    while True:
        answer = client.call("GET", "/api/tasks", params=_page_query(project, page, PAGE_SIZE, fields=True),
                             what=f"page {page} of the tasks").json()
        totals = _totals(answer)
        first = totals if first is None else first
        if totals != first:
            raise _changed(source, f"page {page} counts {totals[0]} tasks and {totals[1]} annotations, the first "
                                   f"page {first[0]} and {first[1]}")
        tasks = answer.get("tasks") or []
        for task in tasks:
            # a task's own time: an annotation saved updates it (imported annotations do not, and are counted)
            if before and str(task.get("updated_at") or "") > before:
                raise _changed(source, f"task {task.get('id')} was updated after the read began")
            for key in DM_ONLY:
                task.pop(key, None)
            handle.write((b"," if read else b"") + orjson.dumps(task))
            read += 1
        if len(tasks) < PAGE_SIZE or read >= first[0]:
            break
        page += 1
    handle.write(b"]")
    return read, first


def _changed(source: str, what: str) -> InputError:
    return InputError(f"the project changed while it was read ({what}); nothing was reported: run again when "
                      "the annotators pause", where=Location(source))


def project_of(paths: Iterable[Any], flag: str) -> ProjectPath:
    """The one Label Studio project among a run's inputs (what ``flag`` writes to)."""
    projects = [p for p in paths if isinstance(p, ProjectPath)]
    if len(projects) != 1 or len(list(paths)) != 1:
        raise UsageError(f"{flag} writes to the Label Studio project read: give one project's address "
                         "(http://HOST:PORT/projects/ID) as the only input")
    return projects[0]


def post_consensus(project: ProjectPath, results: dict[Any, list[dict]], scores: dict[Any, float | None],
                   model_version: str) -> dict[str, Any]:
    """Post each task's consensus (Label Studio results) as a prediction of ``model_version``,
    after deleting that model version's predictions in the project (and no other)."""
    base, project_id = _project(project.source)
    client = Client(base, project.source)
    client.call("DELETE", f"/api/projects/{project_id}/model-versions/", json={"model_version": model_version},
                what="the deletion of the earlier predictions")
    rows = [{"task": int(task), "result": result, "model_version": model_version,
             **({"score": scores[task]} if scores.get(task) is not None else {})} for task, result in results.items()]
    for start in range(0, len(rows), 500):
        client.call("POST", f"/api/projects/{project_id}/import/predictions", json=rows[start:start + 500],
                    what="the predictions")
    return {"project": project.source, "model_version": model_version, "tasks": len(rows),
            "regions": sum(len(r) for r in results.values())}


def post_view(project: ProjectPath, task_ids: list[int], title: str) -> dict[str, Any]:
    """A Data Manager tab named ``title`` listing ``task_ids``; a tab of that title is replaced."""
    base, project_id = _project(project.source)
    client = Client(base, project.source)
    for view in client.call("GET", "/api/dm/views/", params={"project": project_id}, what="the tabs").json():
        if isinstance(view, dict) and (view.get("data") or {}).get("title") == title:
            client.call("DELETE", f"/api/dm/views/{view['id']}/", what="the earlier tab")
    items = [{"filter": "filter:tasks:id", "operator": "equal", "type": "Number", "value": i} for i in task_ids]
    data = {"title": title, "filters": {"conjunction": "or", "items": items}, "ordering": ["tasks:id"]}
    made = client.call("POST", "/api/dm/views/", json={"project": project_id, "data": data}, what="the tab").json()
    return {"project": project.source, "view": made.get("id"), "title": title, "tasks": len(task_ids)}


def model_version(method: str, min_raters: int | None, rule: str) -> str:
    """The model version of spanagree's predictions: spanagree, the consensus rule and the alignment."""
    return " ".join(["spanagree", method, *([f"k={min_raters}"] if method == "vote" else []), rule])


def consensus_results(project: ProjectPath, gold, probability: dict | None) -> tuple[dict, dict]:
    """Each task's consensus spans as Label Studio results (``from_name``, ``to_name`` and ``type``
    from the labeling config; a span's probability as its ``score``), and each task's score (the
    mean probability of its spans, under an annotator model)."""
    from .labelstudio_targets import label_controls, parse_config  # its XML parser, only when posting

    where = Location(project.source)
    tag_of = {}
    for tag in parse_config(project.label_config, where).values():
        tag_of.setdefault(tag.field, tag.name)
    controls = label_controls(project.label_config, where)
    results: dict[int, list[dict]] = {}
    scores: dict[int, list[float]] = {}
    for ann in range(gold.n_annotations):
        d = int(gold.ann_doc[ann])
        doc_id, text = gold.doc_ids[d], gold.texts[d]
        task, _, field = doc_id.partition(":")
        to_name = tag_of.get(field) if field else next(iter(tag_of.values()))
        found = results.setdefault(int(task), [])
        for start, end, label in gold.annotation_spans(ann):
            from_name = controls.get((to_name, label))
            if from_name is None:
                raise InputError(f"the consensus label {label!r} is in no <Labels> control on the text {to_name!r} of "
                                 "the project's labeling config, so Label Studio could not show it", where=where,
                                 doc_id=doc_id)
            region = {"id": f"spanagree-{len(found)}", "from_name": from_name, "to_name": to_name, "type": "labels",
                      "value": {"start": start, "end": end, "text": text[start:end], "labels": [label]}}
            p = probability.get((doc_id, start, end, label)) if probability is not None else None
            if p is not None:
                region["score"] = float(p)
                scores.setdefault(int(task), []).append(float(p))
            found.append(region)
    return results, {task: sum(ps) / len(ps) for task, ps in scores.items()}
