"""Type-checked, never run: `interruption.schemas`, JSON Schemas as values."""

from typing import assert_type

from interruption import JSON, Mismatch
from interruption.decisions import (
    DECISION_SCHEMA,
    ApprovalDecision,
    Approve,
    Reject,
    decision_from_json,
    decision_to_json,
)
from interruption.schemas import (
    JSONSchema,
    Schema,
    conforms,
    schema_mismatches,
    schema_value,
)

schema = schema_value({"type": "object", "required": ["amount"]})
assert_type(schema, Schema)
held: JSONSchema = schema  # a Schema is a JSON Schema document
assert_type(conforms({"amount": 5}, held), bool)
assert_type(schema_mismatches({}, schema, "$.input"), list[Mismatch])
schema_value({"type": "string"}, 5)  # type: ignore[arg-type]

decision = decision_from_json({"reject": {"reason": "wrong account"}})
assert_type(decision, ApprovalDecision)
assert_type(decision_to_json(Approve(note="checked")), JSON)
assert_type(decision_to_json(Reject("wrong account")), JSON)
assert_type(DECISION_SCHEMA, JSONSchema)
decision_to_json({"approve": {}})  # type: ignore[arg-type]
