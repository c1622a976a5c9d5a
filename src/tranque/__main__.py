"""``python -m tranque``: the same as the ``tranque`` command."""

import sys

from tranque.cli import main

sys.exit(main())
