"""One Python process that runs `checkbench` command lines one after another, as the shell runs
the `checkbench` script: each line split by shell rules, then `checkbench.cli.main` with that
argv, its output and exit code collected. The README walk sends the tour's commands here, so the
interpreter, the package and the embedded model load once instead of once per command.

Protocol: one JSON string (the command line) per line on stdin; one JSON object per line on
stdout: {"code", "stdout", "stderr", "wall_s", "cpu_s"} (cpu_s: this process's CPU time, all
threads, so llama.cpp's too).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import sys
import time
import traceback

from checkbench.cli import main


def run(line: str) -> dict[str, object]:
    """Run one `checkbench ...` command line in this process."""
    argv = shlex.split(line, comments=True)
    if not argv or argv[0] != "checkbench":
        raise ValueError(f"not a checkbench command: {line!r}")
    out, err, code = io.StringIO(), io.StringIO(), 0
    started, cpu = time.monotonic(), time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        sys.argv = argv
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except Exception:  # as the shell would see it: a traceback and exit code 1
            traceback.print_exc()
            code = 1
    return {
        "code": code,
        "stdout": out.getvalue(),
        "stderr": err.getvalue(),
        "wall_s": time.monotonic() - started,
        "cpu_s": time.process_time() - cpu,
    }


def serve() -> None:
    """Answer command lines from stdin until it closes. Replies go to the stdout this process
    was given; anything else written to file descriptor 1 (a library's C code) goes to stderr."""
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        print(json.dumps(run(json.loads(line))), file=replies, flush=True)


if __name__ == "__main__":
    serve()
