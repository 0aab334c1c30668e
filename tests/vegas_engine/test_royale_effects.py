"""The `royale` tiles' effects (rules/royale/effects/): one per tile side, and the
game asks each decision through the tile that owns it."""

from __future__ import annotations

from vegas_engine.rules.royale import RoyaleDecision, Tile
from vegas_engine.rules.royale.effects import EFFECTS
from vegas_engine.rules.royale.positions import DECISION_TILES

D = RoyaleDecision


def test_every_tile_side_has_its_effect_in_tile_order() -> None:
    assert [effect.tile for effect in EFFECTS] == list(Tile)


def test_each_tile_decision_is_handled_by_the_tile_a_position_names_for_it() -> None:
    """The position checks' owner of each decision is the tile whose module handles it;
    ``move`` is the game's own (Handicap's and My Choice's reward) and ``power`` has no
    casino in its context."""
    owners = {decision: effect.tile for effect in EFFECTS for decision in effect.decisions}
    assert set(owners) == set(DECISION_TILES) - {D.MOVE} | {D.POWER}
    for decision, tiles in DECISION_TILES.items():
        if decision is not D.MOVE:
            assert tiles == (owners[decision],), decision
    assert owners[D.POWER] is Tile.POWER_PLAY
    assert DECISION_TILES[D.MOVE] == (Tile.HANDICAP, Tile.MY_CHOICE)
