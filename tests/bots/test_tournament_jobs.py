"""``ohhell tournament --jobs``: any number of local worker processes gives the
same result as one, through the command; ``--jobs 0``/``auto`` means every
core; a run on Ray without the ray extra is refused with the extra's name."""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest

from ohhell import PRESETS
from ohhell.bots import cluster
from ohhell.bots.tournament import local_cores, run_tournament
from ohhell.cli import main
from support import untimed

SMALL = PRESETS["pagat"].replace(hand_sizes=(3, 1, 2))
ARGS = ("tournament", "--bots", "intermediate,beginner,random", "--deals", "24", "--seed", "7")
ARGS += ("--hand-sizes", "4,2,1", "--quiet", "--json")


def tournament_json(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    assert main([*ARGS, *extra]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_two_jobs_give_the_numbers_of_one(capsys: pytest.CaptureFixture[str]) -> None:
    one = tournament_json(capsys, "--jobs", "1")
    two = tournament_json(capsys, "--jobs", "2")
    assert untimed(two) == untimed(one)
    assert "seconds" in two and "median_decision_ms" in two["stats"][0]  # only these may differ
    assert untimed(tournament_json(capsys)) == untimed(one)  # the default: this process alone


def test_every_core(capsys: pytest.CaptureFixture[str]) -> None:
    one = untimed(tournament_json(capsys, "--jobs", "1"))
    assert untimed(tournament_json(capsys, "--jobs", "auto")) == one
    assert untimed(tournament_json(capsys, "--jobs", "0")) == one
    assert local_cores() >= 1


def test_more_jobs_than_chunks_and_odd_splits() -> None:
    # 5 deals over 3 or 8 workers: chunks of one deal, finishing in any order.
    bots = ["beginner", "random"]
    single = run_tournament(bots, SMALL, 5, seed=2, jobs=1, progress=False)
    for jobs in (3, 8):
        pooled = run_tournament(bots, SMALL, 5, seed=2, jobs=jobs, progress=False)
        assert pooled.per_deal == single.per_deal
        assert pooled.as_dict(timing=False) == single.as_dict(timing=False)


@pytest.mark.parametrize("value", ["-1", "two", "1.5"])
def test_a_bad_jobs_count_is_refused(capsys: pytest.CaptureFixture[str], value: str) -> None:
    with pytest.raises(SystemExit) as done:
        main([*ARGS, "--jobs", value])
    assert done.value.code == 2
    assert "give a number of jobs, or 0 or auto for every core" in capsys.readouterr().err


def test_the_help_says_what_jobs_and_ray_do(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "0 or auto: every core" in text and "(default 1, this process alone;" in text
    assert "--ray ADDRESS" in text and "pip install -e '.[ray]'" in text


def test_ray_missing_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.import_module

    def without_ray(name: str, package: str | None = None) -> Any:
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real(name, package)

    monkeypatch.setattr(cluster.importlib, "import_module", without_ray)
    # Matched as ValueError: pytest's doctest collection may import the module twice.
    with pytest.raises(ValueError, match=r"needs the ray package.*pip install -e '\.\[ray\]'"):
        run_tournament(["random"], SMALL, 1, seed=1, progress=False, ray="local")
    assert main([*ARGS, "--ray", "local"]) == 2
    err = capsys.readouterr().err
    assert "ohhell tournament: playing on Ray needs the ray package" in err and "'.[ray]'" in err
