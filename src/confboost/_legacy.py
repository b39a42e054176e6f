"""The module paths of confboost 0.1, before the package moved into layered folders.

A pickle or joblib file names the module of every class it holds, and user code may import
a module by its old path. Each old path below still imports, as the module it became, with
a ``FutureWarning`` naming the new path; classes keep one identity, so a pickle written
before the move loads and predicts as before. The old paths go in confboost 0.3
(``CHANGELOG.md``).

The finder answers only for these names, and first, so that an old package's submodules
(``confboost.learners.stump``) resolve here and never load a second copy of a module.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: Old module path -> the module it became.
MOVED = {
    "confboost._dtypes": "confboost.utils.dtypes",
    "confboost._sparse": "confboost.utils.sparse",
    "confboost._threads": "confboost.utils.threads",
    "confboost.untrusted": "confboost.utils.untrusted",
    "confboost.kernels.binning": "confboost.kernels.bin_codes",
    "confboost.kernels.categorical": "confboost.kernels.value_masses",
    "confboost.kernels.cover": "confboost.kernels.block_cover",
    "confboost.kernels.criterion": "confboost.kernels.criterion_numba",
    "confboost.criterion": "confboost.kernels.criterion_numpy",
    "confboost.kernels.predict": "confboost.kernels.stump_predict",
    "confboost.kernels.product": "confboost.kernels.product_split",
    "confboost.kernels.split": "confboost.kernels.stump_split",
    "confboost.kernels.text": "confboost.kernels.term_masses",
    "confboost.kernels.tree": "confboost.kernels.tree_nodes",
    "confboost.kernels.tree_shap": "confboost.kernels.shap_paths",
    "confboost.kernels.trim": "confboost.kernels.weight_trim",
    "confboost.kernels.update": "confboost.kernels.weight_update",
    "confboost.data.binning": "confboost.data.bin_mapper",
    "confboost.data.terms": "confboost.data.text_experts",
    "confboost.data.text": "confboost.data.postings",
    "confboost.alpha": "confboost.engine.alpha",
    "confboost.confidence": "confboost.engine.confidence",
    "confboost.model": "confboost.engine.model",
    "confboost.boosting": "confboost.engine.boosting",
    "confboost.learners": "confboost.engine.learners",
    "confboost.learners.base": "confboost.engine.learners.base",
    "confboost.learners.best_of": "confboost.engine.learners.best_of",
    "confboost.learners.categorical": "confboost.engine.learners.categorical",
    "confboost.learners.grower": "confboost.engine.learners.grower",
    "confboost.learners.product": "confboost.engine.learners.product",
    "confboost.learners.splitter": "confboost.engine.learners.splitter",
    "confboost.learners.stump": "confboost.engine.learners.stump",
    "confboost.learners.term": "confboost.engine.learners.term",
    "confboost.learners.tree": "confboost.engine.learners.tree",
    "confboost.learners.tree_hypothesis": "confboost.engine.learners.tree_hypothesis",
    "confboost.schemes": "confboost.engine.schemes",
    "confboost.schemes.codes": "confboost.engine.schemes.codes",
    "confboost.schemes.mh": "confboost.engine.schemes.mh",
    "confboost.schemes.mo": "confboost.engine.schemes.mo",
    "confboost.schemes.mr": "confboost.engine.schemes.mr",
    "confboost.tree_shap": "confboost.explain.tree_shap",
    "confboost.rules": "confboost.explain.rules",
    "confboost.metrics": "confboost.evaluation.metrics",
    "confboost.fmeasure": "confboost.evaluation.fmeasure",
    "confboost.margins": "confboost.evaluation.margins",
    "confboost.fitting": "confboost.training.fit_runs",
    "confboost.inputs": "confboost.training.inputs",
    "confboost.holdout": "confboost.training.holdout",
    "confboost.targets": "confboost.training.targets",
    "confboost.calibration": "confboost.training.calibration",
    "confboost.checkpoint": "confboost.training.checkpoint",
    "confboost._params": "confboost.training.params",
    "confboost.persistence": "confboost.formats.model_json",
    "confboost.formats.lines": "confboost.formats.file_lines",
    "confboost.booster": "confboost.estimators.booster",
    "confboost.interpret": "confboost.estimators.inspection",
    "confboost.dask_input": "confboost.dask.partitions",
    "confboost.dask_mr": "confboost.dask.shards",
    "confboost.dask_shards": "confboost.dask.shards",
    "confboost.dask_trees": "confboost.dask.collective",
    "confboost.cli_boostexter": "confboost.cli.boostexter_commands",
    "confboost.cli_icsiboost": "confboost.cli.icsiboost_flags",
    "confboost.cli_stems": "confboost.cli.stems",
    "confboost.cli_train": "confboost.cli.train_command",
}


class MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module path as the module it became, with a ``FutureWarning``."""

    def __init__(self):
        self._specs = {}  # old path -> the new module's spec, between create and exec

    def find_spec(self, fullname, path=None, target=None):
        """A spec for an old path in ``MOVED``; None for every other name."""
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        """The new module itself (imported if need be), so that classes keep one identity."""
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {new} in confboost 0.2; the old path goes in "
                      "0.3 (re-save pickled models with the new release)", FutureWarning,
                      stacklevel=2)
        module = importlib.import_module(new)
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        """Nothing to run: the module's own spec, which the import system replaced, is put
        back."""
        module.__spec__ = self._specs.pop(module.__spec__.name)


def install():
    """Put the finder first on ``sys.meta_path``, once."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
