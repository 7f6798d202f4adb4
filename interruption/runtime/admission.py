"""The adapters' one sequence: authorize, validate, spend once, audit.

A pause another framework keeps (a LangGraph checkpoint, a run an adapter
keeps, an MCP form) is answered through `admit`, which runs the core's
`validate_and_spend` against what the framework's own state shows, spends
each interrupt on the one key every door builds for it (`pause_key`,
`interrupt_keys`) in a `Store`, and files every attempt in the audit trail.
`unspent` and `record_paused` list and file what is pending; `refuse` files
a refusal an adapter makes before `admit` can. Every adapter, and every
`Bridge`, answers through here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Final

import attrs

from interruption.audit import AuditEvent
from interruption.errors import Problem, ProblemCode, ResumeRejected
from interruption.parts import ToolResponse
from interruption.resume import (
    InterruptedTurn,
    PendingInterrupt,
    Respond,
    Restart,
    Resume,
    answer_key,
)
from interruption.runtime.store import Store
from interruption.validation import (
    ResolvedResume,
    ResumePolicy,
    audit_event,
    authorize_shown,
    utc_now,
    validate_and_spend,
)
from interruption.wire import digest

__all__ = [
    "ADAPTER_TURN",
    "PAUSED_MARK",
    "admit",
    "interrupt_keys",
    "pause_key",
    "record_paused",
    "refuse",
    "unspent",
]

Key = tuple[str, str]


async def admit(  # noqa: PLR0913 - keyword-only options
    resume: Resume,
    interrupts: Sequence[PendingInterrupt],
    store: Store,
    *,
    session: str,
    keys: Mapping[str, str],
    policy: ResumePolicy | None = None,
    keep_until: datetime | None = None,
    completed: Sequence[ToolResponse] = (),
    dismissed: bool = False,
    note: str | None = None,
    filed: Mapping[str, str] | None = None,
    events: Sequence[AuditEvent] = (),
) -> ResolvedResume:
    """`validate_and_spend` for a pause another framework keeps (adapters).

    The framework's own state is authoritative (a checkpoint, a run state
    kept server-side): *interrupts* are read from it, never from anything
    the client sent back. Each interrupt is spent on its own key (*keys*),
    so a pause is spent once however its answers are split or batched, and
    whichever adapter, process or token the answer comes through, as long
    as every door builds the same key for it (`pause_key`). In order:

    1. the principal is authorized for every interrupt in *interrupts*,
       spent or not (a refusal names nothing, whatever was named; with an
       authorizer and no interrupt, every principal is refused:
       `authorize_shown`, as in `refuse`);
    2. an answer to an interrupt whose key is spent is ``consumed``, whatever
       else is wrong with the resume;
    3. the resume is validated against the interrupts not yet spent;
    4. the answered interrupts' keys (with *dismissed*, every one still
       pending) are spent together, with an ``accepted`` audit event in the
       same transaction; a batch that lost a race on any of them is
       ``consumed`` whole, and nothing of it is spent.

    Every refusal is logged as a ``rejected`` audit event (with the
    principal and the problem codes); the audit trail is *session*'s.

    Args:
        resume: What the client sent.
        interrupts: What is really pending, from the framework's state.
        store: Where spent pauses are marked and the audit trail is kept.
        session: The conversation (a thread id, a run id): messages and the
            audit trail.
        keys: Each interrupt's id -> the key that spends it, once, ever.
        policy: Partial resumes, the clock, authorization; strict by default.
        keep_until: Keep the spent marks at least until then; None for ever.
        completed: Results of calls that finished beside the pause.
        dismissed: The client closed the pause without answering it (MCP's
            decline): what it leaves unanswered is spent all the same.
        note: How the answer came, kept as the ``accepted`` event's
            ``reason`` (MCP's ``"decline"`` or ``"cancel"``, ADK's
            ``"progress"``); None for a plain answer.
        filed: Each interrupt's id -> the key its pause is filed under
            (`record_paused`), when it is not its key in *keys* (a progress
            report spends keys of its own, but answers the pause whose
            result *keys* would spend); None: *keys*.
        events: More audit events of this answer (an adapter's standing
            decisions), written after the ``accepted`` one in the spend's
            own transaction: only if it spends.

    Returns:
        The validated answers, in the order of *interrupts*.

    Raises:
        ResumeRejected: as `validate_and_spend`; ``consumed`` when an
            answered interrupt was spent already.
        KeyError: if *keys* lacks an interrupt's id (the adapter's bug).
    """
    policy = policy or ResumePolicy()
    now = policy.now()
    spent = await _meet(
        store,
        interrupts,
        keys,
        keys if filed is None else filed,
        session=session,
        at=now,
        keep_until=keep_until,
    )
    named = _named(resume)
    live = tuple(pending for pending in interrupts if keys[pending.id] not in spent)
    turn = InterruptedTurn(
        session=session,
        turn_id=ADAPTER_TURN,
        messages=(),
        interrupts=live,
        completed=tuple(completed),
        created_at=now,
    )

    async def replayed() -> bool:
        return (bool(interrupts) and not live) or any(
            answer_key(pending) in named
            for pending in interrupts
            if keys[pending.id] in spent
        )

    async def spend(kept: Resume) -> bool:
        answered = _named(kept)
        chosen = [p for p in live if dismissed or answer_key(p) in answered]
        if dismissed:
            # A dismissal answers what it leaves unanswered, as late as an
            # answer would be: an expired pause takes it no more than one.
            unanswered = [p for p in chosen if answer_key(p) not in answered]
            _refuse_late(turn, unanswered, now)
        pending = tuple(p.id for p in chosen)
        event = audit_event(
            turn, "accepted", policy, resume, pending=pending, reason=note
        )
        return await store.spend_all(
            [keys[p.id] for p in chosen], keep_until, (event, *events)
        )

    checked = policy
    try:
        if policy.authorize is not None:
            # Whatever is spent, a refused principal learns nothing: it is
            # authorized for everything the framework shows, spent or not
            # (nothing shown: no principal, `nothing_shown`).
            await authorize_shown(
                attrs.evolve(turn, interrupts=tuple(interrupts)),
                policy.authorize,
                policy.principal,
            )
            checked = attrs.evolve(policy, authorize=None)
        return await validate_and_spend(
            resume, turn, spend, policy=checked, spent=replayed
        )
    except ResumeRejected as rejected:
        await store.log(audit_event(turn, "rejected", policy, resume, rejected), resume)
        raise


def _refuse_late(
    turn: InterruptedTurn, closed: Sequence[PendingInterrupt], now: datetime
) -> None:
    """Refuse a dismissal of *closed* if one of them expired by *now*.

    Raises:
        ResumeRejected: an ``expired`` problem for each expired pause.
    """
    late = [
        Problem(
            ProblemCode.EXPIRED,
            f"{pending.id} expired at {ends.isoformat()}",
            interrupt_id=pending.id,
        )
        for pending in closed
        if (ends := turn.expiry_of(pending)) is not None and now >= ends
    ]
    if late:
        raise ResumeRejected(late)


async def refuse(  # noqa: PLR0913 - keyword-only options
    rejected: ResumeRejected,
    resume: Resume,
    store: Store,
    *,
    session: str,
    policy: ResumePolicy | None = None,
    shown: Sequence[PendingInterrupt] = (),
) -> ResumeRejected:
    """File a refusal in *session*'s audit trail, as `admit` does; return it.

    For an adapter that refuses before `admit` can (its framework shows
    nothing pending, for example a replay after the run went on), so that
    every refused attempt through every door is in the trail::

        raise await refuse(rejected, resume, store, session=thread)

    As in `admit`, the principal is authorized first, against *shown* (the
    pause the resume answers, when the adapter knows it): a refused one gets
    ``not_authorized`` instead of *rejected*, and learns nothing of it. With
    an authorizer and nothing shown (the adapter knows no pause to ask
    about), every principal gets ``not_authorized`` (`authorize_shown`), as
    `Session` answers for a session that never paused.
    """
    policy = policy or ResumePolicy()
    turn = InterruptedTurn(
        session=session,
        turn_id=ADAPTER_TURN,
        messages=(),
        interrupts=tuple(shown),
        completed=(),
        created_at=policy.now(),
    )
    try:
        await authorize_shown(turn, policy.authorize, policy.principal)
    except ResumeRejected as refused:
        rejected = refused
    await store.log(audit_event(turn, "rejected", policy, resume, rejected), resume)
    return rejected


def _named(resume: Resume) -> set[Key]:
    """The ``(name, ref)`` of every entry of *resume*."""
    entries: list[Respond | Restart] = [*resume.respond, *resume.restart]
    return {(entry.name, entry.ref) for entry in entries}


ADAPTER_TURN: Final = 1
"""The turn id of an adapter's pause in `admit` and its audit trail."""


