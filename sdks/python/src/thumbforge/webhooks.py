import base64
import hashlib
import hmac
import json
import time
from typing import Mapping, Optional

from .errors import WebhookVerificationError
from .types import WebhookEvent


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def verify_service_signature(api_key: str, body: str, signature: Optional[str]) -> bool:
    """The spec's X-Service-Signature: hex HMAC-SHA256 of the body, keyed with the API key."""
    if not signature:
        return False
    # Over the exact bytes received: they are what the service signed (JSON.stringify of the event).
    expected = hmac.new(api_key.encode(), body.encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)


def verify_standard_webhook(
    secret: str,
    body: str,
    headers: Mapping[str, str],
    tolerance_seconds: int = 300,
    now: Optional[float] = None,
) -> WebhookEvent:
    """Standard Webhooks: a v1 signature of "{id}.{timestamp}.{body}" keyed with the whsec_ secret."""
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing Standard Webhooks headers")
    current = time.time() if now is None else now
    if not timestamp.isdigit() or abs(current - int(timestamp)) > tolerance_seconds:
        raise WebhookVerificationError("timestamp outside the tolerance")
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    digest = hmac.new(key, f"{msg_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    expected = base64.b64encode(digest).decode()
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            return json.loads(body)
    raise WebhookVerificationError("no matching signature")


def verify_webhook(
    body: str,
    headers: Mapping[str, str],
    webhook_secret: Optional[str] = None,
    api_key: Optional[str] = None,
    tolerance_seconds: int = 300,
    now: Optional[float] = None,
) -> WebhookEvent:
    """Verifies a delivery with every secret given (the Standard Webhooks one refuses replays)."""
    if not webhook_secret and not api_key:
        raise WebhookVerificationError("give webhook_secret or api_key")
    if api_key and not verify_service_signature(api_key, body, _header(headers, "x-service-signature")):
        raise WebhookVerificationError("X-Service-Signature does not match")
    if webhook_secret:
        return verify_standard_webhook(webhook_secret, body, headers, tolerance_seconds, now)
    return json.loads(body)
