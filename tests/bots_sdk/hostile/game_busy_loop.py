"""Hostile SDK bot: at its 2nd decision, spin forever without answering."""

from bots_sdk import Bot, run


class BusyLoop(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            print("hostile: spinning", flush=True)
            while True:
                pass
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(BusyLoop)
