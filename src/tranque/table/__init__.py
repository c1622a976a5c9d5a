"""The table service: one table's state machine (seats, clocks, bots, fair deals) and owner.

No sockets and no SQL here: the service talks to ports (``Clock``, ``EventLog``, ``Publisher``) that
the server and the store implement.
"""
