"""Child processes of the area flow: argv lists (no shell), each in its own
process group so that an interrupted sweep stops them all, with the CPU time
of the process and its children (wait4: the figure that the per-point cost
and `make bench` report, whatever else loads the machine)."""
import os
import signal
import subprocess
import time

ACTIVE = set()      # process groups running now


class Result:
    def __init__(self, rc, out, cpu, wall):
        self.returncode, self.out, self.cpu, self.wall = rc, out, cpu, wall


def run(argv, log=None, cwd=None, env=None):
    """Runs argv; stdout and stderr go to the file log (or are returned in
    .out when log is None).  Returns Result; never raises on a non-zero exit.
    A missing program gives returncode 127 and a message."""
    t0 = time.time()
    fo = open(log, "w") if log else subprocess.PIPE
    try:
        p = subprocess.Popen(argv, stdout=fo, stderr=subprocess.STDOUT, cwd=cwd, env=env,
                             start_new_session=True, text=True)
    except OSError as e:
        msg = "cannot run %s: %s" % (argv[0], e)
        if log:
            fo.write(msg + "\n")
            fo.close()
        return Result(127, msg, 0.0, 0.0)
    ACTIVE.add(p.pid)
    try:
        out = p.stdout.read() if not log else ""
        _, status, ru = os.wait4(p.pid, 0)
    finally:
        ACTIVE.discard(p.pid)
        if log:
            fo.close()
    # os.waitstatus_to_exitcode is Python 3.9's; the device host's Python may be older
    p.returncode = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
    return Result(p.returncode, out, ru.ru_utime + ru.ru_stime, time.time() - t0)


def stop_all(signum=None, frame=None):
    for pid in list(ACTIVE):
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    if signum is not None:
        os._exit(128 + signum)


def tail(path, n=8):
    try:
        with open(path, errors="replace") as fh:
            return [l.rstrip() for l in fh.readlines()[-n:]]
    except OSError:
        return []


def first_error(path):
    """The first line of a tool log that says what went wrong."""
    try:
        with open(path, errors="replace") as fh:
            for line in fh:
                if "ERROR" in line or "Error" in line or "error:" in line:
                    return line.strip()
    except OSError:
        pass
    t = tail(path, 1)
    return t[0] if t else ""


class FlowError(Exception):
    """A point that cannot be costed; the message names the point's stage,
    the file or the configuration."""
