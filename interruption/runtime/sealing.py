"""Sealed turns: an `InterruptedTurn` in a signed token, for stateless servers.

A server without a store hands the client a token instead of keeping the
turn: `Sealer.seal` signs the whole authoritative turn into a JWT (PyJWT,
HS256), and `Sealer.open` verifies it when the client comes back, so that
`validate_resume` runs against a turn the server itself wrote, never one the
client could edit.

The token's header names its key (``kid``), so keys rotate: sign with the
active key, keep the previous ones in the mapping until their tokens expire,
then drop them. Its claims carry ``jti`` (unique per token), ``iat``,
``exp``, ``aud`` (the channel that minted it), ``sub`` (the session),
``tid`` (the turn id) and ``turn`` (the turn itself). `Sealer.redeem` makes a
turn single-use through a store: it validates the resume first, then spends
the turn (session, turn id) once, whichever of its tokens carries it.

Every token is bound to the channel that minted it: ``aud`` is
`SEALED_TURN_AUDIENCE` for a turn `Sealer.redeem` serves, or an adapter's
own audience for the run state it seals, and every open checks it (PyJWT's
strict audience check). A token of one channel never opens at another, so
a pause is answered, and spent, only through the door it was sealed for.

Every token that does not verify raises `ResumeRejected` with one `Problem`
coded ``bad_token`` (or ``expired``), whose message says what was expected
and what was got; no PyJWT exception escapes.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import types
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Literal, final

import attrs
import jwt

from interruption.errors import (
    ArgumentTypeError,
    DecodeError,
    InvalidArgument,
    ProblemCode,
    ResumeRejected,
)
from interruption.resume import InterruptedTurn, Resume
from interruption.runtime.admission import interrupt_keys, record_paused
from interruption.validation import (
    ResolvedResume,
    ResumePolicy,
    audit_event,
    utc_now,
    validate_and_spend,
)

if TYPE_CHECKING:
    from interruption.runtime.store import Store
from interruption.wire import (
    JSON,
    STORED_DEPTH,
    describe,
    dumps,
    loads,
    structure,
    unstructure,
)

__all__ = [
    "MAX_TOKEN_CHARS",
    "MIN_KEY_BYTES",
    "SEALED_TURN_AUDIENCE",
    "Opened",
    "Sealer",
    "spent_key",
]

MIN_KEY_BYTES: Final = 32
"""The shortest HS256 key accepted: as long as the hash (RFC 7518 §3.2)."""

MAX_TOKEN_CHARS: Final = 8 * 1_048_576
"""The default size limit of a sealed token, in characters."""

SEALED_TURN_AUDIENCE: Final = "interruption.sealing"
"""The ``aud`` of a sealed turn: the channel `Sealer.redeem` serves.

