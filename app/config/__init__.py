"""The server's settings, read from the environment once at start (docs/configuration.md)."""
