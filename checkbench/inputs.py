"""The file-system boundary: every input file is opened here and every output path is checked
here, before anything is written. Each OS-level failure becomes a one-line InputError naming
the path (and, for text that is not UTF-8, the line and byte offset).

Input text is UTF-8; a leading byte-order mark is accepted and stripped (JSON, JSONL and CSV
files saved by spreadsheet programs often have one).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from checkbench.errors import InputError

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark."""


def os_problem(exc: OSError, path: Path, noun: str = "file") -> InputError:
    """The one-line InputError for an OS error on `path`, a `noun` ("file" or "directory")."""
    if exc.errno == errno.ELOOP:
        return InputError("symlink loop", path=path)
    if isinstance(exc, FileNotFoundError):
        broken = path.is_symlink()
        return InputError("broken symlink" if broken else f"{noun} not found", path=path)
    if isinstance(exc, NotADirectoryError):
        return InputError(f"{noun} not found (a parent in the path is a file)", path=path)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a directory, expected a file", path=path)
    if isinstance(exc, PermissionError):
        return InputError("permission denied", path=path)
    return InputError(f"cannot read it ({exc.strerror or exc})", path=path)


def _mode(path: Path, noun: str) -> int:
    try:
        return path.stat().st_mode
    except OSError as exc:
        raise os_problem(exc, path, noun) from None


def input_file(path: str | Path) -> Path:
    """`path`, checked to be an existing regular file (following symlinks)."""
    path = Path(path)
    mode = _mode(path, "file")
    if stat.S_ISDIR(mode):
        raise InputError("is a directory, expected a file", path=path)
    if not stat.S_ISREG(mode):
        raise InputError("not a regular file (a pipe, socket or device)", path=path)
    return path


def input_dir(path: str | Path) -> Path:
    """`path`, checked to be an existing directory that can be listed."""
    path = Path(path)
    if not stat.S_ISDIR(_mode(path, "directory")):
        raise InputError("not a directory", path=path)
    if not os.access(path, os.R_OK | os.X_OK):
        raise InputError("permission denied", path=path)
    return path


class _Reader:
    """An open input file whose read failures are InputErrors."""

    def __init__(self, handle: BinaryIO, path: Path) -> None:
        self.handle, self.path = handle, path

    def read(self, size: int = -1) -> bytes:
        try:
            return self.handle.read(size)
        except OSError as exc:
            raise os_problem(exc, self.path) from None

    def lines(self) -> Iterator[bytes]:
        while True:
            try:
                line = self.handle.readline()
            except OSError as exc:
                raise os_problem(exc, self.path) from None
            if not line:
                return
            yield line


@contextmanager
def open_input(path: str | Path) -> Iterator[_Reader]:
    """The file opened for binary reading; opening and reading failures are InputErrors."""
    path = input_file(path)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise os_problem(exc, path) from None
    with handle:
        yield _Reader(handle, path)


def decode(data: bytes, path: Path, *, line: int = 1, offset: int = 0) -> str:
    """UTF-8 text of `data`, which starts at `line` and byte `offset` of the file; a leading
    byte-order mark (at the file's start) is stripped."""
    if offset == 0 and data.startswith(BOM):
        data, offset = data[len(BOM) :], len(BOM)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = line + data.count(b"\n", 0, exc.start)
        byte = offset + exc.start
        raise InputError(f"not valid UTF-8 (byte {byte})", path=path, line=at) from None


def read_input_bytes(path: str | Path) -> bytes:
    """The whole content of an input file."""
    with open_input(path) as handle:
        return handle.read()


def read_input_text(path: str | Path) -> str:
    """The whole content of a UTF-8 input file, without a byte-order mark."""
    path = Path(path)
    return decode(read_input_bytes(path), path)


def iter_input_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of a UTF-8 input file, streamed; a byte-order mark
    is stripped and a line that is not UTF-8 raises an InputError naming it."""
    path = Path(path)
    with open_input(path) as handle:
        offset = 0
        for number, raw in enumerate(handle.lines(), start=1):
            yield number, decode(raw, path, line=number, offset=offset)
            offset += len(raw)


def first_non_blank(path: str | Path) -> bytes:
    """The first byte after any byte-order mark and whitespace (b"" for a blank file), for
    telling formats apart by content."""
    with open_input(path) as handle:
        for number, line in enumerate(handle.lines()):
            rest = (line.removeprefix(BOM) if number == 0 else line).lstrip()
            if rest:
                return rest[:1]
    return b""


# ---------------------------------------------------------------- output paths


def _kind(path: Path) -> str | None:
    """What is at `path`: "dir", "file", "other", or None for nothing."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if path.is_symlink():
            raise InputError("broken symlink", path=path) from None
        return None
    except NotADirectoryError:
        return None  # a parent is a file: _creatable says which
    except OSError as exc:
        raise os_problem(exc, path) from None
    return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def _creatable(path: Path) -> None:
    """Check that `path` can be created: its nearest existing ancestor is a writable
    directory (the missing ones between are created on writing)."""
    for parent in path.absolute().parents:
        kind = _kind(parent)
        if kind is None:
            continue
        if kind != "dir":
            raise InputError(f"cannot create it: {parent} is a file, not a directory", path=path)
        if not os.access(parent, os.W_OK | os.X_OK):
            raise InputError(f"cannot create it: {parent} is not writable", path=path)
        return


def output_file(path: str | Path) -> Path:
    """`path`, checked to be writable as a file (created, or replaced atomically) before
    anything is written; nothing is created."""
    path = Path(path)
    kind = _kind(path)
    if kind == "dir":
        raise InputError("is a directory, expected a file to write", path=path)
    if kind == "other":
        raise InputError("not a regular file (a pipe, socket or device)", path=path)
    _creatable(path)
    return path


def output_dir(path: str | Path) -> Path:
    """`path`, checked to be a directory that exists and is writable, or can be created;
    nothing is created."""
    path = Path(path)
    kind = _kind(path)
    if kind is None:
        _creatable(path)
    elif kind != "dir":
        raise InputError("exists and is not a directory", path=path)
    elif not os.access(path, os.W_OK | os.X_OK):
        raise InputError("directory is not writable", path=path)
    return path
