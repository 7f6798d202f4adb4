"""The audit trail's record: what happened to a turn, who did it, and when.

A core record: validation writes it (`interruption.admit`), the stores keep
it, and the published JSON Schemas describe it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, TypeAlias, final

import attrs

__all__ = ["AuditEvent", "AuditKind"]

AuditKind: TypeAlias = Literal[
    "paused", "accepted", "rejected", "cancelled", "expired", "recovered"
]
"""What happened to a turn.

``paused``: it was kept, with what was pending; ``accepted``: a resume
consumed it; ``rejected``: a resume or a cancel was refused (nothing
changed); ``cancelled`` and ``expired``: it was closed without a
continuation; ``recovered``: a continuation cut short by a crash was taken
up again.
"""


@final
@attrs.frozen
class AuditEvent:
    """One entry of a session's audit trail: what happened to one turn.

    Attributes:
        session: The session.
        turn_id: The turn it happened to (for a rejected attempt at a turn
            the session never had, its latest turn).
        kind: What happened (`AuditKind`).
        at: When, by the session's clock.
        principal: Who acted, when known.
        codes: The distinct problem codes of a rejected attempt, in the
            order they were first reported.
        digest: The SHA-256 of the wire form of the resume that was
            accepted or rejected (`interruption.wire_digest`), so an
            attempt can be matched to a request log without the trail
            keeping what was sent.
        pending: The ids of the interrupts pending when the turn paused.
        reason: Why a turn was cancelled; for an ``accepted`` answer that
            came another way than a plain one, how (`admit`'s *note*).
    """

    session: str
    turn_id: int
    kind: AuditKind
    at: datetime
    principal: str | None = None
    codes: tuple[str, ...] = ()
    digest: str | None = None
    pending: tuple[str, ...] = ()
    reason: str | None = None
