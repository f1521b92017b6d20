import json
import random
import time
import urllib.error
import urllib.request
import uuid
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, Optional, cast

from .errors import ThumbforgeError
from .types import GenerateRequest, Job, Result


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After as seconds or an HTTP date, in seconds."""
    if value is None or not value.strip():
        return None
    if value.strip().isdigit():
        return float(value)
    try:
        at = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, at - (time.time() if now is None else now))


class Response:
    def __init__(self, status: int, headers: Dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body


Transport = Callable[[str, str, Dict[str, str], Optional[bytes]], Response]


def urllib_transport(method: str, url: str, headers: Dict[str, str], body: Optional[bytes]) -> Response:
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=300) as res:
            return Response(res.status, dict(res.headers), res.read())
    except urllib.error.HTTPError as error:
        return Response(error.code, dict(error.headers), error.read())


class Thumbforge:
    """Client of the Thumbforge API.

    Every generate call sends an Idempotency-Key (given, or a random UUID) and reuses it on retries,
    so a retried request is never charged twice. 429 and 5xx answers and network failures are
    retried up to max_retries times, waiting Retry-After when sent (longer than max_retry_delay is
    not waited for), otherwise 0.5 s, 1 s, 2 s with jitter.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str,
        max_retries: int = 3,
        max_retry_delay: float = 60.0,
        transport: Transport = urllib_transport,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.max_retry_delay = max_retry_delay
        self.transport = transport
        self.sleep = sleep

    def generate(self, request: GenerateRequest, idempotency_key: Optional[str] = None) -> Result:
        """POST /v1/generate: the result, or the accepted job when webhookUrl is given."""
        key = idempotency_key or str(uuid.uuid4())
        return cast(Result, self._request("POST", "/v1/generate", dict(request), {"Idempotency-Key": key}))

    def get_job(self, job_id: str) -> Job:
        return cast(Job, self._request("GET", f"/v1/jobs/{urllib.request.quote(job_id)}"))

    def wait_for_job(self, job_id: str, interval: float = 1.0, timeout: float = 300.0) -> Job:
        """Polls a job until it is completed or failed."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.get_job(job_id)
            if job["status"] != "processing":
                return job
            if time.monotonic() + interval > deadline:
                raise ThumbforgeError(0, "NETWORK_ERROR", f"job {job_id} still processing after the timeout")
            self.sleep(interval)

    def _request(
        self, method: str, path: str, body: Any = None, headers: Optional[Dict[str, str]] = None
    ) -> Any:
        all_headers = {"x-api-key": self.api_key, "accept": "application/json", **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["content-type"] = "application/json"
        attempt = 0
        while True:
            try:
                res = self.transport(method, f"{self.base_url}{path}", all_headers, data)
            except OSError as error:
                if attempt < self.max_retries:
                    self.sleep(self._backoff(attempt))
                    attempt += 1
                    continue
                raise ThumbforgeError(0, "NETWORK_ERROR", f"request failed: {error}") from error
            if 200 <= res.status < 300:
                return json.loads(res.body)
            retry_after = retry_after_seconds(res.headers.get("retry-after"))
            delay = retry_after if retry_after is not None else self._backoff(attempt)
            if (res.status == 429 or res.status >= 500) and attempt < self.max_retries and delay <= self.max_retry_delay:
                self.sleep(delay)
                attempt += 1
                continue
            try:
                parsed = json.loads(res.body)
            except ValueError:
                parsed = {}
            raise ThumbforgeError(
                res.status,
                parsed.get("code", "INTERNAL_ERROR"),
                parsed.get("error", res.body.decode(errors="replace") or f"HTTP {res.status}"),
                res.headers.get("x-request-id"),
                retry_after,
            )

    @staticmethod
    def _backoff(attempt: int) -> float:
        return 0.5 * 2**attempt * (1 + random.random() * 0.25)
