"""The work behind each ``cucumber`` subcommand, one module a command.

``app/cli.py`` parses the options and calls these with plain values; they
print to the streams they are given and return the exit status.
"""
