"""One valid value of every wire type: the seeds the fuzz targets start from."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from interruption import (
    Accepts,
    ApprovalPending,
    Confirm,
    Custom,
    Input,
    Interrupted,
    InterruptedTurn,
    Message,
    PendingInterrupt,
    Phase,
    Respond,
    Restart,
    Resume,
    Role,
    ScheduledPause,
    Text,
    ToolRequest,
    ToolResponse,
)
from interruption._published_schemas import WIRE_TYPES

__all__ = ["EXAMPLES", "TURN", "TYPES", "write_seeds"]

TYPES: Final[tuple[type[object], ...]] = (*WIRE_TYPES.values(), list[Interrupted])
"""Every type a wire document is decoded into; a fuzz input picks one by index."""

REQUEST: Final = ToolRequest("transfer_money", "call-1", {"to": "ACME", "cents": 125})
PAUSE: Final = Interrupted(ApprovalPending("call-1"), {"tool": "transfer_money"})
PENDING: Final = PendingInterrupt(
    id="call-1",
    kind=ApprovalPending("call-1"),
    payload={"tool": "transfer_money", "input": {"to": "ACME", "cents": 125}},
    tool=REQUEST,
    accepts=Accepts(restart={"type": "object"}, replace_input={"type": "object"}),
    expires_at=datetime(2030, 1, 1, tzinfo=UTC),
)
TURN: Final = InterruptedTurn(
    session="session-1",
    turn_id=1,
    messages=(
        Message(Role.USER, (Text("Pay ACME 1.25"),)),
        Message(Role.MODEL, (REQUEST, ToolRequest("lookup", "call-2", None))),
    ),
    interrupts=(PENDING,),
    completed=(ToolResponse("lookup", "call-2", [1, 2.5, "é", None, True]),),
    created_at=datetime(2025, 6, 1, 12, 30, tzinfo=UTC),
    expires_at=datetime(2030, 1, 1, tzinfo=UTC),
    approved=("call-0",),
)
"""An interrupted turn with every field and part filled in."""

EXAMPLES: Final[dict[type[object], object]] = {
    ApprovalPending: ApprovalPending("call-1"),
    Confirm: Confirm("Invoice", "Pay INV-7 today?", ("Yes", "Later", "No")),
    Custom: Custom(),
    Input: Input("Name", "Who approves?", "a name"),
    Interrupted: PAUSE,
    InterruptedTurn: TURN,
    Message: TURN.messages[1],
    PendingInterrupt: PENDING,
    Respond: Respond("transfer_money", "call-1", {"ok": True}),
    Restart: Restart("transfer_money", "call-1", {"approved": True}, {"cents": 1}),
    Resume: Resume(
        (Respond("lookup", "call-2", 1),),
        (Restart("transfer_money", "call-1", {"approved": True}),),
    ),
    ScheduledPause: ScheduledPause(Phase.BEFORE, "charge"),
    ToolRequest: REQUEST,
    ToolResponse: ToolResponse("transfer_money", "call-1", {"id": "tx-9"}),
    list[Interrupted]: [PAUSE, Interrupted(Custom(), None)],
}
"""A valid value of each type in `TYPES`."""


def write_seeds(argv: list[str], seeds: Iterable[bytes]) -> None:
    """Fill the first corpus directory named in *argv* with *seeds*, if empty."""
    corpus = next((Path(arg) for arg in argv[1:] if not arg.startswith("-")), None)
    if corpus is None or not corpus.is_dir() or any(corpus.iterdir()):
        return
    for number, seed in enumerate(seeds):
        (corpus / f"seed-{number:03}").write_bytes(seed)
