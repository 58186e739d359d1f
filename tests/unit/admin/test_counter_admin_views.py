"""Counters in the Django admin, through the test client on the in-process store; hot counters' shards and
the stream reader's lease on DynamoDB Local."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from counters.admin.shown import sign_shown
from counters.domain.values import CounterDefinition
from counters.domain.visitors import Client as Visitor
from counters.services.visitors import visitor_record
from tests.support.admin_users import make_user

LIST = "/admin/counters/counter/"


def detail(name: str) -> str:
    return f"{LIST}{name}/"


def reset_url(name: str) -> str:
    return f"{LIST}{name}/reset/"


@pytest.fixture
def resetter(client):
    client.force_login(make_user("ann", "view_counter", "reset_counter"))
    return client


def shown_token(html: str, name: str | None = None) -> str:
    """The signed version a page carries (for `name` in the list, or the detail page's form)."""
    if name is None:
        return re.search(r'name="shown" value="([^"]+)"', html).group(1)
    return re.search(rf'name="selected" value="({re.escape(name)}:[^"]+)"', html).group(1)


def counter_row(html: str, name: str) -> str:
    return re.search(rf'<tr data-counter="{re.escape(name)}">.*?</tr>', html, re.S).group(0)


@pytest.mark.django_db
def test_permissions_are_real_and_the_index_shows_counters_and_polls(client, memory_demo_store):
    """Counters are offered to view only (no "Change"): they are reset, never edited."""
    codenames = set(
        Permission.objects.filter(content_type__app_label="counters").values_list("codename", flat=True)
    )
    assert codenames == {
        "view_counter",
        "add_counter",
        "reset_counter",
        "configure_counter",
        "view_poll",
        "add_poll",
        "change_poll",
    }
    client.force_login(make_user("ann", "view_counter", "view_poll"))
    index = client.get("/admin/").content.decode()
    assert f'href="{LIST}"' in index and 'href="/admin/counters/poll/"' in index
    assert "Counters" in index and "Polls" in index
    counters_row = re.search(r'<tr class="model-counter">.*?</tr>', index, re.S).group(0)
    assert "View" in counters_row and "Change" not in counters_row
    assert "Live counters administration" in index and "Django administration" not in index


@pytest.mark.django_db
def test_list_shows_every_counter_with_kind_value_version_and_filters(resetter, memory_demo_store):
    for _ in range(3):
        memory_demo_store.increment("welcome", kind="views")
    html = resetter.get(LIST).content.decode()
    for state in memory_demo_store.list_counters():
        assert f'<tr data-counter="{state.name}">' in html
    row = counter_row(html, "welcome")
    assert (
        '<td data-label="Kind">views</td>' in row
        and '<td class="value" data-label="Value">3</td>' in row
        and '<td class="version" data-label="Version">3</td>' in row
    )
    assert re.search(r'data-label="Last update">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</td>', row), (
        "last update shown"
    )
    searched = resetter.get(LIST, {"q": "PRIC"}).content.decode()
    assert re.findall(r'<tr data-counter="([^"]+)"', searched) == ["pricing"]
    votes = resetter.get(LIST, {"kind": "votes"}).content.decode()
    names = re.findall(r'<tr data-counter="([^"]+)"', votes)
    assert names and all("." in name for name in names)


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post"])
def test_anonymous_and_non_staff_users_go_to_the_login_page(client, memory_demo_store, method):
    memory_demo_store.increment("welcome", kind="views")
    data = {"shown": sign_shown("welcome", 1), "reason": "x"}
    for login in (None, make_user("bob", "view_counter", "reset_counter", staff=False)):
        if login:
            client.force_login(login)
        for url in (LIST, detail("welcome"), reset_url("welcome")):
            response = getattr(client, method)(url, data if method == "post" else None)
            assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), url
    assert memory_demo_store.get("welcome").value == 1


