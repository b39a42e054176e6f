"""What every fuzzer (``tests/fuzz/test_fuzz_*.py``) checks, and how many cases it runs.

The property, for every input: a correct result, or one ``ValueError`` whose message is one
line naming the file (and the line, where the format has lines), within a time and a memory
bound. Memory is the peak that ``tracemalloc`` sees (Python and NumPy allocations) while
the input is read and used, and must stay below ``base + per_byte × size of the input``:
a reader's cost follows what it reads. Time is a hang detector, generous enough for a busy
machine, not a speed assertion.

Each fuzzer runs ``cases(short)`` mutated inputs drawn from ``random.Random(seed(name))``:
a few in ``make test``; ``make fuzz`` sets ``FUZZ_CASES`` (and ``FUZZ_SEED``, a fresh one
by default, printed with the counts so that a failing run can be replayed).
"""

import os
import random
import re
import time
import tracemalloc
import zlib
from dataclasses import dataclass, field

#: Cases of the long run (``FUZZ_CASES``); 0: each fuzzer's short count.
CASES = int(os.environ.get("FUZZ_CASES", "0"))
#: The run's seed (``FUZZ_SEED``), mixed with each fuzzer's name.
SEED = int(os.environ.get("FUZZ_SEED", "0"))


def cases(short):
    """The number of cases to run: ``FUZZ_CASES`` when set, else ``short``."""
    return CASES or short


def generator(name):
    """The fuzzer's own ``random.Random``, from ``FUZZ_SEED`` and its name."""
    return random.Random(SEED * 1_000_003 + zlib.crc32(name.encode()))


@dataclass
class Bound:
    """The time and memory one case may take.

    Parameters
    ----------
    seconds : float
        A hang detector.
    base_mb : float
        Memory any case may use (MB).
    per_byte : float
        Memory per byte of the input.
    """

    seconds: float = 60.0
    base_mb: float = 64.0
    per_byte: float = 64.0

    def memory(self, size):
        return self.base_mb * 2**20 + self.per_byte * size


@dataclass
class Tally:
    """What a fuzzer saw: accepted and refused cases, and the refusals' first words."""

    name: str
    accepted: int = 0
    refused: int = 0
    reasons: dict = field(default_factory=dict)

    def report(self):
        """The line ``make fuzz`` prints: seed, counts, and the commonest refusals."""
        common = sorted(self.reasons.items(), key=lambda item: -item[1])[:4]
        return (f"fuzz {self.name}: seed={SEED} cases={self.accepted + self.refused} "
                f"accepted={self.accepted} refused={self.refused} (commonest refusals: "
                + "; ".join(f"{reason} x{count}" for reason, count in common) + ")")


def run_case(call, tally, *, input_size, named=(), bound=None, what="",
             errors=(ValueError,)):
    """Run one case: ``call()`` must return (accepted) or raise a one-line error of
    ``errors`` (ValueError; the fuzzer of tables also takes scikit-learn's TypeError on
    column names) that contains every string of ``named`` (refused), within ``bound``.

    Returns
    -------
    result : object or None
        ``call()``'s value, None when refused.
    """
    bound = bound or Bound()
    tracemalloc.start()
    started = time.perf_counter()
    error = None
    try:
        result = call()
    except errors as caught:
        result, error = None, caught
    finally:
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert elapsed < bound.seconds, f"{what}: took {elapsed:.1f} s (a hang?)"
    assert peak < bound.memory(input_size), (
        f"{what}: peak {peak / 2**20:.1f} MB for {input_size} bytes of input")
    if error is None:
        tally.accepted += 1
        return result
    message = str(error)
    assert "\n" not in message.strip(), f"{what}: a message of several lines: {message!r}"
    for name in named:
        assert name in message, f"{what}: the message does not name {name!r}: {message!r}"
    tally.refused += 1
    reason = _reason(message, named)
    tally.reasons[reason] = tally.reasons.get(reason, 0) + 1
    return None


def _reason(message, named):
    """The message without the names and numbers: what kind of refusal it is."""
    for name in named:
        message = message.replace(name, "")
    message = re.sub(r"\[\d+\]|\d+(\.\d+)?(e[-+]?\d+)?", "#", message)
    return message.strip(": ")[:48]
