"""Text values to terms: tokenisers, word n-gram experts, ``TextExpert`` (BoosTexter).

Owns how one text value becomes a set of *terms*, what the text weak learner tests (Schapire
& Singer, "BoosTexter", ML 39, 2000: a weak hypothesis tests the presence of a term in a
document), and ``TextExpert``, the settings of a text column.

Tokenisers (chosen by name, or any callable ``str -> list[str]`` whose tokens are non-empty and
contain no whitespace):

``"word"`` (the default)
    The text is lower-cased (``str.lower``, no Unicode normalisation); tokens are the maximal
    runs of letters and digits, i.e. of the characters matched by the regular expression
    ``[^\\W_]`` (Unicode ``\\w`` minus the underscore). Everything else (whitespace,
    punctuation, symbols, ``_``) separates tokens and is dropped. Numbers are tokens like
    words: ``"Profit rose 3.5% to $1,200"`` gives ``profit rose 3 5 to 1 200``.
``"whitespace"``
    Split on runs of whitespace (``str.split()``), case and punctuation kept
    (``"Hello, World!"`` gives ``Hello,`` and ``World!``).
``"icsiboost"``
    icsiboost's own text handling, byte for byte (``text_expert`` and ``string_split`` in
    icsiboost's sources): the text is cut at every single space character (U+0020) and at
    nothing else, so a no-break space, a tab or ``#`` stays inside its word, and two spaces
    in a row give an empty token between them (one leading space and one trailing space are
    dropped). Its terms are written as icsiboost writes them, below.

Experts, with window length ``n`` (icsiboost's ``expert_type`` / ``expert_length``). With the
``word`` and ``whitespace`` tokenisers a term is its words joined by one space; ``w[i]`` is
the ``i``-th token of the document:

``ngram``
    every run of 1 to ``n`` consecutive words: ``w[i]``, ``w[i] w[i+1]``, ... .
``fgram``
    only the full runs of exactly ``n`` consecutive words; a document with fewer than ``n``
    words has no terms.
``sgram``
    sparse pairs: every single word ``w[i]``, and ``w[i]`` paired with ``w[i+j]`` for
    ``j = 1 .. n-1``, each skipped word written as ``_``: ``w[i] w[i+1]``, ``w[i] _ w[i+2]``,
    ``w[i] _ _ w[i+3]``, ... .

With the ``icsiboost`` tokeniser a term is a string as icsiboost builds it: the words of a
gram joined by ``#``, an sgram pair ``w[i]#w[i+j]`` whatever the gap ``j`` (so "contains
shared" and "contains the shared" give the same term ``contains#shared``), and two grams that
give the same string (the word ``a#b`` and the pair ``a``, ``b``) are one term. A document of
one token gives that token whatever the expert and window (icsiboost's ``text_expert`` returns
the words as they are then), and ``fgram`` of a longer document shorter than ``n`` gives none.

A document's terms form a set: presence, not counts, is what BoosTexter tests. ``cutoff`` keeps
only the terms found in at least that many training documents; ``drop`` removes every term in
which the regular expression is found (``re.search`` on the term string, so on ``#``-joined
terms with the ``icsiboost`` tokeniser); ``no_unk`` removes every term with a word ``unk``
(icsiboost's ``no_unk`` / ``--no-unk-ngrams``; with the ``icsiboost`` tokeniser, as there, the
regular expression ``(^|#)unk(#|$)``, and ``drop`` is then not applied, as icsiboost does not).

Term order (``order``), which decides ties: the weak learner keeps the first term of least Z,
so the order of the vocabulary is the tie-break.

``"sorted"`` (the default)
    alphabetical.
``"first"``
    icsiboost's: the order in which the terms are first met in the training documents
    (document by document, word by word, and at one word the shorter gram first, as
    icsiboost's ``text_expert`` lists them), then icsiboost's ``cutoff``, which fills the place
    of each removed term with the last term of the list.

The terms of a whole corpus and their postings: ``confboost.data.postings``.
"""

import re
import re._compiler as re_compiler
import re._constants as re_constants
import re._parser as re_parser
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

_WORD_PATTERN = re.compile(r"[^\W_]+")


def word_tokenize(text):
    """Lower-cased maximal runs of letters and digits (the ``"word"`` tokeniser).

    Parameters
    ----------
    text : str

    Returns
    -------
    tokens : list of str

    Examples
    --------
    >>> word_tokenize("Profit rose 3.5% to $1,200 (U.S.)")
    ['profit', 'rose', '3', '5', 'to', '1', '200', 'u', 's']
    """
    return _WORD_PATTERN.findall(text.lower())


