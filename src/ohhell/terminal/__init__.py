"""The terminal front ends: the session that runs one person's match, the line mode and
the full-screen app."""
