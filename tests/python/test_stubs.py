"""The type stubs (.pyi) say what the module has: each public module's stub names exactly its
__all__, and each attribute a stub gives a class exists on the class itself."""

from __future__ import annotations

import ast
import importlib
import pathlib

import pytest

import inferlint

PACKAGE = pathlib.Path(inferlint.__file__).parent
MODULES = ["inferlint", "inferlint.telemetry", "inferlint.bootlog", "inferlint.series", "inferlint.benchresult",
           "inferlint.checks"]


def _stub(module: str) -> ast.Module:
    name = "__init__" if module == "inferlint" else module.split(".")[1]
    return ast.parse((PACKAGE / f"{name}.pyi").read_text(encoding="utf-8"))


def _top_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname for a in node.names if a.asname)  # `import X as X` re-exports
    return names


@pytest.mark.parametrize("module", MODULES)
def test_stub_names_what_the_module_exports(module):
    mod = importlib.import_module(module)
    assert _top_names(_stub(module)) == set(mod.__all__)


@pytest.mark.parametrize("module", MODULES)
def test_stub_class_attributes_exist(module):
    mod = importlib.import_module(module)
    for node in _stub(module).body:
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(mod, node.name)
        for item in node.body:
            name = item.target.id if isinstance(item, ast.AnnAssign) else getattr(item, "name", None)
            if name and name != "__init__":
                assert hasattr(cls, name), f"{module}.{node.name}.{name}"