def whitespace_tokenize(text):
    """Whitespace-separated tokens, case and punctuation kept (icsiboost's tokeniser).

    Parameters
    ----------
    text : str

    Returns
    -------
    tokens : list of str

    Examples
    --------
    >>> whitespace_tokenize("Hello,  World!")
    ['Hello,', 'World!']
    """
    return text.split()


def icsiboost_tokenize(text):
    """icsiboost's words: ``text`` cut at every space (U+0020), empty words kept.

    One leading and one trailing space give no word (icsiboost's ``string_split`` keeps no
    piece before a separator at the very start, nor after the last one); every other pair of
    neighbouring spaces gives an empty word between them.

    Parameters
    ----------
    text : str

    Returns
    -------
    tokens : list of str

    Examples
    --------
    >>> icsiboost_tokenize("C# and\u00a0PKCS#11  done ")
    ['C#', 'and\xa0PKCS#11', '', 'done']
    """
    pieces = text.split(" ")
    if pieces[0] == "":
        del pieces[0]
    if pieces and pieces[-1] == "":
        pieces.pop()
    return pieces


#: Tokenisers by name.
TOKENIZERS = {"word": word_tokenize, "whitespace": whitespace_tokenize,
              "icsiboost": icsiboost_tokenize}

#: The tokeniser whose terms are icsiboost's ``#``-joined strings.
ICSIBOOST = "icsiboost"
#: icsiboost's ``--no-unk-ngrams`` test on a term.
_UNK = re.compile(r"(^|#)unk(#|$)")

#: Vocabulary orders (the tie-break between terms; see the module docstring).
TERM_ORDERS = ("sorted", "first")

#: Text expert kinds (icsiboost's ``expert_type``).
EXPERT_KINDS = ("ngram", "fgram", "sgram")


def gram_shapes(kind, length):
    """The word offsets of each gram shape an expert produces.

    Parameters
    ----------
    kind : {"ngram", "fgram", "sgram"}
    length : int
        Window length ``n >= 1``.

    Returns
    -------
    shapes : list of tuple of int
        Each tuple starts at 0 and increases; a gram of that shape starting at word ``i`` is
        made of the words ``i + offset``.

    Examples
    --------
    >>> gram_shapes("ngram", 3)
    [(0,), (0, 1), (0, 1, 2)]
    >>> gram_shapes("fgram", 3)
    [(0, 1, 2)]
    >>> gram_shapes("sgram", 3)
    [(0,), (0, 1), (0, 2)]
    """
    if kind == "ngram":
        return [tuple(range(n)) for n in range(1, length + 1)]
    if kind == "fgram":
        return [tuple(range(length))]
    if kind == "sgram":
        return [(0,)] + [(0, offset) for offset in range(1, length)]
    raise ValueError(f"text expert kind must be one of {EXPERT_KINDS}, got {kind!r}")


def _gram_string(tokens, start, shape):
    """The term string of the gram of ``shape`` at ``start``: words, ``_`` for skipped ones."""
    present = set(shape)
    return " ".join(
        tokens[start + offset] if offset in present else "_" for offset in range(shape[-1] + 1)
    )


def expert_terms(tokens, kind, length):
    """The terms of a token sequence under one expert, shape by shape, repeats kept.

    Parameters
    ----------
    tokens : list of str
    kind : {"ngram", "fgram", "sgram"}
    length : int
        Window length ``n >= 1``.

    Returns
    -------
    terms : list of str

    Examples
    --------
    >>> expert_terms(["a", "b", "c"], "ngram", 2)
    ['a', 'b', 'c', 'a b', 'b c']
    >>> expert_terms(["a", "b", "c"], "fgram", 2)
    ['a b', 'b c']
    >>> expert_terms(["a", "b", "c"], "sgram", 3)
    ['a', 'b', 'c', 'a b', 'b c', 'a _ c']
    """
    # a shape wider than the text makes no gram: the cost follows the text, not the window
    return [
        _gram_string(tokens, start, shape)
        for shape in gram_shapes(kind, min(length, len(tokens)))
        if kind != "fgram" or length <= len(tokens)
        for start in range(len(tokens) - shape[-1])
    ]