@pytest.mark.django_db
def test_staff_without_the_reset_permission_is_refused(client, memory_demo_store):
    memory_demo_store.increment("welcome", kind="views")
    client.force_login(make_user("vic", "view_counter"))
    page = client.get(detail("welcome")).content.decode()
    # The list still lets a viewer tick counters, to export them, but offers no reset.
    assert 'id="reset-form"' not in page and 'value="reset"' not in client.get(LIST).content.decode()
    data = {"shown": sign_shown("welcome", 1), "reason": "x"}
    assert client.post(reset_url("welcome"), data).status_code == 403
    bulk = {"selected": [sign_shown("welcome", 1)], "reason": "x"}
    assert client.post(LIST, bulk).status_code == 403
    assert memory_demo_store.get("welcome").value == 1
    client.force_login(make_user("nobody"))  # staff with no permission at all
    assert client.get(LIST).status_code == 403


@pytest.mark.django_db
def test_reset_applies_at_the_version_shown_and_shows_in_the_history(resetter, memory_demo_store):
    for _ in range(4):
        memory_demo_store.increment("welcome", kind="views")
    page = resetter.get(detail("welcome")).content.decode()
    assert "Never reset." in page
    asked = resetter.post(reset_url("welcome"), {"shown": shown_token(page), "reason": "demo over"})
    question = asked.content.decode()
    assert asked.status_code == 200 and "Reset welcome to 0?" in question
    assert 'value="Yes, reset welcome to 0"' in question and 'name="confirmed" value="1"' in question
    assert memory_demo_store.get("welcome").value == 4, "nothing is reset before the confirmation"
    response = resetter.post(
        reset_url("welcome"),
        {"shown": shown_token(question), "reason": "demo over", "confirmed": "1"},
        follow=True,
    )
    html = response.content.decode()
    assert html.count('class="success"') == 1, "one message for one outcome"
    assert "Reset welcome from 4 (version 4) to 0; it is now at version 5." in html
    assert (memory_demo_store.get("welcome").value, memory_demo_store.get("welcome").version) == (0, 5)
    history = re.search(r'<div class="module" id="reset-history">.*?</table>', html, re.S).group(0)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", history)
    assert cells[1:] == ["ann", "4", "4", "5", "demo over"] and cells[0].endswith("UTC")
    [record] = memory_demo_store.reset_history("welcome")
    assert (record.actor, record.old_value, record.old_version, record.reason) == ("ann", 4, 4, "demo over")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "shown",
    [
        None,  # missing
        "",
        "welcome:2",  # a bare version, not signed by the site
        sign_shown("welcome", 2)[:-1] + "x",  # signature tampered
        sign_shown("welcome", 2).replace("welcome:2", "welcome:3"),  # version tampered
        sign_shown("docs", 2),  # signed for another counter
    ],
)
def test_the_form_rejects_a_missing_or_forged_version(resetter, memory_demo_store, shown):
    for _ in range(2):
        memory_demo_store.increment("welcome", kind="views")
    data = {"reason": "x"} if shown is None else {"shown": shown, "reason": "x"}
    response = resetter.post(reset_url("welcome"), data)
    assert response.status_code == 400
    assert "does not carry a version this page showed" in response.content.decode()
    assert memory_demo_store.get("welcome").value == 2 and memory_demo_store.reset_history("welcome") == []


@pytest.mark.django_db
def test_a_reason_is_required(resetter, memory_demo_store):
    response = resetter.post(reset_url("welcome"), {"shown": sign_shown("welcome", 0), "reason": " "})
    assert response.status_code == 400 and memory_demo_store.reset_history("welcome") == []


