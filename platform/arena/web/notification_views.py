"""A signed-in author's notification settings: per kind e-mail and webhook, the webhook's
URL and secret (shown once, when made), a test, and the latest deliveries."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from arena.errors import ArenaError
from arena.notifications import flows, services
from arena.notifications.kinds import EventKind
from arena.notifications.selectors import deliveries_recent, preferences_of, webhook_of
from arena.players import flows as player_flows
from arena.players.models import User
from arena.players.selectors import email_verified, signed_in
from arena.players.services import email_set
from arena.throttling import EmailVerifyThrottle, retry_message, throttle_wait


class WebhookForm(forms.Form):
    url = forms.URLField(label="Webhook URL", max_length=500, assume_scheme="https")


class EmailForm(forms.Form):
    email = forms.EmailField(label="E-mail address", required=False)


def _page(request: HttpRequest, user: User, **extra: Any) -> HttpResponse:
    endpoint = webhook_of(user=user)
    context = {
        "choices": preferences_of(user=user),
        "endpoint": endpoint,
        "webhook_form": extra.pop(
            "webhook_form", WebhookForm(initial={"url": endpoint.url if endpoint else ""})
        ),
        "email_form": extra.pop("email_form", EmailForm(initial={"email": user.email})),
        "email_verified": email_verified(user),
        "deliveries": deliveries_recent(user=user),
        **extra,
    }
    return render(request, "web/notifications.html", context)


def _verification_send(request: HttpRequest, user: User) -> None:
    """E-mail a verification link, within ARENA_RATE_EMAIL_VERIFY (an ArenaError says
    when there is nothing to verify)."""
    wait = throttle_wait(EmailVerifyThrottle(), request)
    if wait is not None:
        messages.error(request, f"Too many verification e-mails asked for: {retry_message(wait)}.")
        return
    player_flows.email_verification_request(user=user)
    messages.success(
        request, f"A verification link is on its way to {user.email}: follow it to verify."
    )


@login_required
@require_http_methods(["GET", "POST"])
def notifications_page(request: HttpRequest) -> HttpResponse:
    user = signed_in(request)
    if request.method == "GET":
        return _page(request, user)
    action = request.POST.get("action", "")
    try:
        if action == "choices":
            services.preferences_set(
                user=user,
                choices={
                    kind.value: (
                        f"email:{kind.value}" in request.POST,
                        f"webhook:{kind.value}" in request.POST,
                    )
                    for kind in EventKind.choosable()
                },
            )
            messages.success(request, "Your notification choices are saved.")
        elif action == "email":
            email_form = EmailForm(request.POST)
            if not email_form.is_valid():
                return _page(request, user, email_form=email_form)
            before = user.email
            email_set(user=user, email=email_form.cleaned_data["email"])
            messages.success(request, "Your e-mail address is saved.")
            if user.email and user.email != before:
                _verification_send(request, user)
        elif action == "verify-email":
            _verification_send(request, user)
        elif action == "webhook":
            webhook_form = WebhookForm(request.POST)
            if not webhook_form.is_valid():
                return _page(request, user, webhook_form=webhook_form)
            is_new = webhook_of(user=user) is None
            endpoint = services.webhook_set(user=user, url=webhook_form.cleaned_data["url"])
            if is_new:
                # Rendered, not redirected: the secret is shown this once, stored nowhere else.
                return _page(request, user, new_secret=endpoint.secret)
            messages.success(request, "Your webhook URL is saved; its secret is unchanged.")
        elif action == "secret":
            endpoint = services.webhook_secret_regenerate(user=user)
            return _page(request, user, new_secret=endpoint.secret)
        elif action == "delete-webhook":
            services.webhook_delete(user=user)
            messages.success(request, "Your webhook is removed.")
        elif action == "test":
            sent = flows.test_send(user=user)
            messages.success(
                request,
                f"Test sent ({', '.join(d.channel for d in sent) or 'throttled'}): "
                "see the deliveries below.",
            )
        else:
            messages.error(request, "Unknown action.")
    except ArenaError as error:
        messages.error(request, error.message)
    return redirect("web:notifications")
