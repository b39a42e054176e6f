"""Files written atomically, the check that a path can be written before a long job, and
the check that a path read as untrusted input is a plain file."""

import contextlib
import os
import secrets
import stat
from pathlib import Path


def write_atomic(path, text):
    """Write ``text`` (str or bytes) to ``path``: a reader sees the old file or the new one.

    The text goes to a temporary file in the same folder, is flushed and fsynced, and
    renamed over ``path`` (an atomic step on POSIX and Windows); the folder is fsynced
    where the system allows, so the rename survives a crash. A failure leaves ``path``
    as it was and no temporary file.

    Where ``path`` is a symbolic link, the file it points to is replaced (the link stays a
    link); where the file exists, the new one keeps its permission bits. A new file gets
    the permissions a plain ``open`` gives (0666 less the umask).
    """
    path = Path(os.path.realpath(path))
    folder = path.parent
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    handle, temporary = _create_temporary(folder, path.name)
    binary = isinstance(text, bytes)
    try:
        with (os.fdopen(handle, "wb") if binary
              else os.fdopen(handle, "w", encoding="utf-8")) as stream:
            stream.write(text)
            stream.flush()
            if mode is not None:
                with contextlib.suppress(OSError, AttributeError):  # fchmod: POSIX only
                    os.fchmod(stream.fileno(), mode)
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


def _create_temporary(folder, name):
    """A new file ``.NAME.RANDOM.tmp`` in ``folder``, opened for writing: (fd, path).

    Made with mode 0666, which the system reduces by the umask, as any new file (unlike
    ``tempfile.mkstemp``'s 0600).
    """
    for _ in range(100):
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
        try:
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                             | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        return handle, temporary
    raise FileExistsError(f"{folder}: cannot create a temporary file for {name}")


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


def check_regular_file(path):
    """ValueError naming ``path`` unless it is a regular file (after symbolic links).

    A reader bounds its memory and time by the size of what it reads: a device
    (``/dev/zero``, ``/dev/urandom``) has no end, and a named pipe blocks its reader until
    someone writes to it. A missing file raises ``FileNotFoundError`` as ``open`` would.
    """
    mode = os.stat(path).st_mode
    if stat.S_ISDIR(mode):
        raise ValueError(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise ValueError(f"{path}: not a regular file (a device, a pipe or a socket): "
                         "confboost reads files whose size bounds the work")
