"""The type stubs (laddu_cpp/__init__.pyi) describe the module: every exported name has a stub,
and every method or property a stub class declares exists at run time."""

import ast
import pathlib

import laddu_cpp as ld

STUB = pathlib.Path(ld.__file__).with_name("__init__.pyi")


def stub_tree():
    return ast.parse(STUB.read_text())


def test_every_export_has_a_stub():
    tree = stub_tree()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    missing = [name for name in ld.__all__ if name not in names]
    assert not missing, f"exports without a stub: {missing}"


def test_stub_members_exist_at_run_time():
    missing = []
    for node in stub_tree().body:
        if not isinstance(node, ast.ClassDef) or not hasattr(ld, node.name):
            continue
        cls = getattr(ld, node.name)
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and not hasattr(cls, item.name):
                missing.append(f"{node.name}.{item.name}")
    assert not missing, f"stubbed but missing: {missing}"
