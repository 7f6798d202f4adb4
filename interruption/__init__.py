"""Typed, strictly validated human-in-the-loop pauses for agent runtimes.

The records, the errors and the codec are imported with the package; the
rest (the loop and tools, resume checks, sealing, sessions and stores, which
pull in asyncio, jsonschema-rs, PyJWT, sqlite3 and psycopg) when one of
their names is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from interruption._json import (
    JSON,
    Mismatch,
    canonical,
    digest,
    json_equal,
)
from interruption.approval import (
    ApprovalDecision,
    Approve,
    Approver,
    AwaitExternal,
    Decision,
    Reject,
)
from interruption.errors import (
    ArgumentTypeError,
    ContinuationUnfinished,
    DecodeError,
    EventLoopRunning,
    ExtraMissing,
    FieldError,
    FieldTypeError,
    InterruptionError,
    InvalidArgument,
    PauseRefused,
    PayloadError,
    Problem,
    ProblemCode,
    ResumeRejected,
    SchemaError,
    SessionBusy,
    SessionInUse,
    SessionPaused,
    StoreUnavailable,
    TurnIdTaken,
)
from interruption.kinds import (
    ApprovalPending,
    Custom,
    InterruptionKind,
    Phase,
    ScheduledPause,
)
from interruption.parts import (
    Message,
    Part,
    Role,
    Text,
    ToolRequest,
    ToolResponse,
)
from interruption.pause import Interrupted, interrupt, interrupt_with
from interruption.prompts import Confirm, Input, Prompt
from interruption.schedule import PauseSchedule
from interruption.wire import (
    dumps,
    json_schema,
    loads,
    structure,
    unstructure,
    wire_digest,
)

if TYPE_CHECKING:
    from interruption.audit import AuditEvent
    from interruption.loop import (
        Finished,
        FinishReason,
        GenerateResult,
        LoopOptions,
        Model,
        ModelMessage,
        ModelRequest,
        Paused,
        StreamEvent,
        ToolFinished,
        ToolSpec,
        ToolStarted,
        continue_resolved,
        generate,
        generate_stream,
        generate_sync,
        resume_turn,
        resume_turn_stream,
        resume_turn_sync,
    )
    from interruption.resume import (
        Accepts,
        ExpiryAnswer,
        InterruptedTurn,
        PendingInterrupt,
        PendingTurn,
        Respond,
        Restart,
        Resume,
    )
    from interruption.bridge import Bridge, PendingPause, pending_everywhere
    from interruption.sealing import Opened, Sealer
    from interruption.session import Session
    from interruption.store import MemoryStore, SqliteStore, Store
    from interruption.tools import (
        Tool,
        ToolContext,
        ToolContractError,
        define_interrupt,
        tool,
    )
    from interruption.validation import (
        Answer,
        Authorize,
        ResolvedResume,
        ResumePolicy,
        Spend,
        admit,
        interrupt_keys,
        pause_key,
        record_paused,
        refuse,
        unspent,
        validate_and_spend,
        validate_resume,
    )

_LAZY: dict[str, str] = {
    "Finished": "interruption.loop",
    "FinishReason": "interruption.loop",
    "GenerateResult": "interruption.loop",
    "LoopOptions": "interruption.loop",
    "Model": "interruption.loop",
    "ModelMessage": "interruption.loop",
    "ModelRequest": "interruption.loop",
    "Paused": "interruption.loop",
    "StreamEvent": "interruption.loop",
    "ToolFinished": "interruption.loop",
    "ToolSpec": "interruption.loop",
    "ToolStarted": "interruption.loop",
    "continue_resolved": "interruption.loop",
    "generate": "interruption.loop",
    "generate_stream": "interruption.loop",
    "generate_sync": "interruption.loop",
    "resume_turn": "interruption.loop",
    "resume_turn_stream": "interruption.loop",
    "resume_turn_sync": "interruption.loop",
    "Accepts": "interruption.resume",
    "ExpiryAnswer": "interruption.resume",
    "InterruptedTurn": "interruption.resume",
    "PendingInterrupt": "interruption.resume",
    "PendingTurn": "interruption.resume",
    "Respond": "interruption.resume",
    "Restart": "interruption.resume",
    "Resume": "interruption.resume",
    "Bridge": "interruption.bridge",
    "PendingPause": "interruption.bridge",
    "pending_everywhere": "interruption.bridge",
    "Opened": "interruption.sealing",
    "Sealer": "interruption.sealing",
    "Session": "interruption.session",
    "AuditEvent": "interruption.audit",
    "MemoryStore": "interruption.store",
    "SqliteStore": "interruption.store",
    "Store": "interruption.store",
    "Tool": "interruption.tools",
    "ToolContractError": "interruption.tools",
    "ToolContext": "interruption.tools",
    "define_interrupt": "interruption.tools",
    "tool": "interruption.tools",
    "Answer": "interruption.validation",
    "Authorize": "interruption.validation",
    "ResolvedResume": "interruption.validation",
    "ResumePolicy": "interruption.validation",
    "Spend": "interruption.validation",
    "admit": "interruption.validation",
    "interrupt_keys": "interruption.validation",
    "pause_key": "interruption.validation",
    "record_paused": "interruption.validation",
    "refuse": "interruption.validation",
    "unspent": "interruption.validation",
    "validate_and_spend": "interruption.validation",
    "validate_resume": "interruption.validation",
}
"""The names imported when first used, and the module of each."""

__all__ = [
    "JSON",
    "Accepts",
    "Answer",
    "ApprovalDecision",
    "ApprovalPending",
    "Approve",
    "Approver",
    "ArgumentTypeError",
    "AuditEvent",
    "Authorize",
    "AwaitExternal",
    "Bridge",
    "Confirm",
    "ContinuationUnfinished",
    "Custom",
    "Decision",
    "DecodeError",
    "EventLoopRunning",
    "ExpiryAnswer",
    "ExtraMissing",
    "FieldError",
    "FieldTypeError",
    "FinishReason",
    "Finished",
    "GenerateResult",
    "Input",
    "Interrupted",
    "InterruptedTurn",
    "InterruptionError",
    "InterruptionKind",
    "InvalidArgument",
    "LoopOptions",
    "MemoryStore",
    "Message",
    "Mismatch",
    "Model",
    "ModelMessage",
    "ModelRequest",
    "Opened",
    "Part",
    "PauseRefused",
    "PauseSchedule",
    "Paused",
    "PayloadError",
    "PendingInterrupt",
    "PendingTurn",
    "Phase",
    "Problem",
    "ProblemCode",
    "Prompt",
    "Reject",
    "ResolvedResume",
    "PendingPause",
    "Respond",
    "Restart",
    "Resume",
    "ResumePolicy",
    "ResumeRejected",
    "Role",
    "ScheduledPause",
    "SchemaError",
    "Sealer",
    "Session",
    "SessionBusy",
    "SessionInUse",
    "SessionPaused",
    "Spend",
    "SqliteStore",
    "Store",
    "StoreUnavailable",
    "StreamEvent",
    "Text",
    "Tool",
    "ToolContext",
    "ToolContractError",
    "ToolFinished",
    "ToolRequest",
    "ToolResponse",
    "ToolSpec",
    "ToolStarted",
    "TurnIdTaken",
    "admit",
    "canonical",
    "continue_resolved",
    "define_interrupt",
    "digest",
    "dumps",
    "generate",
    "generate_stream",
    "generate_sync",
    "interrupt",
    "interrupt_keys",
    "interrupt_with",
    "json_equal",
    "json_schema",
    "loads",
    "pause_key",
    "pending_everywhere",
    "record_paused",
    "refuse",
    "resume_turn",
    "resume_turn_stream",
    "resume_turn_sync",
    "structure",
    "tool",
    "unspent",
    "unstructure",
    "validate_and_spend",
    "validate_resume",
    "wire_digest",
]


if TYPE_CHECKING:
    __version__: str
    """The installed release (``importlib.metadata``), e.g. ``"0.1.0.dev0"``."""

if not TYPE_CHECKING:  # a type checker sees the imports above instead

    def __getattr__(name: str) -> object:
        if name == "__version__":  # read from the installed metadata when asked
            from importlib.metadata import version  # noqa: PLC0415

            globals()[name] = value = version(__name__)
            return value
        module = _LAZY.get(name)
        if module is None:
            msg = f"module {__name__!r} has no attribute {name!r}"
            raise AttributeError(msg)
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
