"""The page an e-mail verification link opens: no login, the signed token says who.

A GET shows one button (link scanners and previews fetch links: they must not verify
an address nobody read); the button's POST verifies it.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from .services import EmailVerificationError, email_verify


@require_http_methods(["GET", "POST"])
def verify_email(request: HttpRequest, token: str) -> HttpResponse:
    if request.method == "GET":
        return render(request, "players/verify_email.html", {})
    try:
        user = email_verify(token=token)
    except EmailVerificationError as error:
        context = {"error": error.message}
        return render(request, "players/verify_email.html", context, status=400)
    return render(request, "players/verify_email.html", {"verified": user.email})
