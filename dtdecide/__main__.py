"""Run the command line with ``python -m dtdecide``."""

from dtdecide.cli import main

raise SystemExit(main())
