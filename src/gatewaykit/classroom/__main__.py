"""``python -m gatewaykit.classroom``: see :mod:`gatewaykit.classroom.cli`."""

import sys

from gatewaykit.classroom.cli import main

sys.exit(main())
