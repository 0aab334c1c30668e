"""starter-python: a Las Vegas Arena bot.

Try it:      python -m bots_sdk play ./mybot --rules classic --players 2
Check it:    python -m bots_sdk validate ./mybot --rules classic
(add --no-sandbox to run it as a plain process while you develop)

act() receives the observation (docs/observation.md): the casinos and their
notes, the dice just rolled, everyone's money, and "legal_actions", a list of
strings such as "place 3" (their grammar: docs/actions.md). Return one of
them, verbatim. print() goes to stderr, your log; self.note("...") sends a
short note with the answer: the replay shows both at each of your decisions,
to you alone. The SDK (bots_sdk.run) speaks the protocol (docs/protocol.md).

The SDK's helpers: bots_sdk.actions reads an action string into parts
(parse_action("place 3").face == 3) and builds one (Place(3) == "place 3");
bots_sdk.seats reads seat-keyed objects ({"0": 2, "neutral": 1}) by seat
number; bots_sdk.observations types every field for a type checker.
"""

from bots_sdk import Bot, run
from bots_sdk.actions import Place, parse_action
from bots_sdk.seats import by_seat

TYPE_CHECKING = False
if TYPE_CHECKING:  # types for your editor and mypy; nothing to load at run time
    from bots_sdk.observations import Observation


class Starter(Bot):
    name = "starter-python"

    # ===== act(observation) -> action: the one place to edit =====
    # Answer within self.time_left_ms (self.seconds_left() counts down; keep a
    # margin; budget a search by self.cpu_seconds_spent()), or the seat forfeits.
    # self.rng is seeded with the referee's bot_seed at each game: the same
    # seed gives the same choices, so a game can be replayed exactly.
    def act(self, observation: "Observation") -> str:
        # The biggest top note among the casinos we may place on, where we
        # are not already ahead; ties at random.
        seats, me = observation["seats"], observation["seat"]
        top = {}
        for casino in observation["casinos"]:
            values = [note for note in casino.get("notes", []) if isinstance(note, int)]
            dice = by_seat(casino.get("dice", {}), seats)
            ahead = dice[me] > 0 and dice[me] == max(dice)
            top[casino["casino"]] = 0 if ahead else max(values, default=0)

        def value(action):
            parsed = parse_action(action)
            return top.get(parsed.face, 0) if isinstance(parsed, Place) else 0

        legal = observation["legal_actions"]
        best = max(value(action) for action in legal)
        self.note(f"{len(legal)} legal actions, best top note ${best:,}")  # for you
        return self.rng.choice([action for action in legal if value(action) == best])


if __name__ == "__main__":
    run(Starter)
