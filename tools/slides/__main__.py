"""``python -m tools.slides figures|deck CHAPTER... --out DIR``: see ``tools/slides/__init__.py``."""

from tools.slides import main

main()
