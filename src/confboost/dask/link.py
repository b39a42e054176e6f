"""The link of a distributed fit: the TCP connections between its workers, and their
allreduce (``Link.allreduce``).

The ranks form a binomial tree rooted at rank 0: rank r's parent is r with its lowest set
bit cleared, its children r + 1, r + 2, r + 4, ... below its lowest set bit (rank 0: every
power of two) and the size (``parent``, ``children``). An allreduce sums up the tree, each
rank adding its children's subtree sums to its own part, nearest child first, and sends
the root's total back down: so the sum is pairwise, neighbours first (ranks 0 + 1 and 2 + 3,
then (0 + 1) + (2 + 3), ...: the order of ``shards._pairwise`` on the client), fixed by the
ranks whatever order the parts arrive in, and every rank gets the root's bits. Each rank
talks to at most 1 + ⌈log2 size⌉ peers; the root receives ⌈log2 size⌉ parts and sends
⌈log2 size⌉ totals an allreduce, against size − 1 of each when the root gathered every
part itself, and the longest path is 2 ⌈log2 size⌉ messages.

Why a binomial tree rather than recursive halving and doubling (which moves 2 × bytes a
rank whatever the size): it takes any number of ranks without folding the extra ones in,
every message is the whole buffer (most of a round's allreduces are a few numbers, where
the number of steps counts, not the bytes), and one summation tree gives every rank the
same bits without a final exchange of pieces.

Two ranks and a small value (at most ``SWAP_BYTES``: a split's row count, Z_t, a tree's leaf
statistics; 8 of a tree round's 15 allreduces) swap their parts at once instead (both send,
then both receive and add: rank 0 p0 + p1, rank 1 p1 + p0, the same bits, floating-point
addition being commutative): one message on the path instead of two, and a rank that comes
late finds the other's part waiting. Both send before either reads, which a value this small
cannot block on (it fits the smallest socket buffer); a node's histogram (200 kB) takes the
tree.

The sockets: every rank that has children listens (``listen``, once per set of shards: the
client passes each listening rank's address to the others) and the others connect to
their parent on their first round (``join``); the sockets live on the worker's shard, so
they go when Dask releases the shard, and an allreduce that fails closes them. A socket
read waits at most the fit's ``timeout``: a peer that dies makes its neighbours' reads fail
at once (end of stream), they close their sockets, and so on through the tree; a stuck one
fails them within the timeout.
"""

import socket
import struct

import numpy as np
from distributed import get_worker
from distributed.comm import get_address_host

_HEADER = struct.Struct("!Q")
#: The largest value (bytes) two ranks swap rather than send up and back (module docstring).
SWAP_BYTES = 1024


def parent(rank):
    """The rank ``rank`` (> 0) sends its subtree's sum to: its lowest set bit cleared."""
    return rank & (rank - 1)


def children(rank, size):
    """The ranks that send their subtree's sums to ``rank``, nearest first: rank + 2**k for
    every 2**k below rank's lowest set bit (every 2**k for rank 0) and rank + 2**k < size."""
    out, step = [], 1
    while rank + step < size and (rank == 0 or step < rank & -rank):
        out.append(rank + step)
        step *= 2
    return out


class Link:
    """One rank's connections to its neighbours in a fit's binomial tree (module docstring).

    Parameters
    ----------
    rank, size : int
    up : socket.socket or None
        The parent's socket (None on rank 0).
    down : list of socket.socket
        The children's sockets, in the order of ``children(rank, size)``.
    """

    def __init__(self, rank, size, up=None, down=()):
        self.rank, self.size, self.up, self.down = rank, size, up, list(down)
        self.closed = False
        self._part = np.empty(0)  # a child's part lands here (``_received``)

    def allreduce(self, value):
        """Σ over the ranks of ``value`` (an array, a number, or a list or tuple of them,
        of the same shapes on every rank), added pairwise, neighbours first, up the tree
        and sent back down from rank 0, so every rank gets the same bits. One rank:
        ``value``. A failure (a peer gone, the timeout) closes this rank's sockets, and a
        closed link raises ``ConnectionError`` rather than sum over fewer ranks."""
        if self.size == 1:
            return value
        leaves = []
        _leaves(value, leaves)
        total = (np.concatenate([np.ravel(np.asarray(leaf, dtype=np.float64))
                                 for leaf in leaves]) if leaves else np.zeros(0))
        return _rebuilt(value, self.allreduce_into(total), [0])

    def allreduce_into(self, array):
        """``allreduce`` of a C-contiguous float64 ``array``, summed into it in place and
        returned: sent from and received into the array itself (no copy of it, no new
        array a call: a node's histogram is 200 kB); ``allreduce`` sums its flattened
        value here. Two ranks swap a value of at most ``SWAP_BYTES`` (module docstring)."""
        if self.size == 1:
            return array
        if self.closed:
            raise ConnectionError(f"rank {self.rank}'s link of the collective is closed")
        flat = array.reshape(-1)
        try:
            if self.size == 2 and flat.nbytes <= SWAP_BYTES:
                peer = self.up if self.up is not None else self.down[0]
                _send(peer, flat)
                flat += _receive_into(peer, self._received(flat.size))
                return array
            if self.down:
                part = self._received(flat.size)
                for child in self.down:  # nearest first: the pairwise order
                    _receive_into(child, part)
                    flat += part
            if self.up is not None:
                _send(self.up, flat)
                _receive_into(self.up, flat)
            for child in reversed(self.down):  # the largest subtree first
                _send(child, flat)
        except BaseException:
            self.close()
            raise
        return array

    def _received(self, size):
        """The buffer a child's part of ``size`` numbers is received into: kept across
        calls, so that a node's histogram (200 kB, 7 a tree round) does not map and fault
        in a new array each time."""
        if self._part.size < size:
            self._part = np.empty(size)
        return self._part[:size]

    def close(self):
        """Close the sockets (the neighbours' reads then end)."""
        for peer in [self.up, *self.down]:
            if peer is not None:
                peer.close()
        self.up, self.down, self.closed = None, [], True


