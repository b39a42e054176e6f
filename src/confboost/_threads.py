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
"""

import os
from contextlib import contextmanager

#: The environment variables that make OpenMP's waiting threads sleep, and their values.
YIELDING_WAIT = {"OMP_WAIT_POLICY": "PASSIVE", "KMP_BLOCKTIME": "0"}

#: Below this many example·feature·label cells a fit runs its kernels on one thread.
SMALL_WORK = 200_000

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


@contextmanager
def numba_threads(n_jobs, work=None):
    """Run the kernels inside the block on ``wanted_threads(n_jobs, ..., work)`` threads.

    Parameters
    ----------
    n_jobs : int or None
        As ``wanted_threads``.
    work : int or None
        Example·feature·label cells of the call.
    """
    prefer_yielding_wait()  # numba.set_num_threads loads OpenMP if nothing has yet
    import numba

    previous = numba.get_num_threads()
    numba.set_num_threads(wanted_threads(n_jobs, numba.config.NUMBA_NUM_THREADS, work))
    try:
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
    import numba

    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(previous)
