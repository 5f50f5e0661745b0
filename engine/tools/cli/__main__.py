"""``python -m engine.tools.cli``."""

from engine.tools.cli import main

main()
