"""The published JSON Schemas: which wire types, and writing them to disk.

Run ``python -m interruption._published_schemas DIRECTORY`` (``make schemas``) to
regenerate ``schemas/``; a test fails when the files are out of date.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Final

from interruption._json import JSON
from interruption.audit import AuditEvent
from interruption.decisions import DECISION_SCHEMA
from interruption.errors import DecodeError, ResumeRejected
from interruption.kinds import ApprovalPending, Custom, ScheduledPause
from interruption.parts import Message, ToolRequest, ToolResponse
from interruption.pause import Interrupted
from interruption.prompts import Confirm, Input
from interruption.resume import (
    InterruptedTurn,
    PendingInterrupt,
    PendingTurn,
    Respond,
    Restart,
    Resume,
)
from interruption.wire import json_schema

WIRE_TYPES: Final[dict[str, type]] = {
    "approval_pending": ApprovalPending,
    "audit_event": AuditEvent,
    "confirm": Confirm,
    "custom": Custom,
    "decode_error": DecodeError,
    "input": Input,
    "interrupted": Interrupted,
    "interrupted_turn": InterruptedTurn,
    "message": Message,
    "pending_interrupt": PendingInterrupt,
    "pending_turn": PendingTurn,
    "respond": Respond,
    "restart": Restart,
    "resume": Resume,
    "resume_rejected": ResumeRejected,
    "scheduled_pause": ScheduledPause,
    "tool_request": ToolRequest,
    "tool_response": ToolResponse,
}
"""Each published schema's file stem and the type it describes."""

EXTRA_SCHEMAS: Final[dict[str, dict[str, JSON]]] = {
    "approval_decision": DECISION_SCHEMA,
}
"""Published schemas of wire forms that are not records (entelix's decision)."""


def schema_named(name: str) -> dict[str, JSON]:
    """Return the published schema called *name* (a file stem).

    Raises:
        KeyError: if there is none by that name.
    """
    if name in EXTRA_SCHEMAS:
        return EXTRA_SCHEMAS[name]
    return json_schema(WIRE_TYPES[name])


def schema_names() -> list[str]:
    """Return the names of all published schemas, sorted."""
    return sorted([*WIRE_TYPES, *EXTRA_SCHEMAS])


def render(schema: dict[str, JSON]) -> str:
    """Return the schema as the text written to disk (stable, reviewable)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def expected_files() -> dict[str, str]:
    """Map each schema file name to the text it should hold."""
    return {f"{name}.json": render(schema_named(name)) for name in schema_names()}


def write(directory: Path) -> list[Path]:
    """Write every published schema into *directory*; return what changed."""
    directory.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, text in expected_files().items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


if __name__ == "__main__":  # pragma: no cover - a make target
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "schemas")
    for path in write(target):
        print(f"wrote {path}")  # noqa: T201 - a script's report
