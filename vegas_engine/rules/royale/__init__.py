"""`royale`: Las Vegas Royale (alea 2019, seed 003), basic game and action tiles.

The rule data is in :mod:`.tiles` (every number configurable); each tile's
rules in its own module of :mod:`.effects` (one per tile side); the game
(rounds, turns, money, observations), its action grammar and its events in
:mod:`.game`, with the decisions and action strings in :mod:`.common` and the
position checks in :mod:`.positions`. Where RULES.md and the rulebook are
silent the engine rules as follows (docs/rulings.md, section royale):

- Unwon cards and imaginary players' winnings go under the face-down pile; deals
  draw from the pile first. The bank and the chip supply are unlimited.
- A roll whose faces all lead to a closed casino places nothing, free (``skip``).
- Next start player: the best-ranked seat that won a card at the highest casino
  where a seat won one; if none did, the seat left of the start player.
- Tiles are set up anew each round. Activation: placing dice from a roll or a
  Power Play turn on a tile's casino, or My Choice's face 4; other placements
  (turned, bumped, grey, neutral, black dice) never activate.
- A closed casino takes and gives no dice by any means; its tile is inactive,
  payout and round-end effects included (the golden space of a closed My Choice
  pays nothing; a High Five token already taken still pays).
- Before payout, Prime Time and Bad Luck act in casino order; the casinos then
  pay in order 1..6, each followed by its tile's payout; at round end the golden
  space pays, then Bad Luck is collected.
- Power Play: majority among all owners, imaginary ones included; a seat
  activating the casino with the sole majority takes the token (from the tile
  or its holder); it returns to the tile only when nobody has a clear majority
  there; its option is offered at the start of the holder's next turn only.
- The other tile details (Fifty Fifty's first step, Black Box piles, Nice Dice
  candidates, My Choice effects that cannot happen, ...) are in the tile's
  module of :mod:`.effects` (``effects/fifty_fifty.py``, ...).
"""

from __future__ import annotations

from ...system import OptionSpec, RuleSystem
from .game import ROYALE_EVENTS, RoyaleDecision, RoyaleGame, new_royale_game, royale_position
from .tiles import ROYALE_RULES, RoyaleRules, Tile, TileRules

ROYALE = RuleSystem(
    id="royale",
    title="Las Vegas Royale (alea 2019): basic game and main game with action tiles",
    seeds=("003",),
    seats=(2, 3, 4, 5),
    rounds=ROYALE_RULES.rounds,
    options=(
        OptionSpec(
            "neutral_dice",
            False,
            "Two seats: 8 neutral dice are rolled onto the casinos at each round start; "
            "their winnings go under the pile.",
            seats=(2,),
        ),
        OptionSpec(
            "tiles",
            ROYALE_RULES.default_tiles,
            "Action tiles per round on casinos 1, 2, 3, ... (0 is the basic game).",
            choices=tuple(range(ROYALE_RULES.max_tiles + 1)),
        ),
    ),
    decisions=RoyaleDecision,
    new_state=lambda description, seed, log, chance: new_royale_game(
        description, seed, ROYALE_RULES, log, chance
    ),
    from_observation=lambda description, seed, seen: RoyaleGame.from_observation(
        description, seed, ROYALE_RULES, seen
    ),
    from_position=lambda description, seed, position, log, chance: royale_position(
        description, seed, ROYALE_RULES, position, log, chance
    ),
)

__all__ = [
    "ROYALE",
    "ROYALE_EVENTS",
    "ROYALE_RULES",
    "RoyaleDecision",
    "RoyaleGame",
    "RoyaleRules",
    "Tile",
    "TileRules",
]