async def unspent(
    interrupts: Sequence[PendingInterrupt],
    keys: Mapping[str, str],
    store: Store,
    *,
    session: str | None = None,
    at: datetime | None = None,
) -> tuple[PendingInterrupt, ...]:
    """What of *interrupts* is still answerable: those whose key is not spent.

    An adapter lists only these as pending: an interrupt answered through
    any door (whose continuation may still be running) is no longer shown.
    With *session*, a pause listed for the first time is also filed in its
    audit trail (`record_paused`, at *at*, by default now).
    """
    if session is None:
        spent = await store.spent([keys[pending.id] for pending in interrupts])
    else:
        moment = at if at is not None else utc_now()
        spent = await _meet(store, interrupts, keys, keys, session=session, at=moment)
    return tuple(pending for pending in interrupts if keys[pending.id] not in spent)


PAUSED_MARK: Final = "paused:"
"""What `record_paused` prefixes to an interrupt's spend key for its mark."""


async def record_paused(  # noqa: PLR0913 - keyword-only options
    store: Store,
    interrupts: Sequence[PendingInterrupt],
    keys: Mapping[str, str],
    *,
    session: str,
    at: datetime,
    turn_id: int = ADAPTER_TURN,
    keep_until: datetime | None = None,
) -> bool:
    """File a ``paused`` audit event for what of *interrupts* is new to *store*.

    A pause another framework keeps (or a sealed turn) never passes through
    a store when it is made, so the library files it the first time it meets
    it: when an adapter lists it (`unspent` with a session) or answers it
    (`admit`), or a sealed turn is redeemed. Each interrupt is filed once,
    whichever door, process or token meets it first: its mark (`PAUSED_MARK`
    and its spend key) is set in the same transaction as the event
    (`Store.spend_all`), so two doors racing file it once.

    Args:
        store: Where the audit trail and the marks are kept.
        interrupts: What the framework shows as pending.
        keys: Each interrupt's id -> its spend key.
        session: Whose audit trail.
        at: When the library met the pause (its own clock, or the sealed
            turn's ``created_at``).
        turn_id: The turn it is filed under (`ADAPTER_TURN` for adapters).
        keep_until: Keep the marks at least until then; None for ever.

    Returns:
        Whether an event was filed now.
    """
    marks = _marks(interrupts, keys)
    if not marks:
        return False
    _, filed = await _read_and_file(
        store, marks, (), session=session, at=at, turn_id=turn_id, keep_until=keep_until
    )
    return filed


