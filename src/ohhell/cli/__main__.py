"""``python -m ohhell.cli``: the ``ohhell`` command."""

import sys

from . import main

sys.exit(main())
