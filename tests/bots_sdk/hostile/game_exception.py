"""Hostile SDK bot: at its 2nd decision, raise (the traceback goes to stderr)."""

from bots_sdk import Bot, run


class Raiser(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            raise RuntimeError("hostile: deliberate crash in act")
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(Raiser)
