"""The BoosTexter / icsiboost file format: ``STEM.names``, ``STEM.data``, ``.dev``, ``.test``.

Owns reading and writing these files, and the errors a bad file raises. Everything read is
checked: a bad file raises ``BoosTexterFormatError`` naming the file, the line, the column
(name and 1-based index), the offending value and what was expected; it never yields silently
wrong data.

Both files are UTF-8 (a leading byte-order mark is skipped). Lines end with ``\\n`` or
``\\r\\n``; whitespace around every line, field and value is insignificant (but a text
field keeps every character other than the spaces around it: tabs, no-break spaces, and in
the first column whatever starts the line, as icsiboost reads it). Blank lines and
lines whose first non-blank character is ``|`` are comments, in both files.

``STEM.names``
    The first non-comment line lists the classes, comma-separated, ending with ``.``::

        earn, acq, money-fx.

    Class names are non-empty, distinct and contain no whitespace. Then one line per column,
    ``NAME: TYPE.``, in the order of the fields of an example line:

    - ``NAME: continuous.``  a number;
    - ``NAME: text.``  free text, with the default ``TextExpert`` (unigrams);
    - ``NAME: text:expert_type=ngram expert_length=2 cutoff=2 drop=REGEX.``  text with its own
      expert (icsiboost's extension). Options are whitespace-separated ``key=value``:
      ``expert_type`` (``ngram``, ``fgram``, ``sgram``), ``expert_length`` (>= 1), ``cutoff``
      (>= 0), ``drop`` (a regular expression without whitespace), ``no_unk`` (``0`` or ``1``)
      and, a confboost extension that icsiboost refuses, ``tokenizer`` (``word`` or
      ``whitespace``; better given on the command line, ``confboost train --text``); see
      ``confboost.data.postings``. Settings a line leaves out come from ``read_names``'s
      ``text_defaults``;
    - ``NAME: v1, v2, v3.``  a categorical column (BoosTexter's "set") taking one of these
      values; at least two, distinct, none ``?``;
    - ``NAME: ignore.``  a column whose values are skipped unread.

    ``NAME`` is everything before the first ``:``; names are distinct. Only the line's final
    ``.`` is its terminator, so a value or a regular expression may itself end with ``.``.

``STEM.data``, ``STEM.dev``, ``STEM.test``
    One example per line: the column values in ``.names`` order, then the labels, all
    separated by commas::

        3.5, the cat sat, red, earn acq.

    Every comma separates fields, as in icsiboost: there is no quoting, so no value, text
    included, can contain a comma (a line with too many fields is an error, not a guess). A
    missing value is ``?`` or empty. Continuous values are decimal numbers (``12``, ``-0.5``,
    ``1e-3``, ``.5``; no ``nan``, ``inf`` or digit separators). Categorical values must be
    declared in ``.names``; an undeclared value is an error unless
    ``unknown_values="missing"`` (icsiboost silently ignores undeclared values in test files
    only). The last field holds one or more labels separated by whitespace and ends with
    ``.``; every label must be a declared class. With ``labels_required=False`` any line may
    leave the label field out.

This module is the format's public face: the readers and writers live in
``formats/names_file.py`` (``.names``), ``formats/data_file.py`` (examples) and
``formats/file_lines.py`` (the error, line reading); their public names are importable from here.
"""

from pathlib import Path

from confboost.formats.data_file import BoosTexterData, read_data, write_data
from confboost.formats.file_lines import BoosTexterFormatError
from confboost.formats.names_file import (
    COLUMN_KINDS,
    ColumnSpec,
    NamesSpec,
    read_names,
    write_names,
)


def read_stem(stem, unknown_values="error"):
    """Read ``STEM.names``, ``STEM.data`` and, where they exist, ``STEM.dev`` and ``STEM.test``.

    Parameters
    ----------
    stem : str or path-like
        The file names without their suffix.
    unknown_values : {"error", "missing"}, default="error"
        As in ``read_data``.

    Returns
    -------
    spec : NamesSpec
    train : BoosTexterData
    dev, test : BoosTexterData or None
        None where the file does not exist.
    """
    stem = str(stem)
    spec = read_names(stem + ".names")
    parts = []
    for suffix in (".data", ".dev", ".test"):
        path = Path(stem + suffix)
        if suffix == ".data" or path.exists():
            parts.append(read_data(path, spec, unknown_values=unknown_values))
        else:
            parts.append(None)
    return spec, *parts


__all__ = ["COLUMN_KINDS", "BoosTexterData", "BoosTexterFormatError", "ColumnSpec",
           "NamesSpec", "read_data", "read_names", "read_stem", "write_data", "write_names"]
