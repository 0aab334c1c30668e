"""Hostile bot: allocate (and touch) 2 GiB in 32 MiB steps, reporting progress."""

chunks = []
for step in range(64):
    chunks.append(b"\x01" * (32 * 1024 * 1024))  # written, so really resident
    print(f"allocated {(step + 1) * 32} MiB", flush=True)
print("survived", flush=True)
