"""Request, result and error shapes of the Thumbforge API (checked against its OpenAPI document in the tests)."""

from typing import Dict, List, Literal, Optional, TypedDict, Union

Format = Literal["youtube", "instagram", "x", "blogpost", "linkedin"]
FORMATS: List[str] = ["youtube", "instagram", "x", "blogpost", "linkedin"]
Model = Literal["sd", "hd"]
OutputFormat = Literal["webp", "png"]


class GenerateRequest(TypedDict, total=False):
    title: str  # required
    format: Format  # required unless customAssetsId is given
    category: str
    usePhoto: bool
    useLogo: bool
    photoImage: str
    logoImage: str
    customAssetsId: str
    model: Model
    outputFormat: OutputFormat
    webhookUrl: str
    # Legacy fields, still accepted.
    imageStyle: str
    personImage: str
    usePersonalPhoto: bool


GENERATE_REQUEST_FIELDS: List[str] = list(GenerateRequest.__annotations__)


class Dimensions(TypedDict):
    width: int
    height: int


class GenerationResult(TypedDict):
    image: str
    format: Format
    outputFormat: OutputFormat
    generationId: str
    imageUrl: Optional[str]
    dimensions: Dimensions


GENERATION_RESULT_FIELDS: List[str] = list(GenerationResult.__annotations__)


class JobAccepted(TypedDict):
    jobId: str
    status: Literal["processing"]
    webhookUrl: str


class Job(TypedDict, total=False):
    jobId: str
    status: Literal["processing", "completed", "failed"]
    webhookUrl: Optional[str]
    result: GenerationResult
    error: str
    webhook: Dict[str, object]


WebhookEvent = Dict[str, object]
WEBHOOK_EVENTS: List[str] = ["generation.completed", "generation.failed"]

ERROR_CODES: List[str] = [
    "MISSING_API_KEY",
    "INVALID_API_KEY",
    "API_ACCESS_DISABLED",
    "RATE_LIMITED",
    "INVALID_REQUEST",
    "INVALID_JSON",
    "PAYLOAD_TOO_LARGE",
    "INVALID_IMAGE",
    "IMAGE_TOO_LARGE",
    "PHOTO_REQUIRED",
    "LOGO_REQUIRED",
    "UNSAFE_WEBHOOK_URL",
    "UPGRADE_REQUIRED",
    "FEATURE_NOT_IN_PLAN",
    "WEBHOOKS_NOT_IN_PLAN",
    "REFERENCE_SET_NOT_FOUND",
    "NOT_FOUND",
    "GENERATION_LIMIT_EXCEEDED",
    "GENERATION_FAILED",
    "UNAUTHORIZED",
    "ADMIN_DISABLED",
    "INTERNAL_ERROR",
    "INVALID_IDEMPOTENCY_KEY",
    "IDEMPOTENCY_KEY_REUSED",
    "IDEMPOTENCY_KEY_IN_USE",
    "INVALID_SIGNATURE",
    "URL_EXPIRED",
    "METHOD_NOT_ALLOWED",
    "NOT_READY",
    "SHUTTING_DOWN",
]

API_PATHS: List[str] = ["/v1/generate", "/v1/jobs/{jobId}", "/v1/og/{file}"]

Result = Union[GenerationResult, JobAccepted]
