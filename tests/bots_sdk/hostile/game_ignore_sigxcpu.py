"""Hostile SDK bot: at its 2nd decision, ignore SIGXCPU (and the polite signals),
lower its own RLIMIT_CPU so the kernel sends SIGXCPU, and spin: a CPU-time rlimit
alone would not stop it, the referee's wall clock does."""

import math
import resource
import signal

from bots_sdk import Bot, run


def ignored(signum, frame):
    print(f"hostile: got signal {signum}, ignoring it", flush=True)


class IgnoreSigxcpu(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            for signum in (signal.SIGXCPU, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(signum, ignored)
            used = resource.getrusage(resource.RUSAGE_SELF)
            soft = math.ceil(used.ru_utime + used.ru_stime) or 1
            hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
            resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
            print(f"hostile: ignoring SIGXCPU, RLIMIT_CPU soft {soft} s, spinning", flush=True)
            while True:
                pass
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(IgnoreSigxcpu)
