"""The replay viewer in a real Chromium, for every rule system.

Each system's games are real engine games (scenes.play_match) stored as
finished matches; the test opens each match page, steps through every step
with the Next button and checks what is drawn against the log: captions
free of "undefined", every decision shown, the dice or cards at each casino
equal to what the engine paid on, the money after each round and at the end,
and each system's own things (hands and secret choices, tiles, tokens and
black dice, Biggies and the one-armed bandit). The games of a system
together hold every event kind it has, so none goes through the viewer
unseen.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from arena.ladders.flows import ladder_create
from tests.platform.factories import BotFactory, BotVersionFactory
from tests.platform.scenes import play_match
from tests.platform.web.test_web_replay import forfeited_match

pytestmark = pytest.mark.slow

pytest_plugins = ("tests.platform.browser",)

PASSWORD = "correct horse battery staple"  # the personas' (factories.UserFactory)

# Per system: (seats, options, seed) of the games, first one screenshotted and checked
# closely; seeds chosen so that together they hold all the event kinds below.
GAMES: dict[str, list[tuple[int, dict[str, Any], int]]] = {
    "classic": [(3, {"neutral_dice": True, "chips": True}, 3)],
    "boulevard": [(3, {}, 5)],
    "cardgame": [(3, {"chips": True}, 7)],
    "royale": [
        (4, {"tiles": 6}, 84),
        (4, {"tiles": 6}, 8),
        (2, {"tiles": 6, "neutral_dice": True}, 0),
    ],
    "sixdice": [(5, {"slot_machine": True}, 3)],
}

COMMON = {"round_start", "stock", "roll", "decision", "place", "payout", "round_end", "game_end"}
EVENT_KINDS = {
    "classic": COMMON | {"neutral_roll", "chip_stock", "chip_take", "chip_score"},
    "boulevard": COMMON | {"neutral_roll", "kick", "rainbow"},
    "cardgame": (COMMON - {"roll", "place"})
    | {"chip_stock", "draw", "play", "chip_take", "discard", "finish", "chip_score"},
    "royale": COMMON
    | {
        "chips_dealt",
        "tile_setup",
        "neutral_roll",
        "chip_pass",
        "activate",
        "black_dice",
        "reward",
        "bank_payment",
        "lucky_punch",
        "jackpot_roll",
        "fifty_fifty",
        "token",
        "no_entry",
        "move",
        "bad_luck",
        "black_box",
        "side_bet",
    },
    "sixdice": COMMON,
}

# Steps through the whole replay with the Next button, noting what each step draws.
WALK = """() => {
  const root = document.getElementById("replay");
  const next = document.getElementById("replay-next");
  const all = (selector, from) => [...(from || document).querySelectorAll(selector)];
  const texts = (selector, from) => all(selector, from).map((n) => n.textContent);
  document.getElementById("replay-first").click();
  const steps = [];
  for (;;) {
    const casinos = {};
    all("#replay-casinos .casino").forEach((casino) => {
      const stacks = {};
      all(".stack", casino).forEach((s) => {
        stacks[s.dataset.owner] = {
          count: Number(s.querySelector(".count").textContent),
          biggies: all(".pip.biggie, .die.biggie", s).length,
          cards: texts(".hand-card", s),
        };
      });
      const tile = casino.querySelector(".tile");
      const token = casino.querySelector(".tile .token");
      casinos[casino.dataset.casino] = {
        title: casino.querySelector("h3").textContent,
        stacks: stacks,
        tile: tile ? tile.dataset.tile : null,
        token: token ? token.dataset.holder : null,
      };
    });
    steps.push({
      caption: document.getElementById("replay-caption").textContent,
      index: Number(root.dataset.eventIndex),
      money: texts("#replay-seats tbody td.money-cell"),
      ranks: texts("#replay-seats tbody td.rank-cell"),
      chips: texts("#replay-seats tbody td.chips-cell"),
      hands: all("#replay-seats tbody td.hand").map((td) => texts(".hand-card", td)),
      chosen: all("#replay-seats tbody td.hand").map((td) => texts(".hand-card.chosen", td)),
      roll: all("#replay-roll .die").map((d) => [d.dataset.kind, d.textContent]),
      casinos: casinos,
    });
    if (next.disabled) break;
    next.click();
  }
  return {steps: steps, unknown: root.dataset.unknownEvents || null};
}"""


def money(value: int) -> str:
    return f"${value:,}"


def covering(steps: list[dict[str, Any]], events: list[dict[str, Any]]) -> list[int]:
    """For each event, the step showing it: the first whose last event is at or after it."""
    indexes = [step["index"] for step in steps]
    assert indexes == sorted(set(indexes)), "each step ends at a later event"
    assert indexes[-1] == len(events) - 1, "the last step is the game's end"
    shown, at = [], 0
    for index in range(len(events)):
        while indexes[at] < index:
            at += 1
        shown.append(at)
    return shown


def check_every_step(steps: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    """What every rule system's replay must show, checked at every step."""
    shown = covering(steps, events)
    for step in steps:
        assert not re.search(r"undefined|NaN|\bnull\b|\[object", step["caption"]), step["caption"]
        assert "differ" not in step["caption"], step["caption"]  # the viewer's own money check
    for index, event in enumerate(events):
        step = steps[shown[index]]
        if event["type"] == "decision":
            # No decision goes unseen: each is quoted in the step that shows it.
            assert f"“{event['action']}”" in step["caption"], (index, event, step["caption"])
        elif event["type"] == "payout" and step["index"] == index:
            # The dice (or cards) tracked through every placement, kick and move are
            # what the engine paid on.
            stacks = step["casinos"][str(event["casino"])]["stacks"]
            drawn = {owner: stack["count"] for owner, stack in stacks.items()}
            assert drawn == event["counts"], (index, event)
        elif event["type"] == "round_end":
            assert step["money"] == [money(m) for m in event["money"]], (index, step["caption"])
    result = events[-1]["result"]
    assert steps[-1]["money"] == [money(r["money"]) for r in result]
    assert steps[-1]["ranks"] == [f"#{r['rank']}" for r in result]


