"""THE prediction ``Frame``: the examples a fitted model reads, in the table's column space.

A Frame holds the columns at their table positions (the positions the hypotheses store):

- ``numeric``: a float matrix (n_samples, n_columns), NaN where a value is missing; the
  columns that are not continuous are NaN throughout and never read;
- the values of each categorical column as strings (None where missing), and each text
  column's documents, as term sets or as their tokens (``data/term_presence.py``: a term's
  presence found when a model asks for it, at a cost linear in the text).

An ndarray is a Frame with a numeric part only (``Frame.from_array``). A table becomes a
Frame through its fitted encoder (``data/columns.FrameEncoder.transform``).
"""

import numpy as np


class Frame:
    """Examples ready for prediction (what hypotheses' ``blocks`` read).

    Parameters
    ----------
    numeric : ndarray of shape (n_samples, n_columns), float64 or float32
        Continuous values at their table positions (NaN: missing, or not continuous).
    categorical : dict of int to list of (str or None)
        Values of each categorical column, by table position.
    text : dict of int to (list of set of str, or DocumentTokens)
        Terms of each document of each text column, by table position: their sets, or the
        documents' tokens (``DocumentTokens``), which find a term's documents when asked.
    continuous : sequence of int or None
        Table positions of the continuous columns (None: every column).
    """

    def __init__(self, numeric, categorical=None, text=None, continuous=None):
        self.numeric = numeric
        self.n_samples = numeric.shape[0]
        self._categorical = categorical or {}
        self._text = text or {}
        self._continuous = None if continuous is None else frozenset(continuous)
        self._value_index = {}
        self._term_index = {}

    @classmethod
    def from_array(cls, X):
        """The Frame of a raw float matrix: every column continuous."""
        return cls(X)

    @property
    def shape(self):
        return self.numeric.shape

    def continuous_values(self, column):
        """The values of the continuous column at table position ``column``, shape (n,)
        (NaN where missing); ValueError if that column is not continuous."""
        if self._continuous is not None and column not in self._continuous:
            raise ValueError(f"the model reads column {column} as continuous, but it is not a "
                             "continuous column of this table")
        return self.numeric[:, column]

    def categorical_blocks(self, column, value):
        """Blocks of the test ``x[column] == value``: 0 equal, 1 another value, 2 missing."""
        if column not in self._categorical:
            raise ValueError(f"the model reads column {column} as categorical, but it is not "
                             "a categorical column of this table")
        if column not in self._value_index:
            index = {}
            missing = []
            for row, item in enumerate(self._categorical[column]):
                if item is None:
                    missing.append(row)
                else:
                    index.setdefault(item, []).append(row)
            self._value_index[column] = ({key: np.array(rows, dtype=np.intp)
                                          for key, rows in index.items()},
                                         np.array(missing, dtype=np.intp))
        index, missing = self._value_index[column]
        blocks = np.ones(self.n_samples, dtype=np.uint8)
        blocks[missing] = 2
        blocks[index.get(value, np.empty(0, dtype=np.intp))] = 0
        return blocks

    def term_blocks(self, column, term):
        """Blocks of the presence test of ``term`` in a text column: 0 present, 1 absent."""
        if column not in self._text:
            raise ValueError(f"the model reads column {column} as text, but it is not a text "
                             "column of this table")
        source = self._text[column]
        blocks = np.ones(self.n_samples, dtype=np.uint8)
        if hasattr(source, "rows_with"):  # DocumentTokens
            blocks[source.rows_with(term)] = 0
            return blocks
        if column not in self._term_index:
            index = {}
            for row, terms in enumerate(source):
                for item in terms:
                    index.setdefault(item, []).append(row)
            self._term_index[column] = {key: np.array(rows, dtype=np.intp)
                                        for key, rows in index.items()}
        blocks[self._term_index[column].get(term, np.empty(0, dtype=np.intp))] = 0
        return blocks


def as_frame(X):
    """``X`` if it is a Frame, else the Frame of the raw float matrix ``X``."""
    return X if isinstance(X, Frame) else Frame.from_array(np.asarray(X))
