"""``python -m parlor.training``: the ``parlor`` command line."""
import sys

from parlor.cli import main

sys.exit(main())
