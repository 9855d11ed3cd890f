"""``ohhell accounts``: the host's view of players' accounts (docs/hosting.md, "Accounts").

There is no e-mail server, so a person who forgot their password asks the
host: ``reset-password`` sets a new random one, printed once, and ends the
account's sessions. ``disable`` stops an account signing in (its sessions
end) until ``enable``; ``delete`` removes it as its person's own delete does.
"""

from __future__ import annotations

import argparse
import datetime
import secrets
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    """Add the ``accounts`` subcommand to the ``ohhell`` parser's subparsers."""
    from .common import command_parser, examples

    accounts = command_parser(
        sub,
        "accounts",
        help="players' accounts on the server: list, reset a password, disable, delete",
        description="The host's orders about players' accounts, on the servers' database.",
        epilog=examples(
            "ohhell accounts list",
            "ohhell accounts reset-password Ann      # prints a new password to give Ann",
            "ohhell accounts disable Ann             # cannot sign in; sessions end",
            "ohhell accounts delete Ann",
            "ohhell accounts --db postgresql+psycopg://user@db/ohhell list",
        ),
    )
    accounts.add_argument(
        "--db",
        metavar="URL",
        help="the servers' database, as given to ohhell serve --db (default: the same SQLite file)",
    )
    orders = accounts.add_subparsers(dest="order", metavar="ORDER")
    orders.add_parser("list", help="every account: name, made, sessions, seats played")
    for name, words in (
        ("reset-password", "set a new random password (printed once) and end its sessions"),
        ("disable", "stop the account signing in, and end its sessions"),
        ("enable", "let a disabled account sign in again"),
        ("delete", "delete the account; its seats keep a pseudonym"),
    ):
        order = orders.add_parser(name, help=words)
        order.add_argument("name", help="the account's name")
    accounts.set_defaults(func=cmd_accounts)


def cmd_accounts(args: argparse.Namespace) -> int:
    if args.order is None:
        print(
            "ohhell accounts: say what to do: list, reset-password, disable, enable or delete",
            file=sys.stderr,
        )
        return 2
    try:
        from ..web.accounts.model import Accounts
        from ..web.storage.store import Store
    except ImportError as err:
        print(f"ohhell accounts needs the web extra ({err.name} is missing)", file=sys.stderr)
        return 2
    try:
        store = Store(args.db, upgrade=False)  # the servers' schema is theirs to upgrade
    except Exception as err:
        print(f"ohhell accounts: {err}", file=sys.stderr)
        return 2
    try:
        accounts = Accounts(store.engine)
        if args.order == "list":
            listing = accounts.listing()
            if not listing:
                print("No accounts.")
            for each, sessions, seats in listing:
                made = datetime.datetime.fromtimestamp(each.created).strftime("%Y-%m-%d")
                marks = " (disabled)" if each.disabled else ""
                print(f"{each.name:24}  made {made}  {sessions} sessions  {seats} seats{marks}")
            return 0
        account = accounts.by_name(args.name)
        if account is None:
            print(f"ohhell accounts: no account is named {args.name!r}", file=sys.stderr)
            return 2
        if args.order == "reset-password":
            password = "-".join(secrets.token_urlsafe(4) for _ in range(4))
            accounts.set_password(account.id, password)
            accounts.close_sessions(account.id)
            print(f"{account.name}'s new password: {password}")
            print("Give it to them; they can change it once signed in.")
        elif args.order in ("disable", "enable"):
            accounts.set_disabled(account.id, args.order == "disable")
            print(f"{account.name} is {args.order}d.")
        else:
            accounts.delete(account.id)
            print(f"{account.name}'s account is deleted; its seats keep a pseudonym.")
        return 0
    finally:
        store.close()
