"""Hostile SDK bot: at its 2nd decision, answer an action that is never legal."""

from bots_sdk import Bot, run


class Illegal(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            print("hostile: answering place 9", flush=True)
            return "place 9"
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(Illegal)
