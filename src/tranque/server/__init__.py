"""The server: a Starlette app that parses, authenticates and delivers. No rules logic here."""
