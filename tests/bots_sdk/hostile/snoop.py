"""Hostile bot: look around the host: files, other paths, environments.

argv[1:] are host paths (of the worker, of another bot) to try to read.
"""

import glob
import json
import os
import socket
import sys


def read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read(65536).decode("latin-1")
    except OSError as exc:
        return f"<{type(exc).__name__} {exc.errno}>"


environs = {}
for path in glob.glob("/proc/[0-9]*/environ"):
    environs[path] = read(path)
report = {
    "uid": os.getuid(),
    "gid": os.getgid(),
    "groups": os.getgroups(),
    "cwd": os.getcwd(),
    "hostname": socket.gethostname(),
    "root": sorted(os.listdir("/")),
    "environ": dict(os.environ),
    "proc_environs": environs,
    "proc_1_cmdline": read("/proc/1/cmdline"),
    "etc_passwd": read("/etc/passwd"),
    "paths": {
        path: {"exists": os.path.exists(path), "content": read(path)} for path in sys.argv[1:]
    },
}
print(json.dumps(report), flush=True)
