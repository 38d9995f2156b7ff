import sys

from parlor.training.cli import main

sys.exit(main())
