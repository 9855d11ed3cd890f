"""Players' accounts and what hangs on them (docs/web.md, "Accounts"):

- ``model``: accounts, passwords (argon2id) and sessions, and the seats an
  account played;
- ``passkeys``: signing in with WebAuthn;
- ``routes``: all of it over HTTP, with the session cookie and the limits
  on tries, and the account pages;
- ``ratings``: OpenSkill ratings of finished matches, the leaderboard
  (the arithmetic is ``ohhell.skill``'s);
- ``profile``: a player's statistics from their matches and reviews.
"""
