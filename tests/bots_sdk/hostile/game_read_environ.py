"""Hostile SDK bot: at its 1st decision, look for the worker's environment: its
own environment, every /proc/<pid>/environ and cmdline it can see, and the
worker's (host) pid $HOSTILE_WORKER_PID. Reports on stderr (the first few pids
one by one), then one "FOUND" line per thing that looks like a secret; then
plays on."""

import os

from bots_sdk import Bot, run

MARKER = b"vegas-hostile-secret"


def read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 20)
    except OSError as exc:
        return f"<{type(exc).__name__} errno {exc.errno}>".encode()


class EnvironSpy(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 1:
            found = []

            def look(where, data):
                at = data.find(MARKER)
                while at >= 0:
                    start = data.rfind(b"\0", 0, at) + 1  # the whole NAME=value
                    found.append(f"{where}: {data[start : at + 60].decode('latin-1')}")
                    at = data.find(MARKER, at + 1)

            environ = "\0".join(f"{k}={v}" for k, v in os.environ.items()).encode()
            look("os.environ", environ)
            print(f"hostile: environ keys: {' '.join(sorted(os.environ))}")
            pids = sorted(int(entry) for entry in os.listdir("/proc") if entry.isdigit())
            print(f"hostile: /proc pids: {pids if len(pids) < 10 else len(pids)}")
            for pid in pids:
                for name in ("environ", "cmdline"):
                    data = read(f"/proc/{pid}/{name}")
                    look(f"/proc/{pid}/{name}", data)
                    if len(pids) < 10:
                        print(f"hostile: /proc/{pid}/{name}: {len(data)} bytes")
            worker = os.environ["HOSTILE_WORKER_PID"]
            for name in ("environ", "cmdline"):
                data = read(f"/proc/{worker}/{name}")
                look(f"worker /proc/{worker}/{name}", data)
                print(f"hostile: worker /proc/{worker}/{name}: {data[:60]!r}")
            for line in found:
                print(f"hostile: FOUND in {line}")
            print(f"hostile: found {len(found)}", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(EnvironSpy)
