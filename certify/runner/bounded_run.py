"""Runs one suite, stage or re-run binary within bounds, and says which bound
it ran out of.

A defective endpoint can make a binary spin, block for ever, allocate
without end or print without end. Each run here has:
  - a wall-time bound for the whole binary, and one for any single
    GoogleTest test (read from its "[ RUN      ]" lines in the log);
  - a memory bound on the resident memory of the binary and every process
    it started (its session). Resident, not address space: ASan and TSan
    reserve terabytes of address space they never touch, and a suite region
    of depth 2^30 maps 64 GiB lazily, so RLIMIT_AS or RLIMIT_DATA would stop
    correct binaries. The bound is polled every POLL_S seconds, so a binary
    may pass it by what it allocates in that time (the processes it
    started, by what they allocate in SESSION_POLLS polls);
  - an output bound on what it writes to its log.
$SPSQ_CERT_MEMORY_MIB and $SPSQ_CERT_OUTPUT_MIB change the last two.
Out of any of them, the whole session is killed and the outcome names the
bound, the number, and the test that was running.
"""

import os
import select
import signal
import subprocess
import time

POLL_S = 0.1
# The whole session's memory is summed every SESSION_POLLS polls (a scan of
# /proc); the binary's own, every poll.
SESSION_POLLS = 10
PAGE = os.sysconf("SC_PAGE_SIZE")
DEFAULT_MEMORY_MIB = 4096
# Sanitized builds keep shadow memory resident beside what the test uses.
SANITIZED_FACTOR = 2
DEFAULT_OUTPUT_MIB = 256

RUN_MARK = b"[ RUN      ] "
END_MARKS = (b"[       OK ] ", b"[  FAILED  ] ", b"[  SKIPPED ] ")


class Outcome(object):
    def __init__(self):
        self.rc = None         # exit status, negative for a signal; None when killed by a bound
        self.reason = ""       # which bound ran out, with its number ("" when none did)
        self.running = None    # the GoogleTest test running at the end, if one was
        self.peak_mib = 0      # the largest resident memory seen
        self.elapsed = 0.0

    @property
    def bounded(self):
        return bool(self.reason)

    @property
    def culprit(self):
        """The test that ran out of a bound: the one running when it ran out."""
        return self.running if self.bounded else None


def memory_bound_mib(binary):
    """The memory bound for `binary`: $SPSQ_CERT_MEMORY_MIB or the default,
    twice that for a sanitized build."""
    base = int(os.environ.get("SPSQ_CERT_MEMORY_MIB") or DEFAULT_MEMORY_MIB)
    return base * SANITIZED_FACTOR if is_sanitized(binary) else base


# (path, mtime, size) -> is_sanitized: after a crash, a binary runs once per test.
_SANITIZED = {}


def is_sanitized(binary):
    """Whether `binary` carries an ASan, TSan or MSan runtime (its init symbol)."""
    try:
        st = os.stat(binary)
        key = (binary, st.st_mtime_ns, st.st_size)
        if key not in _SANITIZED:
            with open(binary, "rb") as f:
                data = f.read()
            _SANITIZED[key] = any(s in data for s in (b"__asan_init", b"__tsan_init",
                                                      b"__msan_init"))
        return _SANITIZED[key]
    except OSError:
        return False


def _stat_fields(pid):
    """The fields of /proc/<pid>/stat after the name (state first), or None."""
    try:
        with open("/proc/%s/stat" % pid, "rb") as f:
            stat = f.read()
    except OSError:
        return None  # gone meanwhile
    fields = stat[stat.rfind(b")") + 2:].split()
    return fields if len(fields) > 21 else None


def rss_mib(pid):
    """Resident memory of one process, in MiB (0 once it is gone)."""
    fields = _stat_fields(pid)
    return (int(fields[21]) * PAGE) >> 20 if fields else 0  # rss: field 24


def session_rss_mib(sid):
    """Resident memory of every process in session `sid`, in MiB."""
    total = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(entry)
            # After the name: state, ppid, pgrp, session, ..., rss.
            if fields and int(fields[3]) == sid:
                total += int(fields[21]) * PAGE
    return total >> 20