def _marks(
    interrupts: Sequence[PendingInterrupt], keys: Mapping[str, str]
) -> dict[str, list[str]]:
    """Each paused mark -> the ids of the interrupts it files (`record_paused`).

    Interrupts that share a spend key (the calls of one LangChain review)
    share its mark, and are filed together.
    """
    marks: dict[str, list[str]] = {}
    for pending in interrupts:
        marks.setdefault(PAUSED_MARK + keys[pending.id], []).append(pending.id)
    return marks


async def _file_paused(  # noqa: PLR0913 - keyword-only options
    store: Store,
    marks: Mapping[str, Sequence[str]],
    seen: frozenset[str],
    *,
    session: str,
    at: datetime,
    turn_id: int,
    keep_until: datetime | None,
) -> bool:
    """File the interrupts of *marks* not *seen* yet, with their marks, once."""
    new = [mark for mark in marks if mark not in seen]
    if not new:
        return False
    pending = tuple(found for mark in new for found in marks[mark])
    event = AuditEvent(session, turn_id, "paused", at, pending=pending)
    return await store.spend_all(new, keep_until, (event,))


async def _meet(  # noqa: PLR0913 - keyword-only options
    store: Store,
    interrupts: Sequence[PendingInterrupt],
    keys: Mapping[str, str],
    filed: Mapping[str, str],
    *,
    session: str,
    at: datetime,
    keep_until: datetime | None = None,
) -> frozenset[str]:
    """File the pause (`record_paused`, under *filed*) and read what is spent.

    One read of the store for both: the paused marks and the spend *keys*.

    Returns:
        Those of the interrupts' spend keys already spent.
    """
    spend = [keys[pending.id] for pending in interrupts]
    spent, _ = await _read_and_file(
        store,
        _marks(interrupts, filed),
        spend,
        session=session,
        at=at,
        turn_id=ADAPTER_TURN,
        keep_until=keep_until,
    )
    return spent


async def _read_and_file(  # noqa: PLR0913 - keyword-only options
    store: Store,
    marks: Mapping[str, Sequence[str]],
    spend: Sequence[str],
    *,
    session: str,
    at: datetime,
    turn_id: int,
    keep_until: datetime | None,
) -> tuple[frozenset[str], bool]:
    """Read *marks* and *spend* in one store read; file the marks not seen.

    Returns:
        Those of *spend* already spent, and whether a ``paused`` event was
        filed now.
    """
    found = await store.spent([*marks, *spend])
    filed = await _file_paused(
        store,
        marks,
        found,
        session=session,
        at=at,
        turn_id=turn_id,
        keep_until=keep_until,
    )
    return frozenset(key for key in spend if key in found), filed


def pause_key(framework: str, *parts: str) -> str:
    """The key that spends one pause a framework keeps, whoever reads it.

    Two adapters that can see the same pause (LangGraph's own interrupts
    and LangChain's middleware, both in one checkpoint) must spend it under
    the same key, or it could be resumed once through each: they build it
    here from the same parts.

    Args:
        framework: Whose state holds the pause (``"langgraph"``).
        *parts: What identifies one interrupt there, durably and uniquely
            (a thread, a namespace, a checkpoint, the interrupt's id): each
            interrupt is spent on its own key (`admit`).

    Returns:
        A fixed-size key (a SHA-256 of the parts' canonical JSON).
    """
    return f"{framework}:{digest([framework, *parts])}"


def interrupt_keys(
    framework: str, interrupts: Iterable[PendingInterrupt], *parts: str
) -> dict[str, str]:
    """Each interrupt's spend key: `pause_key` of *parts* and the interrupt's id.

    For a framework whose interrupt ids are unique within what *parts*
    name (a run, a session): the ``keys`` that `admit` and `unspent` take.
    """
    return {
        pending.id: pause_key(framework, *parts, pending.id) for pending in interrupts
    }
