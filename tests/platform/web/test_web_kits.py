"""The starter kits page and its downloads: one zip per language, for anyone."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from bots_sdk.kits import KITS, kit_zip
from tests.platform.web.test_web import client_for, text_of

pytestmark = pytest.mark.django_db


def test_the_kits_page_lists_every_kit_with_its_download() -> None:
    response = Client().get(reverse("web:kits"))
    assert response.status_code == 200
    html = response.content.decode()
    text = text_of(response)
    for lang, kit in KITS.items():
        assert f'href="/kits/vegas-kit-{lang}.zip"' in html
        assert kit.title in text and kit.main in text
    assert "javac -encoding UTF-8 -d /build /bot/*.java" in text
    assert "python -m bots_sdk new mybot --lang c" in text


def test_the_nav_and_the_upload_page_link_to_the_kits(alice: Any) -> None:
    kits = f'href="{reverse("web:kits")}"'
    assert kits in Client().get(reverse("web:home")).content.decode()
    upload = client_for(alice).get(reverse("web:upload"))
    # The nav, the footer and the page itself.
    assert upload.status_code == 200 and upload.content.decode().count(kits) == 3


@pytest.mark.parametrize("lang", list(KITS))
def test_each_kit_downloads_as_a_zip_with_its_files_at_the_top(lang: str) -> None:
    response = Client().get(f"/kits/vegas-kit-{lang}.zip")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == f'attachment; filename="vegas-kit-{lang}.zip"'
    assert response.content == kit_zip(lang)
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert sorted(archive.namelist()) == sorted(["README.md", KITS[lang].main])
        assert archive.testzip() is None


def test_an_unknown_kit_is_not_found_and_downloads_are_read_only() -> None:
    client = Client()
    assert client.get("/kits/vegas-kit-cobol.zip").status_code == 404
    assert client.get("/kits/vegas-kit-.zip").status_code == 404
    assert client.post("/kits/vegas-kit-c.zip").status_code == 405
    assert client.post(reverse("web:kits")).status_code == 405
