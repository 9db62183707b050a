"""The coach: grades every play of a match from what its player knew (docs/coach.md)."""
