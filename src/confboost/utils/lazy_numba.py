"""The kernels' ``njit`` and ``prange``: numba loads at the first kernel call, not at import.

Importing numba costs a fresh process 0.15-0.2 s of CPU and 70 MB, and its first compiled
call 0.13-0.25 s more (numba's own registries, with SciPy's BLAS); loading a kernel from the
cache then costs 2-6 ms. A command that
only reads a model and scores a few lines needs none of it: the kernel modules import this
module instead of numba, so importing them (the learners' registry imports them all) loads
nothing, and the code that can answer from a kernel's NumPy twin (``numba_loaded``) does so.

``njit(**options)`` returns a ``LazyKernel`` while numba is not loaded. The first call of any
kernel (or a look at a dispatcher attribute such as ``py_func``) loads numba and turns every
kernel defined so far into its dispatcher, ``numba.njit(**options)(function)``, with the
same cache; the names in the kernel modules' globals (a kernel, a kernel another module
imported, ``prange``) are rebound to the dispatchers and to ``numba.prange`` before anything
compiles, so a kernel that calls another compiles and loads from the cache as before. From
then on ``njit`` returns dispatchers at once. Outside a kernel ``prange`` is ``range``, as
numba's is.

A parallel kernel also has a serial build, compiled and cached on its own (its name with
``_serial``): inside ``serial_kernels()`` (the calls a fit makes on one thread) its
``LazyKernel`` runs that build (the name a module imported before the first kernel call
holds: the estimators import the engine first; a module imported later holds the parallel
dispatcher), and so does a call on one thread (numba's count for the calling thread) while
the parallel build has not run or loaded in this process: a thread tuner's probe of one
thread then runs the build the fit has made already (the parallel one of a fit on all
cores, the serial one of trees grown at once, one a thread) and makes no other. Both run
the same code, the serial one with ``prange`` as ``range``, so they give the same bits, but
the serial builds of a tree fit compile in 0.70-0.87x the CPU of its parallel builds on an
empty cache (kernel by kernel 0.4-1.4x: the node histogram and the children's search
compile in half the time, the row partition in 1.4x) and load faster from the cache.

Every kernel is built with ``KERNEL_OPTIONS`` (no C-callable wrapper: one LLVM function less
per compilation). Helpers that must be inlined for speed take ``inline="always"`` (numba
copies their IR into every call site). ``forceinline=True`` (compiled once, then inlined by
LLVM) compiles the split search's helpers in 0.75-0.85x the CPU, to the same machine code
in a serial build, but left the parallel builds' rounds 1.2-1.3x slower on satimage and
letter at two threads, so it is not used. A caller that holds a NumPy twin giving the
kernel's bits asks ``prefer_twin`` whether a call is small enough to run the twin while the
kernel has not run in this process: a small fit then never compiles, loads or imports what
it can do in NumPy.
The twins of a kernel that runs every round take at most ``TWIN_CELLS`` cells in all, and
none once numba is loaded, so a longer fit stops paying NumPy's speed after a few
milliseconds and loads the kernels.

``kernels_compiled`` counts the builds numba compiled in the process rather than loaded
from its cache (the progress display says a round that compiled).

Before numba is imported, ``load_installed_tbb`` makes a pip-installed TBB findable, so
numba's threads run on its layer (``threads.py`` says why).
"""

import ctypes
import functools
import os
import sys
import threading
import types
from contextlib import contextmanager
from pathlib import Path

#: TBB's run-time library as pip installs it (the ``tbb`` package), by platform, and the
#: name numba looks it up by.
TBB_LIBRARY = {"linux": "libtbb.so.12", "darwin": "libtbb.12.dylib"}

#: Options every kernel gets unless its decorator says otherwise: no C-callable wrapper
#: (what numba builds for a first-class function; the kernels are called from Python and from
#: each other, never through a C pointer), one LLVM function less to build per compilation.
KERNEL_OPTIONS = {"no_cfunc_wrapper": True}

#: Most cells ``prefer_twin`` sends to a kernel's NumPy twin in one call, and in all the calls
#: of a kernel that runs every round: some 10 ms of NumPy, against 3-6 ms to load a kernel
#: from numba's cache, a third of a second for numba's import and its registries, and a
#: third of a second or more to compile it.
TWIN_CELLS = 1 << 20


#: ``range`` until numba loads, then ``numba.prange`` (kernel modules see the rebinding).
prange = range

_PENDING = []  # LazyKernels not yet turned into dispatchers, in definition order
_BUILT = []  # every dispatcher made for a kernel, serial builds too (``kernels_compiled``)
_HOOKS = []  # callables run once numba is loaded, before any kernel runs
_LOCK = threading.RLock()
_SERIAL = threading.local()  # .depth: how many serial_kernels() blocks this thread is in
_numba = None
_TWIN_SPENT = {}  # cells each every-round kernel's twin has taken (``prefer_twin``), by name


def numba_loaded():
    """Whether the kernels run on numba already (a kernel has been called)."""
    return _numba is not None


