"""The action parser and builders (bots_sdk.actions) against the engine's real actions."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from bots_sdk import actions as a
from bots_sdk.actions import ActionError, parse_action
from tests.bots_sdk.random_games import CONFIGS, config_id, observations

#: Each verb's builder, given the parts the parser found: rebuilding from the
#: attributes must give the same text.
REBUILD = {
    a.Place: lambda x: a.Place(x.face),
    a.Slot: lambda x: a.Slot(x.face),
    a.Kick: lambda x: a.Kick(x.owner, x.kind),
    a.Chip: lambda x: a.Chip(x.colour),
    a.Play: lambda x: a.Play(*reversed(x.cards)),  # any order in, the engine's order out
    a.Word: lambda x: a.Word(x.verb),
    a.Turn: lambda x: a.Turn(x.kind, x.face),
    a.Return: lambda x: a.Return(x.casino, x.kind),
    a.Hide: lambda x: a.Hide(x.tokens),
    a.Guess: lambda x: a.Guess(x.tokens),
    a.Close: lambda x: a.Close(x.casino),
    a.Bar: lambda x: a.Bar(x.kind),
    a.Block: lambda x: a.Block(x.size, x.casino),
    a.Take: lambda x: a.Take(x.casino, x.reward),
    a.Add: lambda x: a.Add(*reversed(x.faces)),
    a.Split: lambda x: a.Split(tuple(reversed(x.piles[0])), x.piles[1]),
    a.Pile: lambda x: a.Pile(x.number),
    a.Bet: lambda x: a.Bet(x.dice, x.biggie),
    a.Nice: lambda x: a.Nice(x.face, x.biggie),
    a.Choose: lambda x: a.Choose(x.face),
    a.Activate: lambda x: a.Activate(x.casino),
    a.Gold: lambda x: a.Gold(x.kind),
}


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_every_legal_action_round_trips(config: tuple[str, int, dict[str, Any]]) -> None:
    rules, seats, options = config
    seen: set[str] = set()
    for observation in observations(rules, seats, options, games=6):
        for text in observation["legal_actions"]:
            if text in seen:
                continue
            seen.add(text)
            action = parse_action(text)
            assert action == text and str(action) == text and action.verb == text.split()[0]
            assert REBUILD[type(action)](action) == text
            assert text in observation["legal_actions"]  # an Action *is* its string
    assert len(seen) >= 5


def test_all_verbs_and_parts_are_read() -> None:
    assert parse_action("kick 1 biggie") == a.Kick(1, "biggie")
    kick = parse_action("kick neutral die")
    assert isinstance(kick, a.Kick) and kick.owner == "neutral" and kick.kind == "die"
    play = parse_action("play 4 4 4D")
    assert isinstance(play, a.Play) and play.cards == ("4", "4", "4D") and play.dice == 4
    split = parse_action("split 60k+20k+0/20k+0+0")
    assert isinstance(split, a.Split) and split.piles == ((60_000, 20_000, 0), (20_000, 0, 0))
    take = parse_action("take none")
    assert isinstance(take, a.Take) and take.casino is None and take.reward is None
    nice = parse_action("nice 4 biggie")
    assert isinstance(nice, a.Nice) and (nice.face, nice.biggie) == (4, True)
    assert parse_action("add none") == a.Add() and a.Add(5, 2) == "add 2 5"
    assert parse_action("chip none") == a.Chip(None) and a.Chip("pink") == "chip pink"
    assert parse_action("pass").verb == "pass" and isinstance(parse_action("pass"), a.Word)
    assert a.Play(6, "1D", "1") == "play 1 1D 6" and a.Bet(2, biggie=True) == "bet 2 biggie"
    assert a.card_face("5D") == 5 and a.card_dice("5D") == 2 and a.card_dice("5") == 1


def test_actions_pickle_and_copy_with_their_parts() -> None:
    for text in ("place 3", "kick neutral die", "play 1 1D", "split 60k+0+0/20k+20k+0", "pass"):
        action = parse_action(text)
        for again in (pickle.loads(pickle.dumps(action)), copy.deepcopy(action)):
            assert again == action and type(again) is type(action)
            assert repr(again) == repr(action)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("plce 3", "unknown verb 'plce'"),
        ("place 7", "a face is 1-6, got 7"),
        ("place  3", "wrong number of parts"),
        ("place", "wrong number of parts"),
        ("place 03", "write 'place 3'"),
        ("play 5 3", "write 'play 3 5'"),
        ("play 1 2 3 4 5 6", "1 to 5 cards"),
        ("play 7", "a card is a face 1-6"),
        ("kick neutral biggie", "no Biggie"),
        ("kick 1 dice", "'die' or 'biggie'"),
        ("chip red", "a chip colour"),
        ("pass now", "'pass' takes nothing"),
        ("bet -1", "expected a number"),
        ("bet 1 big", "nothing or 'biggie'"),
        ("split 60k+20k/30k", "60k, 20k or 0"),
        ("take 3 gold", "Handicap reward"),
        ("pile 3", "1 or 2"),
        ("add 1 2 3", "at most the two black dice"),
        ("Place 3", "unknown verb"),
    ],
)
def test_anything_else_is_refused_with_the_reason(text: str, says: str) -> None:
    with pytest.raises(ActionError, match=says):
        parse_action(text)


def test_builders_refuse_bad_parts_and_parse_refuses_non_strings() -> None:
    for build in (
        lambda: a.Place(0),
        lambda: a.Place(True),  # type: ignore[arg-type]
        lambda: a.Kick(6, "die"),
        lambda: a.Nice(None, biggie=True),
        lambda: a.Split((60_000, 10_000), (0,)),
        lambda: a.Word("jump"),
        lambda: a.Hide(0),
    ):
        with pytest.raises(ActionError):
            build()
    with pytest.raises(ActionError, match="an action is a string"):
        parse_action(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="concrete action"):
        a.Action("place 3")
