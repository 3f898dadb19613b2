"""Settings: base.py (shared), local.py (embedded defaults), test.py, production.py.

Every value that varies by deployment is read from the environment through
``env.py``, which fails loudly on a malformed value instead of guessing.
"""
