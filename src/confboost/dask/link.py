"""The link of a distributed fit: the TCP connections between its workers, and their
allreduce (``Link.allreduce``).

The link is plain TCP between the fit's workers (numpy buffers, a length header each). Rank
0 listens (``shard_listen``, once per set of shards) and the others connect on their first
round; the sockets live on the worker's shard, so they go when Dask releases the shard, and
a round that fails closes them. A socket read waits at most the fit's ``timeout``: a peer
that dies makes the others' reads fail at once (end of stream), and a stuck one within the
timeout.
"""

import socket
import struct

import numpy as np
from distributed import get_worker
from distributed.comm import get_address_host

_HEADER = struct.Struct("!Q")


class Link:
    """One rank's connections to the other ranks of a fit's collective.

    Parameters
    ----------
    rank, size : int
    sockets : list of socket.socket
        Rank 0: the other ranks' sockets, in rank order; another rank: rank 0's.
    """

    def __init__(self, rank, size, sockets):
        self.rank, self.size, self.sockets = rank, size, sockets

    def allreduce(self, value):
        """Σ over the ranks of ``value`` (an array, a number, or a list or tuple of them,
        of the same shapes on every rank): rank 0 adds the parts in rank order and sends
        the total to the others, so every rank gets the same bits. One rank: ``value``."""
        if self.size == 1:
            return value
        leaves = []
        _leaves(value, leaves)
        flat = (np.concatenate([np.ravel(np.asarray(leaf, dtype=np.float64))
                                for leaf in leaves]) if leaves else np.zeros(0))
        if self.rank == 0:
            total = flat.copy()
            for peer in self.sockets:
                total += _receive(peer, flat.size)
            for peer in self.sockets:
                _send(peer, total)
        else:
            _send(self.sockets[0], flat)
            total = _receive(self.sockets[0], flat.size)
        return _rebuilt(value, total, [0])

    def close(self):
        """Close the sockets (the peers' reads then end)."""
        for peer in self.sockets:
            peer.close()
        self.sockets = []


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


def _receive(peer, size):
    """``size`` float64 numbers from ``peer`` (a framing error if it sent another size;
    ``ConnectionError`` at the end of the stream: the peer is gone)."""
    header = _exactly(peer, bytearray(_HEADER.size))
    (nbytes,) = _HEADER.unpack(header)
    if nbytes != size * 8:
        raise RuntimeError(f"collective out of step: a peer sent {nbytes} bytes where "
                           f"{size * 8} were expected")
    out = np.empty(size, dtype=np.float64)
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


def join(rank, size, server, address, token, timeout):
    """This rank's ``Link``: rank 0 accepts the others on ``server``; another rank
    connects to ``address``. Each connection starts with the fit's ``token`` and the rank."""
    if rank == 0:
        if server is None and size > 1:
            raise RuntimeError("rank 0 of the collective has lost its listening socket (its "
                               "shard was moved or recomputed after a lost worker)")
        peers = {}
        while len(peers) < size - 1:
            peer, _ = server.accept()
            _ready(peer, timeout)
            their_token, their_rank = struct.unpack("!16sQ", bytes(_exactly(
                peer, bytearray(24))))
            if their_token != token:
                peer.close()
                continue
            peers[their_rank] = peer
        if server is not None:
            server.close()
        return Link(0, size, [peers[r] for r in range(1, size)])
    peer = socket.create_connection(address, timeout=timeout)
    _ready(peer, timeout)
    peer.sendall(struct.pack("!16sQ", token, rank))
    return Link(rank, size, [peer])


def _ready(peer, timeout):
    peer.settimeout(timeout)
    peer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
