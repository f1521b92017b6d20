import base64
import struct
import threading
import time
import urllib.request
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from standardwebhooks.webhooks import Webhook

from conftest import BASE_URL, admin, reservations
from thumbforge import (
    Thumbforge,
    ThumbforgeError,
    WebhookVerificationError,
    signed_image_url,
    verify_webhook,
)
from thumbforge.client import Response, urllib_transport


def png_size(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_generate_returns_a_typed_result_with_a_decodable_image(account):
    client = Thumbforge(account["apiKey"], BASE_URL)
    result = client.generate({"title": "From Python", "format": "instagram", "outputFormat": "png"})
    assert result["generationId"].startswith("gen_")
    assert result["dimensions"] == {"width": 1024, "height": 1024}
    assert png_size(base64.b64decode(result["image"].split(",", 1)[1])) == (1024, 1024)


def test_a_lost_answer_is_retried_with_the_same_key_and_charged_once(account):
    keys = []

    def lossy(method, url, headers, body):
        keys.append(headers["Idempotency-Key"])
        response = urllib_transport(method, url, headers, body)
        if len(keys) == 1:
            raise ConnectionResetError("connection reset after the server answered")
        return response

    before = reservations(account["accountId"])
    client = Thumbforge(account["apiKey"], BASE_URL, transport=lossy, sleep=lambda _: None)
    result = client.generate({"title": "Lost answer", "format": "x"})
    assert result["generationId"].startswith("gen_")
    assert len(keys) == 2 and keys[0] == keys[1]
    assert reservations(account["accountId"]) - before == 1


def test_retry_after_is_honoured_then_a_typed_error(account):
    waits = []
    answers = [
        Response(429, {"Retry-After": "2"}, b'{"error":"Rate limit exceeded","code":"RATE_LIMITED"}'),
        Response(503, {"Retry-After": "1"}, b'{"error":"busy","code":"INTERNAL_ERROR"}'),
    ]

    def busy(method, url, headers, body):
        return answers.pop(0) if answers else urllib_transport(method, url, headers, body)

    client = Thumbforge(account["apiKey"], BASE_URL, max_retries=2, transport=busy, sleep=waits.append)
    assert client.generate({"title": "After waiting", "format": "x"})["generationId"].startswith("gen_")
    assert waits == [2.0, 1.0]

    limited = Thumbforge(
        account["apiKey"],
        BASE_URL,
        transport=lambda *_: Response(
            429, {"Retry-After": "86400"}, b'{"error":"Generation limit exceeded","code":"GENERATION_LIMIT_EXCEEDED"}'
        ),
        sleep=waits.append,
    )
    with pytest.raises(ThumbforgeError) as caught:
        limited.generate({"title": "x", "format": "x"})
    assert (caught.value.status, caught.value.code, caught.value.retry_after) == (
        429,
        "GENERATION_LIMIT_EXCEEDED",
        86400.0,
    )
    assert waits == [2.0, 1.0]


def test_bad_input_is_a_typed_error(account):
    client = Thumbforge(account["apiKey"], BASE_URL)
    with pytest.raises(ThumbforgeError) as caught:
        client.generate({"title": "Bad", "format": "square"})
    assert (caught.value.status, caught.value.code) == (400, "INVALID_REQUEST")
    assert "format" in caught.value.message
    client.generate({"title": "One", "format": "x"}, idempotency_key="py-reuse")
    with pytest.raises(ThumbforgeError) as reused:
        client.generate({"title": "Two", "format": "x"}, idempotency_key="py-reuse")
    assert (reused.value.status, reused.value.code) == (422, "IDEMPOTENCY_KEY_REUSED")


class Receiver(BaseHTTPRequestHandler):
    received = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"])).decode()
        Receiver.received.append((dict(self.headers), body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_async_job_wait_and_webhook_verification(account):
    secret = admin("POST", f"/accounts/{account['accountId']}/webhook-secrets", {})["secret"]
    server = HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = Thumbforge(account["apiKey"], BASE_URL)
        hook_url = f"http://127.0.0.1:{server.server_port}/hook"
        deadline = time.monotonic() + 20
        while True:
            job = client.generate({"title": "Async Python", "format": "x", "webhookUrl": hook_url})
            done = client.wait_for_job(job["jobId"], interval=0.1)
            while not any(h for h, b in Receiver.received if job["jobId"] in b) and time.monotonic() < deadline:
                time.sleep(0.05)
            headers, body = next((h, b) for h, b in Receiver.received if job["jobId"] in b)
            # The secret reaches webhook-delivery through the log: the first delivery may precede it.
            if "webhook-signature" in {k.lower() for k in headers} or time.monotonic() > deadline:
                break
        assert done["status"] == "completed"
        assert done["result"]["dimensions"] == {"width": 1200, "height": 675}
        event = verify_webhook(body, headers, webhook_secret=secret, api_key=account["apiKey"])
        assert event["event"] == "generation.completed" and event["jobId"] == job["jobId"]
        # The official library agrees with the SDK.
        lowered = {k.lower(): v for k, v in headers.items()}
        assert Webhook(secret).verify(body, lowered)["jobId"] == job["jobId"]
        with pytest.raises(WebhookVerificationError):
            verify_webhook(body.replace("completed", "failed"), headers, webhook_secret=secret)
        with pytest.raises(WebhookVerificationError, match="tolerance"):
            verify_webhook(body, headers, webhook_secret=secret, now=time.time() + 600)
    finally:
        server.shutdown()


def test_signed_image_urls_are_accepted(account):
    secret = admin("POST", f"/accounts/{account['accountId']}/url-signing-secrets")["secret"]
    url = signed_image_url(
        BASE_URL,
        account["accountId"],
        secret,
        {"title": "Ünïcode & spaces: 100% (ok)*", "format": "blogpost", "useLogo": False},
        output_format="png",
        expires_at=datetime.now(timezone.utc) + timedelta(hours=1),
    )
    with urllib.request.urlopen(url) as res:
        assert res.status == 200
        assert res.headers["content-type"] == "image/png"
        assert png_size(res.read()) == (1200, 630)
    with pytest.raises(urllib.error.HTTPError) as forbidden:
        urllib.request.urlopen(url.replace("blogpost", "youtube"))
    assert forbidden.value.code == 403
