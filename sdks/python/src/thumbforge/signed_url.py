import base64
import hashlib
import hmac
from datetime import datetime
from typing import Mapping, Optional, Union
from urllib.parse import quote


def _encode(value: str) -> str:
    # What JavaScript's encodeURIComponent leaves alone, so both SDKs sign the same string.
    return quote(value, safe="!~*'()")


def signed_image_url(
    base_url: str,
    account_id: str,
    secret: str,
    params: Mapping[str, Union[str, bool]],
    output_format: str = "webp",
    expires_at: Optional[datetime] = None,
) -> str:
    """A GET /v1/og/{account}.{ext} URL that renders on first fetch (usable as og:image)."""
    path = f"/v1/og/{account_id}.{output_format}"
    values = {
        name: ("true" if value else "false") if isinstance(value, bool) else str(value)
        for name, value in params.items()
        if value is not None
    }
    if expires_at is not None:
        values["exp"] = str(int(expires_at.timestamp()))
    query = "&".join(f"{_encode(name)}={_encode(values[name])}" for name in sorted(values))
    digest = hmac.new(secret.encode(), f"{path}?{query}".encode(), hashlib.sha256).digest()
    sig = base64.urlsafe_b64encode(digest).decode().rstrip("=")
    return f"{base_url.rstrip('/')}{path}?{query}&sig={sig}"