def check_cardgame(steps: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    shown = covering(steps, events)
    first_draws = [e for e in events[: shown.index(1)] if e["type"] == "draw"]
    assert steps[0]["hands"] == [e["cards"] for e in sorted(first_draws, key=lambda e: e["seat"])]
    # The first turn's secret choices, revealed before the plays: the chosen cards stand out.
    choices = next(s for s in steps if "secret choices" in s["caption"])
    decisions = [e for e in events[: choices["index"] + 1] if e["type"] == "decision"]
    for decision in decisions:
        assert choices["chosen"][decision["seat"]] == decision["action"].split()[1:]
    # A play puts its cards at the casinos of their faces, a double card counting two.
    play = next(i for i, e in enumerate(events) if e["type"] == "play")
    after = steps[shown[play]]
    for card in events[play]["cards"]:
        stack = after["casinos"][card.rstrip("D")]["stacks"][str(events[play]["seat"])]
        assert card in stack["cards"]


def check_royale(steps: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    shown = covering(steps, events)
    first_round = events[: next(i for i, e in enumerate(events) if e["type"] == "roll")]
    for tile in (e for e in first_round if e["type"] == "tile_setup"):
        assert steps[0]["casinos"][str(tile["casino"])]["tile"] == tile["tile"]
    seen_token = seen_black = False
    for index, event in enumerate(events):
        step = steps[shown[index]]
        if event["type"] == "token" and step["index"] == index:
            holder = "tile" if event["holder"] is None else str(event["holder"])
            assert step["casinos"][str(event["casino"])]["token"] == holder
            seen_token = True
        if event["type"] == "black_dice":
            faces = [face for kind, face in step["roll"] if kind == "black"]
            assert faces == [str(d) for d in event["dice"]]
            seen_black = True
    assert seen_token and seen_black
    # Chips left at the end are money: the chips shown make up the result with the money cards.
    assert all(re.fullmatch(r"\d+ = \$[\d,]+", cell) for cell in steps[-1]["chips"])


def check_sixdice(steps: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    shown = covering(steps, events)
    assert steps[0]["casinos"]["7"]["title"] == "7One-armed bandit"
    biggie = next(i for i, e in enumerate(events) if e["type"] == "place" and "biggie" in e["dice"])
    place = events[biggie]
    stack = steps[shown[biggie]]["casinos"][str(place["casino"])]["stacks"][str(place["seat"])]
    assert stack["biggies"] >= 1  # a Biggie is drawn as one big die, counted two
    roll = next(i for i, e in enumerate(events) if e["type"] == "roll" and "biggie" in e["dice"])
    assert ["biggie", str(events[roll]["dice"]["biggie"][0])] in steps[shown[roll]]["roll"]
    slot = next(i for i, e in enumerate(events) if e["type"] == "place" and e["casino"] == 7)
    drawn = steps[shown[slot]]["casinos"]["7"]["stacks"][str(events[slot]["seat"])]
    assert drawn["count"] >= 1


CHECKS = {"cardgame": check_cardgame, "royale": check_royale, "sixdice": check_sixdice}


@pytest.mark.parametrize("rules", list(GAMES))
def test_the_replay_draws_every_event_of_the_rule_system(
    page: Any, screenshot: Any, alice: Any, bob: Any, rules: str
) -> None:
    kinds: set[str] = set()
    for number, (seats, options, seed) in enumerate(GAMES[rules]):
        ladder = ladder_create(
            slug=f"{rules}-{number}",
            name=f"{rules} {number}",
            rules=rules,
            seats=seats,
            options=options,
        )
        versions = [
            BotVersionFactory(bot=BotFactory(owner=alice if seat % 2 == 0 else bob))
            for seat in range(seats)
        ]
        match, log = play_match(ladder, versions, seed)
        events = log["events"]
        kinds |= {e["type"] for e in events}

        page.goto(f"/matches/{match.pk}/")
        walked = page.evaluate(WALK)
        assert walked["unknown"] is None, "an event kind the viewer does not know"
        steps = walked["steps"]
        check_every_step(steps, events)
        if number == 0:
            if rules in CHECKS:
                CHECKS[rules](steps, events)
            # The position and the fragment follow the last step.
            assert page.inner_text("#replay-position") == f"Step {len(steps)} / {len(steps)}"
            assert page.evaluate("window.location.hash") == f"#step-{len(steps)}"
            screenshot(f"replay-{rules}-end")
            middle = len(steps) // 3
            page.goto(f"/matches/{match.pk}/#step-{middle + 1}")
            page.reload()  # a new fragment alone does not load the page again
            assert page.inner_text("#replay-caption") == steps[middle]["caption"]
            screenshot(f"replay-{rules}-middle")
    assert kinds == EVENT_KINDS[rules]


def test_the_owner_reads_the_fault_under_the_result_table(
    page: Any, screenshot: Any, log_in: Any, alice: Any, bob: Any
) -> None:
    ladder = ladder_create(slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2)
    versions = [BotVersionFactory(bot=BotFactory(owner=o)) for o in (alice, bob)]
    match = forfeited_match(ladder, versions, 6, seat=1)
    log_in("bob", PASSWORD)
    page.goto(f"/matches/{match.pk}/")
    assert page.inner_text("#fault-seat-1 .fault-kind") == "time_bank_exhausted"
    assert '"id": 17' in page.inner_text("#fault-seat-1 pre.request")
    screenshot("match-fault-owner")
