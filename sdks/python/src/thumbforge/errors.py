from typing import Optional


class ThumbforgeError(Exception):
    """An error answer of the API, or code NETWORK_ERROR (status 0) when no answer came."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        #: Seconds from Retry-After, when the server sent one.
        self.retry_after = retry_after


class WebhookVerificationError(Exception):
    pass
