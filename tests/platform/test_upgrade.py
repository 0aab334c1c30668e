"""An upgrade from the last release (arena.releases): its database, populated through
that release's models, migrated to today's, read by today's code with nothing lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db.migrations.loader import MigrationLoader

from arena.releases import RELEASES, previous_release

from .conftest import needs_postgres
from .processes import manage, platform_env, run_json

pytestmark = pytest.mark.slow


def test_each_release_names_migrations_that_exist_in_order() -> None:
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    leaves = dict(graph.leaf_nodes())
    for release, migrations in RELEASES.items():
        for app, name in migrations.items():
            assert (app, name) in graph.nodes, f"{release}: {app}.{name} is not a migration"
            # Today's newest migration of the app comes at or after the release's.
            assert (app, name) in graph.forwards_plan((app, leaves[app])), (release, app)


@needs_postgres
def test_a_populated_database_of_the_last_release_upgrades_to_today(
    empty_database: str, tmp_path: Path
) -> None:
    env = platform_env(empty_database, "database", tmp_path / "media")
    release, _ = previous_release()
    assert run_json(env, "tests.platform.upgrade_steps", "old") is None

    done = manage(env, "migrate", "--no-input")
    assert done.returncode == 0, done.stderr
    assert "Applying" in done.stdout  # there was something to upgrade
    done = manage(env, "migrate", "--check")
    assert done.returncode == 0, f"migrations left after upgrading from {release}"

    read = run_json(env, "tests.platform.upgrade_steps", "read")
    assert read["bots"] == [["minnow", "bob", None], ["shark", "alice", "sharks"]]
    assert [v[:3] for v in read["versions"]] == [
        ["minnow", 1, "retired"],
        ["minnow", 2, "active"],
        ["shark", 1, "retired"],
        ["shark", 2, "active"],
    ]
    assert read["matches"] == [
        [seed, "finished", f"matches/logs/000000/{seed + 1}.json.gz", False] for seed in range(3)
    ]
    assert len(read["seats"]) == 6 and read["rating_changes"] == 6
    # The ratings come through, each given a deviation by the upgrade.
    assert sorted(r[:3] for r in read["ratings"]) == [
        ["minnow", 1476.0, 3],
        ["shark", 1524.0, 3],
    ]
    assert all(r[3] for r in read["ratings"])