def icsiboost_terms(words, kind, length):
    """icsiboost's ``text_expert``: the terms of a word list, in its order, repeats kept.

    Parameters
    ----------
    words : list of str
        ``icsiboost_tokenize`` of the text.
    kind : {"ngram", "fgram", "sgram"}
    length : int
        Window length ``n >= 1``.

    Returns
    -------
    terms : list of str
        Position by position: at word ``i`` the grams that start there, shortest (sgram:
        nearest pair) first.

    Examples
    --------
    >>> icsiboost_terms(["a", "b", "c"], "ngram", 2)
    ['a', 'a#b', 'b', 'b#c', 'c']
    >>> icsiboost_terms(["a", "b", "c"], "sgram", 3)
    ['a', 'a#b', 'a#c', 'b', 'b#c', 'c']
    >>> icsiboost_terms(["a", "b"], "fgram", 3), icsiboost_terms(["a"], "fgram", 3)
    ([], ['a'])
    """
    n = len(words)
    if length <= 1 or n <= 1:
        return list(words)
    if kind == "ngram":
        return ["#".join(words[i:i + j])
                for i in range(n) for j in range(1, min(length, n - i) + 1)]
    if kind == "fgram":
        return ["#".join(words[i:i + length]) for i in range(n - length + 1)]
    if kind == "sgram":
        terms = []
        for i, word in enumerate(words):
            terms.append(word)
            terms.extend(word + "#" + words[i + j] for j in range(1, min(length, n - i)))
        return terms
    raise ValueError(f"text expert kind must be one of {EXPERT_KINDS}, got {kind!r}")


#: Longest text window (``TextExpert.length``; icsiboost's -W is usually 1 to 5).
MAX_WINDOW = 64
#: Longest ``drop`` regular expression.
MAX_PATTERN = 1000


def check_pattern(pattern):
    """ValueError unless the ``drop`` regular expression runs in time at most quadratic in a
    term's length.

    Python's regex engine backtracks: a quantifier over something that itself repeats or
    branches (``(a+)+b``, ``(a|aa)*b``) or a backreference can take time exponential in
    the term's length (as can ``(a?){30}``: any variable quantifier under a repeated one).
    Quantifiers in sequence multiply: with ``q`` variable-length quantifiers (``*``, ``+``,
    ``{m,n}``; each ``?`` only doubles, and at most 8 are taken) a failing search tries up
    to ``n^q`` ways at each of the ``n`` start positions (``a*a*a*c`` on a long word of
    ``a``), so the time grows as ``n^(q+1)``, or
    ``n^q`` when the pattern is anchored at the start (``^``, ``\\A``: one position). Those
    constructs are refused, as is a degree above 2: one variable quantifier, or two after
    ``^`` (DESIGN.md rule 12: a ``drop`` may come from a model file or a ``.names`` file).
    Character classes, anchors, literals, alternatives and a quantifier or two are what a
    term filter needs; a leading ``.*`` is never needed (the search finds a match anywhere).

    Parameters
    ----------
    pattern : str
    """
    if len(pattern) > MAX_PATTERN:
        raise ValueError(f"drop is longer than {MAX_PATTERN} characters")
    try:
        parsed = re_parser.parse(pattern)
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as error:
        raise ValueError(f"drop is not a valid regular expression: {error}") from None

    def walk(items, repeated):
        for op, argument in items:
            if op in (re_constants.GROUPREF, re_constants.GROUPREF_EXISTS):
                raise ValueError(f"drop {pattern!r}: backreferences are not allowed (their "
                                 "matching can take exponential time)")
            if op in (re_constants.MAX_REPEAT, re_constants.MIN_REPEAT,
                      re_constants.POSSESSIVE_REPEAT):
                if repeated and argument[0] != argument[1]:
                    raise ValueError(f"drop {pattern!r}: a quantifier inside a quantified "
                                     "group (nested quantifiers can take exponential time)")
                walk(argument[2], repeated or argument[1] > 1)
            elif op == re_constants.BRANCH:
                if repeated:
                    raise ValueError(f"drop {pattern!r}: alternatives inside a quantified "
                                     "group can take exponential time; use a character "
                                     "class or separate terms")
                for branch in argument[1]:
                    walk(branch, repeated)
            elif op in (re_constants.SUBPATTERN, re_constants.ATOMIC_GROUP):
                walk(argument[-1], repeated)
            elif op in (re_constants.ASSERT, re_constants.ASSERT_NOT):
                walk(argument[1], repeated)

    walk(parsed, False)
    optionals = pattern.count("?")  # an upper bound on the ? quantifiers (2^k ways)
    if optionals > _OPTIONALS:
        raise ValueError(f"drop {pattern!r}: more than {_OPTIONALS} '?' can take time "
                         "exponential in their number")
    variable = _variable_quantifiers(parsed)
    anchored = bool(parsed.data) and parsed.data[0] in (
        (re_constants.AT, re_constants.AT_BEGINNING),
        (re_constants.AT, re_constants.AT_BEGINNING_STRING))
    if variable + (0 if anchored else 1) > 2:
        raise ValueError(f"drop {pattern!r}: {variable} variable-length quantifiers "
                         f"{'after ^' if anchored else 'in an unanchored pattern'} make the "
                         f"search take time growing as the term's length to the power "
                         f"{variable + (0 if anchored else 1)}; at most "
                         f"{2 if anchored else 1} {'after ^' if anchored else 'without ^'} "
                         "(a leading .* is never needed)")


