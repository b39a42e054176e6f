"""The collective's allreduce (``dask/link.Link``) over real loopback sockets, its ranks in
threads: the binomial tree's shape, every rank getting the sum in the documented pairwise
order (an oracle here), the same bits everywhere, whatever the values' structure and the
number of ranks; a lost peer fails the others at once, a silent one within the timeout."""

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("distributed")
from confboost.dask.link import SWAP_BYTES, children, join, listen, parent  # noqa: E402

SIZES = range(1, 10)  # odd and even, powers of two and not


def _links(size, timeout=10.0):
    """``size`` joined ranks of one collective (rank 0 first): each rank with children
    listens, as ``Shards._rendezvous`` has them do."""
    servers = [listen(timeout) if children(rank, size) else (None, None)
               for rank in range(size)]
    addresses = [address for _, address in servers]
    token = os.urandom(16)
    with ThreadPoolExecutor(size) as pool:
        return list(pool.map(lambda rank: join(rank, size, servers[rank][0], addresses,
                                               token, timeout), range(size)))


def _each(links, function):
    with ThreadPoolExecutor(len(links)) as pool:
        return list(pool.map(function, links))


def _pairwise_oracle(parts):
    """The documented order: neighbours added in pairs (0 + 1, 2 + 3, ...; an odd one
    out carried), then the pairs' sums in pairs, and so on."""
    parts = [np.array(part, dtype=np.float64) for part in parts]
    while len(parts) > 1:
        parts = [parts[i] + parts[i + 1] if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]
    return parts[0]


@pytest.mark.parametrize("size", SIZES)
def test_the_tree_links_every_rank_once_with_few_peers(size):
    """Every rank but 0 has one parent below it, which lists it among its children; no
    rank talks to more than 1 + ⌈log2 size⌉ peers, rank 0 to ⌈log2 size⌉."""
    depth = int(np.ceil(np.log2(size))) if size > 1 else 0
    assert len(children(0, size)) == depth
    for rank in range(1, size):
        assert parent(rank) < rank and rank in children(parent(rank), size)
        assert 1 + len(children(rank, size)) <= 1 + depth
    below = [child for rank in range(size) for child in children(rank, size)]
    assert sorted(below) == list(range(1, size))


@pytest.mark.parametrize("size", SIZES)
def test_every_rank_gets_the_pairwise_sum_bit_for_bit(size):
    """Parts of mixed magnitudes (so that the order of the additions shows in the bits):
    every rank's total is the oracle's, to the bit."""
    rng = np.random.default_rng(size)
    parts = [rng.normal(size=257) * 10.0 ** rng.integers(-8, 9, size=257)
             for _ in range(size)]
    links = _links(size)
    results = _each(links, lambda link: link.allreduce(parts[link.rank]))
    expected = _pairwise_oracle(parts)
    for result in results:
        assert result.tobytes() == expected.tobytes()
    if size >= 4:  # the order is not the sequential one (which rank 0 once used)
        sequential = parts[0].copy()
        for part in parts[1:]:
            sequential += part
        assert sequential.tobytes() != expected.tobytes()
    for link in links:
        link.close()


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8])
def test_allreduce_into_sums_in_place_bit_for_bit(size):
    """``allreduce_into`` (a node's histogram, in place): every rank's array becomes the
    oracle's pairwise sum, to the bit, and is the array it passed; a second call on the same
    links goes on in step."""
    rng = np.random.default_rng(size)
    parts = [rng.normal(size=(7, 5, 1, 2)) * 10.0 ** rng.integers(-8, 9, size=(7, 5, 1, 2))
             for _ in range(size)]
    expected = _pairwise_oracle(parts)
    arrays = [part.copy() for part in parts]
    links = _links(size)
    results = _each(links, lambda link: link.allreduce_into(arrays[link.rank]))
    for rank, result in enumerate(results):
        assert result is arrays[rank] and result.shape == (7, 5, 1, 2)
        assert result.tobytes() == expected.tobytes()
    assert _each(links, lambda link: link.allreduce(1.0)) == [float(size)] * size
    for link in links:
        link.close()


