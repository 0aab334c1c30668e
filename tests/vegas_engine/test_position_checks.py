"""Impossible positions, one by one: ``from_position`` refuses each, naming the field.

Each case edits a position the engine exported (or one set up with the
royale helper) into something no game can reach: a count out of range or of
the wrong type (a boolean for an integer), a die or card the game does not
have, fields that disagree, a decision that cannot be asked there. Several
were accepted before and then hung or crashed later (a royale hand of -1 dice
rolled forever). ``test_position_mutants.py`` fuzzes the same ground.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from tests.vegas_engine.test_royale import play
from tests.vegas_engine.test_royale import position as royale_position
from vegas_engine import InvalidPositionError, describe, from_position, new_game
from vegas_engine.position import check_choice, check_int, check_list, check_seat

JsonDict = dict[str, Any]
Edit = Callable[[JsonDict], object]


def refused(
    rules: str,
    edit: Edit,
    field: str,
    *,
    seats: int = 3,
    options: Mapping[str, bool | int] | None = None,
    seed: int = 4,
    position: JsonDict | None = None,
) -> str:
    """The message refusing ``position`` (default: a new game's) once ``edit`` changed it
    in place; the error names ``field``."""
    game = describe(rules, seats, options)
    if position is None:
        position = new_game(game, seed).position()
    edited = copy.deepcopy(position)
    edit(edited)
    with pytest.raises(InvalidPositionError) as error:
        from_position(game, edited, seed)
    assert error.value.field == field, str(error.value)
    message = str(error.value)
    assert message.startswith(f"position {field}: ")
    return message


def setter(path: str, value: Any) -> Edit:
    """An edit setting the field at ``path`` ("hands.0.die") to ``value``."""

    def edit(position: JsonDict) -> None:
        *parents, last = path.split(".")
        node: Any = position
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return edit


# ---------------------------------------------------------------- checkers


def test_the_checkers_name_the_field_and_what_is_allowed() -> None:
    with pytest.raises(InvalidPositionError, match=r"position a\.b: True is not an integer 0\.\.7"):
        check_int(True, "a.b", 0, 7)
    with pytest.raises(
        InvalidPositionError, match=r"9 is out of range; allowed: an integer 0\.\.7"
    ):
        check_int(9, "x", 0, 7)
    with pytest.raises(InvalidPositionError, match=r"-1 is no seat; allowed: 0\.\.2"):
        check_seat(-1, "seat", 3)
    with pytest.raises(InvalidPositionError, match=r"allowed: \"die\", \"biggie\""):
        check_choice("kicker", "kind", ("die", "biggie"))
    with pytest.raises(InvalidPositionError, match="allowed: 1"):
        check_choice(True, "one", (1,))  # true is not 1
    with pytest.raises(InvalidPositionError, match="3 entries expected, got 2"):
        check_list([1, 2], "seats", 3)
    assert check_int(5, "x", 0) == 5 and check_seat(2, "s", 3) == 2


# --------------------------------------------------------- the dice games


@pytest.mark.parametrize(
    ("path", "value", "field", "says"),
    [
        ("hands.1.die", -1, "hands[1].die", "-1 is out of range; allowed: an integer 0..8"),
        ("hands.1.die", 30, "hands[1].die", "30 is out of range"),
        ("hands.1.die", True, "hands[1].die", "integer expected, got True"),
        ("hands.1.biggie", 1, "hands[1].biggie", "there are no biggie dice in this game"),
        ("round", 0, "round", "0 is out of range; allowed: an integer 1..4"),
        ("round", 5, "round", "5 is out of range"),
        ("start_player", 3, "start_player", "3 is no seat; allowed: 0..2"),
        ("start_player", 1, "start_player", "seat 0 starts round 1 and the start passes left"),
        ("current_player", False, "current_player", "integer expected, got False"),
        ("last_roller", 2, "last_roller", "seat 0 rolled last"),
        ("kickers_used.0", 1, "kickers_used[0]", "there are no kicker dice in this game"),
        ("neutral_out", -2, "neutral_out", "-2 is out of range"),
    ],
)
def test_classic_counts_out_of_range(path: str, value: Any, field: str, says: str) -> None:
    assert says in refused("classic", setter(path, value), field)


def test_classic_has_no_biggies_anywhere() -> None:
    def rolled(p: JsonDict) -> None:
        p["roll"]["dice"]["biggie"] = [3]
        p["hands"][0]["biggie"] = 1

    assert "there are no biggie dice" in refused("classic", rolled, "hands[0].biggie")

    def placed(p: JsonDict) -> None:
        p["casinos"][2]["dice"] = {"1": 2}
        p["casinos"][2]["biggies"] = {"1": 1}

    assert "allowed keys: none" in refused("classic", placed, "casinos[2].biggies.1")


def test_classic_dice_more_than_a_seat_has() -> None:
    def nine(p: JsonDict) -> None:
        p["casinos"][0]["dice"] = {"1": 2}  # seat 1 still holds all 8

    assert "10 die dice held and placed, but there are only 8" in refused(
        "classic", nine, "hands[1].die"
    )
    message = refused("classic", setter("casinos.0.dice", {"3": 1}), "casinos[0].dice.3")
    assert "allowed keys: 0, 1, 2" in message
    message = refused("classic", setter("casinos.0.dice", {"0": 0}), "casinos[0].dice.0")
    assert "0 is out of range" in message


def test_classic_neutral_dice_only_with_the_option() -> None:
    assert "allowed keys: 0, 1, 2" in refused(
        "classic", setter("casinos.0.dice", {"neutral": 1}), "casinos[0].dice.neutral"
    )

    def too_many(p: JsonDict) -> None:
        p["casinos"][1]["dice"] = {"neutral": 7}

    message = refused("classic", too_many, "neutral_out", options={"neutral_dice": True}, seats=3)
    assert "neutral dice held, placed and out, but there are only 8" in message


def test_classic_a_casino_stocked_past_its_minimum() -> None:
    message = refused(
        "classic", setter("casinos.0.notes", [50_000, 50_000, 30_000]), "casinos[0].notes"
    )
    assert "stocking stops once a casino holds 50000" in message
    refused("classic", setter("casinos.0.notes", [15_000]), "casinos[0].notes[0]")
    refused("classic", setter("won.0", ["rainbow"]), "won[0][0]")
    assert "allowed: none" in refused("classic", setter("discarded", [10_000]), "discarded[0]")


def test_classic_the_roll_is_what_the_seat_holds() -> None:
    refused("classic", setter("roll.dice.die", [0, 3]), "roll.dice.die[0]")
    refused("classic", setter("roll.dice.die", [4, 2]), "roll.dice.die")
    refused("classic", setter("roll.seat", 2), "roll.seat")
    refused("classic", setter("roll", None), "roll")
    assert "nobody is kicking" in refused(
        "classic", setter("kick", {"casino": 1, "kicks_left": 1}), "kick"
    )


def test_classic_chip_cards() -> None:
    options = {"chips": True}
    message = refused(
        "classic", setter("chips.held.0", {"blue": 6}), "chips.held[0].blue", options=options
    )
    assert "6 is out of range" in message

    def seventh(p: JsonDict) -> None:
        p["chips"]["at_casinos"][0].append("gold")

    assert "at most 1 entries" in refused(
        "classic", seventh, "chips.at_casinos[0]", options=options
    )
    refused("classic", setter("chips.casino", 2), "chips.casino", options=options)

    def dropped(p: JsonDict) -> None:
        p["chips"]["at_casinos"][3] = []

    assert "one a casino and round makes 6" in refused("classic", dropped, "chips", options=options)
    assert "no chip cards" in refused("classic", setter("chips", {"held": []}), "chips")


def test_boulevard_kicks_slot_machine_and_pile() -> None:
    # A kick with no kick left looped forever; so did one with a negative count.
    def kicking(left: int) -> Edit:
        def edit(p: JsonDict) -> None:
            p["decision"] = "kick"
            p["kick"] = {"casino": 1, "kicks_left": left}

        return edit

    assert "0 is out of range; allowed: an integer 1..2" in refused(
        "boulevard", kicking(0), "kick.kicks_left"
    )
    refused("boulevard", kicking(-1), "kick.kicks_left")
    assert "1 kicks, but there are only 0" in refused("boulevard", kicking(1), "kick.kicks_left")

    def slot(p: JsonDict) -> None:
        p["casinos"][6]["faces"] = [{"owner": 1, "face": 4, "biggie": False, "this_turn": False}]

    assert "not those its faces list" in refused("boulevard", slot, "casinos[6].faces")

    def face_twice(p: JsonDict) -> None:
        faces = [(1, 4), (2, 5), (2, 4)]
        p["casinos"][6]["faces"] = [
            {"owner": o, "face": f, "biggie": False, "this_turn": False} for o, f in faces
        ]
        p["casinos"][6]["dice"] = {"1": 1, "2": 2}

    assert "face 4 was placed on the slot machine earlier" in refused(
        "boulevard", face_twice, "casinos[6].faces[2].face"
    )
    assert "allowed: none" not in refused(
        "boulevard", setter("under_pile", ["rainbow"]), "under_pile[0]"
    )


def test_sixdice_fixed_stock_and_the_box() -> None:
    refused("sixdice", setter("casinos.0.notes", [30_000, 20_000, 10_000]), "casinos[0].notes")
    assert "allowed: none" in refused("sixdice", setter("under_pile", [10_000]), "under_pile[0]")
    refused("sixdice", setter("hands.0.biggie", 2), "hands[0].biggie")


# ---------------------------------------------------------------- cardgame


def test_cardgame_cards_notes_and_the_turn() -> None:
    def at_casino(p: JsonDict) -> None:
        p["casinos"][0]["cards"] = {"1": ["2"]}

    assert "card 2 goes to casino 2" in refused("cardgame", at_casino, "casinos[0].cards.1[0]")
    refused("cardgame", setter("hands.0", ["1", "1", "2", "3", "4", "5"]), "hands[0]")
    refused("cardgame", setter("hands.0.0", "7"), "hands[0][0]")
    refused("cardgame", setter("turn", 0), "turn")
    refused("cardgame", setter("turn", 2), "discards[0]")  # turn 2: ten cards drawn
    refused("cardgame", setter("finished.1", 1), "finished[1]")
    assert "finishes with 8 cards placed" in refused(
        "cardgame", setter("finished.1", True), "finished[1]"
    )
    refused("cardgame", setter("start_player", 1), "start_player")
    refused("cardgame", setter("casinos.2.notes", [100_000]), "casinos[2].notes")
    refused("cardgame", setter("won.0", [30_000]), "won[0]")
    assert "distinct seats in turn order" in refused(
        "cardgame", setter("queue", [1, 0, 2]), "queue"
    )
    refused("cardgame", setter("queue", [0, 1, 1, 2]), "queue")
    refused("cardgame", setter("chosen", {"5": "play 1"}), "chosen.5")
    refused("cardgame", setter("chosen", {"0": 7}), "chosen.0")
    assert "no chip cards" in refused("cardgame", setter("chip_offers", [[0, 1]]), "chip_offers[0]")
    refused("cardgame", setter("resolving", [0]), "resolving")


# ------------------------------------------------------------------ royale


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        ("hands.1.die", -1, "hands[1].die"),  # rolled forever before
        ("hands.1.die", 9, "hands[1].die"),
        ("hands.1.biggie", 2, "hands[1].biggie"),
        ("chips.2", -1, "chips[2]"),
        ("chips.2", True, "chips[2]"),
        ("bank_credit.0", -10_000, "bank_credit[0]"),
        ("bank_credit.0", "5", "bank_credit[0]"),
        ("round", 0, "round"),
        ("start_player", 3, "start_player"),
        ("current_player", None, "current_player"),
        ("won.0", [30_000] * 7, "won[0]"),
        ("won.0", [20_000], "won[0][0]"),
        ("round_winners.0", 1, "round_winners[0]"),
        ("black_dice", [7, 1], "black_dice[0]"),
        ("black_dice", [3], "black_dice"),
        ("tiles.jackpot", 35_000, "tiles.jackpot"),
        ("tiles.bad_luck", [0], "tiles.bad_luck"),
        ("tiles.no_entry.track", -1, "tiles.no_entry.track"),
        ("tiles.fifty_fifty", {"step": 1, "sum": 7}, "tiles.fifty_fifty"),
        ("tiles.golden", {"owner": 0, "die": "die"}, "tiles.golden"),
        ("tiles.lucky_punch", {"hider": 0, "tokens": 2}, "tiles.lucky_punch"),
        ("pending", [{"step": "round_end"}, {"step": "round_end"}], "pending"),
        ("bank_cards", [], "bank_cards"),
    ],
)
def test_royale_fields_out_of_range_or_in_the_wrong_place(
    path: str, value: Any, field: str
) -> None:
    # Tiles 0: no tile is in play, so no tile's state may be set either.
    refused(
        "royale", setter(path, value), field, options={"tiles": 0} if "bank" not in path else None
    )


def test_royale_tiles_on_the_casinos() -> None:
    def two_casinos(p: JsonDict) -> None:
        p["casinos"][3]["tile"] = p["casinos"][0]["tile"]

    message = refused("royale", two_casinos, "casinos[3].tile")
    assert "(the other side) is at 1" in message

    def both_sides(p: JsonDict) -> None:
        p["casinos"][0]["tile"], p["casinos"][1]["tile"] = "D1", "D2"

    refused("royale", both_sides, "casinos[1].tile")

    def fourth(p: JsonDict) -> None:
        used = {entry["tile"][0] for entry in p["casinos"] if entry["tile"]}
        p["casinos"][5]["tile"] = next(f"{t}1" for t in "ABCDEFGH" if t not in used)

    assert "this game plays 3" in refused("royale", fourth, "casinos", seed=2)
    assert "not allowed here" in refused(
        "royale", setter("casinos.4.tile", "I1"), "casinos[4].tile"
    )

    def closed(p: JsonDict) -> None:
        p["casinos"][4]["closed"] = True

    assert "as No Entry! says" in refused("royale", closed, "casinos[4].closed")


def test_royale_a_decision_where_its_tile_lies_and_what_it_leaves_to_do() -> None:
    state = royale_position(3, tiles={1: "A1"}, mover=1, roll=(1,))
    play(state, "place 1")  # Lucky Punch: seat 1 hides
    hide = state.position()
    assert hide["decision"] == "hide" and hide["pending"] == [{"step": "turn", "seat": 2}]
    options = {"tiles": 1}

    def left(edit: Edit, field: str) -> str:
        return refused("royale", edit, field, options=options, position=hide, seed=0)

    assert "holds no Lucky Punch" in left(setter("context.casino", 2), "context.casino")
    assert "what is left is" in left(setter("pending", []), "pending")
    left(setter("pending", [{"step": "turn", "seat": 0}]), "pending")
    left(setter("placed", None), "placed")
    left(setter("placed.face", 2), "placed.face")
    left(setter("current_player", 2), "placed")  # seat 2 placed nothing
    play(state, "hide 2")
    guess = state.position()
    assert guess["tiles"]["lucky_punch"] == {"hider": 1, "tokens": 2}
    refused(
        "royale",
        setter("tiles.lucky_punch.tokens", 4),
        "tiles.lucky_punch.tokens",
        options=options,
        position=guess,
        seed=0,
    )
    refused(
        "royale", setter("current_player", 0), "current_player", options=options, position=guess
    )


def test_royale_cards_more_than_the_game_has() -> None:
    def hundreds(p: JsonDict) -> None:
        p["won"] = [[100_000] * 4, [100_000] * 4, []]
        p["round"] = 2

    assert "more 100000 than the game has" in refused(
        "royale", hundreds, "cards", options={"tiles": 0}
    )


def test_royale_dice_more_than_a_seat_has() -> None:
    def in_the_bar(p: JsonDict) -> None:
        p["tiles"]["bar"][1] = {"die": 1, "biggie": 1}  # seat 1 holds its Biggie too

    options = {"tiles": 0}
    assert "Knockout? is not in play" in refused(
        "royale", in_the_bar, "tiles.bar[1]", options=options
    )

    def casinos(p: JsonDict) -> None:
        p["casinos"][2]["dice"] = {"2": 3}

    assert "10 dice of seat 2 in play, but there are only 7" in refused(
        "royale", casinos, "hands[2]", options=options
    )

    def grey(p: JsonDict) -> None:
        p["casinos"][2]["dice"] = {"grey": 1}

    assert "allowed keys: 0, 1, 2" in refused(
        "royale", grey, "casinos[2].dice.grey", options=options
    )
