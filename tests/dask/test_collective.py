"""The collective's allreduce (``dask/link.Link``) over real sockets, its ranks in
threads: every rank gets the sum in rank order, the same bits everywhere, whatever the
values' structure; a lost peer fails the others at once, a silent one within the timeout."""

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("distributed")
from confboost.dask.link import join, listen  # noqa: E402


def _links(size, timeout=10.0):
    """``size`` joined ranks of one collective (rank 0 first)."""
    server, address = listen(timeout)
    token = os.urandom(16)
    with ThreadPoolExecutor(size) as pool:
        return list(pool.map(lambda rank: join(rank, size, server if rank == 0 else None,
                                               address, token, timeout), range(size)))


def _each(links, function):
    with ThreadPoolExecutor(len(links)) as pool:
        return list(pool.map(function, links))


def test_allreduce_is_the_sum_in_rank_order_on_every_rank():
    rng = np.random.default_rng(0)
    links = _links(4)
    parts = [[rng.normal(size=(5, 3)), float(rng.normal()), 7 + rank,
              (rng.normal(size=4), np.arange(6, dtype=np.int64).reshape(2, 3) * rank)]
             for rank in range(4)]
    results = _each(links, lambda link: link.allreduce(parts[link.rank]))
    matrix = parts[0][0] + parts[1][0] + parts[2][0] + parts[3][0]
    for result in results:
        assert isinstance(result, list) and isinstance(result[3], tuple)
        assert np.array_equal(result[0], matrix)  # the same bits: rank 0's order
        assert result[1] == ((parts[0][1] + parts[1][1]) + parts[2][1]) + parts[3][1]
        assert result[2] == 7 + 8 + 9 + 10 and isinstance(result[2], int)
        assert np.array_equal(result[3][0], ((parts[0][3][0] + parts[1][3][0])
                                             + parts[2][3][0]) + parts[3][3][0])
        assert result[3][1].dtype == np.int64
        assert np.array_equal(result[3][1], np.arange(6).reshape(2, 3) * 6)
    for link in links:
        link.close()


def test_one_rank_is_the_identity():
    (link,) = _links(1)
    value = [np.ones(3), 2.0]
    assert link.allreduce(value) is value


def _reduced_or_failed(link):
    """The allreduce of ones, or its error (the link then closed, as a failed round
    closes its shard's sockets)."""
    try:
        return link.allreduce(np.ones(3))
    except (ConnectionError, TimeoutError) as error:
        link.close()
        return error


def test_a_lost_peer_fails_the_others_at_once():
    links = _links(3, timeout=30.0)
    links[2].close()  # a worker gone: its sockets closed by its end
    start = time.monotonic()
    errors = _each(links[:2], _reduced_or_failed)
    assert all(isinstance(error, ConnectionError) for error in errors), errors
    assert time.monotonic() - start < 5
    for link in links:
        link.close()


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
    with ThreadPoolExecutor(3) as pool:
        ours = pool.submit(join, 0, 2, server, address, b"a" * 16, 2.0)
        theirs = pool.submit(join, 1, 2, None, address, b"b" * 16, 2.0)
        mine = pool.submit(join, 1, 2, None, address, b"a" * 16, 2.0)
        links = [ours.result(), mine.result()]
        try:  # dropped by rank 0 on its token, or refused or reset: rank 0 had its peer
            theirs.result().close()  # and closed its socket before it took the other fit's
        except ConnectionError:
            pass
    assert _each(links, lambda link: link.allreduce(1.5)) == [3.0, 3.0]
    for link in links:
        link.close()
