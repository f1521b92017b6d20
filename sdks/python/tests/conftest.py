import json
import os
import urllib.request

import pytest

BASE_URL = os.environ["THUMBFORGE_URL"]
ADMIN_TOKEN = os.environ["THUMBFORGE_ADMIN_TOKEN"]


def admin(method: str, path: str, body=None):
    request = urllib.request.Request(
        f"{BASE_URL}/admin/v1{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"authorization": f"Bearer {ADMIN_TOKEN}", "content-type": "application/json"},
    )
    with urllib.request.urlopen(request) as res:
        return json.loads(res.read())


@pytest.fixture()
def account():
    return admin("POST", "/accounts", {"plan": "pro"})


def reservations(account_id: str) -> int:
    return sum(1 for entry in admin("GET", f"/accounts/{account_id}/ledger") if entry["kind"] == "reserved")
