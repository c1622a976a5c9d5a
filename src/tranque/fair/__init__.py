"""Verifiable deals: commitments, seeds, the HMAC stream, shuffle and verify; the commands that
check a record without trusting the server (``replay``, ``deal``, ``verify``). Imports rules and
the command line's shared error only."""
