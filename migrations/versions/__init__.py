"""One module per migration, oldest first by revision."""
