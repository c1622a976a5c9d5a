"""Benchmarks that print figures (``tranque bench ...``): the engine's hands per second, and the
load generators that drive a real server, one node or a cluster. Nothing in the product imports
this room; it imports the product only to start it and to check what it answers."""