@pytest.mark.django_db
def test_conflict_shows_the_current_value_and_a_confirmation_applies(resetter, memory_demo_store):
    memory_demo_store.increment("docs", kind="views")
    page = resetter.get(detail("docs")).content.decode()
    for _ in range(2):
        memory_demo_store.increment("docs", kind="views")  # counted after the page was shown
    refused = resetter.post(
        reset_url("docs"), {"shown": shown_token(page), "reason": "cleanup", "confirmed": "1"}
    )
    html = refused.content.decode()
    assert refused.status_code == 409
    assert "Not reset" not in html and 'class="warning"' not in html, "the page says it once, no message"
    assert "it is now <strong>3</strong> at version <strong>3</strong>. Nothing was reset." in html
    assert 'value="Confirm reset at version 3"' in html and 'value="cleanup"' in html
    assert memory_demo_store.get("docs").value == 3 and memory_demo_store.reset_history("docs") == []
    # The conflict's own button is the confirmation: it carries confirmed=1 and applies at once.
    assert 'name="confirmed" value="1"' in html
    confirmed = resetter.post(
        reset_url("docs"), {"shown": shown_token(html), "reason": "cleanup", "confirmed": "1"}
    )
    assert confirmed.status_code == 302
    assert memory_demo_store.get("docs").value == 0
    [record] = memory_demo_store.reset_history("docs")
    assert (record.old_value, record.old_version) == (3, 3)


@pytest.mark.django_db
def test_bulk_reset_resets_each_at_its_shown_version_and_reports_each(resetter, memory_demo_store):
    for name in ("welcome", "docs"):
        memory_demo_store.increment(name, kind="views")
    html = resetter.get(LIST).content.decode()
    selected = [shown_token(html, "welcome"), shown_token(html, "docs"), shown_token(html, "pricing")]
    memory_demo_store.increment("docs", kind="views")  # docs moves on after the list was shown
    asked = resetter.post(LIST, {"selected": selected, "reason": "new month", "action": "reset"})
    question = asked.content.decode()
    assert asked.status_code == 200 and "Reset 3 counters to 0?" in question
    assert re.findall(r'<tr data-counter="([^"]+)"', question) == ["welcome", "docs", "pricing"]
    assert "changed since shown" in counter_row(question, "docs")
    assert memory_demo_store.get("welcome").value == 1, "nothing is reset before the confirmation"
    response = resetter.post(
        LIST, {"selected": selected, "reason": "new month", "confirmed": "1"}, follow=True
    )
    page = response.content.decode()
    assert "Reset welcome from 1 (version 1) to 0" in page
    assert "Reset pricing from 1000 (version 0) to 0" in page
    assert "Not reset: docs changed: it is now 2 at version 2." in page
    assert [memory_demo_store.get(name).value for name in ("welcome", "docs", "pricing")] == [0, 2, 0]
    forged = resetter.post(LIST, {"selected": ["docs:2"], "reason": "x"})
    assert forged.status_code == 400 and memory_demo_store.get("docs").value == 2
    assert resetter.post(LIST, {"reason": "x"}).status_code == 400


@pytest.mark.django_db
def test_unknown_counter_is_404(resetter, memory_demo_store):
    assert resetter.get(detail("ghost")).status_code == 404
    assert (
        resetter.post(reset_url("ghost"), {"shown": sign_shown("ghost", 0), "reason": "x"}).status_code == 404
    )


@pytest.mark.django_db
def test_a_hot_counter_is_shown_summed_and_reset_over_every_shard(resetter, store):
    store.define_counter(CounterDefinition(name="viral", kind="views", shards=4))
    for _ in range(9):
        store.increment("viral", kind="views")
    page = resetter.get(detail("viral")).content.decode()
    assert 'id="counter-value">9<' in page and 'id="counter-version">9<' in page
    response = resetter.post(
        reset_url("viral"), {"shown": shown_token(page), "reason": "x", "confirmed": "1"}, follow=True
    )
    assert "Reset viral from 9 (version 9) to 0; it is now at version 14." in response.content.decode()
    assert (store.get("viral").value, store.get("viral").version) == (0, 14)


def export(client, names_and_versions: list[tuple[str, int]], **extra):
    """Post the list's export action for counters shown at these versions."""
    selected = [sign_shown(name, version) for name, version in names_and_versions]
    return client.post(LIST, {"selected": selected, "action": "export"}, **extra)


