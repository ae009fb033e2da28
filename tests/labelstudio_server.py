"""A real Label Studio server for the tests and the bench: started once from its own virtual
environment (``SPANAGREE_LABEL_STUDIO`` names its ``label-studio`` executable, else
``.ci/ls-venv/bin/label-studio``), on SQLite in a temporary folder, on a free localhost port,
with an administrator whose legacy token is known (legacy tokens enabled), without the version
check that asks the package index."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
ADMIN = "admin@example.org"
LEGACY_TOKEN = "spanagree-test-legacy-token-8f3a1c"


def executable() -> str | None:
    """The ``label-studio`` executable to start, or None when none is installed."""
    named = os.environ.get("SPANAGREE_LABEL_STUDIO")
    for candidate in (named, ROOT / ".ci" / "ls-venv" / "bin" / "label-studio"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One running server: ``base`` (``http://127.0.0.1:PORT``) and an administrator's session."""

    def __init__(self, command: str, data_dir: Path | None = None, start_timeout: float = 900.0) -> None:
        self.data_dir = Path(data_dir or tempfile.mkdtemp(prefix="spanagree-ls-"))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "LATEST_VERSION_CHECK": "false", "LABEL_STUDIO_BASE_DATA_DIR": str(self.data_dir),
               "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true", "DJANGO_DB": "sqlite"}
        env.pop("LABEL_STUDIO_API_KEY", None)
        self.log = open(self.data_dir / "server.log", "wb")
        self.process = subprocess.Popen(
            [command, "start", "--no-browser", "--internal-host", "127.0.0.1", "--port", str(self.port),
             "--data-dir", str(self.data_dir), "--username", ADMIN, "--password", "spanagree-test-password",
             "--user-token", LEGACY_TOKEN, "--enable-legacy-api-token"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self._token: str | None = None
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {LEGACY_TOKEN}"
        started = time.monotonic()
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"label-studio exited with {self.process.returncode}; see {self.data_dir / 'server.log'}")
            try:
                if self.session.get(f"{self.base}/api/current-user/whoami", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() - started > start_timeout:
                self.stop()
                raise RuntimeError(f"label-studio did not answer within {start_timeout:g} s")
            time.sleep(1.0)
        self.start_seconds = time.monotonic() - started

    def api(self, method: str, path: str, **kwargs):
        answer = self.session.request(method, self.base + path, timeout=600, **kwargs)
        answer.raise_for_status()
        return answer.json() if answer.content else None

    def personal_access_token(self) -> str:
        """The administrator's Personal Access Token (a JWT refresh token; a user has one at a time)."""
        if self._token is None:
            self._token = self.api("POST", "/api/token/")["token"]
        return self._token

    def stop(self) -> None:
        if self.process.poll() is None:  # its own process group: the server and the workers it started
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
