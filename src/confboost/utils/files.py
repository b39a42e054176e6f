"""Files written atomically, and the check that a path can be written before a long job."""

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path, text):
    """Write ``text`` (str or bytes) to ``path``: a reader sees the old file or the new one.

    The text goes to a temporary file in the same folder, is flushed and fsynced, and
    renamed over ``path`` (an atomic step on POSIX and Windows); the folder is fsynced
    where the system allows, so the rename survives a crash. A failure leaves ``path``
    as it was and no temporary file.
    """
    path = Path(path)
    folder = path.parent
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                         dir=folder)
    binary = isinstance(text, bytes)
    try:
        with (os.fdopen(handle, "wb") if binary
              else os.fdopen(handle, "w", encoding="utf-8")) as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError, AttributeError):
        directory = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def check_writable(path):
    """OSError naming ``path`` unless a file can be written there (before a long job).

    The folder must exist and be writable, and ``path`` must not be a folder.
    """
    path = Path(path)
    folder = path.parent
    if not folder.is_dir():
        raise FileNotFoundError(f"{path}: cannot write there, no folder {str(folder)!r}")
    if path.is_dir():
        raise IsADirectoryError(f"{path}: is a folder, not a file name")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists()
                                                    and not os.access(path, os.W_OK)):
        raise PermissionError(f"{path}: not writable")