def kernel_ready(kernel):
    """Whether ``kernel`` (a kernel as its module defines it) has a compiled specialisation in
    this process already for the build a call here would run (``serial_kernels``): calling
    it again costs no compilation and no cache load."""
    if isinstance(kernel, LazyKernel):
        kernel = kernel._serial if kernel._runs_serial() else kernel._dispatcher
    return kernel is not None and bool(kernel.overloads)


def prefer_twin(kernel, cells, every_round=False):
    """Whether a call of ``kernel`` on ``cells`` cells should run its NumPy twin instead (a
    twin whose results are the kernel's to the bit): the call is small (at most
    ``TWIN_CELLS``) and the kernel has not run in this process yet, so that a small fit does
    not pay for the kernel's compilation (an empty cache) or its load, nor numba's import
    when it is the first.

    Parameters
    ----------
    kernel : LazyKernel or numba dispatcher
    cells : int
        The call's work (e.g. rows × columns).
    every_round : bool, default=False
        The kernel runs every round: its twin's calls in the process, this one included,
        may come to ``TWIN_CELLS`` cells in all, and none once numba is loaded (another
        kernel ran: a fit that long loads its kernels, each in a few milliseconds), so
        that a long fit pays NumPy's speed only for its first rounds. A True answer counts
        the call's cells.
    """
    if cells > TWIN_CELLS or kernel_ready(kernel):
        return False
    if not every_round:
        return True
    if _numba is not None:
        return False
    name = f"{kernel.__module__}.{kernel.__qualname__}"
    with _LOCK:
        spent = _TWIN_SPENT.get(name, 0) + cells
        if spent > TWIN_CELLS:
            return False
        _TWIN_SPENT[name] = spent
    return True


def resolved(kernel):
    """The build a call of ``kernel`` from this thread would run now: a ``LazyKernel``'s
    serial build or its dispatcher, chosen as ``LazyKernel.__call__`` chooses; any other
    callable itself.

    A caller that makes many calls of a kernel in one block of one thread (a tree's splits:
    the same thread count, the same ``serial_kernels`` depth) resolves it once and calls
    the build: the choice costs about 1 µs a call (numba's thread count, read through its
    lock), some 50 calls of a small tree round. The builds give the same bits, so a
    build chosen once where the calls would have chosen another changes no result.
    """
    if isinstance(kernel, LazyKernel):
        return kernel.serial if kernel._runs_serial() else kernel.dispatcher
    return kernel


@contextmanager
def serial_kernels():
    """In this block, in this thread, a parallel kernel called through its ``LazyKernel``
    runs its serial build (same results; for calls on one thread)."""
    depth = getattr(_SERIAL, "depth", 0)
    _SERIAL.depth = depth + 1
    try:
        yield
    finally:
        _SERIAL.depth = depth


def on_load(hook):
    """Run ``hook(numba)`` once numba is loaded: now if it is, else before the first kernel
    call."""
    with _LOCK:
        if _numba is None:
            _HOOKS.append(hook)
            return
    hook(_numba)


def cancel_on_load(hook):
    """Forget ``hook`` if ``on_load`` still holds it."""
    with _LOCK:
        if hook in _HOOKS:
            _HOOKS.remove(hook)


def load_registries(numba):
    """Load numba's typing and lowering registries now: what its first compilation or cache
    load does anyway (numba's NumPy implementations, with SciPy's BLAS); ``numba`` is the
    loaded module, as ``on_load`` hooks receive it."""
    from numba.core.registry import cpu_target

    cpu_target.target_context.refresh()


def load_numba():
    """Load numba and turn the kernels into dispatchers now; the numba module."""
    _load()
    return _numba


def kernels_compiled():
    """How many kernel builds numba compiled in this process rather than loaded from its
    cache: the cache misses of every kernel's dispatchers (helpers compiled inside a kernel
    count too), 0 while numba is not loaded. A count that grows while a fit compiles (the
    first fit after an install); the progress display reads it
    (``engine/boosting.ProgressPrinter``)."""
    with _LOCK:
        built = list(_BUILT)
    return sum(sum(dispatcher.stats.cache_misses.values()) for dispatcher in built)


def njit(**options):
    """``numba.njit(**options)``, loaded at the first kernel call; keyword options only."""

    options = {**KERNEL_OPTIONS, **options}

    def decorate(function):
        with _LOCK:
            if _numba is not None:
                return _built(_numba, function, options)
            kernel = LazyKernel(function, options)
            _PENDING.append(kernel)
            return kernel

    return decorate


