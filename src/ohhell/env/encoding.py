"""The observation encoding and the action space, under their old name.

They now live in ``ohhell.encoding``, below both ``ohhell.bots`` and
``ohhell.env`` (a learned bot reads the same vector without importing the
environments). This module re-exports that package's names so that code
written as ``from ohhell.env.encoding import encode`` keeps working; modules
of this package import ``ohhell.encoding`` itself.
"""

from __future__ import annotations

from ..encoding import *  # noqa: F403 - a re-export: the names are ohhell.encoding's
from ..encoding import __all__ as __all__
