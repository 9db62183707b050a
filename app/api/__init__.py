"""HTTP and WebSocket routes: thin layers over the rooms, the engine and storage."""
