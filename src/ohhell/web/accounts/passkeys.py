"""Passkeys: signing in with WebAuthn (the ``webauthn`` library), as well as
or instead of a password.

A signed-in person adds a passkey (``register_options``, then
``register``); anyone signs in with one (``sign_in_options``, then
``sign_in``): the browser offers the passkeys it holds for this site, so no
name is typed. Each ceremony's challenge is random, kept in the database
(any process may finish what another began) and used once: it is deleted
as it is checked, and it expires after ``CHALLENGE_SECONDS``. The relying
party is the site's host name as the browser reached it, the origin its
scheme and host; a passkey made for one host name is refused on another.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from typing import Any, Final

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Engine
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from ..errors import TableError
from ..storage.store import metadata

CHALLENGE_SECONDS: Final = 300.0
PASSKEYS_MOST: Final = 20  # passkeys one account may hold
CREDENTIAL_MOST: Final = 16 * 1024  # bytes of a browser's answer, as JSON

passkeys_t = Table(
    "ohhell_passkeys",
    metadata,
    Column("credential_id", String(255), primary_key=True),  # base64url, as the browser names it
    Column("account_id", String(24), ForeignKey("ohhell_accounts.id"), nullable=False),
    Column("public_key", Text, nullable=False),  # base64url of the COSE key
    Column("sign_count", Integer, nullable=False),
    Column("created", Float, nullable=False),
    Column("used", Float, nullable=False),
    Index("ix_ohhell_passkeys_account_id", "account_id"),
)

challenges_t = Table(
    "ohhell_challenges",
    metadata,
    Column("challenge", String(128), primary_key=True),  # base64url
    Column("account_id", String(24)),  # the account adding a passkey; null: signing in
    Column("expires", Float, nullable=False),
)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Passkeys:
    """The WebAuthn ceremonies on one database."""

    def __init__(self, engine: Engine, site_name: str = "Oh Hell") -> None:
        self.engine = engine
        self.site_name = site_name

    def _challenge(self, account_id: str | None) -> bytes:
        challenge = secrets.token_bytes(32)
        now = time.time()
        with self.engine.begin() as db:
            db.execute(delete(challenges_t).where(challenges_t.c.expires < now))
            db.execute(
                insert(challenges_t).values(
                    challenge=_b64(challenge), account_id=account_id, expires=now + CHALLENGE_SECONDS
                )
            )
        return challenge

    def _take_challenge(self, credential: dict[str, Any], account_id: str | None) -> bytes:
        """The challenge the browser signed, once: deleted as it is found."""
        try:
            client = credential["response"]["clientDataJSON"]
            found = json.loads(_unb64(client))["challenge"]
            assert isinstance(found, str) and len(found) <= 128
        except (KeyError, TypeError, ValueError, AssertionError):
            raise TableError("the passkey's answer cannot be read") from None
        with self.engine.begin() as db:
            row = db.execute(select(challenges_t).where(challenges_t.c.challenge == found)).first()
            if row is not None:
                db.execute(delete(challenges_t).where(challenges_t.c.challenge == found))
        if row is None or row.expires < time.time() or row.account_id != account_id:
            raise TableError("that passkey request has expired: try again", status=403)
        return _unb64(found)

    # --- Adding a passkey (signed in) ---

    def held(self, account_id: str) -> list[str]:
        """The account's passkeys' ids."""
        query = select(passkeys_t.c.credential_id).where(passkeys_t.c.account_id == account_id)
        with self.engine.connect() as db:
            return [str(c) for (c,) in db.execute(query).all()]

    def register_options(self, account_id: str, name: str, rp_id: str) -> str:
        held = self.held(account_id)
        if len(held) >= PASSKEYS_MOST:
            raise TableError(f"an account holds at most {PASSKEYS_MOST} passkeys")
        options = generate_registration_options(
            rp_id=rp_id,
            rp_name=self.site_name,
            user_name=name,
            user_id=account_id.encode(),
            challenge=self._challenge(account_id),
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=_unb64(c)) for c in held],
        )
        return options_to_json(options)

    def register(self, account_id: str, credential: dict[str, Any], rp_id: str, origin: str) -> None:
        challenge = self._take_challenge(credential, account_id)
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=rp_id,
                expected_origin=origin,
            )
        except (InvalidRegistrationResponse, ValueError, KeyError, TypeError) as err:
            raise TableError(f"the passkey was not accepted: {err}", status=403) from None
        now = time.time()
        with self.engine.begin() as db:
            db.execute(
                insert(passkeys_t).values(
                    credential_id=_b64(verified.credential_id),
                    account_id=account_id,
                    public_key=_b64(verified.credential_public_key),
                    sign_count=verified.sign_count,
                    created=now,
                    used=now,
                )
            )

    # --- Signing in with one ---

    def sign_in_options(self, rp_id: str) -> str:
        options = generate_authentication_options(
            rp_id=rp_id,
            challenge=self._challenge(None),
            user_verification=UserVerificationRequirement.PREFERRED,
        )
        return options_to_json(options)

    def sign_in(self, credential: dict[str, Any], rp_id: str, origin: str) -> str:
        """The account the passkey signs in (its id); ``TableError`` if none."""
        challenge = self._take_challenge(credential, None)
        raw_id = credential.get("rawId") or credential.get("id")
        if not isinstance(raw_id, str) or len(raw_id) > 255:
            raise TableError("the passkey's answer cannot be read")
        with self.engine.connect() as db:
            row = db.execute(select(passkeys_t).where(passkeys_t.c.credential_id == raw_id)).first()
        if row is None:
            raise TableError("this passkey belongs to no account here", status=401)
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=rp_id,
                expected_origin=origin,
                credential_public_key=_unb64(row.public_key),
                credential_current_sign_count=row.sign_count,
            )
        except (InvalidAuthenticationResponse, ValueError, KeyError, TypeError) as err:
            raise TableError(f"the passkey was not accepted: {err}", status=401) from None
        with self.engine.begin() as db:
            db.execute(
                update(passkeys_t)
                .where(passkeys_t.c.credential_id == raw_id)
                .values(sign_count=verified.new_sign_count, used=time.time())
            )
        return str(row.account_id)
