"""A server starts with its signals at their defaults whatever the harness inherited: under `nohup`
(SIGHUP ignored) or a shell's `&` (SIGINT, SIGQUIT ignored) an ignored disposition survives exec, and the
reference then outlives the SIGHUP the original ends on (RTE-10, issue 43). The harness still ignores them."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

from tests.servers import HERE

_IGNORED = (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT)

_HARNESS = textwrap.dedent(
    """
    import json, os, signal, sys, threading
    sys.path[:0] = [sys.argv[1], sys.argv[2]]
    from conformance.drivers import process
    from conformance.drivers.wire import WireDriver
    from tests.servers import command

    def ignored(pid):
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("SigIgn:"):
                return int(line.split()[1], 16)

    def started():
        with WireDriver(command("mini")) as driver:
            driver.initialize()
            return ignored(driver.pid)

    seen = {"main": started(), "harness": ignored("self")}
    os.kill(os.getpid(), signal.SIGHUP)  # the harness itself still shrugs a hangup off
    seen["survived_sighup"] = True
    from conformance.drivers import cancel
    with cancel.handling():  # a run in a background job: its ignored SIGINT cancels nothing
        os.kill(os.getpid(), signal.SIGINT)
    seen["survived_sigint"] = True
    # A spawn from another thread, with SIGHUP ignored again after import: the harness cannot change its own
    # disposition there, so the server goes through the reset trampoline.
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    box = []
    worker = threading.Thread(target=lambda: box.append(started()))
    worker.start()
    worker.join()
    seen["thread"] = box[0]
    print(json.dumps(seen))
    """
)


def _mask(*signals: signal.Signals) -> int:
    return sum(1 << (sig - 1) for sig in signals)


def test_servers_start_with_default_dispositions_under_an_inherited_sig_ign() -> None:
    """The harness runs in a child that inherited SIGHUP, SIGINT and SIGQUIT ignored (as `nohup` and `&` leave
    them, set before exec); each server it starts, from the main thread or another, ignores none of them."""
    repo = HERE.parent.parent
    ignore_then_exec = (
        "import os, signal, sys\n"
        f"for s in {[int(s) for s in _IGNORED]}: signal.signal(s, signal.SIG_IGN)\n"
        "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", ignore_then_exec, "-c", _HARNESS, str(repo), str(repo / "tests" / "servers")],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    mask = _mask(*_IGNORED)
    assert seen["main"] & mask == 0, f"server started from the main thread ignores {seen['main'] & mask:#x}"
    assert seen["thread"] & mask == 0, f"server started from a thread ignores {seen['thread'] & mask:#x}"
    assert seen["harness"] & mask == 0, "the harness's SIG_IGN became a handler that ignores (exec resets it)"
    assert seen.get("survived_sighup"), "the harness ended on a SIGHUP it was started ignoring"
    assert seen.get("survived_sigint"), "a run cancelled itself on a SIGINT it was started ignoring"