def _variable_quantifiers(items):
    """The longest run of backtracking quantifiers of variable length in a parsed pattern.

    Quantifiers multiply their ways only while one can give characters to the next: a
    mandatory literal that the previous quantifier's atom cannot match (``[a-z]+@[a-z]+``)
    ends the run. Nested and alternative quantifiers are counted in, conservatively.
    """
    longest = run = 0
    atom = None  # the single-character atom of the last quantifier, where it has one
    for op, argument in items:
        if op in (re_constants.MAX_REPEAT, re_constants.MIN_REPEAT):
            # an optional atom (``?``) at most doubles the ways: counted apart (_OPTIONALS)
            run += (argument[1] - argument[0] > 1) + _variable_quantifiers(argument[2])
            body = list(argument[2])
            atom = body if len(body) == 1 and body[0][0] in _ATOMS else None
        elif op == re_constants.LITERAL and atom is not None and not _atom_matches(
                items, atom, argument):
            run, atom = 0, None
        elif op == re_constants.BRANCH:
            run += max((_variable_quantifiers(branch) for branch in argument[1]), default=0)
        elif op in (re_constants.SUBPATTERN, re_constants.ATOMIC_GROUP):
            run += _variable_quantifiers(argument[-1])
        elif op in (re_constants.ASSERT, re_constants.ASSERT_NOT):
            run += _variable_quantifiers(argument[1])
        longest = max(longest, run)
    return longest


#: Most ``?`` in a ``drop`` pattern (each may double the ways a failing search tries).
_OPTIONALS = 8

#: One-character atoms whose match of a given character ``_atom_matches`` decides.
_ATOMS = (re_constants.LITERAL, re_constants.NOT_LITERAL, re_constants.ANY, re_constants.IN)


def _atom_matches(parsed, atom, code):
    """Whether the one-character ``atom`` (a parsed item list) matches character ``code``."""
    sub = re_parser.SubPattern(parsed.state, atom)
    return re_compiler.compile(sub, parsed.state.flags).fullmatch(chr(code)) is not None


def _is_int(value):
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