It is the default audience of `Sealer.seal` and `Sealer.open`; an adapter
that seals its framework's state names its own module instead.
"""

_HEADER_BYTES: Final = 4096
_HEADER_DEPTH: Final = 2
_SHAPE: Final = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+", re.ASCII)
_REQUIRED: Final = ("jti", "iat", "aud", "sub", "tid", "turn")


def spent_key(turn: InterruptedTurn) -> str:
    """The key a store spends for a sealed *turn*: its session and turn id."""
    return dumps(["sealed", turn.session, turn.turn_id])


def _frozen_keys(keys: Mapping[str, bytes]) -> Mapping[str, bytes]:
    return types.MappingProxyType(dict(keys))


def _check_keys(
    instance: Sealer,
    attribute: attrs.Attribute[Mapping[str, bytes]],
    keys: Mapping[str, bytes],
) -> None:
    del instance, attribute
    for key_id, key in keys.items():
        if type(key_id) is not str or not key_id:
            raise InvalidArgument("keys", "non-empty string key ids", repr(key_id))
        if not isinstance(key, bytes):
            where = f"keys[{key_id!r}]"
            raise ArgumentTypeError(where, "bytes", type(key).__name__)
        if len(key) < MIN_KEY_BYTES:
            expected = f"at least {MIN_KEY_BYTES} bytes for HS256"
            raise InvalidArgument(f"keys[{key_id!r}]", expected, str(len(key)))


def _aware(now: datetime | None) -> datetime:
    if now is None:
        return utc_now()
    if now.utcoffset() is None:
        raise InvalidArgument("now", "a timezone-aware datetime", "a naive one")
    return now


def _channel(audience: str) -> str:
    if type(audience) is not str or not audience:
        raise InvalidArgument("audience", "a non-empty string", repr(audience))
    return audience


def _moment(seconds: int, claim: str = "exp") -> datetime:
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        message = f"token claim {claim!r}: expected a date, got {seconds!r} seconds"
        raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message) from None


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _segment(text: str, name: str) -> bytes:
    """Decode one base64url segment, refusing every non-canonical spelling."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        message = f"token {name}: expected base64url, got {len(text)} characters"
        raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message) from None
    if base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii") != text:
        message = (
            f"token {name}: expected canonical base64url, got unused bits set "
            "(the token was altered)"
        )
        raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
    return raw


@final
@attrs.frozen
class Opened:
    """A verified token: the turn, and the claims a store needs.

    Attributes:
        turn: The authoritative turn the token carried.
        jti: The token's unique id (single use is per turn: see
            `Sealer.redeem`).
        key_id: The key that verified it.
        issued_at: When it was sealed (whole seconds).
        expires_at: When it stops verifying (whole seconds), or None.
    """

    turn: InterruptedTurn
    jti: str
    key_id: str
    issued_at: datetime
    expires_at: datetime | None


