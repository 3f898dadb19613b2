"""The Hugging Face hub, for intake (submissions) and the benchmark importer: the one hub client (client.py), hub
id validation (ids.py), the precision catalogue (precisions.py), what the hub says about a model (facts.py) and
whether it may be evaluated (checks.py). A layer below the apps: it imports none of them, nor Django."""
