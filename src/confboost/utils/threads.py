"""Threads of the numba kernels: how they wait, and how many a call gets (DESIGN.md rule 11).

Two things make threads hurt on a busy machine. OpenMP's worker threads spin while they wait
for the next parallel region (libgomp's default spins about 300,000 times before sleeping), so
on cores that other processes also want, a spinning worker takes the time slice the thread
holding the work needs; and a round opens many short parallel regions, each ending at a
barrier that waits for the slowest, possibly descheduled, thread. ``prefer_yielding_wait``
makes waiting threads sleep at once (``OMP_WAIT_POLICY=PASSIVE``; ``KMP_BLOCKTIME=0`` for
Intel's runtime); ``numba_threads`` runs small fits on one thread, and ``serial_below`` a
light kernel call on few cells.

Measured on 2 shared cores (load 4-11; shuttle-like 43.5k x 9 data, 7 classes, 8-leaf trees,
50 rounds; median of 3, default threads): 22.7 s spinning against 2.4 s passive; satimage
stumps, 300 rounds: 7.5 s against 0.66 s; binary 10k x 50, 100 rounds: 3.7 s against 0.19 s.
A short spin (``GOMP_SPINCOUNT=10000``) was between the two (4.7 s, 1.7 s, 0.37 s).

Sleeping threads still wait for the slowest one at every barrier. With two busy processes on
2 cores, default threads were up to 1.39x slower than one thread on satimage's stumps and
1.13x on 8-leaf trees, though 0.73x on larger stump rounds: the thread count that pays
depends on the machine's load at the moment and on the round, so a fit with the default
``n_jobs`` measures it (``ThreadTuner``): it times a few rounds with its threads and with half
as many, keeps the faster, and measures again now and then. The kernels give the same model
on any thread count (their sums run in fixed chunks), so the choice changes only the time.
"""

import os
import time
from contextlib import contextmanager
from statistics import fmean

#: The environment variables that make OpenMP's waiting threads sleep, and their values.
YIELDING_WAIT = {"OMP_WAIT_POLICY": "PASSIVE", "KMP_BLOCKTIME": "0"}

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


def prefer_yielding_wait(environ=os.environ):
    """Make OpenMP threads sleep while they wait, unless the user chose a policy.

    OpenMP reads these variables once, when its runtime is loaded; numba loads it at the first
    parallel kernel call, so this runs when the kernels are imported (``confboost.kernels``).
    A variable the user has set is left as it is (``OMP_WAIT_POLICY=ACTIVE`` brings spinning
    back). The variables stay in the environment, so processes started later (joblib's
    workers, for instance) wait the same way; a library sharing the same OpenMP runtime and
    loaded after confboost (LightGBM links the system libgomp) waits passively too.

    Parameters
    ----------
    environ : mutable mapping, default=os.environ
        The environment to complete.

    Returns
    -------
    dict of str to str
        The variables this call set (empty when the user had set them all).
    """
    added = {}
    for name, value in YIELDING_WAIT.items():
        if name not in environ:
            environ[name] = value
            added[name] = value
    return added


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
    noise. Settled, it probes again, from the ceiling, after ``FIRST_PERIOD`` seconds; the
    period doubles while the choice stays the same (the machine's load moves, and a quieter
    machine earns the threads back). A round's time is the wall time between two calls in
    one run: the first call of a run (round index 0, or one that does not follow the
    previous call's) only starts the clock, since that round loads the kernels and builds
    the run.

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

    Attributes
    ----------
    threads : int
        The count the next round runs with.
    choices : list of int
        Every count settled on, in order.
    """

    PROBE_ROUNDS = 3
    PROBE_SECONDS = 0.03
    MORE_THREADS_GAIN = 0.95
    FIRST_PERIOD = 1.0

    def __init__(self, threads, set_threads, adaptive=True, clock=time.perf_counter):
        self.ceiling = threads
        self.threads = threads
        self.choices = []
        self.adaptive = adaptive and threads > 1
        self._set_threads = set_threads
        self._clock = clock
        self._last = None  # (clock, round_index) of the previous call
        self._pair = None  # (more, fewer) threads being compared; None when settled
        self._times = {}
        self._period = self.FIRST_PERIOD
        self._probe_at = -float("inf")  # clock time of the next probe: the first run's start

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
        slower = fmean(self._times[more]) >= fmean(self._times[fewer])
        if not slower and any(sum(times) < self.PROBE_SECONDS
                              for times in self._times.values()):
            return  # more threads look faster: make sure over PROBE_SECONDS each
        if not slower and (fmean(self._times[more])
                           < self.MORE_THREADS_GAIN * fmean(self._times[fewer])):
            chosen = more
        elif fewer > 1:
            self._start_probe(fewer)
            return
        else:
            chosen = fewer
        self._pair = None
        self._period = (2 * self._period if self.choices and self.choices[-1] == chosen
                        else self.FIRST_PERIOD)
        self._probe_at = now + self._period
        self.choices.append(chosen)
        self._use(chosen)

    def _use(self, count):
        if count != self.threads:
            self._set_threads(count)
            self.threads = count


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
        ``n_jobs`` is None and more than one thread is used. The count in force when the
        block ends is undone: the previous one is restored.
    """
    prefer_yielding_wait()  # numba.set_num_threads loads OpenMP if nothing has yet
    import numba

    previous = numba.get_num_threads()
    threads = wanted_threads(n_jobs, numba.config.NUMBA_NUM_THREADS, work)
    numba.set_num_threads(threads)
    try:
        yield ThreadTuner(threads, numba.set_num_threads, adaptive=n_jobs is None)
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
    import numba

    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(previous)
