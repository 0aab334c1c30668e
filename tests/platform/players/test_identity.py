"""One person per name: usernames differ in more than case or Unicode form, and a person
logs in with their name in any case."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from arena.players.models import User
from arena.players.services import PlayerError, auth_token_obtain, player_create

pytestmark = pytest.mark.django_db

PASSWORD = "a long passphrase 42"


def sign_up(username: str) -> str:
    page = Client().post(
        "/signup/", {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    )
    return page.content.decode()


def test_a_name_that_differs_only_in_case_is_refused_saying_whose_it_is() -> None:
    player_create(username="newbie", password=PASSWORD)

    with pytest.raises(PlayerError) as refused:
        player_create(username="NEWBIE", password=PASSWORD)
    assert refused.value.message == (
        "the username 'NEWBIE' is taken (as 'newbie': case does not count): choose another."
    )
    assert "the username &#x27;NewBie&#x27; is taken (as &#x27;newbie&#x27;" in sign_up("NewBie")
    assert list(User.objects.values_list("username", flat=True)) == ["newbie"]


def test_full_width_and_composed_letters_fold_into_the_plain_name() -> None:
    player_create(username="newbie", password=PASSWORD)
    with pytest.raises(PlayerError, match=r"^the username 'newbie' is taken: choose another\.$"):
        player_create(username="ｎｅｗｂｉｅ", password=PASSWORD)  # noqa: RUF001 (full-width)
    # NFKC composes "e" + a combining acute into one letter: one name, not two.
    player_create(username="re\u0301my", password=PASSWORD)
    assert User.objects.filter(username="r\u00e9my").exists()
    with pytest.raises(PlayerError, match="is taken"):
        player_create(username="RÉMY", password=PASSWORD)


def test_the_database_refuses_a_second_spelling_too() -> None:
    """The rule holds for writes that skip the service (the admin, a script)."""
    User.objects.create(username="dora")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="Dora")


def test_a_person_logs_in_with_their_name_in_any_case(rf: Any) -> None:
    dora = player_create(username="Dora", password=PASSWORD)
    client = Client()
    logged_in = client.post("/login/", {"username": "dora", "password": PASSWORD})
    assert logged_in.status_code == 302 and logged_in["Location"] == "/"
    assert client.get("/upload/").status_code == 200
    assert auth_token_obtain(request=rf.post("/"), username="DORA", password=PASSWORD).user == dora


@pytest.mark.django_db(transaction=True)
def test_the_migration_names_the_accounts_that_collide_before_adding_the_rule() -> None:
    before = [("players", "0001_initial")]
    after = [("players", "0002_username_unique_in_any_case")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        # A database from before the rule, where two spellings of one name were allowed.
        old_user = executor.loader.project_state(before).apps.get_model("players", "User")
        old_user.objects.create(username="carol")
        old_user.objects.create(username="Carol")
        executor.loader.build_graph()
        with pytest.raises(RuntimeError) as refused:
            executor.migrate(after)
        assert str(refused.value) == (
            "usernames must differ in more than case, and these do: Carol, carol. Rename "
            "all but one of each group (admin or `manage.py shell`), then migrate."
        )
        old_user.objects.filter(username="Carol").update(username="carol2")
    finally:
        executor.loader.build_graph()
        executor.migrate(after)
        # Every later migration back (the teams' in players and bots too), for the tests
        # that follow on this database.
        MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
    assert sorted(User.objects.values_list("username", flat=True)) == ["carol", "carol2"]
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="CAROL")
