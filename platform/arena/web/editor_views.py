"""The browser editor: an author writes a bot, runs test games, and submits it.

Signed-in authors only, each seeing their own drafts (others get 404, staff
included: a draft is unsubmitted work). The editor page is one form holding
the code: Save, Run a test game and Submit post it to their own URLs, so
each acts on exactly the text shown; ``web/editor.js`` puts the Ace editor
over the text area and saves as the author types (the save URL answers JSON
to it). Test games are listed in a block that polls itself (htmx) until each
is finished; a failed build shows the upload's report.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from arena.bots.models import Draft
from arena.bots.selectors import (
    bot_list_visible,
    draft_get,
    draft_test_games,
    opponent_bots_of,
    user_drafts,
    user_versions_to_edit,
)
from arena.errors import ArenaError
from arena.ladders.flows import draft_run_test_game, draft_submit
from arena.ladders.services.editor import (
    TestGameQuotaError,
    draft_delete,
    draft_save,
    draft_start_from_kit,
    draft_start_from_version,
)
from arena.matches.selectors import TestGameStage, stage_of_test_game
from arena.players.selectors import signed_in
from arena.throttling import UploadThrottle
from bots_sdk.runtimes import runtime_for_file

from .editor_forms import DraftSourceForm, StartFromKitForm, StartFromVersionForm, TestGameForm
from .views import VERSION_POLL_SECONDS, _throttled, _version_report

DRAFTS_LISTED = 20
TEST_GAMES_LISTED = 10
#: Ace's mode of each runtime (its file mode-<name>.js in the vendored build).
ACE_MODES = {
    "python": "python",
    "js": "javascript",
    "c": "c_cpp",
    "cpp": "c_cpp",
    "java": "java",
    "rust": "rust",
    "go": "golang",
}


def _draft(request: HttpRequest, draft_id: int) -> Draft:
    draft = draft_get(user=request.user, draft_id=draft_id)
    if draft is None:
        raise Http404("No such draft.")
    return draft


@login_required(login_url="web:login")
@require_http_methods(["GET", "POST"])
def editor_home(request: HttpRequest) -> HttpResponse:
    """The author's drafts, and a new one from a starter kit or one of their versions."""
    author = signed_in(request)
    versions = user_versions_to_edit(user=author)
    kit_form = StartFromKitForm(prefix="kit")
    version_form = StartFromVersionForm(prefix="version", versions=versions)
    status = 200
    if request.method == "GET" and (bot_id := request.GET.get("bot", "")).isdigit():
        # From a bot's page: its latest version.
        latest = versions.filter(bot_id=int(bot_id)).first()
        if latest is not None:
            version_form = StartFromVersionForm(
                prefix="version", versions=versions, initial={"version": latest}
            )
            kit_form = StartFromKitForm(prefix="kit", initial={"name": latest.bot.name})
    elif request.method == "POST":
        form: StartFromKitForm | StartFromVersionForm
        if request.POST.get("start") == "version":
            form = version_form = StartFromVersionForm(
                request.POST, prefix="version", versions=versions
            )
        else:
            form = kit_form = StartFromKitForm(request.POST, prefix="kit")
        if form.is_valid():
            try:
                if isinstance(form, StartFromVersionForm):
                    draft = draft_start_from_version(
                        owner=author, version=form.cleaned_data["version"]
                    )
                else:
                    draft = draft_start_from_kit(
                        owner=author, name=form.cleaned_data["name"], lang=form.cleaned_data["lang"]
                    )
            except ArenaError as error:
                form.add_error(None, error.message)
            else:
                return redirect("web:editor-draft", draft_id=draft.pk)
        status = 400
    context = {
        "drafts": user_drafts(user=author)[:DRAFTS_LISTED],
        "kit_form": kit_form,
        "version_form": version_form,
        "has_versions": versions.exists(),
        "my_bots": bot_list_visible(user=author, owner=author.username),
    }
    return render(request, "web/editor_home.html", context, status=status)


def _test_games_context(draft: Draft) -> dict[str, Any]:
    rows = []
    waiting = False
    for test_game in draft_test_games(draft=draft, limit=TEST_GAMES_LISTED):
        stage = stage_of_test_game(test_game)
        waiting = waiting or not stage.done
        report = _version_report(test_game.build) if stage == TestGameStage.BUILD_FAILED else None
        rows.append({"game": test_game, "stage": stage, "report": report})
    return {
        "draft": draft,
        "test_games": rows,
        # Polled while one is not done; the answer without one stops it.
        "test_games_waiting": waiting,
        "poll_seconds": VERSION_POLL_SECONDS,
    }


