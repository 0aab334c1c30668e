"""API tokens, the login session of the browsable API, the OpenAPI schema and its docs pages."""

from __future__ import annotations

import re
from typing import Any

import openapi_spec_validator
import pytest
from django.contrib.staticfiles import finders
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpRequest
from django.test import Client
from rest_framework.test import APIClient

from .api_support import GOOD

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # the factories' password


def obtain(username: str, password: str = PASSWORD) -> Any:
    return APIClient().post(
        "/api/auth/token/", {"username": username, "password": password}, format="json"
    )


def test_a_token_is_obtained_with_the_login_credentials_and_authenticates(alice: Any) -> None:
    first = obtain("alice")
    assert first.status_code == 200, first.content
    assert first.json()["username"] == "alice"
    token = first.json()["token"]
    assert obtain("alice").json()["token"] == token  # the same until revoked

    api = APIClient(HTTP_AUTHORIZATION=f"Token {token}")
    created = api.post(
        "/api/bots/",
        {"name": "shark", "file": SimpleUploadedFile("shark.py", GOOD)},
        format="multipart",
    )
    assert created.status_code == 201, created.content
    wrong = APIClient(HTTP_AUTHORIZATION="Token 0123456789abcdef")
    assert wrong.get("/api/bots/").status_code == 401


def test_wrong_credentials_get_no_token(alice: Any) -> None:
    for response in (obtain("alice", "guess"), obtain("nobody")):
        assert response.status_code == 400
        assert response.json()["code"] == "credentials_invalid"
    missing = APIClient().post("/api/auth/token/", {"username": "alice"}, format="json")
    assert missing.status_code == 400 and "password" in missing.json()


def test_a_revoked_token_stops_working(alice: Any) -> None:
    token = obtain("alice").json()["token"]
    api = APIClient(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.post("/api/auth/token/revoke/").status_code == 204
    assert api.post("/api/auth/token/revoke/").status_code == 401
    assert obtain("alice").json()["token"] != token
    assert APIClient().post("/api/auth/token/revoke/").status_code == 401


def test_the_browsable_api_uses_the_login_session_with_csrf(alice: Any) -> None:
    browser = Client(enforce_csrf_checks=True)
    assert browser.get("/api/auth/login/").status_code == 200
    # django-axes counts logins by address: it needs the request.
    assert browser.login(request=HttpRequest(), username="alice", password=PASSWORD)

    page = browser.get("/api/bots/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200
    assert "text/html" in page["Content-Type"] and b"alice" in page.content
    # A session request that changes something needs the CSRF token.
    refused = browser.post("/api/bots/", {"name": "shark"}, HTTP_ACCEPT="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]


# --------------------------------------------------------------------------- schema and docs

ENDPOINTS = {
    "/api/auth/token/": {"post"},
    "/api/auth/token/revoke/": {"post"},
    "/api/bots/": {"get", "post"},
    "/api/bots/{bot_id}/": {"get", "patch"},
    "/api/bots/{bot_id}/versions/": {"get", "post"},
    "/api/bots/{bot_id}/versions/{number}/": {"get"},
    "/api/bots/{bot_id}/versions/{number}/retire/": {"post"},
    "/api/bots/{bot_id}/ladders/": {"get", "put"},
    "/api/ladders/": {"get", "post"},
    "/api/ladders/{slug}/": {"get"},
    "/api/ladders/{slug}/leaderboard/": {"get"},
    "/api/ladders/{slug}/matches/": {"get"},
    "/api/ladders/{slug}/logs/": {"get"},
    "/api/matches/": {"get"},
    "/api/matches/{match_id}/": {"get"},
    "/api/matches/{match_id}/log/": {"get"},
    "/api/challenges/": {"get", "post"},
    "/api/challenges/{challenge_id}/": {"get"},
}


def test_the_schema_is_a_valid_openapi_document_of_every_endpoint() -> None:
    response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = response.json()

    # openapi-spec-validator (a dev dependency) raises on an invalid OpenAPI document.
    openapi_spec_validator.validate(schema)
    assert schema["openapi"].startswith("3.")
    paths = {path: set(ops) - {"parameters"} for path, ops in schema["paths"].items()}
    assert {path: paths.get(path) for path in ENDPOINTS} == ENDPOINTS
    assert {"tokenAuth", "cookieAuth"} <= set(schema["components"]["securitySchemes"])
    # Paginated lists are described as pages.
    leaderboard = schema["paths"]["/api/ladders/{slug}/leaderboard/"]["get"]
    page = leaderboard["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert page.endswith("/PaginatedLeaderboardEntryList")
    assert (
        "application/jsonl"
        in (schema["paths"]["/api/ladders/{slug}/logs/"]["get"]["responses"]["200"]["content"])
    )


def test_the_docs_page_loads_everything_from_local_static_files() -> None:
    page = Client().get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()

    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert len(assets) >= 3, html  # favicon, stylesheet, scripts
    # Swagger UI's files, our stylesheet, and its start-up script (a file: the site's CSP).
    script = "/api/docs/?script="
    assert script in assets
    for asset in assets:
        if asset != script:
            assert asset.startswith(("/static/drf_spectacular_sidecar/", "/static/web/")), asset
            assert finders.find(asset.removeprefix("/static/")), asset
    assert "https://" not in html and "http://" not in html
    assert "<style" not in html and "<script>" not in html
    start = Client().get(script)
    assert start["Content-Type"].startswith("application/javascript")
    assert '"validatorUrl": null' in start.content.decode()
