"""``ohhell site DIR`` (``ohhell.web.local.site``): every file written, a
tampered Pyodide refused, the manifest and the service worker's list valid,
and the offline server playing a match to its end under Pyodide in Node."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ohhell.cli import main
from ohhell.web.local.site import PYODIDE_FILES, SiteError, build, pyodide_folder

HERE = Path(__file__).parent


def _pyodide() -> Path:
    try:
        return pyodide_folder()
    except SiteError as err:
        if os.environ.get("OHHELL_TEST_SITE") == "1":
            pytest.fail(f"OHHELL_TEST_SITE=1 but {err}", pytrace=False)
        pytest.skip(f"no Pyodide runtime to build with ({err})")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    build(target, _pyodide())
    return target


def test_the_build_writes_every_file(site: Path) -> None:
    static = Path(__file__).parents[2] / "src" / "ohhell" / "web" / "static"
    for path in static.rglob("*"):
        if path.is_file():
            assert (site / path.relative_to(static)).is_file(), path
    for name in PYODIDE_FILES:
        assert (site / "pyodide" / name).is_file()
    for name in ("ohhell.zip", "sw.js", "site.js", "manifest.webmanifest", "icon-192.png", "icon-512.png"):
        assert (site / name).is_file(), name
    for page in site.glob("*.html"):
        html = page.read_text()
        assert '<html data-transport="local"' in html
        assert 'href="manifest.webmanifest"' in html and 'src="site.js"' in html


def test_the_manifest_and_the_service_workers_list_are_valid(site: Path) -> None:
    manifest = json.loads((site / "manifest.webmanifest").read_text())
    assert manifest["name"] and manifest["theme_color"].startswith("#") and manifest["background_color"]
    for icon in manifest["icons"]:
        data = (site / icon["src"]).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        width = int.from_bytes(data[16:20], "big")
        assert icon["sizes"] == f"{width}x{width}"
    sw = (site / "sw.js").read_text()
    files = json.loads(re.search(r"const FILES = (\[.*?\]);", sw, re.S).group(1))  # type: ignore[union-attr]
    written = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()} - {"sw.js"}
    assert {f.removeprefix("./") for f in files} == written  # every file cached, each exists
    assert re.search(r'const VERSION = "[0-9a-f]{16}";', sw)


def test_a_tampered_pyodide_is_refused(tmp_path: Path) -> None:
    source = _pyodide()
    copy = tmp_path / "pyodide"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("*.map", "*.d.ts", "*.html"))
    with (copy / "pyodide.asm.js").open("a") as f:
        f.write("\n// changed\n")
    with pytest.raises(SiteError, match=r"pyodide.asm.js is not the file of pyodide .*npm ci"):
        build(tmp_path / "out", copy)
    assert not (tmp_path / "out").exists()


def test_without_pyodide_the_command_says_to_run_npm_ci(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["site", str(tmp_path / "out"), "--pyodide", str(tmp_path / "none")]) == 2
    assert "npm ci" in capsys.readouterr().err


def test_the_offline_server_plays_a_match_under_pyodide(site: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the offline server is not run under Pyodide here")
    run = subprocess.run(
        [node, str(HERE / "play_in_pyodide.mjs"), str(site), "intermediate"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["phase"] == "over"
    assert result["resumed"] == result["version"]  # the kept state replays to where the match ended
    from ohhell import loads

    record = loads(result["record"])  # what ohhell replay reads
    assert record.tags and ("app", "ohhell site") in record.tags


def test_ohhell_serve_serves_the_site_at_site(tmp_path: Path) -> None:
    _pyodide()
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient
    from web_support import make_app

    with TestClient(make_app(str(tmp_path / "t.db"))) as client:
        page = client.get("/site/table.html?t=abc")
        assert page.status_code == 200 and '<html data-transport="local"' in page.text
        # Its worker compiles WebAssembly: allowed here, and only here.
        assert "'wasm-unsafe-eval'" in page.headers["content-security-policy"]
        assert "'wasm-unsafe-eval'" not in client.get("/").headers["content-security-policy"]
        assert client.get("/site/sw.js").status_code == 200
        assert client.get("/site/pyodide/pyodide.asm.wasm").status_code == 200