@pytest.mark.parametrize("n", [1, SWAP_BYTES // 8, SWAP_BYTES // 8 + 1])
@pytest.mark.parametrize("late", [0, 1])
def test_two_ranks_swap_a_small_value_to_the_same_bits(n, late):
    """Two ranks: a value of at most ``SWAP_BYTES`` is swapped (each adds the other's part
    to its own), a larger one goes up the tree; either way both ranks get rank 0's p0 + p1
    to the bit, whichever rank comes late, and the links go on in step."""
    rng = np.random.default_rng(n)
    parts = [rng.normal(size=n) * 10.0 ** rng.integers(-8, 9, size=n) for _ in range(2)]
    expected = _pairwise_oracle(parts)
    links = _links(2)

    def reduce(link):
        if link.rank == late:
            time.sleep(0.05)
        return [link.allreduce_into(parts[link.rank].copy()) for _ in range(3)]

    for results in _each(links, reduce):
        for result in results:
            assert result.tobytes() == expected.tobytes()
    assert _each(links, lambda link: link.allreduce(np.ones(300))[0]) == [2.0, 2.0]
    for link in links:
        link.close()


def test_allreduce_keeps_the_values_structure_on_every_rank():
    rng = np.random.default_rng(0)
    links = _links(5)
    parts = [[rng.normal(size=(5, 3)), float(rng.normal()), 7 + rank,
              (rng.normal(size=4), np.arange(6, dtype=np.int64).reshape(2, 3) * rank)]
             for rank in range(5)]
    results = _each(links, lambda link: link.allreduce(parts[link.rank]))
    for result in results:
        assert isinstance(result, list) and isinstance(result[3], tuple)
        assert np.array_equal(result[0], _pairwise_oracle([part[0] for part in parts]))
        assert result[1] == float(_pairwise_oracle([part[1] for part in parts]))
        assert result[2] == 7 + 8 + 9 + 10 + 11 and isinstance(result[2], int)
        assert np.array_equal(result[3][0], _pairwise_oracle([part[3][0] for part in parts]))
        assert result[3][1].dtype == np.int64
        assert np.array_equal(result[3][1], np.arange(6).reshape(2, 3) * 10)
    for link in links:
        link.close()


def test_one_rank_is_the_identity():
    (link,) = _links(1)
    value = [np.ones(3), 2.0]
    assert link.allreduce(value) is value


def _reduced_or_failed(link):
    """The allreduce of ones, or its error (the link closes its sockets on a failure)."""
    try:
        return link.allreduce(np.ones(3))
    except (ConnectionError, TimeoutError) as error:
        return error


@pytest.mark.parametrize(("size", "lost"), [(3, 2), (6, 5), (7, 4), (9, 1), (9, 8)])
def test_a_lost_peer_fails_the_others_at_once(size, lost):
    """A rank gone (its sockets closed: a leaf, or one with children): every other rank's
    allreduce raises ``ConnectionError`` well within the 30 s timeout, the failure passed on
    through the tree by each rank closing its own sockets."""
    links = _links(size, timeout=30.0)
    links[lost].close()
    start = time.monotonic()
    errors = _each([link for link in links if link.rank != lost], _reduced_or_failed)
    assert all(isinstance(error, ConnectionError) for error in errors), errors
    assert time.monotonic() - start < 5
    for link in links:
        assert link.closed  # by its failure: a second allreduce fails too, at once
        if link.rank != lost:
            with pytest.raises(ConnectionError, match="is closed"):
                link.allreduce(np.ones(3))


def test_a_silent_peer_fails_the_others_within_the_timeout():
    links = _links(2, timeout=0.5)
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        links[1].allreduce(np.ones(3))  # rank 0 never answers
    assert time.monotonic() - start < 5
    for link in links:
        link.close()


def test_a_peer_of_another_fit_is_not_joined():
    server, address = listen(2.0)
    addresses = [address, None]
    with ThreadPoolExecutor(3) as pool:
        ours = pool.submit(join, 0, 2, server, addresses, b"a" * 16, 2.0)
        theirs = pool.submit(join, 1, 2, None, addresses, b"b" * 16, 2.0)
        mine = pool.submit(join, 1, 2, None, addresses, b"a" * 16, 2.0)
        links = [ours.result(), mine.result()]
        try:  # dropped by rank 0 on its token, or refused or reset: rank 0 had its peer
            theirs.result().close()  # and closed its socket before it took the other fit's
        except ConnectionError:
            pass
    assert _each(links, lambda link: link.allreduce(1.5)) == [3.0, 3.0]
    for link in links:
        link.close()


def test_a_rank_with_children_and_no_listening_socket_is_refused():
    """A shard moved or recomputed loses its socket (``Shard.__getstate__``): its round
    fails at once, and the fit rebuilds."""
    with pytest.raises(RuntimeError, match="rank 2 of the collective has lost its listening"):
        join(2, 4, None, [None] * 4, b"a" * 16, 1.0)
