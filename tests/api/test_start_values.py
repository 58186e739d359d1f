"""A start value under other writers: every reader says start + every writer's adds, against DynamoDB Local.

The demo's `pricing` carries 1,000 views counted elsewhere; another service adds to it with its own
`UpdateItem ADD value :1` from a plain boto3 client.
"""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client

from tests.api.test_badges import parsed, texts
from tests.support.admin_users import make_user
from tests.support.outside_writers import outside_client, sdk_add


def everything_shown(client: Client, staff: Client) -> dict[str, str]:
    """What each reader says of `pricing`: the API (one and the list), the badge, the CSV, the admin."""
    listed = {c["name"]: c["value"] for c in client.get("/api/counters").json()["counters"]}
    table = csv.DictReader(io.StringIO(client.get("/api/pages.csv").content.decode()))
    admin = staff.get("/admin/counters/counter/").content.decode()
    row = re.search(r'<tr data-counter="pricing">.*?</tr>', admin, re.S).group(0)
    admin_value = re.search(r'<td class="value"[^>]*>([^<]*)</td>', row).group(1)
    return {
        "api": str(client.get("/api/counters/pricing").json()["value"]),
        "list": str(listed["pricing"]),
        "badge": texts(parsed(client.get("/badge/pricing.svg")))[-1],
        "csv": next(line["views"] for line in table if line["page"] == "pricing"),
        "admin": admin_value,
    }


@pytest.mark.django_db
def test_every_reader_says_the_start_plus_another_writers_adds(demo_store, dynamodb_local):
    other = outside_client(dynamodb_local)
    client, staff = Client(), Client()
    staff.force_login(make_user("ann", "view_counter"))

    assert [sdk_add(other, demo_store.table, "pricing", 1) for _ in range(5)] == list(range(1001, 1006))

    shown = everything_shown(client, staff)
    assert shown == {"api": "1005", "list": "1005", "badge": "1,005", "csv": "1005", "admin": "1005"}
    page = client.get("/pages/pricing/")  # the app's own view builds on the same total
    shown_on_page = re.search(r'<span[^>]*data-counter="pricing"[^>]*>', page.content.decode()).group(0)
    assert 'data-value="1006"' in shown_on_page
    assert client.get("/api/counters/pricing").json()["value"] == 1006
