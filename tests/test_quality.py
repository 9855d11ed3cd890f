"""The code's own standards: lint, format, strict types on the core, and a core
that imports only the standard library."""

from __future__ import annotations

import ast
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ("cards", "rules", "scoring", "game", "view", "record", "scorekeeper")


def _tool(name: str) -> list[str]:
    if importlib.util.find_spec(name) is None and shutil.which(name) is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return [sys.executable, "-m", name]


def test_ruff_check_is_clean() -> None:
    run = subprocess.run([*_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_format_is_clean() -> None:
    run = subprocess.run([*_tool("ruff"), "format", "--check", "."], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_strict_on_the_core() -> None:
    run = subprocess.run([*_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("module", CORE)
def test_core_imports_only_the_standard_library(module: str) -> None:
    tree = ast.parse((ROOT / "src" / "ohhell" / f"{module}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: must stay inside the core
                assert node.module in CORE, f"{module} imports .{node.module}, which is not core"
                continue
            names = [node.module or ""]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or top == "__future__", f"{module} imports {name}"
