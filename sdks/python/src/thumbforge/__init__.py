"""Client of the Thumbforge thumbnail API."""

from .client import Thumbforge, retry_after_seconds
from .errors import ThumbforgeError, WebhookVerificationError
from .signed_url import signed_image_url
from .types import (
    API_PATHS,
    ERROR_CODES,
    FORMATS,
    GENERATE_REQUEST_FIELDS,
    GENERATION_RESULT_FIELDS,
    WEBHOOK_EVENTS,
    GenerateRequest,
    GenerationResult,
    Job,
    JobAccepted,
)
from .webhooks import verify_service_signature, verify_standard_webhook, verify_webhook

__all__ = [
    "API_PATHS",
    "ERROR_CODES",
    "FORMATS",
    "GENERATE_REQUEST_FIELDS",
    "GENERATION_RESULT_FIELDS",
    "WEBHOOK_EVENTS",
    "GenerateRequest",
    "GenerationResult",
    "Job",
    "JobAccepted",
    "Thumbforge",
    "ThumbforgeError",
    "WebhookVerificationError",
    "retry_after_seconds",
    "signed_image_url",
    "verify_service_signature",
    "verify_standard_webhook",
    "verify_webhook",
]
