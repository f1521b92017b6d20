"""Verifies one delivery with the official Standard Webhooks library.

Reads {"secret", "headers", "body"} as JSON on stdin; prints the verified payload's jobId, or exits 1
with the library's error.
"""

import json
import sys

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

delivery = json.load(sys.stdin)
try:
    payload = Webhook(delivery["secret"]).verify(delivery["body"], delivery["headers"])
except WebhookVerificationError as error:
    print(f"rejected: {error}", file=sys.stderr)
    sys.exit(1)
print(payload["jobId"])
