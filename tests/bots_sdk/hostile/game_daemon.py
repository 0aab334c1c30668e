"""Hostile SDK bot: at its 1st decision, leave a double-forked setsid daemon
behind (no pipes, sleeping forever), then play on."""

import os
import time

from bots_sdk import Bot, run


class DaemonLeaver(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 1:
            child = os.fork()
            if child == 0:
                try:
                    os.setsid()
                    if os.fork() == 0:
                        os.closerange(0, 1024)
                        while True:
                            time.sleep(1)
                finally:
                    os._exit(0)
            os.waitpid(child, 0)
            print("hostile: left a setsid daemon behind", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(DaemonLeaver)
