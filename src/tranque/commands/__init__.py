"""Subcommands of the `tranque` command that belong to no other room."""
