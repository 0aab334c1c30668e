"""Round robin tournaments: every table of N bots plays K games with seat rotation.

With B bots and N seats, every combination of N bots is a table. A table
plays its games in blocks of N with the same seed, rotating the seats, so
each bot meets the same dice and notes from every seat (less luck in the
score). One :class:`~bots_sdk.referee.Match` per table: processes start once
per table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from vegas_engine import describe
from vegas_engine.state import JsonDict

from .launcher import BotSpec, Launcher, launch_bot
from .protocol import Limits
from .rating import Rating, ratings
from .referee import GameRecord, Match, new_bot_seed_key, rotations

Progress = Callable[[int, int], None]


@dataclass
class Standing:
    """One bot's totals over a tournament."""

    name: str
    games: int = 0
    wins: float = 0.0
    money: int = 0
    forfeits: int = 0
    rating: Rating | None = None

    @property
    def mean_money(self) -> float:
        return self.money / self.games if self.games else 0.0

    def to_json(self) -> JsonDict:
        rating = self.rating
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.wins / self.games if self.games else 0.0,
            "mean_money": round(self.mean_money, 1),
            "forfeits": self.forfeits,
            "elo": None if rating is None else round(rating.elo, 1),
            "elo_low": None if rating is None else round(rating.low, 1),
            "elo_high": None if rating is None else round(rating.high, 1),
        }


@dataclass
class TournamentResult:
    standings: list[Standing]
    records: list[tuple[list[int], GameRecord]] = field(default_factory=list)
    #: The key of every table's bot seeds: passed back, it repeats the tournament.
    bot_seed_key: bytes = field(default=b"", repr=False)

    def table(self) -> str:
        """The standings, best Elo first, as aligned text."""
        width = max(len("bot"), *(len(s.name) for s in self.standings))
        lines = [
            f"{'bot':<{width}}  {'games':>5}  {'wins':>6}  {'win %':>5}  "
            f"{'mean money':>10}  {'forfeits':>8}  {'Elo (95% CI)':>18}"
        ]
        ranked = sorted(self.standings, key=lambda s: -(s.rating.elo if s.rating else 0))
        for s in ranked:
            rate = 100 * s.wins / s.games if s.games else 0.0
            elo = f"{s.rating.elo:.0f} ± {s.rating.margin:.0f}" if s.rating else "-"
            lines.append(
                f"{s.name:<{width}}  {s.games:>5}  {s.wins:>6g}  {rate:>5.1f}  "
                f"{s.mean_money:>10,.0f}  {s.forfeits:>8}  {elo:>18}"
            )
        return "\n".join(lines)


def schedule(bots: int, seats: int, games: int) -> list[tuple[tuple[int, ...], int]]:
    """Each table (bot indices) with the number of games it plays."""
    if bots < seats:
        raise ValueError(f"a tournament of {seats}-seat games needs at least {seats} bots")
    return [(table, games) for table in combinations(range(bots), seats)]


def run_tournament(
    bots: Sequence[BotSpec],
    *,
    rules: str,
    seats: int,
    games: int,
    seed: int = 0,
    options: Mapping[str, object] | None = None,
    limits: Limits | None = None,
    launcher: Launcher = launch_bot,
    progress: Progress | None = None,
    bot_seed_key: bytes | None = None,
) -> TournamentResult:
    """Play every table; ``progress(done, total)`` is called after each game.

    Every table derives its bots' seeds with ``bot_seed_key`` (one is drawn
    when None; :attr:`TournamentResult.bot_seed_key` tells which)."""
    description = describe(rules, seats, options)
    tables = schedule(len(bots), seats, games)
    total = sum(count for _, count in tables)
    standings = [Standing(bot.name) for bot in bots]
    key = new_bot_seed_key() if bot_seed_key is None else bot_seed_key
    result = TournamentResult(standings, bot_seed_key=key)
    done = 0
    for table_index, (table, count) in enumerate(tables):
        table_bots = [bots[i] for i in table]
        with Match(table_bots, limits, launcher=launcher, bot_seed_key=key) as match:
            for game, seating in enumerate(rotations(seats, count)):
                game_seed = seed + table_index * games + game // seats
                record = match.play(description, game_seed, seating)
                players = [table[player] for player in seating]
                result.records.append((players, record))
                for entry in record.result:
                    standing = standings[players[entry["seat"]]]
                    standing.games += 1
                    standing.money += entry["money"]
                    standing.forfeits += entry["forfeited"]
                    standing.wins += entry["rank"] == 1
                done += 1
                if progress is not None:
                    progress(done, total)
    games_by_player = [
        [(players[entry["seat"]], entry["rank"]) for entry in record.result]
        for players, record in result.records
    ]
    for standing, rating in zip(
        standings, ratings(games_by_player, len(bots), seed=seed), strict=True
    ):
        standing.rating = rating
    return result
