"""``python -m penlearn.cli``: the ``penlearn`` command."""

import sys

from penlearn.cli.main import main

sys.exit(main())
