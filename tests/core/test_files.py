"""Outputs are written whole or not at all; output paths are checked before the work."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from spanagree.errors import UsageError
from spanagree.core.files import atomic_write, check_output, write_bytes


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old\n")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as f:
            f.write(b"new but not finished")
            raise RuntimeError("interrupted")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_replacing_keeps_permissions(tmp_path):
    target = tmp_path / "out.txt"
    target.write_bytes(b"x")
    target.chmod(0o640)
    write_bytes(target, b"y")
    assert target.read_bytes() == b"y"
    assert target.stat().st_mode & 0o777 == 0o640


def test_a_killed_writer_leaves_no_partial_file(tmp_path):
    target = tmp_path / "big.jsonl"
    ready = tmp_path / "ready"
    script = (
        "import sys, time, pathlib\n"
        "from spanagree.core.files import atomic_write\n"
        "with atomic_write(sys.argv[1]) as f:\n"
        "    f.write(b'{\"partial\": true}\\n' * 1000)\n"
        "    f.flush()\n"
        "    pathlib.Path(sys.argv[2]).touch()\n"
        "    time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(target), str(ready)])
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert not target.exists()


def test_check_output_refuses_what_cannot_be_written(tmp_path):
    a_file = tmp_path / "in.jsonl"
    a_file.write_text("{}\n")
    with pytest.raises(UsageError, match="is a file, not a folder"):
        check_output(a_file / "x.json")
    with pytest.raises(UsageError, match="does not exist"):
        check_output(tmp_path / "missing" / "x.json")
    with pytest.raises(UsageError, match="is a folder"):
        check_output(tmp_path)
    with pytest.raises(UsageError, match="also an input"):
        check_output(a_file, inputs=[a_file])
    assert check_output(tmp_path / "new.json", inputs=[a_file]) == tmp_path / "new.json"
