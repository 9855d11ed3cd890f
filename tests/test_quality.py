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
PACKAGE = ROOT / "src" / "ohhell"
CORE = ("cards", "rules", "scoring", "hand", "actions", "game", "chance", "view", "claim", "match", "record")
"""The core: the rules as data and code, standard library only."""
CLIENTS = ("analysis", "bots", "cli", "encoding", "env", "scorekeeper", "terminal", "web")
"""The client packages: each imports the core through ``ohhell``'s public names."""


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


def test_mypy_strict_on_the_whole_package() -> None:
    run = subprocess.run([*_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def _imports(path: Path) -> list[tuple[int, str | None, list[str]]]:
    """(level, module, names) of every import in ``path``, also inside functions."""
    out: list[tuple[int, str | None, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.extend((0, a.name, []) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module, [a.name for a in node.names]))
    return out


@pytest.mark.parametrize("module", CORE)
def test_core_imports_only_the_standard_library(module: str) -> None:
    for level, name, names in _imports(PACKAGE / f"{module}.py"):
        if level:  # relative: must stay inside the core
            for target in [name] if name else names:
                assert target in CORE, f"{module} imports .{target}, which is not core"
            continue
        top = (name or "").split(".")[0]
        assert top in sys.stdlib_module_names or top == "__future__", f"{module} imports {name}"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _target(module: str, is_package: bool, level: int, name: str | None) -> str:
    if not level:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges: dict[str, set[str]] = {m: set() for m in files}
    for m, path in files.items():
        for level, name, names in _imports(path):
            target = _target(m, path.name == "__init__.py", level, name)
            for n in names or [""]:
                full = f"{target}.{n}" if n else target
                dest = full if full in files else target
                # A module importing its own package's __init__ is not a circle.
                if dest in files and dest != m and not m.startswith(dest + "."):
                    edges[m].add(dest)
    return edges


def test_no_import_circles() -> None:
    edges = _graph()
    circles = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(edges[m]):
            if state.get(n) == 1:
                circles.append([*path[path.index(n) :], n])
            elif n not in state:
                walk(n, [*path, n])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            walk(m, [m])
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)


def test_no_private_names_cross_modules_and_modules_stay_small() -> None:
    for path in PACKAGE.rglob("*.py"):
        for _, name, names in _imports(path):
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            assert not private, f"{path.relative_to(ROOT)} imports {private} from {name}"
        lines = len(path.read_text().splitlines())
        assert lines <= 800, f"{path.relative_to(ROOT)} has {lines} lines (at most 800)"


def test_the_encoding_sits_below_bots_and_env() -> None:
    # A learned bot reads the vector without importing the environments, and the
    # environments import the bots: so the encoding may import neither.
    edges = _graph()
    for module, targets in edges.items():
        if module.startswith("ohhell.encoding"):
            above = [t for t in targets if t.startswith(("ohhell.bots", "ohhell.env"))]
            assert not above, f"{module} imports {above}"
        if module.startswith(("ohhell.bots", "ohhell.env")) and module != "ohhell.env.encoding":
            assert "ohhell.env.encoding" not in targets, f"{module} imports the old name ohhell.env.encoding"


@pytest.mark.parametrize("client", CLIENTS)
def test_clients_import_the_core_through_the_public_api(client: str) -> None:
    for path in (PACKAGE / client).rglob("*.py"):
        module = _module_name(path)
        for level, name, _ in _imports(path):
            target = _target(module, path.name == "__init__.py", level, name)
            parts = target.split(".")
            assert not (len(parts) == 2 and parts[0] == "ohhell" and parts[1] in CORE), (
                f"{path.relative_to(ROOT)} imports {target}: import its names from ohhell instead"
            )


REBUILDERS = {
    "game.py": "defines apply",
    "chance.py": "advance_chance, for bots' and benches' own searches and playouts",
    "match.py": "the referee: the one driver of a match",
    "record.py": "replays a finished or saved record",
    "web/tables/table.py": "rebuilds a table from its stored log before handing it to the referee",
    "web/local/table.py": "the offline site's table, rebuilt from the log the browser kept, likewise",
    "web/frames.py": "turns a finished record into frames for the replay page (server and site)",
    "bots/ismcts.py": "plays out the worlds a search imagines, never the match",
}
"""Modules that may call ``apply``/``advance_chance`` themselves, and why."""


def test_only_the_referee_drives_a_match() -> None:
    # Every match loop (terminal session, web table, bot matches, tournaments,
    # simulation, the research environment) goes through ohhell.Match.
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        calls = {
            node.func.id
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        driving = calls & {"apply", "advance_chance"}
        assert not driving or name in REBUILDERS, f"{name} calls {sorted(driving)}: go through ohhell.Match"
