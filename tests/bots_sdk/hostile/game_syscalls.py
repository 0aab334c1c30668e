"""Hostile SDK bot: at its 1st decision, call dangerous system calls directly
through ctypes; report "name ret errno" for each on stderr, then play on."""

import ctypes
import os

from bots_sdk import Bot, run

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_PIDFD = 0x00001000
SIGCHLD = 17
TIOCSTI = 0x5412


def calls():
    """name -> (syscall number, arguments); the buffers live as long as the table."""
    buf = ctypes.create_string_buffer(512)  # zeroed attr/params structures
    char = ctypes.c_char(b"x")
    source = ctypes.create_string_buffer(b"secret", 16)
    target = ctypes.create_string_buffer(16)
    local_iov = (ctypes.c_void_p * 2)(ctypes.addressof(target), 16)
    remote_iov = (ctypes.c_void_p * 2)(ctypes.addressof(source), 16)
    clone_args = ctypes.create_string_buffer(88)  # struct clone_args: a plain fork
    ctypes.memmove(ctypes.addressof(clone_args) + 32, SIGCHLD.to_bytes(8, "little"), 8)
    pidfd = ctypes.c_int(-1)
    keep = (buf, char, source, target, local_iov, remote_iov, clone_args, pidfd)
    return keep, {
        "clone_newuser": (56, (CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)),
        "clone3": (435, (ctypes.addressof(clone_args), 88)),
        "keyctl": (250, (0, -3, 1)),
        "add_key": (248, (b"user", b"vegas", b"data", 4, -2)),
        "request_key": (249, (b"user", b"vegas", None, -2)),
        "io_uring_setup": (425, (4, ctypes.addressof(buf))),
        "bpf": (321, (0, ctypes.addressof(buf), 72)),
        "mount": (165, (b"none", b"/tmp", b"tmpfs", 0, None)),
        "umount2": (166, (b"/tmp", 0)),
        "pivot_root": (155, (b"/tmp", b"/tmp")),
        "perf_event_open": (298, (ctypes.addressof(buf), 0, -1, -1, 0)),
        "setns": (308, (0, 0)),
        "userfaultfd": (323, (0,)),
        "init_module": (175, (None, 0, b"")),
        "kexec_load": (246, (0, 0, None, 0)),
        "ioctl_tiocsti": (16, (0, TIOCSTI, ctypes.addressof(char))),
        "process_vm_readv": (
            310,
            (os.getpid(), ctypes.addressof(local_iov), 1, ctypes.addressof(remote_iov), 1, 0),
        ),
        "ptrace": (101, (0, 0, 0, 0)),  # PTRACE_TRACEME
        "unshare_newnet": (272, (CLONE_NEWNET,)),
        "unshare_newuser": (272, (CLONE_NEWUSER,)),
        "memfd_secret": (447, (0,)),
        "landlock_create_ruleset": (444, (None, 0, 1)),
        "pidfd_open": (434, (os.getpid(), 0)),
        "clone_pidfd": (56, (CLONE_PIDFD | SIGCHLD, 0, ctypes.addressof(pidfd), 0, 0)),
        "process_madvise": (440, (-1, None, 0, 0, 0)),
        "modify_ldt": (154, (0, ctypes.addressof(buf), 16)),
        "cachestat": (451, (0, ctypes.addressof(buf), ctypes.addressof(buf), 0)),
    }


class RawSyscalls(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 1:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            _keep, table = calls()
            results = []
            for name, (number, args) in table.items():
                ctypes.set_errno(0)
                words = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
                ret = libc.syscall(ctypes.c_long(number), *words)
                err = ctypes.get_errno()
                if name.startswith("clone") and ret == 0:
                    os._exit(0)  # the child of a raw clone that worked
                if name.startswith("clone") and ret > 0:
                    os.waitpid(ret, 0)
                results.append(f"{name} {ret} {err}")
            print("hostile: syscalls: " + ", ".join(results), flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(RawSyscalls)
