"""Hostile SDK bot: at its 2nd decision, SIGKILL its parent, pid 1, the worker's
host pid $HOSTILE_WORKER_PID, another process of the bot user
($HOSTILE_OUTSIDER_PID), then everyone (kill(-1)); report on stderr, play on."""

import os
import signal

from bots_sdk import Bot, run


class Killer(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            targets = [
                ("parent", os.getppid()),
                ("init", 1),
                ("worker", int(os.environ["HOSTILE_WORKER_PID"])),
                ("outsider", int(os.environ["HOSTILE_OUTSIDER_PID"])),
                ("everyone", -1),
            ]
            for label, pid in targets:
                try:
                    os.kill(pid, signal.SIGKILL)
                    result = "sent"
                except OSError as exc:
                    result = f"errno {exc.errno}"
                print(f"hostile: kill({pid}) [{label}]: {result}", flush=True)
            print("hostile: still alive", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(Killer)
