# The public façade: each public name once, as ``from .module import Name as Name``.
#
# This stub is the one list. mypy reads it for `interruption`'s types; at run
# time `__init__.py` hands it to lazy_loader, which imports a name's module
# when the name is first used and derives ``__all__`` and ``dir()`` from it.
# To add a public name, add it here (to its module's line, or a new line for a
# new module); only relative imports of this package (``from .x``) may appear.

from .audit import AuditEvent as AuditEvent, AuditKind as AuditKind
from .decisions import (
    DECISION_SCHEMA as DECISION_SCHEMA,
    ApprovalDecision as ApprovalDecision,
    Approve as Approve,
    Reject as Reject,
    decision_from_json as decision_from_json,
    decision_to_json as decision_to_json,
)
from .errors import (
    ArgumentTypeError as ArgumentTypeError,
    ContinuationUnfinished as ContinuationUnfinished,
    DecodeError as DecodeError,
    EventLoopRunning as EventLoopRunning,
    ExtraMissing as ExtraMissing,
    FieldError as FieldError,
    FieldTypeError as FieldTypeError,
    InterruptionError as InterruptionError,
    InvalidArgument as InvalidArgument,
    Mismatch as Mismatch,
    PauseRefused as PauseRefused,
    PayloadError as PayloadError,
    Problem as Problem,
    ProblemCode as ProblemCode,
    ResumeRejected as ResumeRejected,
    SchemaError as SchemaError,
    SessionBusy as SessionBusy,
    SessionInUse as SessionInUse,
    SessionPaused as SessionPaused,
    StoreUnavailable as StoreUnavailable,
    TurnIdTaken as TurnIdTaken,
)
from .kinds import (
    ApprovalPending as ApprovalPending,
    Custom as Custom,
    InterruptionKind as InterruptionKind,
    Phase as Phase,
    ScheduledPause as ScheduledPause,
)
from .parts import (
    Message as Message,
    Part as Part,
    Role as Role,
    Text as Text,
    ToolRequest as ToolRequest,
    ToolResponse as ToolResponse,
)
from .pause import (
    Interrupted as Interrupted,
    interrupt as interrupt,
    interrupt_with as interrupt_with,
)
from .prompts import Confirm as Confirm, Input as Input, Prompt as Prompt
from .resume import (
    Accepts as Accepts,
    ExpiryAnswer as ExpiryAnswer,
    InterruptedTurn as InterruptedTurn,
    PendingInterrupt as PendingInterrupt,
    PendingTurn as PendingTurn,
    Respond as Respond,
    Restart as Restart,
    Resume as Resume,
)
from .runtime.admission import (
    ADAPTER_TURN as ADAPTER_TURN,
    PAUSED_MARK as PAUSED_MARK,
    admit as admit,
    interrupt_keys as interrupt_keys,
    pause_key as pause_key,
    record_paused as record_paused,
    refuse as refuse,
    unspent as unspent,
)
from .runtime.approval import (
    Approver as Approver,
    AwaitExternal as AwaitExternal,
    Decision as Decision,
    always as always,
    await_human as await_human,
    by_tool as by_tool,
    decide as decide,
    never as never,
    when as when,
)
from .runtime.bridge import (
    Bridge as Bridge,
    OpenSession as OpenSession,
    PendingPause as PendingPause,
    SessionBridge as SessionBridge,
    pending_everywhere as pending_everywhere,
)
from .runtime.loop import (
    FinishReason as FinishReason,
    Finished as Finished,
    GenerateResult as GenerateResult,
    LoopOptions as LoopOptions,
    Model as Model,
    ModelMessage as ModelMessage,
    ModelRequest as ModelRequest,
    OnToolError as OnToolError,
    Paused as Paused,
    StreamEvent as StreamEvent,
    ToolFinished as ToolFinished,
    ToolSpec as ToolSpec,
    ToolStarted as ToolStarted,
    continue_resolved as continue_resolved,
    generate as generate,
    generate_stream as generate_stream,
    generate_sync as generate_sync,
    resume_turn as resume_turn,
    resume_turn_stream as resume_turn_stream,
    resume_turn_sync as resume_turn_sync,
)
from .runtime.schedule import PauseSchedule as PauseSchedule
from .runtime.sealing import (
    MAX_TOKEN_CHARS as MAX_TOKEN_CHARS,
    MIN_KEY_BYTES as MIN_KEY_BYTES,
    SEALED_TURN_AUDIENCE as SEALED_TURN_AUDIENCE,
    Opened as Opened,
    Sealer as Sealer,
)
from .runtime.session import (
    MAX_REASON as MAX_REASON,
    Answered as Answered,
    Session as Session,
)
from .runtime.store import (
    MAX_RECORD_BYTES as MAX_RECORD_BYTES,
    MAX_REJECTED as MAX_REJECTED,
    Listed as Listed,
    MemoryStore as MemoryStore,
    PostgresStore as PostgresStore,
    SqliteStore as SqliteStore,
    Store as Store,
)
from .runtime.tools import (
    NoResumeDecorator as NoResumeDecorator,
    Tool as Tool,
    ToolContext as ToolContext,
    ToolContractError as ToolContractError,
    define_interrupt as define_interrupt,
    tool as tool,
)
from .validation import (
    Answer as Answer,
    Authorize as Authorize,
    ResolvedResume as ResolvedResume,
    ResumePolicy as ResumePolicy,
    Spend as Spend,
    validate_and_spend as validate_and_spend,
    validate_resume as validate_resume,
)
from .wire import (
    JSON as JSON,
    canonical as canonical,
    digest as digest,
    dumps as dumps,
    json_equal as json_equal,
    json_schema as json_schema,
    loads as loads,
    structure as structure,
    unstructure as unstructure,
    wire_digest as wire_digest,
)

# The installed release (importlib.metadata), read when first asked.
__version__: str
