import sys

from .cli import main

if __name__ == "__main__":  # vLLM spawns its engine processes, which re-import the main module
    sys.exit(main())
