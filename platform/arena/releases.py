"""The platform's releases, each as the migrations it ends with: an upgrade starts from
one of them (docs/deploy.md, *Upgrades*), and ``tests/platform/test_upgrade.py``
upgrades a populated database of the last one to today's migrations.

A release adds its entry when it is cut: the newest migration of every app then.
"""

from __future__ import annotations

#: Release name -> {app label: its newest migration in that release}, oldest first.
RELEASES: dict[str, dict[str, str]] = {
    "2026.11": {
        "blobs": "0001_initial",
        "players": "0004_email_verification",
        "bots": "0006_teams",
        "ladders": "0013_team_name",
        "matches": "0009_match_attempts_retry_at",
        "leagues": "0003_league_sweep",
        "competitions": "0002_team_name",
        "live": "0001_initial",
        "tables": "0001_initial",
        "notifications": "0001_initial",
    },
}


def previous_release() -> tuple[str, dict[str, str]]:
    """The last release cut: its name and migrations."""
    name = list(RELEASES)[-1]
    return name, RELEASES[name]
