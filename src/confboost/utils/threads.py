"""Threads of the numba kernels: how they wait, and how many a call gets (DESIGN.md rule 11).

Two things make threads hurt on a busy machine. Idle worker threads that spin while they
wait for the next parallel region (OpenMP's default: libgomp spins about 300,000 times before
sleeping) take the time slice the thread holding the work needs on cores that other processes
also want; and a round opens many short parallel regions, each ending at a barrier that waits
for the slowest, possibly descheduled, thread.

confboost changes no process-wide setting to cure the first: OpenMP reads its wait policy
(``OMP_WAIT_POLICY``) once per process, from the environment, and every library in the
process that uses the same runtime (LightGBM, XGBoost, scikit-learn) would wait the same way,
several times slower on their many small regions. Its kernels run on numba's TBB threading
layer instead, whose workers spin only briefly before they sleep and which is safe to call
from several threads at once (Dask's threads): numba tries ``tbb`` first, ``omp`` second, and
confboost depends on the ``tbb`` package where it has wheels. pip puts TBB's library in the
environment's ``lib`` folder, which the dynamic loader does not search, so numba would not
find it; ``lazy_numba.load_installed_tbb`` loads it from there by its path before the first parallel
kernel, and numba's own look-up by name then finds it (a library already loaded answers to
its name). It sets nothing: ``NUMBA_THREADING_LAYER`` or a layer chosen earlier in the process
still decides, and without TBB the kernels run on OpenMP's default policy.

For the second, ``numba_threads`` runs small fits on one thread, ``serial_below`` a light
kernel call on few cells (before numba has loaded, the one thread applies when the first
kernel loads it: a small prediction may never load it), and with two busy processes on 2
cores the thread count that pays depends on the machine's load at the moment and on the
round, so a fit with the default ``n_jobs`` measures it (``ThreadTuner``): it times a few
rounds with its threads and with half as many, keeps the faster, and measures again now and
then, less often while the choice holds. A tuner remembers its choice and its schedule for the
work it tuned (``TunerMemory``): the next fit of the same data in the process starts on that
count and probes only when the schedule says so, so that two fits of the same data run on the
same threads (a calibrated fit and one with ``calibration=None`` compare the same work, and
each fit does not pay its own probe). The kernels give the same model on any thread count
(their sums run in fixed chunks), so the choice changes only the time. On one thread the
parallel kernels run their serial builds (``lazy_numba.serial_kernels``): the same code
without numba's parallel machinery, quicker to compile and to load.
"""

import sys
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from math import fsum

from confboost.utils.lazy_numba import (
    cancel_on_load,
    load_numba,
    numba_loaded,
    on_load,
    serial_kernels,
)

#: Below this many example·feature·label cells a fit runs its kernels on one thread. Whole
#: fits of 100 stump rounds on 2 quiet cores, 2 threads / 1: 1.08 at 0.25M cells, 0.94 at
#: 0.5M, 0.82 at 0.75M, 0.81 at 1M; with two busy processes the default threads cost a 0.5M
#: fit 10-20% (the tuner's probe and the setup's parallel kernels, each region a possible
#: time slice): below 0.6M two threads save too little to risk it.
SMALL_WORK = 600_000

#: Below this many cells a kernel call that makes one light pass over them (the weight update:
#: a few ns a cell) runs on one thread: less work than waking a second thread, and far less
#: than waiting for a descheduled one on a busy machine.
SERIAL_CELLS = 65_536


def wanted_threads(n_jobs, available, work=None):
    """The number of threads for ``n_jobs`` with ``available`` threads.

    Parameters
    ----------
    n_jobs : int or None
        None: all threads, but one when ``work`` is below ``SMALL_WORK`` (a parallel region
        costs more than such a round, and far more on a busy machine); negative: all but
        |n_jobs| - 1; positive: that many, at most ``available``.
    available : int
        Threads numba may use (``numba.config.NUMBA_NUM_THREADS``).
    work : int or None
        Example·feature·label cells of the call.

    Returns
    -------
    int
        At least 1.
    """
    if n_jobs is None:
        return 1 if work is not None and work < SMALL_WORK else available
    if n_jobs < 0:
        return max(1, available + 1 + n_jobs)
    return max(1, min(n_jobs, available))


