"""Text columns on Dask (``dask/text.py``): the local vocabulary from the partitions' term
counts, the local postings on each shard, and the local model.

The vocabulary and postings checks need no cluster: the partitions' counts, merged, give
``TermVocabulary``'s terms on all the documents for every expert kind, order and cutoff
(icsiboost's replay of it included), and a shard's postings over them are the local ones.
On one two-worker cluster, ``DaskBoostClassifier`` on a dask DataFrame with a text column
gives ``BoostClassifier``'s model on the gathered table (f within 1e-9).
"""

import numpy as np
import pytest

from confboost import BoostClassifier
from confboost.data.columns import string_values
from confboost.data.postings import TermVocabulary
from confboost.data.text_experts import TextExpert
from confboost.training.checkpoint import Checkpoint

distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")
from confboost.dask import DaskBoostClassifier  # noqa: E402
from confboost.dask.text import (  # noqa: E402
    ColumnVocabulary,
    merged_vocabulary,
    partition_terms,
)
from tests.dask.test_dask import _assert_same_model, _cluster  # noqa: E402
from tests.dask.test_dask_trips import shards_made  # noqa: E402

WORDS = "alpha beta gamma delta eps zeta eta theta iota kappa lam mu".split()

#: Experts whose vocabularies differ in the terms kept, their order and the cutoff's rule.
EXPERTS = [
    TextExpert(),
    TextExpert("ngram", 2, cutoff=3),
    TextExpert("sgram", 3, order="first", cutoff=2),
    TextExpert("fgram", 3, order="first", drop="^eta", cutoff=4),
    TextExpert("ngram", 2, tokenizer="icsiboost", order="first", cutoff=2),
    TextExpert("ngram", 1, tokenizer="icsiboost", cutoff=3, no_unk=True),
]


def _table(n=300, seed=0):
    """A numeric column and a text column (some documents missing, one empty); labels
    that depend on both."""
    rng = np.random.default_rng(seed)
    words = np.array([*WORDS, "unk"])
    docs = [" ".join(rng.choice(words, rng.integers(1, 6))) for _ in range(n)]
    docs = [None if i % 17 == 0 else doc for i, doc in enumerate(docs)]
    docs[5] = ""
    x = rng.normal(size=n)
    y = ((x > 0.3) ^ np.array([doc is not None and "beta" in doc for doc in docs])).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    return pd.DataFrame({"x": x, "note": docs}), y


def _documents(frame):
    return np.array(string_values(frame["note"].tolist()), dtype=object)


@pytest.mark.parametrize("expert", EXPERTS, ids=lambda expert: repr(expert)[:60])
def test_partition_counts_give_the_local_vocabulary_and_postings(expert):
    frame, _ = _table()
    documents = _documents(frame)
    local = TermVocabulary()
    postings, _ = local.fit_transform(documents.tolist(), expert)
    pieces = np.split(documents, [40, 41, 170])  # uneven, one of a single document
    terms = merged_vocabulary([partition_terms(piece, expert) for piece in pieces],
                              expert)
    assert terms == local.terms_
    column = ColumnVocabulary(1, terms, expert)
    shard = column.of_rows(documents[41:])  # a shard of some partitions
    shard_postings = postings[41:].tocsc()
    for term in range(len(terms)):
        np.testing.assert_array_equal(
            shard.postings(term),
            shard_postings.indices[shard_postings.indptr[term]:shard_postings.indptr[term + 1]])
    # the term learner scores every term of a shard: the shards' distinct lists differ
    np.testing.assert_array_equal(shard.scored_list, shard.term_list)
    np.testing.assert_array_equal(shard.scored_first_term, np.arange(len(terms)))


@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


def _dask_table(frame, y, npartitions=3):
    return (dd.from_pandas(frame, npartitions=npartitions),
            dd.from_pandas(pd.Series(y), npartitions=npartitions))


