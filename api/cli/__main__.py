"""`python -m api.cli ...`: the same as the `alcabohne` command."""

import sys

from api.cli import main

sys.exit(main())
