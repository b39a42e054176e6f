"""A cache-line prefetch hint for the kernels: ``prefetch.read(array, index)``.

A tree node's histogram reads a code per row at rows scattered over the codes
(``codes[feature, rows[p]]``): on a node of under a thirtieth of the rows each read is a miss
of its own, and the loop waits on memory. Asking for the line of a row some iterations
ahead (``llvm.prefetch``, a read, kept in every cache level) lets those misses overlap.
The hint changes no value a kernel computes: a kernel that uses it gives the same bits
with it as without it.

``read`` is a plain Python function that does nothing until numba loads; then (``on_load``,
before any kernel compiles) it is replaced by a numba intrinsic that emits the prefetch, so
a kernel calls it as ``prefetch.read(array, index)`` (the module's attribute, looked up
when the kernel compiles).
"""

from confboost.utils.lazy_numba import on_load

#: How many rows ahead of the one it reads a kernel asks for a scattered row's line. On
#: random 1M x 48 codes, one thread, a node histogram of 1/32-1/128 of the rows took
#: 0.4-0.75x the time with 32 rows ahead (8: 0.55-0.9x; 64 no better than 32), a node of
#: 1/16 0.95x. (The row partition reads one feature's codes, mostly from the caches: the hint
#: made it 1.05-1.2x slower there.)
ROWS_AHEAD = 32


def read(array, index):
    """Hint that ``array[index]`` (1-D, C-contiguous) will be read soon; returns None.

    Outside a kernel (before numba loads, or from a kernel's ``py_func``) it does nothing.
    ``index`` must lie in the array (the caller clamps it): the hint takes the element's
    address without a bounds check.
    """


def _define(numba):
    """Replace ``read`` by the intrinsic (an ``on_load`` hook; ``numba`` the loaded module)."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    byte_pointer = ir.IntType(8).as_pointer()
    int32 = ir.IntType(32)

    @intrinsic
    def read_hint(typingctx, array, index):
        def codegen(context, builder, signature, args):
            array_type = signature.args[0]
            view = context.make_array(array_type)(context, builder, args[0])
            address = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]],
                                               wraparound=False)
            # the unmangled name: LLVM renames it to the pointer type's own ("p0i8" with
            # typed pointers, LLVM 14 under numba 0.59; "p0" with opaque ones)
            hint = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32,
                                                                int32]),
                "llvm.prefetch")
            # read (0), keep in every cache level (3), data cache (1)
            builder.call(hint, [builder.bitcast(address, byte_pointer), int32(0), int32(3),
                                int32(1)])
            return context.get_dummy_value()

        return types.void(array, index), codegen

    global read
    read = read_hint


on_load(_define)