class _TestWatch(object):
    """Follows the GoogleTest progress lines a binary writes to its log."""

    def __init__(self, path, offset):
        self.path, self.offset = path, offset
        self.partial = b""
        self.running, self.since = None, None

    def poll(self, now):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                chunk = f.read(1 << 20)
        except OSError:
            return
        self.offset += len(chunk)
        lines = (self.partial + chunk).split(b"\n")
        self.partial = lines.pop()[-4096:]
        for line in lines:
            if line.startswith(RUN_MARK):
                self.running, self.since = _test_name(line[len(RUN_MARK):]), now
            elif line.startswith(END_MARKS) and self.running is not None:
                self.running = None


def _test_name(rest):
    return rest.split(b" ")[0].strip().decode("utf-8", "replace")


def _kill_session(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


class _ExitWait(object):
    """Waits for a process to end, at most a given time. Where the kernel
    gives a process file descriptor (Linux 5.3 on), the wait ends the moment
    the process does; Popen.wait's own timed wait sleeps up to 50 ms at a
    time, which a certification's hundreds of short runs spent idle."""

    def __init__(self, proc):
        self.proc = proc
        try:
            self.fd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):
            self.fd = None
        if self.fd is not None:
            self.poller = select.poll()
            self.poller.register(self.fd, select.POLLIN)

    def ended(self, timeout):
        """Whether the process ended within `timeout` seconds (reaped if so)."""
        if self.fd is None:
            try:
                self.proc.wait(timeout=timeout)
                return True
            except subprocess.TimeoutExpired:
                return False
        self.poller.poll(timeout * 1000)  # readable once the process has ended
        return self.proc.poll() is not None

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def run(cmd, env, log_path, time_s, test_time_s=None, memory_mib=None, output_mib=None,
        what="the binary"):
    """Runs `cmd` with its output appended to `log_path`; returns an Outcome
    whose reason starts with `what` ("the suite binary") or "the test".

    time_s bounds the whole run, test_time_s any one GoogleTest test (None:
    no test bound), memory_mib the session's resident memory (None: the
    binary's bound from memory_bound_mib), output_mib what it appends to the
    log (None: DEFAULT_OUTPUT_MIB)."""
    memory_mib = memory_mib or memory_bound_mib(cmd[0])
    output_bytes = (output_mib or int(os.environ.get("SPSQ_CERT_OUTPUT_MIB") or
                                      DEFAULT_OUTPUT_MIB)) << 20
    out = Outcome()
    start = time.monotonic()
    with open(log_path, "ab") as log:
        offset = log.tell()
        watch = _TestWatch(log_path, offset)
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        waiter = _ExitWait(proc)
        polls, others = 0, 0  # others: what the rest of the session held at the last scan
        while True:
            if waiter.ended(POLL_S):
                break
            now = time.monotonic()
            watch.poll(now)
            own = rss_mib(proc.pid)
            if polls % SESSION_POLLS == 0:
                others = max(0, session_rss_mib(proc.pid) - own)
            polls += 1
            rss = own + others
            out.peak_mib = max(out.peak_mib, rss)
            written = os.path.getsize(log_path) - offset
            if rss > memory_mib:
                out.reason = "%s exceeded its memory bound of %d MiB (%d MiB resident)" % (
                    what, memory_mib, rss)
            elif written > output_bytes:
                out.reason = "%s exceeded its output bound of %d MiB of log" % (
                    what, output_bytes >> 20)
            elif test_time_s and watch.running and now - watch.since > test_time_s:
                out.reason = "the test exceeded its time bound of %d s" % test_time_s
            elif now - start > time_s:
                out.reason = "%s exceeded its time bound of %d s" % (what, time_s)
            if out.reason:
                _kill_session(proc)
                proc.wait()
                break
        waiter.close()
        # What it left running (a grandchild holding the log) goes too.
        _kill_session(proc)
        watch.poll(time.monotonic())
        out.running = watch.running
        out.rc = None if out.reason else proc.returncode
        out.elapsed = time.monotonic() - start
        if out.reason:
            log.write(("\n*** %s%s; killed\n" % (
                out.reason, " in " + out.running if out.running else "")).encode())
    return out
