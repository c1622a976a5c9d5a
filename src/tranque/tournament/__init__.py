"""Tournaments: a Swiss of fixed pairs, as Cuba plays its double-nine championship, and arenas
that seat whoever is free for as long as the clock runs.

The rules of a tournament (who meets whom, who sits out, how the standings rank) are pure
functions of its file (``tranque-tournament/1``, ``model``): the command line, the simulation
and the service call the same ones, so a file written by any of them can be checked by any
other. ``swiss`` ranks and pairs a Swiss, ``arena`` scores and seats an arena, ``simulate``
plays a whole tournament with bots on a simulated clock, ``commands`` is ``tranque tournament``.
"""
