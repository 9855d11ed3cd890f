"""``python -m ohhell``: the ``ohhell`` command."""

import sys

from .cli import main

sys.exit(main())