def _editor_page(
    request: HttpRequest,
    draft: Draft,
    *,
    source_form: DraftSourceForm | None = None,
    test_form: TestGameForm | None = None,
    status: int = 200,
) -> HttpResponse:
    runtime = runtime_for_file(draft.filename)
    games = _test_games_context(draft)
    if test_form is None:
        # The last test game's choices again: the author reruns the same game as they edit.
        last = games["test_games"][0]["game"] if games["test_games"] else None
        test_form = TestGameForm(
            initial={}
            if last is None
            else {"ladder": last.ladder_id, "opponents": opponent_bots_of(last)}
        )
    context = {
        **games,
        "source_form": source_form or DraftSourceForm(initial={"source": draft.source}),
        "test_form": test_form,
        "runtime": runtime,
        "ace_mode": ACE_MODES.get(runtime.id, "text"),
        "my_bot": bot_list_visible(user=draft.owner, owner=draft.owner.username)
        .filter(name__iexact=draft.name)
        .first(),
    }
    return render(request, "web/editor.html", context, status=status)


@login_required(login_url="web:login")
@require_GET
def editor_draft(request: HttpRequest, draft_id: int) -> HttpResponse:
    return _editor_page(request, _draft(request, draft_id))


def _saved(request: HttpRequest, draft: Draft) -> tuple[DraftSourceForm, str | None]:
    """Save the posted code; the form, and the refusal's message if it was refused."""
    form = DraftSourceForm(request.POST)
    if not form.is_valid():
        return form, "; ".join(str(e) for e in form.errors.get("source", [])) or "invalid code"
    try:
        draft_save(draft=draft, source=form.cleaned_data["source"])
    except ArenaError as error:
        form.add_error("source", error.message)
        return form, error.message
    return form, None


@login_required(login_url="web:login")
@require_POST
def editor_save(request: HttpRequest, draft_id: int) -> HttpResponse:
    """Keep the code: JSON for the editor's autosave, else back to the page."""
    draft = _draft(request, draft_id)
    form, refused = _saved(request, draft)
    if "application/json" in request.headers.get("Accept", ""):
        if refused:
            return JsonResponse({"saved": False, "error": refused}, status=400)
        saved_at = timezone.localtime(draft.updated_at)
        return JsonResponse({"saved": True, "saved_at": f"{saved_at:%H:%M:%S}"})
    if refused:
        return _editor_page(request, draft, source_form=form, status=400)
    messages.success(request, "Saved.")
    return redirect("web:editor-draft", draft_id=draft.pk)


@login_required(login_url="web:login")
@require_POST
def editor_test(request: HttpRequest, draft_id: int) -> HttpResponse:
    """Save the code, then run a test game of it."""
    draft = _draft(request, draft_id)
    source_form, refused = _saved(request, draft)
    test_form = TestGameForm(request.POST)
    if refused or not test_form.is_valid():
        return _editor_page(
            request, draft, source_form=source_form, test_form=test_form, status=400
        )
    try:
        draft_run_test_game(
            draft=draft,
            ladder=test_form.cleaned_data["ladder"],
            opponents=list(test_form.cleaned_data["opponents"]),
        )
    except TestGameQuotaError as error:
        test_form.add_error(None, error.message)
        return _editor_page(
            request, draft, source_form=source_form, test_form=test_form, status=429
        )
    except ArenaError as error:
        test_form.add_error(None, error.message)
        return _editor_page(
            request, draft, source_form=source_form, test_form=test_form, status=400
        )
    messages.success(request, "Saved; the test game is on its way: it shows below.")
    return redirect(reverse("web:editor-draft", args=[draft.pk]) + "#test-games")


@login_required(login_url="web:login")
@require_GET
def editor_test_games(request: HttpRequest, draft_id: int) -> HttpResponse:
    """The draft's test games, polled by the editor page while one is not done."""
    draft = _draft(request, draft_id)
    return render(request, "web/_test_games.html", _test_games_context(draft))


@login_required(login_url="web:login")
@require_POST
def editor_submit(request: HttpRequest, draft_id: int) -> HttpResponse:
    """Save the code, then upload it as a new version of the draft's bot."""
    draft = _draft(request, draft_id)
    source_form, refused = _saved(request, draft)
    if refused:
        return _editor_page(request, draft, source_form=source_form, status=400)
    if limited := _throttled(request, UploadThrottle(), "uploads"):
        source_form.add_error(None, limited)
        return _editor_page(request, draft, source_form=source_form, status=429)
    try:
        version = draft_submit(draft=draft)
    except ArenaError as error:
        source_form.add_error(None, error.message)
        return _editor_page(request, draft, source_form=source_form, status=400)
    version.refresh_from_db()  # validation may have run when the upload committed
    messages.success(
        request,
        f"Submitted {version.bot.name} version {version.number} "
        f"({version.get_status_display().lower()}).",
    )
    return redirect("web:bot", bot_id=version.bot_id)


@login_required(login_url="web:login")
@require_POST
def editor_delete(request: HttpRequest, draft_id: int) -> HttpResponse:
    draft = _draft(request, draft_id)
    draft_delete(draft=draft)
    messages.success(request, f"Deleted the draft {draft.name} #{draft_id}.")
    return redirect("web:editor")