class LazyKernel:
    """A kernel whose numba dispatcher is made when a kernel is first called.

    Calls and attributes go to the dispatcher (``py_func``, ``signatures``...); the object
    stays callable wherever it was imported to, at the cost of one Python call.

    Parameters
    ----------
    function : callable
        The kernel's Python source.
    options : dict
        ``numba.njit``'s options.
    """

    def __init__(self, function, options):
        functools.update_wrapper(self, function)
        self._function = function
        self._options = options
        self._dispatcher = None
        self._serial = None

    def __call__(self, *args, **kwargs):
        if self._runs_serial():
            serial = self._serial
            if serial is None:
                serial = self.serial
            return serial(*args, **kwargs)
        dispatcher = self._dispatcher
        if dispatcher is None:
            dispatcher = self.dispatcher
        return dispatcher(*args, **kwargs)

    def _runs_serial(self):
        if not self._options.get("parallel"):
            return False
        if getattr(_SERIAL, "depth", 0) > 0:
            return True
        # on one thread, a parallel build this process has not made yet is not worth making
        dispatcher = self._dispatcher
        return (dispatcher is not None and not dispatcher.overloads
                and _numba.get_num_threads() == 1)

    @property
    def serial(self):
        """The serial build of a parallel kernel (``parallel=False``), cached as
        ``<name>_serial``; the dispatcher itself for a serial kernel."""
        if not self._options.get("parallel"):
            return self.dispatcher
        if self._serial is None:
            _load()
            with _LOCK:
                if self._serial is None:
                    function = self._function
                    copy = types.FunctionType(function.__code__, function.__globals__,
                                              function.__name__ + "_serial",
                                              function.__defaults__, function.__closure__)
                    copy.__qualname__ = function.__qualname__ + "_serial"
                    copy.__module__ = function.__module__
                    self._serial = _built(_numba, copy, {**self._options, "parallel": False})
        return self._serial

    @property
    def dispatcher(self):
        """The numba dispatcher (loads numba and makes every pending kernel's)."""
        if self._dispatcher is None:
            _load()
        return self._dispatcher

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_dispatcher", "_function", "_options", "_serial"):
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __reduce__(self):  # by reference, as the dispatcher it stands for
        return _by_name, (self.__module__, self.__qualname__)

    def __repr__(self):
        return f"<kernel {self.__module__}.{self.__qualname__} (numba not loaded yet)>"


def load_installed_tbb(prefixes=None):
    """Load the TBB library that pip installed into this environment, so numba finds it.

    Does nothing when numba's threads have started (the layer is chosen), when the user chose
    a layer other than TBB or put another first (``NUMBA_THREADING_LAYER``,
    ``NUMBA_THREADING_LAYER_PRIORITY``), on a platform without a pip TBB, or when no ``tbb``
    package is installed in ``prefixes``.

    Parameters
    ----------
    prefixes : sequence of str or None
        Environment folders whose ``lib`` holds the library; None: this interpreter's
        (``sys.prefix``) and the user's site folder's (``site.USER_BASE``).

    Returns
    -------
    pathlib.Path or None
        The library loaded, or None.
    """
    name = TBB_LIBRARY.get(sys.platform)
    numba = sys.modules.get("numba")  # not imported: no thread has started, no layer is set
    started = getattr(sys.modules.get("numba.np.ufunc.parallel"), "_is_initialized", False)
    if numba is not None:
        layer, first = numba.config.THREADING_LAYER, numba.config.THREADING_LAYER_PRIORITY[0]
    else:
        layer = os.environ.get("NUMBA_THREADING_LAYER", "default")
        first = (os.environ.get("NUMBA_THREADING_LAYER_PRIORITY") or "tbb").split()[0]
    layer = layer.lower()
    if (name is None or started or layer not in ("default", "tbb", "safe", "threadsafe")
            or (layer == "default" and first != "tbb")):
        return None
    if prefixes is None:
        import site

        prefixes = (sys.prefix, site.USER_BASE or sys.prefix)
    for prefix in prefixes:
        path = Path(prefix) / "lib" / name
        if path.is_file():
            try:
                ctypes.CDLL(str(path))
            except OSError:  # a broken or foreign build: numba falls back to OpenMP
                continue
            return path
    return None


def _built(numba, function, options):
    """``numba.njit(**options)(function)``, recorded for ``kernels_compiled`` (under
    ``_LOCK``)."""
    dispatcher = numba.njit(**options)(function)
    _BUILT.append(dispatcher)
    return dispatcher


def _by_name(module, qualname):
    import importlib

    value = importlib.import_module(module)
    for part in qualname.split("."):
        value = getattr(value, part)
    return value


def _load():
    """Import numba, make every pending kernel's dispatcher, rebind the kernel modules'
    globals, then run the hooks."""
    global _numba, prange
    with _LOCK:
        if _numba is not None:
            return
        load_installed_tbb()  # before numba's threads start
        import numba

        for kernel in _PENDING:
            kernel._dispatcher = _built(numba, kernel._function, kernel._options)
        for namespace in {id(k._function.__globals__): k._function.__globals__
                          for k in _PENDING}.values():
            for name, value in list(namespace.items()):
                if isinstance(value, LazyKernel):
                    namespace[name] = value._dispatcher
                elif value is range and name == "prange":
                    namespace[name] = numba.prange
        _PENDING.clear()
        prange = numba.prange
        _numba = numba
        hooks = list(_HOOKS)
        _HOOKS.clear()
    for hook in hooks:
        hook(numba)
