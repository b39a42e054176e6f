"""Mixed-type data: categorical and term learners, the best over feature kinds, the estimator."""

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from confboost import BoostClassifier
from confboost.data import dataset as dataset_module
from confboost.data.columns import FrameEncoder, infer_feature_types
from confboost.data.dataset import LabelSigns, TextColumn
from confboost.data.postings import TermVocabulary, TextExpert
from confboost.engine.learners import make_learner
from confboost.engine.learners import term as term_module
from confboost.engine.learners.categorical import CategoricalLearner
from confboost.engine.learners.stump import StumpLearner
from confboost.engine.learners.term import (
    TermLearner,
    signed_sums,
    term_block_stats,
    term_sums,
)
from confboost.estimators import load
from confboost.kernels.criterion_numpy import MODES, partition_z
from confboost.kernels.term_masses import (
    present_criteria,
    present_criteria_naive,
    present_sums,
    present_sums_naive,
)
from confboost.kernels.value_masses import value_histogram, value_histogram_naive
from tests.helpers import mixed_frame, random_postings, table_fit_parts


def test_first_term_and_confidences_by_hand():
    # Five documents, uniform weights 1/5, one label column, epsilon = 1/(2 m k) = 0.1.
    # Terms and the documents holding them (labels + + - - +):
    #   cheap {0,1,3}: present W+ .4 W- .2, absent W+ .2 W- .2 -> Z = 2(sqrt(.08) + .2)
    #   flights {1}:   present W+ .2,       absent W+ .4 W- .4 -> Z = 2(.4)       = .8
    #   meeting {2,3}: present W- .4,       absent W+ .6       -> Z = 0
    #   notes {2}:     present W- .2,       absent W+ .6 W- .2 -> Z = 2 sqrt(.12)
    #   pills {0,4}:   present W+ .4,       absent W+ .2 W- .4 -> Z = 2 sqrt(.08)
    documents = ["cheap pills", "cheap flights", "meeting notes", "cheap meeting", "pills"]
    y = np.array([1, 1, 0, 0, 1])
    clf = BoostClassifier(n_estimators=1).fit(pd.DataFrame({"text": documents}), y)
    first = clf.model_.hypotheses[0]
    assert first.term == "meeting"
    assert clf.history_["criterion"][0] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(first.values, [[0.5 * np.log(0.1 / 0.5)], [0.5 * np.log(0.7 / 0.1)]])
    # real-abstain: Z = W0 + 2 sqrt(P+ P-): meeting .6 + 0, pills .6 + 0 (tie: first term),
    # cheap .4 + 2 sqrt(.08), flights .8, notes .8
    clf = BoostClassifier(n_estimators=1, confidence="real-abstain").fit(
        pd.DataFrame({"text": documents}), y)
    first = clf.model_.hypotheses[0]
    assert first.term == "meeting"
    assert clf.history_["criterion"][0] == pytest.approx(0.6)
    np.testing.assert_allclose(first.values, [[0.5 * np.log(0.1 / 0.5)], [0.0]])



