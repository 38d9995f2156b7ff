"""``python -m parlor.training``: the ``parlor`` command line."""
import sys

from parlor.training.cli import main

sys.exit(main())
