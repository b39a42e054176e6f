"""A text column's values held compactly: one UTF-8 buffer and the offsets of its values.

Owns ``TextValues``, the sequence a BoosTexter data file's text column is read into. A list
of Python strings costs some 50 bytes of object header per value beside its characters (and
four bytes a character once one is outside Latin-1); here each value costs its UTF-8 bytes
and one offset, and a value becomes a ``str`` only while it is read (the text layer
tokenises each document once, as it goes: ``data/postings.py``).
"""

from collections.abc import Sequence

import numpy as np

#: Values decoded at once when iterating (their offsets become Python integers together).
_CHUNK = 65536


class TextValues(Sequence):
    """The values of a text column: ``str``, or None where missing.

    Parameters
    ----------
    buffer : bytes or bytearray
        The present values' UTF-8 bytes, one after another (None once released).
    offsets : ndarray of shape (n + 1,), dtype int64
        Value ``i`` is ``buffer[offsets[i]:offsets[i + 1]]``, increasing (None once
        released).
    missing : ndarray of shape (n,), dtype bool
        True where value ``i`` is None (its bytes are then empty).
    disposable : bool
        Whether the values' owner reads them no more once a fit has built their term
        postings: the fit then releases them as soon as it has tokenised them
        (``TermVocabulary.fit_postings``), and reading them afterwards raises ValueError.

    Examples
    --------
    >>> values = TextValues.from_strings(["une phrase", None, "été"])
    >>> len(values), values[2], list(values)
    (3, 'été', ['une phrase', None, 'été'])
    >>> values == ["une phrase", None, "été"]
    True
    """

    __slots__ = ("buffer", "disposable", "missing", "offsets")

    def __init__(self, buffer, offsets, missing, disposable=False):
        self.buffer = buffer
        self.offsets = offsets
        self.missing = missing
        self.disposable = disposable

    @classmethod
    def from_strings(cls, values):
        """The ``TextValues`` of a sequence of str and None.

        Parameters
        ----------
        values : sequence of (str or None), length n

        Returns
        -------
        TextValues
        """
        n = len(values)
        missing = np.fromiter((value is None for value in values), dtype=bool, count=n)
        lengths = np.zeros(n + 1, dtype=np.int64)
        buffer = bytearray()
        for start in range(0, n, _CHUNK):  # one chunk's bytes objects at a time
            encoded = [b"" if value is None else value.encode("utf-8")
                       for value in values[start:start + _CHUNK]]
            lengths[start + 1:start + 1 + len(encoded)] = list(map(len, encoded))
            buffer += b"".join(encoded)
        np.cumsum(lengths, out=lengths)
        return cls(buffer, lengths, missing)

    def release(self):
        """Let the values' bytes and offsets go, once nothing will read them (a fit whose
        term postings are built): the length and ``missing`` stay, reading a value raises
        ValueError."""
        self.buffer = self.offsets = None

    def _bytes(self):
        if self.buffer is None:
            raise ValueError("these text values were released (their term postings are "
                             "built): they can no longer be read")
        return self.buffer

    def __len__(self):
        return self.missing.shape[0]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"text value index {index} out of range for {n} values")
        index %= n
        if self.missing[index]:
            return None
        return self._bytes()[self.offsets[index]:self.offsets[index + 1]].decode("utf-8")

    def __iter__(self):
        buffer = self._bytes()
        for start in range(0, len(self), _CHUNK):
            offsets = self.offsets[start:start + _CHUNK + 1].tolist()
            missing = self.missing[start:start + _CHUNK].tolist()
            for i, absent in enumerate(missing):
                yield None if absent else buffer[offsets[i]:offsets[i + 1]].decode("utf-8")

    def tolist(self):
        """The values as a list of str and None."""
        return list(self)

    def __eq__(self, other):
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(
            a == b for a, b in zip(self, other, strict=True))

    __hash__ = None

    def __repr__(self):
        shown = ", ".join(repr(value) for value in self[:3])
        return f"TextValues([{shown}{', ...' if len(self) > 3 else ''}], n={len(self)})"
