"""Typed, strictly validated human-in-the-loop pauses for agent runtimes."""

from interruption._json import JSON, Mismatch, canonical, digest, json_equal
from interruption.errors import (
    DecodeError,
    Interrupted,
    InterruptionError,
    PayloadError,
    Problem,
    ProblemCode,
    ResumeRejected,
    interrupt,
    interrupt_with,
)
from interruption.kinds import (
    ApprovalPending,
    Custom,
    InterruptionKind,
    Phase,
    ScheduledPause,
)
from interruption.wire import dumps, json_schema, loads, structure, unstructure

__all__ = [
    "JSON",
    "ApprovalPending",
    "Custom",
    "DecodeError",
    "Interrupted",
    "InterruptionError",
    "InterruptionKind",
    "Mismatch",
    "PayloadError",
    "Phase",
    "Problem",
    "ProblemCode",
    "ResumeRejected",
    "ScheduledPause",
    "canonical",
    "digest",
    "dumps",
    "interrupt",
    "interrupt_with",
    "json_equal",
    "json_schema",
    "loads",
    "structure",
    "unstructure",
]