def _leaves(value, out):
    """The arrays and numbers of ``value`` (nested lists and tuples), in order, into ``out``."""
    if isinstance(value, (list, tuple)):
        for item in value:
            _leaves(item, out)
    else:
        out.append(value)


def _rebuilt(value, flat, at):
    """``value``'s structure with its leaves read from ``flat`` from ``at[0]`` on."""
    if isinstance(value, (list, tuple)):
        return type(value)(_rebuilt(item, flat, at) for item in value)
    array = np.asarray(value)
    part = flat[at[0]:at[0] + array.size]
    at[0] += array.size
    if isinstance(value, np.ndarray):
        return part.reshape(array.shape).astype(array.dtype, copy=False)
    return type(value)(part[0]) if isinstance(value, (int, float)) else array.dtype.type(part[0])


def _send(peer, array):
    peer.sendall(_HEADER.pack(array.nbytes))
    peer.sendall(memoryview(np.ascontiguousarray(array)).cast("B"))


def _receive_into(peer, out):
    """``out.size`` float64 numbers from ``peer`` into ``out`` (contiguous), returned (a
    framing error if it sent another size; ``ConnectionError`` at the end of the stream:
    the peer is gone)."""
    header = _exactly(peer, bytearray(_HEADER.size))
    (nbytes,) = _HEADER.unpack(header)
    if nbytes != out.nbytes:
        raise RuntimeError(f"collective out of step: a peer sent {nbytes} bytes where "
                           f"{out.nbytes} were expected")
    _exactly(peer, memoryview(out).cast("B"))
    return out


def _exactly(peer, buffer):
    view, got = memoryview(buffer), 0
    while got < len(view):
        n = peer.recv_into(view[got:])
        if n == 0:
            raise ConnectionError("a peer of the collective closed its connection (a "
                                  "worker of the fit was lost)")
        got += n
    return buffer


def listen(timeout):
    """A listening socket on this worker's host: (socket, (host, port))."""
    try:
        address = get_worker().address
    except ValueError:  # not in a worker
        address = "inproc://"
    # a worker of this process (``inproc://``) has no host of its own: the loopback
    host = "127.0.0.1" if address.startswith("inproc://") else get_address_host(address)
    server = socket.create_server((host, 0), backlog=128)
    server.settimeout(timeout)
    return server, (host, server.getsockname()[1])


def join(rank, size, server, addresses, token, timeout):
    """This rank's ``Link``: it connects to its parent's address (``addresses[parent]``,
    the (host, port) ``listen`` gave that rank) and accepts its children on ``server``
    (None when it has none). Each connection starts with the fit's ``token`` and the
    connecting rank; another fit's, or a rank that is not a child, is dropped."""
    expected = children(rank, size)
    if expected and server is None:
        raise RuntimeError(f"rank {rank} of the collective has lost its listening socket (its "
                           "shard was moved or recomputed after a lost worker)")
    up, peers = None, {}
    try:
        if rank > 0:
            up = socket.create_connection(addresses[parent(rank)], timeout=timeout)
            _ready(up, timeout)
            up.sendall(struct.pack("!16sQ", token, rank))
        while len(peers) < len(expected):
            peer, _ = server.accept()
            _ready(peer, timeout)
            their_token, their_rank = struct.unpack("!16sQ", bytes(_exactly(
                peer, bytearray(24))))
            if their_token != token or their_rank not in expected:
                peer.close()
                continue
            peers[their_rank] = peer
    except BaseException:
        for peer in [up, *peers.values()]:
            if peer is not None:
                peer.close()
        raise
    finally:
        if server is not None:
            server.close()
    return Link(rank, size, up, [peers[child] for child in expected])


def _ready(peer, timeout):
    peer.settimeout(timeout)
    peer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