@pytest.mark.django_db
def test_a_viewer_exports_the_selected_counters_totals_as_csv(client, memory_demo_store):
    memory_demo_store.define_counter(
        CounterDefinition(name="formula", kind="views", title="=cmd|' /C calc'!A0")
    )
    for _ in range(3):
        memory_demo_store.increment("docs", kind="views")
    for i in range(2):  # two people today, one of them twice
        for _ in range(i + 1):
            visitor_record(name="docs", client=Visitor(f"198.51.100.{i}", "Firefox/133.0"))
    memory_demo_store.add_bot_view("docs")
    client.force_login(make_user("vic", "view_counter"))
    html = client.get(LIST).content.decode()
    assert 'value="export"' in html
    selected = [shown_token(html, "docs"), shown_token(html, "formula"), shown_token(html, "language.go")]
    memory_demo_store.increment("docs", kind="views")  # the export gives the totals as they are now

    response = client.post(LIST, {"selected": selected, "action": "export"})

    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    assert re.fullmatch(r'attachment; filename="counters-\d{8}T\d{6}Z\.csv"', response["Content-Disposition"])
    table = list(csv.reader(io.StringIO(response.content.decode())))
    assert table[0] == [
        "name",
        "kind",
        "title",
        "value",
        "version",
        "updated_at",
        "visitors_today",
        "bot_views",
    ]
    assert [row[:5] + row[6:] for row in table[1:]] == [
        ["docs", "views", "Documentation", "4", "4", "2", "1"],
        ["formula", "views", "'=cmd|' /C calc'!A0", "0", "0", "0", "0"],
        ["language.go", "votes", "Which language do you reach for first? — Go", "0", "0", "", ""],
    ]


@pytest.mark.django_db
def test_an_export_needs_a_selection_staff_and_the_csrf_token(memory_demo_store):
    staff = make_user("vic", "view_counter")
    checked = Client(enforce_csrf_checks=True)
    checked.force_login(staff)
    assert export(checked, [("docs", 0)]).status_code == 403, "no CSRF token"
    checked.get(LIST)
    token = checked.cookies["csrftoken"].value
    assert export(checked, [("docs", 0)], HTTP_X_CSRFTOKEN=token).status_code == 200
    assert export(checked, [], HTTP_X_CSRFTOKEN=token).status_code == 400

    outsider = Client()
    outsider.force_login(make_user("bob", "view_counter", staff=False))
    response = export(outsider, [("docs", 0)])
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


@pytest.mark.django_db
def test_badge_counting_is_chosen_on_the_detail_page_with_its_permission(client, memory_demo_store):
    client.force_login(make_user("cat", "view_counter", "configure_counter"))
    page = client.get(detail("docs")).content.decode()
    assert "![Documentation](http://testserver/badge/docs.svg)" in page
    assert "Fetching the badge counts nothing." in page and 'id="badge-submit"' in page

    response = client.post(f"{LIST}docs/badge/", {"badge_counts": "on"}, follow=True)
    assert "The badge of docs counts a view on each fetch." in response.content.decode()
    assert memory_demo_store.get("docs").badge_counts is True
    client.post(f"{LIST}docs/badge/", {})
    assert memory_demo_store.get("docs").badge_counts is False
    assert 'id="badge-submit"' not in client.get(detail("language.go")).content.decode(), "votes never count"


@pytest.mark.django_db
def test_badge_counting_needs_its_own_permission(client, memory_demo_store):
    client.force_login(make_user("ann", "view_counter", "reset_counter"))
    assert 'id="badge-submit"' not in client.get(detail("docs")).content.decode()
    assert client.post(f"{LIST}docs/badge/", {"badge_counts": "on"}).status_code == 403
    assert memory_demo_store.get("docs").badge_counts is False


@pytest.mark.django_db
def test_the_list_says_who_reads_the_stream_and_how_far_behind(client, store):
    from counters.store.dynamodb.streams.lease import Lease

    client.force_login(make_user("ann", "view_counter"))
    assert "nobody reads the table's stream" in client.get(LIST).content.decode()
    lease = Lease(store.gateway, owner="web-1:4242:abc", seconds=10)
    lease.lag = 0.4
    assert lease.hold()
    assert "read from the table's stream by web-1:4242:abc, 0.4 s behind" in client.get(LIST).content.decode()
