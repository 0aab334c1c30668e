"""starter-python: a Las Vegas Arena bot.

Try it:      python -m bots_sdk play ./mybot --rules classic --players 2
Check it:    python -m bots_sdk validate ./mybot --rules classic
(add --no-sandbox to run it as a plain process while you develop)

act() receives the observation (docs/observation.md): the casinos and their
notes, the dice just rolled, everyone's money, and "legal_actions", a list of
strings such as "place 3" (their grammar: docs/actions.md). Return one of
them, verbatim. print() goes to stderr, your log. The SDK (bots_sdk.run)
speaks the protocol for you (docs/protocol.md).
"""

import random

from bots_sdk import Bot, run


class Starter(Bot):
    name = "starter-python"

    def on_game_start(self, seat, game):
        # The referee's bot_seed: the same seed gives the same choices, so a
        # game can be replayed exactly.
        self.rng = random.Random(self.bot_seed)

    # ===== act(observation) -> action: the one place to edit =====
    # Answer within self.time_left_ms (self.seconds_left() counts down; the
    # referee's clock includes the pipe: keep a margin), or the seat forfeits.
    def act(self, observation):
        # The biggest top note among the casinos we may place on; ties at random.
        top = {}
        for casino in observation["casinos"]:
            values = [note for note in casino.get("notes", []) if isinstance(note, int)]
            top[casino["casino"]] = max(values, default=0)

        def value(action):
            verb, _, argument = action.partition(" ")
            return top.get(int(argument), 0) if verb == "place" and argument.isdigit() else 0

        legal = observation["legal_actions"]
        best = max(value(action) for action in legal)
        return self.rng.choice([action for action in legal if value(action) == best])


if __name__ == "__main__":
    run(Starter)
