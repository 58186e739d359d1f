"""The policy header kept per host: the same as built afresh, and never for answers that change it."""

from __future__ import annotations

from csp.constants import NONCE, SELF
from csp.decorators import csp_update
from django.http import HttpResponse
from django.test import override_settings

from counters.web.http.content_policy import WebsocketHostCSPMiddleware

HEADER = "Content-Security-Policy"


def test_a_kept_header_is_the_one_built_afresh_and_each_host_gets_its_own(rf):
    kept = WebsocketHostCSPMiddleware(lambda request: HttpResponse())
    for _ in range(3):
        for host in ("localhost:8000", "127.0.0.1:9000"):
            fresh = WebsocketHostCSPMiddleware(lambda request: HttpResponse())
            expected = fresh(rf.get("/", HTTP_HOST=host))[HEADER]
            assert kept(rf.get("/", HTTP_HOST=host))[HEADER] == expected
            assert f"ws://{host}" in expected


def test_a_views_own_additions_are_never_served_from_the_kept_header(rf):
    plain = HttpResponse
    widened = csp_update({"img-src": ["https://images.example"]})(lambda request: HttpResponse())
    answers = iter([plain, widened, plain])

    def view(request):
        return next(answers)(request)

    middleware = WebsocketHostCSPMiddleware(view)
    assert "https://images.example" not in middleware(rf.get("/"))[HEADER]
    assert "https://images.example" in middleware(rf.get("/"))[HEADER]

    assert "https://images.example" not in middleware(rf.get("/"))[HEADER]


@override_settings(CONTENT_SECURITY_POLICY={"DIRECTIVES": {"script-src": [SELF, NONCE]}})
def test_an_answer_that_used_a_nonce_names_its_own(rf):
    def page(request):
        str(request.csp_nonce)  # as a template asking for one does
        return HttpResponse()

    middleware = WebsocketHostCSPMiddleware(page)
    for _ in range(2):
        request = rf.get("/")
        header = middleware(request)[HEADER]
        assert f"'nonce-{request._csp_nonce}'" in header


def test_changed_settings_build_the_header_again(rf):
    middleware = WebsocketHostCSPMiddleware(lambda request: HttpResponse())
    before = middleware(rf.get("/"))[HEADER]
    with override_settings(CONTENT_SECURITY_POLICY={"DIRECTIVES": {"default-src": ["'none'"]}}):
        changed = middleware(rf.get("/"))[HEADER]
    assert changed != before and changed.startswith("default-src 'none'")