@pytest.mark.parametrize("expert", [
    EXPERTS[2],
    pytest.param(EXPERTS[4], marks=pytest.mark.slow),
    pytest.param(None, marks=pytest.mark.slow),
], ids=["sgram-first-cutoff", "icsiboost-bigrams", "default"])
def test_a_text_column_gives_the_local_model(client, expert):
    frame, y = _table()
    params = {"n_estimators": 8, "calibration": None, "weak_learner": "stump",
              "feature_types": {"note": "text"}, "text_expert": expert}
    theirs = BoostClassifier(**params).fit(frame, y)
    assert {h.to_dict()["type"] for h in theirs.model_.hypotheses} >= {"term", "stump"}
    mine = DaskBoostClassifier(client=client, **params).fit(*_dask_table(frame, y))
    _assert_same_model(mine, theirs, 1e-9)
    np.testing.assert_allclose(mine.decision_function(frame), theirs.decision_function(frame),
                               rtol=0, atol=1e-9)


def test_a_text_round_is_one_trip(client, monkeypatch):
    """The term learner's sums are allreduced inside the round's task: each round costs the
    client one wait, as a stump's does. The rest is the shards' placement and, with more
    than one shard, the listening sockets' set-up: one trip each. How many shards a fit
    gets depends on where Dask put the partitions (a busy worker may get all three), so
    each fit's count is checked against its own shards, not against the other fit's."""
    made = shards_made(monkeypatch)
    frame, y = _table()
    for n_estimators in (2, 5):
        DaskBoostClassifier(client=client, n_estimators=n_estimators, calibration=None,
                            weak_learner="stump", feature_types={"note": "text"}).fit(
            *_dask_table(frame, y))
    assert [shards.trips - 1 - (len(shards.workers) > 1) for shards in made] == [2, 5]


def test_a_text_fit_resumes_from_its_checkpoint(client, tmp_path):
    """A term round's blocks are kept on the shards by the local learner's function
    (``engine/learners/term.term_blocks``), which a checkpoint names and a resume makes
    again: the resumed fit is the local one."""
    frame, y = _table()
    params = {"calibration": None, "weak_learner": "stump", "feature_types": {"note": "text"}}
    path = tmp_path / "run.ckpt"
    DaskBoostClassifier(6, client=client, **params).fit(
        *_dask_table(frame, y), callbacks=[Checkpoint(path, every=3)])
    resumed = DaskBoostClassifier(10, client=client, **params).fit(
        *_dask_table(frame, y), callbacks=[Checkpoint(path, every=3)])
    theirs = BoostClassifier(10, **params).fit(frame, y)
    assert "term" in {h.to_dict()["type"] for h in theirs.model_.hypotheses[:6]}
    _assert_same_model(resumed, theirs, 1e-9)


@pytest.mark.slow
def test_inferred_text_with_calibration_and_early_stopping(client):
    """The text kind inferred from the values, the default calibration on the local fit's
    held-out rows, early stopping on an eval_set, multiclass labels: the local model,
    rounds and probabilities."""
    frame, y = _table(900, seed=3)
    y = y + 2 * (frame["x"].to_numpy() < -0.5)
    held, y_held = frame.iloc[::4].reset_index(drop=True), y[::4]
    params = {"n_estimators": 30, "weak_learner": "stump", "early_stopping": True,
              "n_iter_no_change": 3}
    theirs = BoostClassifier(**params).fit(frame, y, eval_set=[(held, y_held)])
    mine = DaskBoostClassifier(client=client, **params).fit(
        *_dask_table(frame, y), eval_set=[(dd.from_pandas(held, npartitions=2), y_held)])
    assert mine.encoder_.kinds == ["continuous", "text"]
    _assert_same_model(mine, theirs, 1e-9)
    assert mine.best_iteration_ == theirs.best_iteration_
    np.testing.assert_allclose(mine.predict_proba(held), theirs.predict_proba(held),
                               rtol=1e-9)


@pytest.mark.slow
def test_the_default_calibration_bins_each_run_on_its_own_rows(client):
    """Without an eval_set the calibration runs train on their own rows, whose text
    vocabularies and bins are their own, as the local ones are: the same temperature and
    probabilities."""
    frame, y = _table(400, seed=1)
    params = {"n_estimators": 10, "weak_learner": "stump", "feature_types": {"note": "text"}}
    theirs = BoostClassifier(**params).fit(frame, y)
    mine = DaskBoostClassifier(client=client, **params).fit(*_dask_table(frame, y))
    assert mine.calibrator_.slope == pytest.approx(theirs.calibrator_.slope, rel=1e-9)
    np.testing.assert_allclose(mine.predict_proba(frame), theirs.predict_proba(frame),
                               rtol=1e-9)
