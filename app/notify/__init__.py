"""Telling players it is their turn: Web Push and chat webhooks."""
