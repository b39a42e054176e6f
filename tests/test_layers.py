"""The package's shape: no module imports another in a circle, at module level or inside a
function, and no file name is used twice (the layers themselves are import-linter's
contracts in ``pyproject.toml``, checked by ``make lint``)."""

from collections import Counter
from pathlib import Path

import pytest

import confboost

grimp = pytest.importorskip("grimp")


def _circles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    order, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(module):
        order[module] = low[module] = len(order)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in order:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], order[imported])
        if low[module] == order[module]:
            component = []
            while not component or component[-1] != module:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in order:
            visit(module)
    return circles


def test_no_module_imports_another_in_a_circle():
    assert _circles(grimp.build_graph("confboost")) == []


def test_the_circle_finder_finds_a_circle():
    class Graph:
        modules = {"a", "b", "c"}

        @staticmethod
        def find_modules_directly_imported_by(module):
            return {"a": {"b"}, "b": {"a"}, "c": {"a"}}[module]

    assert _circles(Graph) == [["a", "b"]]


def test_no_file_name_is_used_twice():
    root = Path(confboost.__file__).parent
    names = Counter(path.name for path in root.rglob("*.py") if path.name != "__init__.py")
    assert [name for name, count in names.items() if count > 1] == []
