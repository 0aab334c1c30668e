"""Hostile SDK bot: at its 2nd decision, allocate (and touch) 2 GiB in 32 MiB steps."""

from bots_sdk import Bot, run


class MemoryHog(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            print("hostile: allocating 2 GiB", flush=True)
            hoard = []
            for step in range(64):
                hoard.append(b"\x01" * (32 * 2**20))  # written, so really resident
                print(f"allocated {(step + 1) * 32} MiB", flush=True)
            print("hostile: survived", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(MemoryHog)
