"""Hostile SDK bot: at its 2nd decision, return a number instead of an action."""

from bots_sdk import Bot, run


class NotAString(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            print("hostile: answering a number", flush=True)
            return 3
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(NotAString)
