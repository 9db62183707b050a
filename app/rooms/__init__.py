"""Rooms: tables people join by code, their live connections, and the one registry of them."""
