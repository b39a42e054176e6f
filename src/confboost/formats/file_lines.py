"""What both BoosTexter files share: the error a bad file raises, and their lines.

Owns ``BoosTexterFormatError`` (file, line, column and value in one message), reading a
file's numbered lines (UTF-8, a byte-order mark skipped, ``\\n`` or ``\\r\\n``), skipping
blank and ``|`` comment lines, and the check that a written field reads back as itself. The
format itself is described in ``confboost.formats.boostexter``.
"""

from pathlib import Path

from confboost.utils.files import check_regular_file

#: Field values that read as missing.
MISSING = ("", "?")


class BoosTexterFormatError(ValueError):
    """A ``.names`` or data file that does not follow the format.

    The message reads ``FILE:LINE: column 'NAME' (INDEX): what was expected, got 'VALUE'``;
    the parts are also attributes.

    Attributes
    ----------
    path : str
    line : int or None
        1-based line number; None for an error about the whole file.
    column : str or None
        Column name, when the error is about one column.
    column_index : int or None
        1-based position of the column.
    """

    def __init__(self, path, line, message, column=None, column_index=None):
        self.path = str(path)
        self.line = line
        self.column = column
        self.column_index = column_index
        where = self.path if line is None else f"{self.path}:{line}"
        if column is not None:
            where += f": column {column!r} ({column_index})"
        super().__init__(f"{where}: {message}")


def shown(value, limit=60):
    """``repr`` of a value for a message, shortened."""
    return repr(value if len(value) <= limit else value[:limit] + "...")


def read_lines(path):
    """The lines of a UTF-8 file, numbered from 1, without their line ends.

    A generator: the file is decoded at once (a bad byte is reported before any line), then
    its lines are cut one at a time, so no list of every line is held.
    """
    check_regular_file(path)
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise BoosTexterFormatError(path, line, f"not valid UTF-8 ({error.reason})") from None
    del raw
    return _cut_lines(text)


def _cut_lines(text):
    start, number, end = 0, 0, len(text)
    while start < end:
        stop = text.find("\n", start)
        stop = end if stop < 0 else stop
        number += 1
        yield number, text[start:stop].removesuffix("\r")
        start = stop + 1


def content_lines(path):
    """The stripped lines that are neither blank nor comments, with their numbers."""
    for number, line in read_lines(path):
        stripped = line.strip()
        if stripped and not stripped.startswith("|"):
            yield number, stripped


def check_writable(value, what, forbidden=",\r\n"):
    """Raise ValueError unless ``value`` reads back as itself from a field."""
    if not isinstance(value, str) or value != value.strip() or value in MISSING:
        raise ValueError(f"{what} must be a non-empty string without surrounding whitespace "
                         f"and not '?', got {value!r}")
    bad = [character for character in forbidden if character in value]
    if bad:
        raise ValueError(f"{what} may not contain {bad[0]!r}, got {value!r}")
