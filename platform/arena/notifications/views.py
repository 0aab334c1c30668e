"""The one-click unsubscribe page: no login, the signed token says who and which kind.

A GET shows one button (link scanners and previews fetch links: they must not
unsubscribe anyone); a POST, the button's or a mail client's own (RFC 8058's
``List-Unsubscribe=One-Click``), turns that kind's e-mails off.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from .services import email_unsubscribe
from .unsubscribe import token_read


# The token is the proof (signed, naming one user and kind); a mail client's POST has no
# CSRF token to send.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    read = token_read(token)
    if read is None:
        return render(request, "notifications/unsubscribe.html", {"invalid": True}, status=400)
    user_id, kind = read
    done = request.method == "POST"
    if done:
        email_unsubscribe(user_id=user_id, kind=kind)
    return render(request, "notifications/unsubscribe.html", {"kind": kind, "done": done})
