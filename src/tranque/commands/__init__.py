"""Subcommands of the ``tranque`` command, and the error every subcommand raises on bad input."""


class CommandError(Exception):
    """A bad argument or input file: the CLI prints it as one line and exits with code 2."""
