"""The checks of a `royale` position (:func:`check_royale_position`).

A position is what :meth:`.game.RoyaleGame.position` gives: the observation's
board with the hidden Lucky Punch count and Black Box split filled in. The
checks refuse any position no game can reach, naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...position import (
    check_bool,
    check_cards,
    check_choice,
    check_equal,
    check_int,
    check_keys,
    check_list,
    check_null,
    check_object,
    check_seat,
    check_sorted,
    check_total,
    decision_of,
    first_difference,
    refuse,
)
from ...state import JsonDict
from ..dice import rank_casino
from .common import (
    BIGGIE,
    CASINOS,
    DIE,
    KIND_NAMES,
    RoyaleDecision,
    RoyaleSetup,
    context_fields,
    owner_name,
)
from .effects import STATE_CHECKS
from .effects.base import StateCheck, check_dice
from .tiles import TILE_BY_CODE, TILE_CODES, TILE_NAMES, Tile

D = RoyaleDecision

#: The tile each decision belongs to (its context's casino holds it).
DECISION_TILES: Mapping[RoyaleDecision, tuple[Tile, ...]] = {
    D.HIDE: (Tile.LUCKY_PUNCH,),
    D.GUESS: (Tile.LUCKY_PUNCH,),
    D.GAMBLE: (Tile.FIFTY_FIFTY,),
    D.CLOSE: (Tile.NO_ENTRY,),
    D.BAR: (Tile.KNOCKOUT,),
    D.BLOCK: (Tile.BLOCK_IT,),
    D.HANDICAP: (Tile.HANDICAP,),
    D.MOVE: (Tile.HANDICAP, Tile.MY_CHOICE),
    D.ADD: (Tile.PRIME_TIME,),
    D.SPLIT: (Tile.BLACK_BOX,),
    D.PILE: (Tile.BLACK_BOX,),
    D.BET: (Tile.DOUBLE_DOWN,),
    D.NICE: (Tile.NICE_DICE,),
    D.CHOOSE: (Tile.MY_CHOICE,),
    D.ACTIVATE: (Tile.MY_CHOICE,),
    D.GOLD: (Tile.MY_CHOICE,),
}
#: Decisions asked before and during the payouts (the others are asked during turns).
PAYOUT_DECISIONS = (D.ADD, D.SPLIT, D.PILE)
#: Tiles that roll the black dice.
BLACK_DICE_TILES = (Tile.JACKPOT, Tile.PRIME_TIME, Tile.FIFTY_FIFTY, Tile.MY_CHOICE)


def check_royale_position(setup: RoyaleSetup, position: JsonDict) -> None:
    """Refuse a position no royale game can reach (InvalidPositionError naming the field).

    Each field's type and range, then what they must agree on: tiles (each
    physical tile once, at most the option's count; a tile's state only while it
    is in play), the closed casino, each seat's dice (hand, casinos, bar, side
    bet, Nice Dice and golden spaces: never more than it has), money never
    below zero, the decision's context (its tile at its casino, the right
    seats) and what is left to do (``pending``), which the decision determines.
    A position may leave dice or cards out (fewer than the game has), and may
    put its tiles on any casinos, which tests use to set up a situation.
    """
    n = setup.seats
    rules = setup.rules
    round_number = check_int(position["round"], "round", 1, rules.rounds)
    check_seat(position["start_player"], "start_player", n)
    decision = decision_of(D, position["decision"])
    over = decision is D.NONE
    current = -1
    if over:
        check_null(position["current_player"], "current_player", "the game is over")
    else:
        current = check_seat(position["current_player"], "current_player", n)
    tiles = _check_royale_tiles(setup, position, over)
    card_values = sorted(set(setup.cards))
    seen: list[int] = []

    def cards_of(value: Any, field: str, most: int | None = None) -> list[int]:
        for i, card in enumerate(check_list(value, field, most=most)):
            check_choice(card, f"{field}[{i}]", card_values)
        seen.extend(value)
        return list(value)

    # Casinos: cards, dice by owner, Biggies.
    grey = Tile.BLOCK_IT in tiles or Tile.HANDICAP in tiles
    owners = [str(seat) for seat in range(n)]
    owners += (["neutral"] if setup.neutral_dice else []) + (["grey"] if grey else [])
    dice = [[0, 0] for _ in range(n)]  # each seat's regular dice and Biggies, wherever they are
    counts: list[dict[str, int]] = []
    for index, entry in enumerate(position["casinos"]):
        where = f"casinos[{index}]"
        cards = cards_of(entry["cards"], f"{where}.cards", rules.cards_per_casino)
        check_sorted(cards, f"{where}.cards", descending=True)
        at = check_keys(entry["dice"], f"{where}.dice", owners)
        for owner, count in at.items():
            check_int(count, f"{where}.dice.{owner}", 1)
        big = check_keys(entry["biggies"], f"{where}.biggies", owners[:n])
        for owner, count in big.items():
            check_int(count, f"{where}.biggies.{owner}", 1, rules.biggies_per_seat)
            if at.get(owner, 0) < 2 * count:
                refuse(f"{where}.dice.{owner}", f"seat {owner}'s Biggie here counts twice")
        for seat in range(n):
            dice[seat][0] += at.get(str(seat), 0) - 2 * big.get(str(seat), 0)
            dice[seat][1] += big.get(str(seat), 0)
        if over and (cards or at):
            refuse(where, "the game is over: the casinos are cleared")
        counts.append(dict(at))
    neutral = sum(at.get("neutral", 0) for at in counts)
    check_total("casinos", "neutral dice on the casinos", neutral, setup.neutral_dice)
    # Seats: dice in hand, chips, money.
    hands = []
    for seat, hand in enumerate(check_list(position["hands"], "hands", n)):
        hand = check_dice(rules, hand, f"hands[{seat}]")
        if over and any(hand):
            refuse(f"hands[{seat}]", "the game is over: nobody holds dice")
        hands.append(hand)
    for seat, count in enumerate(check_list(position["chips"], "chips", n)):
        check_int(count, f"chips[{seat}]", 0)
    credit = check_list(position["bank_credit"], "bank_credit", n)
    won = check_list(position["won"], "won", n)
    for seat in range(n):
        cards = cards_of(won[seat], f"won[{seat}]", CASINOS * round_number)
        field = f"bank_credit[{seat}]"
        money = sum(cards) + check_int(credit[seat], field, None)
        if money < 0:
            refuse(field, f"{credit[seat]}: money (cards won and credit) is never below zero")
    bank = cards_of(position["bank_cards"], "bank_cards")
    check_sorted(bank, "bank_cards")
    dealt = CASINOS * rules.cards_per_casino
    kept = len(setup.cards) - dealt - (rules.rounds - 1) * dealt if setup.tiles else 0
    if len(bank) != max(kept, 0):
        refuse("bank_cards", f"the bank holds {max(kept, 0)} cards in this game, not {len(bank)}")
    cards_of(position["under_pile"], "under_pile")
    check_cards("cards", seen, setup.cards)
    # Where else dice lie: the bar, the side bet, the Nice Dice and golden spaces.
    state = position["tiles"]
    for seat in range(n):
        for kind in (DIE, BIGGIE):
            dice[seat][kind] += hands[seat][kind] + state["bar"][seat][KIND_NAMES[kind]]
            dice[seat][kind] += state["side_bet"][seat][KIND_NAMES[kind]]
    for die in [*state["nice_dice"].values(), state["golden"]]:
        if die is not None:
            dice[die["owner"]][KIND_NAMES.index(die["die"])] += 1
    black = rules.tiles.black_dice if Tile.PRIME_TIME in tiles else 0
    for seat in range(n):
        field = f"hands[{seat}]"
        check_total(
            field, f"dice of seat {seat} in play", dice[seat][0], rules.dice_per_seat + black
        )
        check_total(field, f"Biggies of seat {seat}", dice[seat][1], rules.biggies_per_seat)
    greys = sum(at.get("grey", 0) for at in counts)
    data = rules.tiles
    most = sum(data.handicap_setup) if Tile.HANDICAP in tiles else 0
    most += sum(data.block_it_groups) - sum(state["block_it"]) if Tile.BLOCK_IT in tiles else 0
    check_total("casinos", "grey dice on the casinos", greys, most)
    _check_royale_turn(setup, position, decision, current, tiles, hands, counts)


def _check_royale_tiles(setup: RoyaleSetup, position: JsonDict, over: bool) -> dict[Tile, int]:
    """The tiles on the casinos ({tile: casino index}) and the state of each (``tiles``:
    each tile's own check, in its effect's module)."""
    at: dict[Tile, int] = {}
    casinos = check_list(position["casinos"], "casinos", CASINOS)
    for index, entry in enumerate(casinos):
        where = f"casinos[{index}]"
        entry = check_object(entry, where, ("casino", "cards", "dice", "biggies", "tile", "closed"))
        check_equal(entry["casino"], f"{where}.casino", index + 1, "the casinos in order")
        check_bool(entry["closed"], f"{where}.closed")
        if entry["tile"] is None:
            continue
        tile = TILE_BY_CODE[check_choice(entry["tile"], f"{where}.tile", TILE_CODES)]
        if over:
            refuse(f"{where}.tile", "the game is over: the tiles are put away")
        for other, casino in at.items():
            if other // 2 == tile // 2:
                refuse(
                    f"{where}.tile", f"tile {TILE_CODES[other]} (the other side) is at {casino + 1}"
                )
        at[tile] = index
    if len(at) > setup.tiles:
        refuse("casinos", f"{len(at)} tiles on the casinos; this game plays {setup.tiles}")
    keys = (
        "jackpot",
        "fifty_fifty",
        "high_five",
        "power_play",
        "no_entry",
        "bar",
        "block_it",
        "handicap",
        "side_bet",
        "nice_dice",
        "golden",
        "lucky_punch",
        "black_box",
        "bad_luck",
    )
    state = check_object(position["tiles"], "tiles", keys)
    check = StateCheck(setup, state, casinos, at)
    for check_state in STATE_CHECKS:
        check_state(check)
    return at


def _check_royale_turn(
    setup: RoyaleSetup,
    position: JsonDict,
    decision: RoyaleDecision,
    current: int,
    tiles: dict[Tile, int],
    hands: list[list[int]],
    counts: list[dict[str, int]],
) -> None:
    """The decision: its context, the roll and the placement it follows, the black dice,
    the hidden Lucky Punch count and Black Box split, and what is left to do."""
    n = setup.seats
    data = setup.rules.tiles
    state = position["tiles"]
    fields = context_fields(decision)
    context = check_object(position["context"], "context", fields)
    for name in fields:
        if name == "casino":
            check_int(context[name], "context.casino", 1, CASINOS)
        else:
            check_seat(context[name], f"context.{name}", n)
    casino = context.get("casino", 0) - 1
    if decision in DECISION_TILES:
        wanted = DECISION_TILES[decision]
        if not any(tiles.get(tile) == casino for tile in wanted):
            names = " or ".join(TILE_NAMES[tile] for tile in wanted)
            refuse("context.casino", f"casino {casino + 1} holds no {names} to decide about")
        if state["no_entry"]["closed"] == casino + 1:
            refuse("context.casino", f"casino {casino + 1} is closed: its tile is inactive")
    # The roll (the dice of this turn not placed yet) and the placement it follows.
    placer = context.get("hider", context.get("activator", current))
    in_turn = decision not in (*PAYOUT_DECISIONS, D.PLACE, D.POWER, D.NONE)
    rolled = [0, 0]
    for name, faces in check_keys(position["roll"], "roll", KIND_NAMES).items():
        field = f"roll.{name}"
        for i, face in enumerate(check_list(faces, field)):
            check_int(face, f"{field}[{i}]", 1, 6)
        check_sorted(faces, field)
        if not faces:
            refuse(field, "a kind of die not rolled is left out")
        rolled[KIND_NAMES.index(name)] = len(faces)
    if decision is D.PLACE:
        if not any(hands[current]):
            refuse(f"hands[{current}]", f"seat {current} rolls: it holds dice")
        if rolled != hands[current]:
            refuse(
                "roll", f"seat {current} rolled the {hands[current]} dice it holds, not {rolled}"
            )
    elif not in_turn and any(rolled):
        refuse("roll", "no roll is pending now")
    elif in_turn:
        for kind in (DIE, BIGGIE):
            check_total("roll", "dice rolled and not placed", rolled[kind], hands[placer][kind])
    if decision is D.POWER and not any(hands[current]):
        refuse(f"hands[{current}]", f"seat {current} plays its turn: it holds dice")
    placed = position["placed"]
    if not in_turn:
        check_null(placed, "placed", "no placement is being resolved")
    else:
        placed = check_object(placed, "placed", ("casino", "face", "die", "biggie"))
        where = check_int(placed["casino"], "placed.casino", 1, CASINOS)
        check_equal(placed["face"], "placed.face", where, "dice go to the casino of their face")
        regular = check_int(placed["die"], "placed.die", 0, setup.rules.dice_per_seat)
        big = check_int(placed["biggie"], "placed.biggie", 0, setup.rules.biggies_per_seat)
        here = counts[where - 1].get(str(placer), 0)
        check_total("placed", f"dice of seat {placer} at casino {where}", regular + 2 * big, here)
    black = check_list(position["black_dice"], "black_dice")
    if black:
        check_list(black, "black_dice", data.black_dice)
        for i, face in enumerate(black):
            check_int(face, f"black_dice[{i}]", 1, 6)
        if not any(tile in tiles for tile in BLACK_DICE_TILES):
            refuse("black_dice", "no tile in play rolls the black dice")
    elif decision in (D.CHOOSE, D.ADD, D.GAMBLE):
        refuse("black_dice", f"a {decision.value} decision follows a roll of the black dice")
    if (state["fifty_fifty"]["step"] > 0) != (decision is D.GAMBLE):
        refuse("tiles.fifty_fifty.step", "the counter moves only while Fifty Fifty is played")
    _check_royale_seats(setup, position, decision, current, context, counts)
    _check_pending(setup, position, decision, current, context, tiles)


def _check_royale_seats(
    setup: RoyaleSetup,
    position: JsonDict,
    decision: RoyaleDecision,
    current: int,
    context: Mapping[str, int],
    counts: list[dict[str, int]],
) -> None:
    """Who decides, for the decisions another seat than the roller makes; the hidden
    Lucky Punch count and Black Box split; the seats that won at the casinos paid."""
    n = setup.seats
    state = position["tiles"]
    casino = context.get("casino", 0) - 1
    lucky_punch = state["lucky_punch"]
    if decision is D.GUESS:
        hider = context["hider"]
        check_equal(
            current, "current_player", (hider + 1) % n, "the hider's left neighbour guesses"
        )
        lucky_punch = check_object(lucky_punch, "tiles.lucky_punch", ("hider", "tokens"))
        check_equal(lucky_punch["hider"], "tiles.lucky_punch.hider", hider, "as the context says")
        counts_allowed = sorted(setup.rules.tiles.lucky_punch)
        check_choice(lucky_punch["tokens"], "tiles.lucky_punch.tokens", counts_allowed)
    else:
        check_null(lucky_punch, "tiles.lucky_punch", "nobody guesses")
    black_box = state["black_box"]
    if decision is D.PILE:
        fields = ("casino", "splitter", "sizes", "split")
        black_box = check_object(black_box, "tiles.black_box", fields)
        check_equal(black_box["casino"], "tiles.black_box.casino", casino + 1, "the context's")
        splitter = context["splitter"]
        check_equal(black_box["splitter"], "tiles.black_box.splitter", splitter, "the context's")
        check_equal(splitter, "context.splitter", (current + 1) % n, "the winner's left neighbour")
        split = check_choice(black_box["split"], "tiles.black_box.split", setup.split_actions)
        piles = setup.splits[setup.split_index[split]]
        sizes = [len(piles[0]), len(piles[1])]
        check_equal(black_box["sizes"], "tiles.black_box.sizes", sizes, "the split's")
    else:
        check_null(black_box, "tiles.black_box", "nobody picks a pile")
    if decision is D.SPLIT:
        winner = context["winner"]
        check_equal(current, "current_player", (winner + 1) % n, "the winner's left neighbour")
    if decision is D.BAR:
        activator = context["activator"]
        if current == activator:
            refuse("current_player", "the activator's opponents put dice into the bar")
        bar = state["bar"][current]
        if bar["die"] + bar["biggie"] >= setup.rules.tiles.knockout_bar:
            refuse(f"tiles.bar[{current}]", "a seat with a full bar puts no more dice there")
    if decision is D.POWER:
        power = state["power_play"]
        check_equal(power["holder"], "tiles.power_play.holder", current, "the holder plays it")
        check_equal(power["ready"], "tiles.power_play.ready", False, "it is being used")
    if decision is D.GOLD and state["golden"] is not None:
        refuse("tiles.golden", "the golden space is taken: nobody may put a die there")
    if decision is D.ADD:
        ranked, _ = rank_casino(_owner_counts(counts[casino], n))
        if not ranked or ranked[0] != current or not position["casinos"][casino]["cards"]:
            refuse("current_player", f"the seat about to win at casino {casino + 1} adds dice")
    winners = check_list(position["round_winners"], "round_winners", CASINOS)
    paid = casino if decision in (D.SPLIT, D.PILE) else -1
    for index, winner in enumerate(winners):
        field = f"round_winners[{index}]"
        if index > paid:
            check_null(winner, field, f"casino {index + 1} has not paid out yet")
        elif winner is not None:
            check_seat(winner, field, n)
        if index <= paid and position["casinos"][index]["cards"]:
            refuse(f"casinos[{index}].cards", f"casino {index + 1} has paid out its cards")
    if paid >= 0:
        winner = context.get("winner", current)
        check_equal(winners[paid], f"round_winners[{paid}]", winner, "the Black Box's winner")


def _owner_counts(at: Mapping[str, int], n: int) -> list[int]:
    """A casino's dice counts by owner index (seats, neutral, grey), from a position's."""
    return [at.get(str(owner_name(owner, n)), 0) for owner in range(n + 2)]


def _check_pending(
    setup: RoyaleSetup,
    position: JsonDict,
    decision: RoyaleDecision,
    current: int,
    context: Mapping[str, int],
    tiles: dict[Tile, int],
) -> None:
    """What is left to do: the decision determines it (the next turn after a placement's
    effects, the knockouts still to come, the casinos still to pay)."""
    n = setup.seats
    casino = context.get("casino", 0) - 1
    frames: list[JsonDict] = []
    if decision in PAYOUT_DECISIONS:
        frames.append({"step": "round_end"})
        last = casino if decision is not D.ADD else -1
        frames += [{"step": "payout", "casino": c + 1} for c in range(CASINOS - 1, last, -1)]
        if decision is D.ADD:
            frames += [
                {"step": "before_payout", "casino": c + 1}
                for c in range(CASINOS - 1, casino, -1)
                if any(tiles.get(tile) == c for tile in (Tile.PRIME_TIME, Tile.BAD_LUCK))
            ]
    elif decision not in (D.PLACE, D.POWER, D.NONE):
        placer = context.get("hider", context.get("activator", current))
        frames.append({"step": "turn", "seat": (placer + 1) % n})
        if decision is D.BAR:
            frames.append({"step": "knockout_back", "seat": placer})
            step = (current - placer) % n
            frames += [
                {
                    "step": "knockout",
                    "opponent": (placer + later) % n,
                    "activator": placer,
                    "casino": casino + 1,
                }
                for later in range(n - 1, step, -1)
            ]
    if first_difference(position["pending"], frames) is not None:
        refuse("pending", f"after a {decision.value} decision here what is left is {frames}")


#: A position's fields (see RoyaleGame.position): the observation's, less the observer's.
POSITION_KEYS = (
    "round",
    "start_player",
    "decision",
    "current_player",
    "context",
    "pending",
    "roll",
    "placed",
    "black_dice",
    "hands",
    "chips",
    "bank_credit",
    "won",
    "casinos",
    "bank_cards",
    "under_pile",
    "round_winners",
    "tiles",
)
