"""Doctest collection of the package: skip a front end or an environment whose
optional extra is not installed, instead of failing to import it."""

import importlib.util


def _missing(*modules: str) -> bool:
    return not all(importlib.util.find_spec(m) for m in modules)


# This file has no doctest, and collecting it as one would import it again
# under the name "conftest", which tests/terminal/conftest.py holds already.
collect_ignore = ["conftest.py"]
# Alembic runs the migrations' environment and revisions itself, on the
# connection it is given: imported here, env.py would look for one.
collect_ignore.append("ohhell/web/storage/migrations")
if _missing("textual"):  # the tui extra
    collect_ignore.append("ohhell/tui")
if _missing("starlette", "sqlalchemy", "uvicorn"):  # the web extra
    collect_ignore += ["ohhell/web", "ohhell/serve.py"]
if _missing("fpdf"):  # the pdf extra
    collect_ignore.append("ohhell/scoresheet.py")
if _missing("pettingzoo", "gymnasium", "numpy"):  # the research extra
    collect_ignore.append("ohhell/env")
if _missing("stable_baselines3"):  # the train extra: env/sb3.py subclasses its VecEnv
    collect_ignore.append("ohhell/env/sb3.py")
if _missing("torch"):  # the train extra: the trainer is PyTorch
    collect_ignore.append("ohhell/learn")