@final
@attrs.frozen
class Sealer:
    """Seals turns into signed tokens and opens them again.

    Args:
        keys: Secret keys by key id, each at least 32 random bytes; every
            key verifies, so keep a retired key here until its tokens expire.
        active: The id of the key that signs new tokens.
        algorithm: The signature algorithm; only HS256.
        leeway: Clock skew allowed when checking ``exp``.
        max_ttl: The longest a token lives, or None for tokens that live as
            long as their turn (forever, for a turn without ``expires_at``).
            While set, a token without ``exp`` is refused.
        max_token_chars: The largest token sealed or opened.

    Raises:
        InvalidArgument: if *active* is not in *keys*, a key id is empty, a
            key is shorter than 32 bytes, *leeway* is negative, *max_ttl* is
            not positive, or *algorithm* is not HS256 (a `ValueError`).
        ArgumentTypeError: if a key is not bytes (a `TypeError`).
    """

    keys: Mapping[str, bytes] = attrs.field(
        converter=_frozen_keys, validator=_check_keys, repr=False
    )
    active: str
    algorithm: Literal["HS256"] = attrs.field(default="HS256", kw_only=True)
    leeway: timedelta = attrs.field(default=timedelta(0), kw_only=True)
    max_ttl: timedelta | None = attrs.field(default=timedelta(hours=24), kw_only=True)
    max_token_chars: int = attrs.field(default=MAX_TOKEN_CHARS, kw_only=True)

    def __attrs_post_init__(self) -> None:
        if self.active not in self.keys:
            raise InvalidArgument("active", "one of the key ids", repr(self.active))
        if self.algorithm != "HS256":
            raise InvalidArgument("algorithm", "'HS256'", repr(self.algorithm))
        if self.leeway < timedelta(0):
            raise InvalidArgument("leeway", "zero or more", str(self.leeway))
        if self.max_ttl is not None and self.max_ttl <= timedelta(0):
            expected = "a positive duration or None"
            raise InvalidArgument("max_ttl", expected, str(self.max_ttl))

    def seal(
        self,
        turn: InterruptedTurn,
        *,
        now: datetime | None = None,
        audience: str = SEALED_TURN_AUDIENCE,
    ) -> str:
        """Sign *turn* into a token with the active key, for one channel.

        ``exp`` is the turn's ``expires_at``, capped at *now* + ``max_ttl``;
        a token gets no ``exp`` only when both are absent. A turn that has
        already expired still seals; its token opens as ``expired``.

        Args:
            turn: The authoritative turn.
            now: The sealing time (default: the clock), timezone-aware.
            audience: The channel the token is for (its ``aud``); it opens
                only where that audience is expected. The default is the
                sealed turn that `redeem` serves.

        Returns:
            The token (compact JWS, ASCII).

        Raises:
            InvalidArgument: if *now* is naive, *audience* is empty, or the token
                would exceed ``max_token_chars`` (keep such a turn in a
                store).
        """
        moment = _aware(now)
        ends = [] if turn.expires_at is None else [turn.expires_at]
        if self.max_ttl is not None:
            ends.append(moment + self.max_ttl)
        claims: dict[str, Any] = {
            "jti": uuid.uuid4().hex,
            "iat": math.floor(moment.timestamp()),
            "aud": _channel(audience),
            "sub": turn.session,
            "tid": turn.turn_id,
            "turn": unstructure(turn),
        }
        if ends:
            claims["exp"] = math.floor(min(ends).timestamp())
        token = jwt.encode(
            claims,
            self.keys[self.active],
            algorithm=self.algorithm,
            headers={"kid": self.active},
        )
        if len(token) > self.max_token_chars:
            expected = f"a token of at most {self.max_token_chars} characters"
            got = f"{len(token)}; keep this turn in a store"
            raise InvalidArgument("turn", expected, got)
        return token

    def open(
        self,
        token: str,
        *,
        now: datetime | None = None,
        audience: str = SEALED_TURN_AUDIENCE,
    ) -> InterruptedTurn:
        """Verify *token* and return the turn it carries.

        Args:
            token: A token from `seal`, as the client sent it back.
            now: The time to check ``exp`` against (default: the clock).
            audience: The channel asking: the token's ``aud`` must be
                exactly this (the default: a sealed turn).

        Returns:
            The authoritative turn, for `validate_resume`.

        Raises:
            ResumeRejected: ``bad_token`` if the token is malformed, altered,
                signed with another algorithm or an unknown or retired key,
                minted for another audience (an adapter's run state), or its
                claims disagree with the turn; ``expired`` past its ``exp``.
            InvalidArgument: if *now* is naive or *audience* is empty.
        """
        return self.open_with_claims(token, now=now, audience=audience).turn

    def open_with_claims(
        self,
        token: str,
        *,
        now: datetime | None = None,
        audience: str = SEALED_TURN_AUDIENCE,
    ) -> Opened:
        """Verify *token*; return the turn with ``jti`` and its times.

        Args:
            token: A token from `seal`, as the client sent it back.
            now: The time to check ``exp`` against (default: the clock).
            audience: The channel asking, as in `open`.

        Returns:
            The turn, the token's ``jti``,
            the verifying key's id, and when it was issued and expires.

        Raises:
            ResumeRejected: as `open` does.
            InvalidArgument: if *now* is naive or *audience* is empty.
        """
        moment = _aware(now)
        channel = _channel(audience)
        key_id = self._key_id(token)
        claims = self._verified(token, key_id, channel)
        expires_at = self._expiry(claims, moment)
        jti = claims["jti"]
        if type(jti) is not str or not jti:
            message = f"token claim 'jti': expected a non-empty string, got {jti!r}"
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
        issued = claims["iat"]
        if type(issued) is not int:
            message = f"token claim 'iat': expected an integer, got {issued!r}"
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
        turn = _turn(claims)
        return Opened(turn, jti, key_id, _moment(issued, "iat"), expires_at)

    async def redeem(  # noqa: PLR0913 - keyword-only options
        self,
        token: str,
        resume: Resume,
        store: Store,
        *,
        session: str,
        policy: ResumePolicy | None = None,
        now: datetime | None = None,
    ) -> ResolvedResume:
        """Open *token*, validate *resume* against its turn, then spend the turn.

        The one call a stateless server needs: the token must verify, be
        minted for this channel (`SEALED_TURN_AUDIENCE`: an adapter's token
        never redeems here) and carry a turn of *session* (the session the
        caller serves), the resume is authorized and validated against that
        turn (`validate_and_spend`), and only then is the turn spent in *store*,
        once per (session, turn id) whichever token carries it: a resealed
        turn (a page reload) does not resume twice, and a bad answer burns
        nothing. The spent mark is kept as long as any token of the turn
        could verify (past its ``expires_at`` plus ``leeway``; for ever when
        the turn never expires). The attempt joins *store*'s audit trail of
        the session (`audit_event`): ``accepted`` in the spend's own
        transaction, ``rejected`` with its problem codes once the token has
        opened (a token that does not open names no turn to file it under).

        Args:
            token: A token from `seal`, as the client sent it back.
            resume: The client's answers.
            store: Where spent turns are marked (any `Store`).
            session: The session the caller expects the token to belong to.
            policy: Partial resumes, the clock, expiry answers,
                authorization; by default strict, with *now* as its clock.
            now: The time to check ``exp`` against (default: the clock).

        Returns:
            The validated answers; continue with `continue_resolved`.

        Raises:
            ResumeRejected: ``bad_token`` or ``expired`` as `open` does
                (``bad_token`` for a token minted for another audience), or
                ``bad_token`` for a token of another session or for a turn
                *store* keeps (a `Session`'s: answer it there); then every
                problem `validate_and_spend` finds, ``consumed`` when the
                turn was already resumed.
            InvalidArgument: if *now* is naive.
        """
        moment = _aware(now)
        turn = self.open(token, now=moment, audience=SEALED_TURN_AUDIENCE)
        if turn.session != session:
            message = (
                f"token: expected a turn of session {session!r}, got one of "
                f"another session; it was sealed for {turn.session!r}"
            )
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
        if await store.load_turn(session, turn.turn_id) is not None:
            # A turn a Session keeps is consumed in its own row, not under
            # this key: through two doors it would be resumed twice.
            message = (
                f"token: turn {turn.turn_id} of session {session!r} is kept by "
                "the store; answer it through its Session"
            )
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
        keep_until = (
            turn.expires_at + self.leeway if turn.expires_at is not None else None
        )
        key = spent_key(turn)
        policy = policy or ResumePolicy(now=lambda: moment)
        await record_paused(
            store,
            turn.interrupts,
            interrupt_keys("sealed", turn.interrupts, key),
            session=session,
            at=turn.created_at,
            turn_id=turn.turn_id,
            keep_until=keep_until,
        )

        async def spend(_kept: Resume) -> bool:
            event = audit_event(turn, "accepted", policy, resume)
            return await store.spend_all((key,), keep_until, (event,))

        try:
            return await validate_and_spend(resume, turn, spend, policy=policy)
        except ResumeRejected as rejected:
            event = audit_event(turn, "rejected", policy, resume, rejected)
            await store.log(event, resume)
            raise

    def _key_id(self, token: object) -> str:
        """Check the token's shape and header; return the key id it names."""
        if type(token) is not str:
            message = f"token: expected a string, got {type(token).__name__}"
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
        if len(token) > self.max_token_chars:
            message = (
                f"token: expected at most {self.max_token_chars} characters, "
                f"got {len(token)}"
            )
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
        if not _SHAPE.fullmatch(token):
            message = (
                "token: expected three base64url segments joined by '.', got "
                f"{token.count('.') + 1} segment(s) of {len(token)} characters"
            )
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
        header_text, payload_text, signature_text = token.split(".")
        header_raw = _segment(header_text, "header")
        _segment(payload_text, "payload")
        _segment(signature_text, "signature")
        try:
            header = loads(
                header_raw,
                dict[str, JSON],
                max_bytes=_HEADER_BYTES,
                max_depth=_HEADER_DEPTH,
            )
        except DecodeError as error:
            message = f"token header: expected a JSON object, got {error}"
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message) from None
        algorithm = header.get("alg")
        if algorithm != self.algorithm:
            message = (
                f"token header 'alg': expected {self.algorithm!r}, got {algorithm!r}"
            )
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
        key_id = header.get("kid")
        if type(key_id) is not str:
            message = f"token header 'kid': expected a key id, got {key_id!r}"
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
        if key_id not in self.keys:
            message = (
                f"token header 'kid': expected a key this server holds, got "
                f"{key_id!r} (unknown or retired); seal the turn again"
            )
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
        return key_id

    def _verified(self, token: str, key_id: str, audience: str) -> dict[str, Any]:
        """Check the signature with *key_id*'s key and the audience; the claims."""
        options: Any = {
            "verify_signature": True,
            "verify_exp": False,  # checked against the caller's clock below
            "verify_iat": False,
            "verify_nbf": False,
            "verify_aud": True,
            "strict_aud": True,  # one audience, a string, exactly this one
            "verify_iss": False,
            "verify_sub": False,
            "verify_jti": False,
            "require": [*_REQUIRED, *(("exp",) if self.max_ttl is not None else ())],
        }
        try:
            return jwt.decode(
                token,
                self.keys[key_id],
                algorithms=[self.algorithm],
                audience=audience,
                options=options,
            )
        except jwt.InvalidSignatureError:
            message = (
                f"token signature: expected one made with key {key_id!r}, got "
                "another; the token was altered or signed with a different key"
            )
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message) from None
        except jwt.InvalidAudienceError:
            # Raised only once the signature verified: the claims are genuine.
            got = jwt.decode(token, options={"verify_signature": False})["aud"]
            message = (
                f"token claim 'aud': expected {audience!r}, got {describe(got)}; "
                "the token was minted for another channel"
            )
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message) from None
        except jwt.MissingRequiredClaimError as error:
            message = f"token claims: expected {error.claim!r}, got none"
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message) from None
        except jwt.PyJWTError as error:
            message = f"token: expected a signed JWT of claims, got {error}"
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message) from None

    def _expiry(self, claims: dict[str, Any], now: datetime) -> datetime | None:
        """Refuse a token past its ``exp`` (plus leeway); return its ``exp``."""
        if "exp" not in claims:
            return None
        ends = claims["exp"]
        if type(ends) is not int:
            message = f"token claim 'exp': expected an integer, got {ends!r}"
            raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
        expires_at = _moment(ends)
        if now >= expires_at + self.leeway:
            message = (
                f"token expired at {_stamp(expires_at)}; it is now {_stamp(now)} "
                f"(leeway {self.leeway}); the turn can no longer be resumed"
            )
            raise ResumeRejected.of(ProblemCode.EXPIRED, message)
        return expires_at


def _turn(claims: dict[str, Any]) -> InterruptedTurn:
    """Decode the ``turn`` claim strictly; it must agree with sub and tid."""
    try:
        turn = structure(claims["turn"], InterruptedTurn, max_depth=STORED_DEPTH)
    except DecodeError as error:
        message = f"token claim 'turn': expected an interrupted turn, got {error}"
        raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message) from None
    session, turn_id = claims["sub"], claims["tid"]
    if session != turn.session:
        message = (
            f"token claim 'sub': expected the turn's session {turn.session!r}, "
            f"got {session!r}"
        )
        raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
    if type(turn_id) is not int or turn_id != turn.turn_id:
        message = (
            f"token claim 'tid': expected the turn's id {turn.turn_id}, got {turn_id!r}"
        )
        raise ResumeRejected.of(ProblemCode.BAD_TOKEN, message)
    return turn
