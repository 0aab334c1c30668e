"""A strict Content-Security-Policy on every response.

Django 5.2 has none built in (and django-csp is not a dependency): this
middleware sets one policy for the whole site. The pages load only the
platform's own scripts and stylesheets: no inline ``<script>``, ``style``
attribute, ``<style>`` element or ``on...=`` handler anywhere (a page's data
travels in ``json_script`` blocks, which are not run). Bot code, player names
and game logs end up in pages: should any escaping ever fail, the browser
still runs nothing but our files.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

#: The directives, each as strict as the pages allow. Notes:
#: ``img-src data:``: Swagger UI's icons are data URIs in its stylesheet.
#: ``worker-src 'none'``: the editor runs Ace without its syntax-check worker.
#: ``frame-ancestors 'none'``: no page is framed (X-Frame-Options says so for old browsers).
DIRECTIVES: dict[str, str] = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "worker-src": "'none'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
}
POLICY = "; ".join(f"{name} {value}" for name, value in DIRECTIVES.items())
HEADER = "Content-Security-Policy"


class ContentSecurityPolicyMiddleware:
    """Sets :data:`POLICY` on responses that carry none of their own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault(HEADER, POLICY)
        return response
