"""Hostile bot: call dangerous system calls directly through ctypes.

Prints {name: [return value, errno]} plus the seccomp/no_new_privs status.
With argument "control" only the calls that are harmless when they succeed
(even as root, outside any sandbox) are made: the test runs that way in
trusted mode to show that the probe does see successes. A forked clone
child exits at once.
"""

import ctypes
import json
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_PIDFD = 0x00001000
SIGCHLD = 17
TIOCSTI = 0x5412

buf = ctypes.create_string_buffer(512)  # zeroed attr/params structures
char = ctypes.c_char(b"x")
source = ctypes.create_string_buffer(b"secret", 16)
target = ctypes.create_string_buffer(16)
local_iov = (ctypes.c_void_p * 2)(ctypes.addressof(target), 16)  # struct iovec
remote_iov = (ctypes.c_void_p * 2)(ctypes.addressof(source), 16)  # read from itself
clone_args = ctypes.create_string_buffer(88)  # struct clone_args: a plain fork
ctypes.memmove(ctypes.addressof(clone_args) + 32, (SIGCHLD).to_bytes(8, "little"), 8)
aio_context = ctypes.c_ulong(0)  # io_setup wants it zeroed
pidfd = ctypes.c_int(-1)  # where clone(CLONE_PIDFD) would put the pidfd

CALLS = {
    # name: (syscall number, arguments)
    "clone_newuser": (56, (CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)),
    "clone3": (435, (ctypes.addressof(clone_args), 88)),
    "keyctl": (250, (0, -3, 1)),  # KEYCTL_GET_KEYRING_ID(session keyring, create)
    "add_key": (248, (b"user", b"vegas", b"data", 4, -2)),
    "request_key": (249, (b"user", b"vegas", None, -2)),
    "io_uring_setup": (425, (4, ctypes.addressof(buf))),
    "bpf": (321, (0, ctypes.addressof(buf), 72)),  # BPF_MAP_CREATE, zeroed attr
    "mount": (165, (b"none", b"/tmp", b"tmpfs", 0, None)),
    "umount2": (166, (b"/tmp", 0)),
    "pivot_root": (155, (b"/tmp", b"/tmp")),
    "perf_event_open": (298, (ctypes.addressof(buf), 0, -1, -1, 0)),
    "setns": (308, (0, 0)),
    "userfaultfd": (323, (0,)),
    "init_module": (175, (None, 0, b"")),
    "kexec_load": (246, (0, 0, None, 0)),
    "ioctl_tiocsti": (16, (0, TIOCSTI, ctypes.addressof(char))),
    "x32_getpid": (0x40000000 | 39, ()),
    "memfd_secret": (447, (0,)),
    "landlock_create_ruleset": (444, (None, 0, 1)),  # LANDLOCK_CREATE_RULESET_VERSION
    "pidfd_open": (434, (os.getpid(), 0)),
    "process_madvise": (440, (-1, None, 0, 0, 0)),
    "modify_ldt": (154, (0, ctypes.addressof(buf), 16)),  # read the LDT
    "cachestat": (451, (0, ctypes.addressof(buf), ctypes.addressof(buf), 0)),  # newer than vetted
    # on no list: Linux AIO and vmsplice are simply not allowed
    "io_setup": (206, (1, ctypes.addressof(aio_context))),
    "vmsplice": (278, (-1, None, 0, 0)),
    "clone_pidfd": (56, (CLONE_PIDFD | SIGCHLD, 0, ctypes.addressof(pidfd), 0, 0)),
    "process_vm_readv": (
        310,
        (os.getpid(), ctypes.addressof(local_iov), 1, ctypes.addressof(remote_iov), 1, 0),
    ),
    # last: when they succeed they change how the process is traced or who it is
    "ptrace": (101, (0, 0, 0, 0)),  # PTRACE_TRACEME
    "unshare_newnet": (272, (CLONE_NEWNET,)),
    "unshare_newuser": (272, (CLONE_NEWUSER,)),
}
HARMLESS = {
    "process_vm_readv",
    "clone3",
    "keyctl",
    "add_key",
    "io_uring_setup",
    "x32_getpid",
    "memfd_secret",
    "landlock_create_ruleset",
    "pidfd_open",
    "modify_ldt",
    "cachestat",
    "clone_pidfd",
    "io_setup",
    "vmsplice",
}
control = sys.argv[1:] == ["control"]

results = {}
for name, (number, args) in CALLS.items():
    if control and name not in HARMLESS:
        continue
    ctypes.set_errno(0)
    ret = libc.syscall(
        ctypes.c_long(number), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    )
    err = ctypes.get_errno()
    if name.startswith("clone") and ret == 0:
        os._exit(0)  # the child of a successful raw clone
    if name.startswith("clone") and ret > 0:
        os.waitpid(ret, 0)
    results[name] = [ret, err]

status = {}
with open("/proc/self/status") as handle:
    for line in handle:
        key, _, value = line.partition(":")
        status[key] = value.strip()
print(
    json.dumps(
        {
            "calls": results,
            "seccomp": status.get("Seccomp"),
            "no_new_privs": status.get("NoNewPrivs"),
            "cap_eff": status.get("CapEff"),
            "uid": os.getuid(),
        }
    ),
    flush=True,
)
