"""Who a visitor is: a keyed hash per page and day that neither shows nor leaks the client."""

from __future__ import annotations

import hashlib

from counters.domain.visitors import Client, visit_day, visitor_id

SALT = b"s" * 32


def test_the_hash_differs_per_page_address_agent_and_salt():
    client = Client(address="192.0.2.1", user_agent="Firefox")
    ids = {
        visitor_id(SALT, client, "docs"),
        visitor_id(SALT, client, "welcome"),
        visitor_id(SALT, Client(address="192.0.2.2", user_agent="Firefox"), "docs"),
        visitor_id(SALT, Client(address="192.0.2.1", user_agent="Chrome"), "docs"),
        visitor_id(b"t" * 32, client, "docs"),
    }
    assert len(ids) == 5
    assert visitor_id(SALT, client, "docs") == visitor_id(SALT, Client("192.0.2.1", "Firefox"), "docs")


def test_parts_cannot_be_shifted_into_one_another():
    assert visitor_id(SALT, Client("1.2.3.4", "5 x"), "p") != visitor_id(SALT, Client("1.2.3.45", " x"), "p")


def test_the_hash_is_not_an_unsalted_hash_of_the_client():
    client = Client(address="192.0.2.1", user_agent="Firefox")
    plain = {
        hashlib.sha256(text.encode()).hexdigest() for text in ("192.0.2.1", "Firefox", "192.0.2.1Firefox")
    }
    assert visitor_id(SALT, client, "docs") not in plain


def test_a_client_never_shows_in_a_log_line_or_traceback():
    assert "192.0.2.1" not in repr(Client(address="192.0.2.1", user_agent="Firefox/1"))
    assert "Firefox" not in repr(Client(address="192.0.2.1", user_agent="Firefox/1"))


def test_days_are_utc_days_whose_markers_outlive_them_by_an_hour():
    day = visit_day(1_780_358_399)  # 2026-06-01T23:59:59Z
    assert day.key == "D#2026-06-01"
    assert visit_day(1_780_358_400).key == "D#2026-06-02"
    assert day.marker_expires_at == day.start + 86400 + 3600
    assert day.count_expires_at == day.start + 86400 + 90 * 86400