@pytest.mark.parametrize("mode", sorted(MODES.values()))
@pytest.mark.parametrize("k", [1, 4])
def test_present_sums_and_criteria_equal_naive(rng, mode, k):
    indptr, indices = random_postings(rng, 60, 700, 0.05)
    signs = np.where(rng.random((60, k)) < 0.4, 1, -1).astype(np.int8)
    weights = rng.random((60, k))
    weights /= weights.sum()
    total_pos = np.where(signs > 0, weights, 0).sum(axis=0)
    total_neg = np.where(signs < 0, weights, 0).sum(axis=0)
    lists = rng.integers(0, 700, 900).astype(np.int32)  # some lists twice, some never
    present_pos, present_all = np.full((900, k), np.nan), np.full((900, k), np.nan)
    present_sums(indptr, indices, lists, weights, signs, present_pos, present_all)
    naive_pos, naive_all = present_sums_naive(indptr, indices, lists, weights, signs)
    np.testing.assert_allclose(present_pos, naive_pos, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(present_all, naive_all, rtol=1e-12, atol=1e-15)
    for u in (0, 1, 899):  # added in list order: a loop's bits
        pos, every = np.zeros(k), np.zeros(k)
        for i in indices[indptr[lists[u]]:indptr[lists[u] + 1]]:
            pos += np.where(signs[i] > 0, weights[i], 0.0)
            every += weights[i]
        assert np.array_equal(present_pos[u], pos) and np.array_equal(present_all[u], every)
    out = np.empty(900)
    present_criteria(present_pos, present_all, total_pos, total_neg, mode, 1.0, out)
    np.testing.assert_allclose(
        out, present_criteria_naive(present_pos, present_all, total_pos, total_neg, mode, 1.0),
        rtol=1e-10, atol=1e-12)
    for u in (0, 1, 511, 512, 899):  # the sums label by label, as the paper's terms: to the bit
        assert out[u] == _z_of_present(present_pos[u], present_all[u], total_pos, total_neg,
                                       mode, 1.0)


def _z_of_present(present_pos, present_all, total_pos, total_neg, mode, total):
    """Z of one term test, label by label in Python: the present block's cell, then the
    absent block's (or its mass, abstaining), as the learner has always added them."""
    real, abstain = mode in (MODES["real"], MODES["real-abstain"]), mode == MODES["abstain"]
    abstaining = mode in (MODES["abstain"], MODES["real-abstain"])

    def cell(pos, neg):
        return math.sqrt(pos * neg) if real else max(pos, neg) if abstain else abs(pos - neg)

    u = v = w0 = 0.0
    for label in range(present_pos.shape[0]):
        p_pos = float(present_pos[label])
        p_neg = max(float(present_all[label]) - p_pos, 0.0)
        a_pos, a_neg = max(total_pos[label] - p_pos, 0.0), max(total_neg[label] - p_neg, 0.0)
        u += cell(p_pos, p_neg)
        v += min(p_pos, p_neg)
        if abstaining:
            w0 += a_pos + a_neg
        else:
            u += cell(a_pos, a_neg)
    if mode == MODES["real"]:
        return 2.0 * u
    if mode == MODES["discrete"]:
        return math.sqrt(max(total * total - u * u, 0.0))
    return w0 + 2.0 * (math.sqrt(u * v) if abstain else u)


@pytest.mark.parametrize("mode", sorted(MODES.values()))
def test_scoring_every_term_gives_the_distinct_lists_fit_to_the_bit(rng, mode):
    """A shard's column of a cluster scores each term (``per_term``); on the whole set it
    gives the fit of the distinct lists, bit for bit: a term's Z is its list's."""
    frame = mixed_frame(rng, 200)[0]
    frame.loc[[3, 7], "text"] = ["cheap rare words", "free rare words"]  # two terms, a list
    Y = np.where(rng.random((200, 3)) < 0.4, 1, -1)
    _, dataset, _, labels, weights = table_fit_parts(frame, Y, rng)
    per_term = [TextColumn(column.column, column.terms, *_term_postings(column), per_term=True)
                for column in dataset.text]
    assert all(np.array_equal(mine.scored_list, column.term_list)
               and np.array_equal(mine.scored_first_term, np.arange(column.n_terms))
               for mine, column in zip(per_term, dataset.text, strict=True))
    assert sum(c.scored_list.shape[0] for c in dataset.text) < sum(c.n_terms for c in per_term)
    theirs = TermLearner(mode, 0.01).fit(dataset, weights, labels)
    mine = TermLearner(mode, 0.01).fit(dataclasses.replace(dataset, text=per_term), weights,
                                       labels)
    assert mine.hypothesis.to_dict() == theirs.hypothesis.to_dict()
    assert mine.criterion == theirs.criterion
    for name in ("weight_pos", "weight_neg", "train_blocks"):
        assert np.array_equal(getattr(mine, name), getattr(theirs, name)), name
    for index, (mine_column, column) in enumerate(zip(per_term, dataset.text, strict=True)):
        pos, every = term_sums(dataclasses.replace(dataset, text=per_term), weights, labels,
                               [(index, 0, mine_column.n_terms)])
        list_pos, list_every = term_sums(dataset, weights, labels,
                                         [(index, 0, column.scored_list.shape[0])],
                                         out=np.full((2, column.scored_list.shape[0], 3),
                                                     np.nan))
        assert np.array_equal(pos, list_pos[column.term_list])
        assert np.array_equal(every, list_every[column.term_list])


def _term_postings(column):
    """CSC postings (indptr, indices) of every term of a ``TextColumn``, int32."""
    lists = [column.postings(term) for term in range(column.n_terms)]
    indptr = np.concatenate([[0], np.cumsum([rows.shape[0] for rows in lists])])
    return indptr.astype(np.int32), np.concatenate(lists + [[]]).astype(np.int32)


@pytest.mark.parametrize("k", [1, 3])
def test_value_histogram_equals_naive_in_any_order(rng, k):
    codes = rng.integers(-1, 5, size=200).astype(np.int32)
    signs = np.where(rng.random((200, k)) < 0.5, 1, -1).astype(np.int8)
    weights = rng.random((200, k))
    expected = value_histogram_naive(codes, 5, weights, signs)
    order = rng.permutation(200)
    for got in (value_histogram(codes, 5, weights, signs),
                value_histogram(codes[order], 5, weights[order], signs[order])):
        np.testing.assert_allclose(got[0], expected[0])
        np.testing.assert_allclose(got[1], expected[1])


def _brute_force(dataset, frame, weights, signs, mode):
    """Every categorical and term candidate's block statistics and Z, from the raw frame."""
    raw = FrameEncoder.from_table(frame, {"row": "ignore"}).transform(frame)
    total = weights.sum()
    candidates = []
    for column in dataset.categorical:
        for value in column.values:
            blocks = raw.categorical_blocks(column.column, value)
            candidates.append((3, np.array([False, False, True]), blocks, ("c", value)))
    for column in dataset.text:
        for term in column.terms:
            blocks = raw.term_blocks(column.column, term)
            candidates.append((2, np.array([False, True]), blocks, ("t", term)))
    results = []
    for n_blocks, abstaining, blocks, key in candidates:
        pos = np.array([[weights[(blocks == j) & (signs[:, l] > 0), l].sum()
                         for l in range(signs.shape[1])] for j in range(n_blocks)])
        neg = np.array([[weights[(blocks == j) & (signs[:, l] < 0), l].sum()
                         for l in range(signs.shape[1])] for j in range(n_blocks)])
        z = partition_z(pos[None], neg[None], abstaining, mode, total)[0]
        results.append((z, key, pos, neg))
    return results


@pytest.mark.parametrize("confidence", sorted(MODES))
def test_learners_equal_brute_force_from_the_examples(rng, confidence):
    mode = MODES[confidence]
    frame, Y = mixed_frame(rng)
    encoder = FrameEncoder.from_table(frame, {"row": "ignore"}, TextExpert("ngram", 2))
    dataset = encoder.fit_dataset(frame, 255)
    signs = np.where(Y > 0, 1, -1).astype(np.int8)
    weights = rng.random(Y.shape)
    weights /= weights.sum()
    labels = LabelSigns.from_signs(signs)
    brute = _brute_force(dataset, frame.assign(text=frame.text), weights, signs, mode)
    for learner, kind in ((CategoricalLearner(mode, 0.01), "c"), (TermLearner(mode, 0.01), "t")):
        fit = learner.fit(dataset, weights, labels)
        candidates = [entry for entry in brute if entry[1][0] == kind]
        best = min(entry[0] for entry in candidates)
        assert fit.criterion == pytest.approx(best, rel=1e-10, abs=1e-12)
        name = (fit.hypothesis.value if kind == "c" else fit.hypothesis.term)
        chosen = next(entry for entry in candidates if entry[1][1] == name)
        assert chosen[0] == pytest.approx(best, rel=1e-10, abs=1e-12)
        np.testing.assert_allclose(fit.weight_pos, chosen[2], atol=1e-12)
        np.testing.assert_allclose(fit.weight_neg, chosen[3], atol=1e-12)
        if kind == "t":  # the first term with these documents (terms sharing them tie)
            column = dataset.text[0]
            term = column.terms.index(name)
            postings = column.postings(term)
            assert not any(np.array_equal(column.postings(t), postings) for t in range(term))
        # train blocks agree with the raw-frame blocks of the chosen hypothesis
        raw = encoder.transform(frame)
        np.testing.assert_array_equal(fit.train_blocks, fit.hypothesis.blocks(raw))
    mixed = make_learner("stump", dataset, mode, 0.01).fit(dataset, weights, labels)
    stump = StumpLearner(mode, 0.01).fit(dataset, weights, labels)
    assert stump.hypothesis.feature in dataset.numeric_columns  # a table position
    assert mixed.criterion == pytest.approx(min(min(e[0] for e in brute), stump.criterion))


@pytest.mark.parametrize("confidence", sorted(MODES))
def test_mixed_dataframe_bound_every_round_and_save_load(rng, tmp_path, confidence):
    frame, Y = mixed_frame(rng)
    clf = BoostClassifier(n_estimators=40, confidence=confidence,
                          feature_types={"row": "ignore"},
                          text_expert=TextExpert("ngram", 2)).fit(frame, Y)
    history = clf.history_
    assert np.all(history["train_loss"] <= history["bound"] * (1 + 1e-12))
    kinds = {type(h).__name__ for h in clf.model_.hypotheses}
    assert len(kinds) >= 2
    clf.save(tmp_path / "model.json")
    again = load(tmp_path / "model.json")
    np.testing.assert_array_equal(again.decision_function(frame), clf.decision_function(frame))
    staged = list(clf.staged_decision_function(frame))
    np.testing.assert_allclose(staged[-1], clf.decision_function(frame))
    assert clf.feature_importances_[3] == 0.0  # the ignored column
    assert clf.feature_importances_.sum() == pytest.approx(1.0)


def test_single_label_mixed_and_predict_proba(rng):
    frame, Y = mixed_frame(rng)
    y = np.array(["spam", "colour", "other"])[np.argmax(Y, axis=1)]
    clf = BoostClassifier(n_estimators=30, init="balanced").fit(frame.drop(columns="row"), y)
    assert set(clf.predict(frame)) <= set(y)
    proba = clf.predict_proba(frame)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(clf.history_["train_loss"] <= clf.history_["bound"] * (1 + 1e-12))


def test_numeric_dataframe_keeps_the_fast_path(rng):
    X = pd.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    y = (X["a"] > 0).to_numpy()
    from_frame = BoostClassifier(n_estimators=10).fit(X, y)
    from_array = BoostClassifier(n_estimators=10).fit(X.to_numpy(), y)
    assert not hasattr(from_frame, "encoder_")
    np.testing.assert_array_equal(from_frame.decision_function(X),
                                  from_array.decision_function(X.to_numpy()))


def test_inference_rules():
    n = 40
    frame = pd.DataFrame({
        "number": np.arange(n, dtype=float),
        "flag": np.arange(n) % 2 == 0,
        "colour": ["red", "blue"] * (n // 2),
        "code": [f"c{i}" for i in range(n)],
        "sentence": [f"word {i} here" for i in range(n)],
        "category": pd.Categorical([f"v{i}" for i in range(n)]),
    })
    assert infer_feature_types(frame) == {
        "number": "continuous", "flag": "continuous", "colour": "categorical",
        "code": "categorical", "sentence": "text", "category": "categorical"}
    assert infer_feature_types(frame, {"code": "ignore"})["code"] == "ignore"


def test_bad_mixed_input_gives_clear_errors(rng):
    frame, Y = mixed_frame(rng)
    with pytest.raises(ValueError, match="must be one of"):
        BoostClassifier(feature_types={"text": "words"}).fit(frame, Y)
    with pytest.raises(ValueError, match="does not have"):
        BoostClassifier(feature_types={"nope": "text"}).fit(frame, Y)
    with pytest.raises(ValueError, match="needs X to be a DataFrame"):
        BoostClassifier(feature_types={"a": "text"}).fit(np.zeros((4, 2)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="not a number"):
        BoostClassifier(feature_types={"colour": "continuous"}).fit(frame, Y)
    with pytest.raises(ValueError, match="not text"):
        BoostClassifier(text_expert={"colour": TextExpert()}).fit(frame, Y)
    clf = BoostClassifier(n_estimators=3).fit(frame, Y)
    with pytest.raises(ValueError, match="must be a DataFrame"):
        clf.predict(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="lacks the columns"):
        clf.predict(frame.drop(columns="text"))
    with pytest.raises(ValueError, match="rows but y has"):
        BoostClassifier().fit(frame, Y[:-1])


def test_distinct_posting_lists_cover_every_term_once(rng):
    frame, _ = mixed_frame(rng)
    expert = TextExpert("ngram", 2)
    encoder = FrameEncoder.from_table(frame, {"row": "ignore"}, expert)
    column = encoder.fit_dataset(frame, 255).text[0]
    texts = [text if isinstance(text, str) else None for text in frame["text"]]
    csc, _ = TermVocabulary().fit_transform(texts, expert)  # the full postings
    lists = [tuple(column.distinct_indices[column.distinct_indptr[u]:
                                           column.distinct_indptr[u + 1]])
             for u in range(column.distinct_first_term.shape[0])]
    assert len(set(lists)) == len(lists) < len(column.terms)  # bigrams repeat unigrams' lists
    assert np.all(np.diff(column.distinct_first_term) > 0)
    assert column.n_terms == len(column.terms) == csc.shape[1]
    for term in range(len(column.terms)):
        postings = tuple(csc.indices[csc.indptr[term]: csc.indptr[term + 1]])
        u = lists.index(postings)
        assert column.term_list[term] == u and tuple(column.postings(term)) == postings
        assert column.distinct_first_term[u] <= term


def test_distinct_posting_lists_survive_hash_collisions(monkeypatch):
    # every list hashes alike: the lists are told apart by their rows, and moved in place
    monkeypatch.setattr(dataset_module, "hash", lambda value: 7, raising=False)
    indptr = np.array([0, 2, 3, 5, 6, 8, 9], dtype=np.int32)
    indices = np.array([0, 1, 2, 0, 1, 3, 0, 1, 2], dtype=np.int32)  # lists a b a c a b
    column = TextColumn(0, list("uvwxyz"), indptr, indices)
    np.testing.assert_array_equal(column.term_list, [0, 1, 0, 2, 0, 1])
    np.testing.assert_array_equal(column.distinct_first_term, [0, 1, 3])
    np.testing.assert_array_equal(column.distinct_indptr, [0, 2, 3, 4])
    np.testing.assert_array_equal(column.distinct_indices, [0, 1, 2, 3])
    for term, rows in enumerate([[0, 1], [2], [0, 1], [3], [0, 1], [2]]):
        np.testing.assert_array_equal(column.postings(term), rows)


@pytest.mark.parametrize("k", [1, 2, 5])
def test_term_block_stats_by_slices_are_the_plain_sums_to_the_bit(monkeypatch, rng, k):
    n = 500
    weights = rng.random((n, k)) * 10.0 ** rng.integers(-9, 2, size=(n, k))
    signs = np.where(rng.random((n, k)) < 0.4, 1, -1).astype(np.int8)
    rows = np.sort(rng.choice(n, size=347, replace=False))
    total_pos = np.where(signs > 0, weights, 0.0).sum(axis=0)
    total_neg = np.where(signs < 0, weights, 0.0).sum(axis=0)
    w, s = weights[rows], signs[rows]
    plain_pos, plain_neg = np.where(s > 0, w, 0.0).sum(axis=0), np.where(s < 0, w, 0.0).sum(axis=0)
    monkeypatch.setattr(term_module, "_ROWS_AT_ONCE", 16)
    pos, neg = term_block_stats(*signed_sums(weights, signs, rows), total_pos, total_neg)
    assert np.array_equal(pos[0], plain_pos) and np.array_equal(neg[0], plain_neg)
    np.testing.assert_array_equal(pos[1], np.maximum(total_pos - plain_pos, 0.0))
    np.testing.assert_array_equal(neg[1], np.maximum(total_neg - plain_neg, 0.0))
    empty = term_block_stats(*signed_sums(weights, signs, rows[:0]), total_pos, total_neg)
    np.testing.assert_array_equal(empty[0], [np.zeros(k), total_pos])
    if k > 1:  # every row, by slices: the masked sums of the term learner's totals
        every = signed_sums(weights, signs)
        assert np.array_equal(every[0], np.sum(weights, axis=0, where=signs > 0))
        assert np.array_equal(every[1], np.sum(weights, axis=0, where=signs < 0))
