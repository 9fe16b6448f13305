"""``python -m warehouse_ml.cli``: the ``warehouse-ml`` command."""

import sys

from warehouse_ml.cli.main import main

sys.exit(main())