@dataclass(frozen=True)
class TextExpert:
    """How one text column becomes terms.

    Parameters
    ----------
    kind : {"ngram", "fgram", "sgram"}, default="ngram"
        The expert (see the module docstring).
    length : int, default=1
        Window length ``n >= 1``.
    cutoff : int, default=0
        Keep only terms found in at least ``cutoff`` training documents (0 and 1 keep all).
    drop : str or None, default=None
        Regular expression; terms in which it is found are dropped.
    tokenizer : str or callable, default="word"
        A name from ``TOKENIZERS`` or a callable ``str -> list[str]``.
    order : {"sorted", "first"}, default="sorted"
        The vocabulary's order, hence the tie-break between terms of equal Z (see the module
        docstring); ``"first"`` is icsiboost's.
    no_unk : bool, default=False
        Drop the terms that contain the word ``unk`` (icsiboost's ``no_unk``).
    """

    kind: str = "ngram"
    length: int = 1
    cutoff: int = 0
    drop: str | None = None
    tokenizer: str | Callable[[str], list[str]] = "word"
    order: str = "sorted"
    no_unk: bool = False

    def __post_init__(self):
        if self.kind not in EXPERT_KINDS:
            raise ValueError(f"text expert kind must be one of {EXPERT_KINDS}, got {self.kind!r}")
        if not _is_int(self.length) or not 1 <= self.length <= MAX_WINDOW:
            raise ValueError(f"text expert length must be an integer in [1, {MAX_WINDOW}], "
                             f"got {self.length!r}")
        if not _is_int(self.cutoff) or self.cutoff < 0:
            raise ValueError(f"text expert cutoff must be an integer >= 0, got {self.cutoff!r}")
        if self.drop is not None:
            if not isinstance(self.drop, str):
                raise ValueError(f"drop must be a regular expression string, got {self.drop!r}")
            check_pattern(self.drop)
        if self.order not in TERM_ORDERS:
            raise ValueError(f"term order must be one of {TERM_ORDERS}, got {self.order!r}")
        if not isinstance(self.no_unk, bool | np.bool_):
            raise ValueError(f"no_unk must be True or False, got {self.no_unk!r}")
        if not callable(self.tokenizer) and self.tokenizer not in TOKENIZERS:
            raise ValueError(
                f"tokenizer must be one of {tuple(TOKENIZERS)} or a callable, "
                f"got {self.tokenizer!r}"
            )

    def tokenize(self, text):
        """The tokens of ``text`` under this expert's tokeniser (list of str)."""
        tokenizer = self.tokenizer if callable(self.tokenizer) else TOKENIZERS[self.tokenizer]
        return tokenizer(text)

    def terms(self, text):
        """The set of terms of one document, ``drop`` applied, ``cutoff`` not.

        Parameters
        ----------
        text : str

        Returns
        -------
        terms : set of str

        Examples
        --------
        >>> sorted(TextExpert("sgram", length=3).terms("A b, c!"))
        ['a', 'a _ c', 'a b', 'b', 'b c', 'c']
        """
        if self.tokenizer == ICSIBOOST:
            return set(self.ordered_terms(text))
        terms = set(expert_terms(self.tokenize(text), self.kind, self.length))
        return {term for term in terms if self.keeps(term)}

    def ordered_terms(self, text):
        """The terms of one document in icsiboost's order, repeats kept, ``drop`` applied.

        Parameters
        ----------
        text : str

        Returns
        -------
        terms : list of str
            ``icsiboost_terms`` with the ``icsiboost`` tokeniser (the order that
            ``order="first"`` follows), else ``expert_terms``.
        """
        if self.tokenizer == ICSIBOOST:
            terms = icsiboost_terms(icsiboost_tokenize(text), self.kind, self.length)
        else:
            terms = expert_terms(self.tokenize(text), self.kind, self.length)
        if self.drop is None and not self.no_unk:
            return terms
        return [term for term in terms if self.keeps(term)]

    def can_make(self, term):
        """Whether some text gives ``term`` under this expert (``drop``, ``no_unk`` applied).

        Its words (``_`` marks a skipped word) must form a gram shape of the expert and each
        be one token of the tokenizer: ``TextExpert().can_make("U.S.")`` is False, the word
        tokenizer making ``u`` and ``s`` of it.

        Parameters
        ----------
        term : str
            Words joined by single spaces.

        Returns
        -------
        bool

        Examples
        --------
        >>> TextExpert("ngram", length=2).can_make("said it")
        True
        >>> TextExpert("ngram", length=1).can_make("said it")
        False
        """
        if self.tokenizer == ICSIBOOST:
            # a '#' may be a word's own: a term is refused only when no split of it into
            # words at its '#'s is a gram of this expert (icsiboost warns likewise)
            pieces = term.count("#") + 1
            grams = {"ngram": pieces <= self.length, "fgram": pieces == self.length,
                     "sgram": pieces == 2 and self.length >= 2}[self.kind]
            return " " not in term and (pieces == 1 or grams) and self.keeps(term)
        words = term.split(" ")
        shape = tuple(offset for offset, word in enumerate(words) if word != "_")
        if not shape or shape[0] != 0 or shape not in gram_shapes(self.kind, self.length):
            return False
        if any(self.tokenize(words[offset]) != [words[offset]] for offset in shape):
            return False
        return self.keeps(term)

    def keeps(self, term):
        """Whether ``drop`` and ``no_unk`` keep ``term`` (a str of words joined by spaces, or
        by ``#`` with the ``icsiboost`` tokeniser)."""
        if self.tokenizer == ICSIBOOST:
            if self.no_unk:
                return _UNK.search(term) is None
            return self.drop is None or re.search(self.drop, term) is None
        if self.no_unk and "unk" in term.split(" "):
            return False
        return self.drop is None or not re.search(self.drop, term)