class TunerMemory:
    """The thread counts tuners settled on in this process, by the work they tuned.

    An entry holds the count last settled on, the period between probes and the clock time
    of the next probe; a ``ThreadTuner`` given a key starts from its entry and writes it back
    each time it settles. The ``SIZE`` most recently used works are kept. Safe to share
    between threads.
    """

    SIZE = 64

    def __init__(self):
        self._lock = threading.Lock()
        self._entries = OrderedDict()

    def get(self, key):
        """(threads, period, probe_at) last stored under ``key``, or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key, threads, period, probe_at):
        """Store a settled choice under ``key``, forgetting the least recently used beyond
        ``SIZE``."""
        with self._lock:
            self._entries[key] = (threads, period, probe_at)
            self._entries.move_to_end(key)
            while len(self._entries) > self.SIZE:
                self._entries.popitem(last=False)

    def clear(self):
        with self._lock:
            self._entries.clear()


#: The process's tuner memory (``numba_threads``' tuners use it).
MEMORY = TunerMemory()


class ThreadTuner:
    """A training callback that keeps the thread count which runs the rounds fastest.

    From its ceiling ``threads``, the tuner halves the count while half as many threads run
    the rounds no slower: it runs each round on the count that has had less time so far,
    and once each has run ``PROBE_ROUNDS`` rounds, drops the larger at once if its mean
    round time is no lower (a probe on a busy machine then costs a few rounds), else goes
    on until each has run ``PROBE_SECONDS`` seconds and keeps the larger only when its mean
    round time is below ``MORE_THREADS_GAIN`` times the smaller's. The mean, not the
    median: the rounds a descheduled thread delays are the cost of the threads on a busy
    machine, and enough of them (several of the scheduler's time slices) even out its
    noise. Settled, it probes again, from the ceiling, after ``FIRST_PERIOD`` seconds, and
    the period doubles at every probe up to ``MAX_PERIOD`` (the machine's load moves, and a
    quieter machine earns the threads back; but each probe is a coin toss on a busy machine,
    and rarer probes make the choice steadier and cheaper). Settled on the larger count, it
    also waits at least ``PERIOD_ROUNDS`` rounds: a probe then runs ``PROBE_ROUNDS`` rounds
    on fewer threads, at most about twice as long each, so probes cost at most about 3% of
    the rounds (where a round takes a large part of a second, a tree per class on 784
    features, a period of seconds is a few rounds, and the probes' slower rounds took a
    tenth of such a fit's time on 2 free cores). Settled on the smaller, it keeps the
    period of seconds: a probe costs little there, and a load that has passed gives the
    threads back sooner. A round's time is the wall time
    between two calls in one run: the first call of a run (round index 0, or one that does
    not follow the previous call's) only starts the clock, since that round loads the
    kernels and builds the run.

    With a ``key`` (the work of the fit), the tuner starts from what ``memory`` holds for
    it: the count settled on last, taken at its first call (a tuner that is never called,
    as in a prediction, changes nothing), and the probe schedule, so that the fits of the
    same data in a process run their rounds on the same count and only the first probes at
    once.

    Parameters
    ----------
    threads : int
        The most threads to use (``wanted_threads``); 1 makes the tuner inert.
    set_threads : callable
        ``set_threads(count)`` applies a count (``numba.set_num_threads``).
    adaptive : bool, default=True
        False: keep ``threads`` (an ``n_jobs`` the user chose).
    clock : callable, default=time.perf_counter
        Seconds, for the round times.
    key : hashable or None, default=None
        The work tuned (``numba_threads`` gives the fit's cells); None: no memory.
    memory : TunerMemory or None, default=None
        Where the choices are kept; None: the process's ``MEMORY``.

    Attributes
    ----------
    threads : int
        The count the next round runs with.
    choices : list of int
        Every count this tuner settled on, in order.
    """

    PROBE_ROUNDS = 3
    PROBE_SECONDS = 0.03
    MORE_THREADS_GAIN = 0.95
    FIRST_PERIOD = 1.0
    MAX_PERIOD = 60.0
    PERIOD_ROUNDS = 100

    def __init__(self, threads, set_threads, adaptive=True, clock=time.perf_counter,
                 key=None, memory=None):
        self.ceiling = threads
        self.threads = threads
        self.choices = []
        self.adaptive = adaptive and threads > 1
        self._set_threads = set_threads
        self._clock = clock
        self._last = None  # (clock, round_index) of the previous call
        self._pair = None  # (more, fewer) threads being compared; None when settled
        self._times = {}
        self._period = None  # seconds to the next probe once settled; None: FIRST_PERIOD
        self._probe_at = -float("inf")  # clock time of the next probe: the first run's start
        self._key = (threads, key) if self.adaptive and key is not None else None
        self._memory = MEMORY if memory is None else memory
        self._remembered = None  # the count to take after the first round, from memory
        remembered = self._memory.get(self._key) if self._key is not None else None
        if remembered is not None:
            self._remembered, self._period, self._probe_at = remembered

    #: A training callback's ``order`` (``engine/callbacks.py``): after every other
    #: callback, so that a round's time includes theirs, as the next round's will.
    order = 100

    def after_iteration(self, env):
        """The training-callback hook (``engine/callbacks.py``): ``self(env.round_index)``."""
        return self(env.round_index)

    def __call__(self, round_index, record=None):
        """Time the round ``round_index`` just run and choose the next round's count;
        returns False (the tuner never stops the loop)."""
        if not self.adaptive:
            return False
        if self._remembered is not None:
            self._use(self._remembered)
            self._remembered = None
        now = self._clock()
        previous, self._last = self._last, (now, round_index)
        if previous is None or round_index == 0 or round_index != previous[1] + 1:
            return False
        if self._pair is not None:
            self._times[self.threads].append(now - previous[0])
            self._decide(now)
        elif now >= self._probe_at:
            self._start_probe(self.ceiling)
        if self._pair is not None:  # the count with less time so far runs next
            self._use(min(self._pair, key=lambda count: (sum(self._times[count]),
                                                         len(self._times[count]))))
        return False

    def _start_probe(self, more):
        self._pair = (more, max(1, more // 2))
        self._times = {count: [] for count in self._pair}

    def _decide(self, now):
        more, fewer = self._pair
        if any(len(times) < self.PROBE_ROUNDS for times in self._times.values()):
            return
        slower = _mean(self._times[more]) >= _mean(self._times[fewer])
        if not slower and any(sum(times) < self.PROBE_SECONDS
                              for times in self._times.values()):
            return  # more threads look faster: make sure over PROBE_SECONDS each
        if not slower and (_mean(self._times[more])
                           < self.MORE_THREADS_GAIN * _mean(self._times[fewer])):
            chosen = more
        elif fewer > 1:
            self._start_probe(fewer)
            return
        else:
            chosen = fewer
        self._pair = None
        self._period = (self.FIRST_PERIOD if self._period is None
                        else min(2 * self._period, self.MAX_PERIOD))
        settled = self._times[chosen]
        self._probe_at = now + (self._period if chosen != more else max(
            self._period, self.PERIOD_ROUNDS * _mean(settled)))
        self.choices.append(chosen)
        self._use(chosen)
        if self._key is not None:
            self._memory.put(self._key, chosen, self._period, self._probe_at)

    def _use(self, count):
        if count != self.threads:
            self._set_threads(count)
            self.threads = count


def _mean(times):
    """The mean of a non-empty list of seconds, as ``statistics.fmean`` takes it (``fsum``
    over the count), without importing ``statistics`` (and ``fractions``) at start-up."""
    return fsum(times) / len(times)


@contextmanager
def numba_threads(n_jobs, work=None):
    """Run the kernels inside the block on ``wanted_threads(n_jobs, ..., work)`` threads.

    Parameters
    ----------
    n_jobs : int or None
        As ``wanted_threads``; None also lets the yielded tuner lower the count.
    work : int or None
        Example·feature·label cells of the call.

    Yields
    ------
    ThreadTuner
        A boosting-loop callback that changes the count between rounds; inert unless
        ``n_jobs`` is None and more than one thread is used. With ``work``, it starts from
        the count settled on for the same work earlier in the process (``TunerMemory``).
        The count in force when the block ends is undone: the previous one is restored.
    """
    if (n_jobs == 1 or (n_jobs is None and work is not None and work < SMALL_WORK)) \
            and not numba_loaded():  # one thread: numba need not load before a kernel runs
        with _one_thread_once_loaded(), serial_kernels():
            yield ThreadTuner(1, None)
        return
    numba = load_numba()
    previous = numba.get_num_threads()
    threads = wanted_threads(n_jobs, numba.config.NUMBA_NUM_THREADS, work)
    numba.set_num_threads(threads)
    try:
        if threads == 1:  # the tuner only lowers a count: one thread stays one
            with serial_kernels():
                yield ThreadTuner(threads, numba.set_num_threads, adaptive=n_jobs is None)
        else:
            yield ThreadTuner(threads, numba.set_num_threads, adaptive=n_jobs is None,
                              key=work)
    finally:
        numba.set_num_threads(previous)


def kernel_threads():
    """The threads this thread's kernel calls get now: numba's count for this thread, or 1
    while numba is not loaded (a fit that has run no kernel yet stays on one)."""
    return load_numba().get_num_threads() if numba_loaded() else 1


#: numba's threading layers that may run parallel regions from several threads at once
#: (numba's documentation: TBB and OpenMP; its ``workqueue`` layer aborts the process).
CONCURRENT_LAYERS = ("tbb", "omp")


def concurrent_calls_safe():
    """Whether kernels may be called from several threads at once here: numba is loaded and
    the threading layer it started (its first parallel kernel or thread-count call starts
    one: ``kernel_threads`` does) is one of ``CONCURRENT_LAYERS``. False before that (the
    layer is not known yet)."""
    if not numba_loaded():
        return False
    try:
        return load_numba().threading_layer() in CONCURRENT_LAYERS
    except ValueError:  # no parallel kernel has started a layer yet
        return False


@contextmanager
def threads_here(count):
    """Run this thread's kernel calls inside the block on ``count`` threads (the serial
    builds on one), and restore its count after: numba's count is per thread, so a thread
    of a pool that shares a call's threads sets its own share."""
    numba = load_numba()
    previous = numba.get_num_threads()
    numba.set_num_threads(count)
    try:
        if count == 1:
            with serial_kernels():
                yield
        else:
            yield
    finally:
        numba.set_num_threads(previous)


@contextmanager
def serial_below(cells, limit=SERIAL_CELLS):
    """Run the kernel calls inside the block on one thread when ``cells < limit``.

    The choice is made per call, in Python: a numba kernel that sets its own thread count
    cannot be cached.

    Parameters
    ----------
    cells : int
        The call's work, e.g. examples × labels of a weight update.
    limit : int, default=SERIAL_CELLS
    """
    if cells >= limit:
        yield
        return
    if not numba_loaded():
        with _one_thread_once_loaded(), serial_kernels():
            yield
        return
    import numba

    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with serial_kernels():
            yield
    finally:
        numba.set_num_threads(previous)


@contextmanager
def _one_thread_once_loaded():
    """One numba thread for the kernels the block runs, without loading numba before the
    first of them; the count before is restored if numba loaded in the block."""
    previous = []

    def one_thread(numba):
        previous.append(numba.get_num_threads())
        numba.set_num_threads(1)

    on_load(one_thread)
    try:
        yield
    finally:
        cancel_on_load(one_thread)
        if previous:
            sys.modules["numba"].set_num_threads(previous[0])
