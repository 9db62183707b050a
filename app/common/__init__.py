"""What every layer above the engine uses: room codes, tokens and ids, checking the names people type, and
waits that end."""
