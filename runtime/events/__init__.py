"""Run events: the typed record of everything a run did, in order (see model.py and log.py)."""

from runtime.events.log import EventLog, EventListener
from runtime.events.model import (
    AgentState,
    ArtifactStored,
    ChatDelta,
    ConfirmationRequested,
    Event,
    EventPayload,
    FinalVerdict,
    GuardrailTripped,
    Replanned,
    StatusChanged,
    StepFinished,
    StepStarted,
    StructuredOutput,
    TabChanged,
    ToolUsed,
    WebhookDelivery,
    payload_from_dict,
)

__all__ = [
    "AgentState",
    "ArtifactStored",
    "ChatDelta",
    "ConfirmationRequested",
    "Event",
    "EventListener",
    "EventLog",
    "EventPayload",
    "FinalVerdict",
    "GuardrailTripped",
    "Replanned",
    "StatusChanged",
    "StepFinished",
    "StepStarted",
    "StructuredOutput",
    "TabChanged",
    "ToolUsed",
    "WebhookDelivery",
    "payload_from_dict",
]
