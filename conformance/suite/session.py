"""One long-lived server process per target, shared by every test, replaced only when it dies or ran out.

The command line's preflight process becomes that shared process (`handover.py`): a run starts one process
fewer. Checks that need a process other than the shared one, but not a new one, share a pooled spare (`spare`,
which checks take as the `spare` fixture: a run that collects one starts the spare with the session, unless
a raw process other checks are done with can be taken over then, `spare_source`). Checks
that file many new branch labels call the tool there too (`LabelServer`): the labels every accepted answer
lists stay off the shared process. The realistic host (`host`, the `host` fixture) starts with the session
too, on a thread, when a run collects a check that takes it. A shared process that ran out (it refuses the
probe a new process accepts, as a fork bounding a process does) is replaced before the next check
(`renew_if_spent`).
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Protocol

from conformance.calls.store import StoreState, state_of
from conformance.core.differences import quoted
from conformance.core.js import MAX_SAFE_INTEGER
from conformance.core.jsontypes import JSON, OMIT, Omitted
from conformance.core.protocol import PROBE_ARGUMENTS, PROTOCOL_VERSION, TOOL
from conformance.drivers.errors import DriverError
from conformance.drivers.process import kill_group_now
from conformance.drivers.transcript import Transcript
from conformance.drivers.wire import Exchange, WireDriver
from conformance.suite.contradiction import expect
from conformance.targets.specs import Target

if TYPE_CHECKING:
    from conformance.drivers.sdk import SdkDriver
    from conformance.suite.handover import Handover

SESSION_STDERR_LIMIT = 8 << 20
"""Stderr the shared process keeps in memory: each call's bytes are in its Exchange and every byte is in the
transcript on disk, so the harness's memory stays flat however many calls a run makes."""

FailureHook = Callable[[DriverError], None]
SpareSource = Callable[[], "tuple[subprocess.Popen[bytes], dict[str, JSON], bytes] | None"]
"""Where a spare's process may come from before one is started: a process other checks are done with (the
raw pool's `hand_over`), with its initialize answer and the stderr read from its start."""


class Spare(Protocol):
    """`ServerSession.spare` as checks receive it (the `spare` fixture): `with spare() as driver: ...`."""

    def __call__(self, *, env: Mapping[str, str] | None = None) -> AbstractContextManager[WireDriver]: ...


@dataclass(frozen=True)
class LabelServer:
    """The tool on the pooled spare, for checks that file many new branch labels (the `label_server` fixture).

    Every accepted answer lists every label its process holds, and nothing removes one: filed on the shared
    process, those labels would ride along in each later answer of the run (serialized by the server, decoded
    and transcribed by the harness). Checks that file few labels, or none, stay on the shared process.
    """

    driver: WireDriver

    def call(self, arguments: JSON | Omitted = OMIT, *, name: str = TOOL) -> Exchange:
        return self.driver.call_tool(name, arguments)

    def probe(self) -> StoreState:
        """One accepted call: the state the next call starts from is this plus the probe itself."""
        return probed(self.call(dict(PROBE_ARGUMENTS)))


def probed(exchange: Exchange) -> StoreState:
    """The store an accepted probe reports; a status object without the count or the labels contradicts
    OBJ-4 (stopuncle-js answers `activeBranches`, not `branches`: 17 checks said "no key 'branches' where the
    check read one" and no cause explained them, round 14)."""
    try:
        return state_of(exchange)
    except KeyError as missing:
        expect("OBJ-4", False, f"the status object has no {missing.args[0]!r}, where the original answers "
                               f"thoughtHistoryLength and branches: {quoted(exchange.text or '', 300)}")
        raise


_Key = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]
HOST_START_GRACE = 5.0
"""How long closing waits for a host start it cut short (its server killed) to unwind."""


class HostStart:
    """A host starting on a thread of its own (`ServerSession.prestart_host`)."""

    def __init__(self, driver: SdkDriver) -> None:
        self.driver = driver
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._start, name="host-start", daemon=True)
        self._thread.start()

    def _start(self) -> None:
        try:
            self.driver.start()
        except BaseException as exc:
            self._error = exc

    def result(self) -> SdkDriver:
        """The started host, once its start ended; a failed start closes it and raises its error."""
        self._thread.join()
        if self._error is not None:
            self.driver.close()
            raise self._error
        return self.driver

    def close(self) -> None:
        """End the host however far its start got: a start still waiting on its server ends once the server
        is killed, as soon as it has one (a cancelled run does not wait out an initialize timeout)."""
        deadline = time.monotonic() + HOST_START_GRACE
        while self._thread.is_alive() and time.monotonic() < deadline:
            if self.driver.pid is not None:
                kill_group_now(self.driver.pid)
            self._thread.join(0.05)
        self.driver.close()


_PLAIN_KEYS: Final = frozenset(("thought", "thoughtNumber", "totalThoughts", "nextThoughtNeeded"))


def _plain(arguments: dict[str, JSON]) -> bool:
    """The four required fields alone, each as the original accepts it (a non-empty string thought, positive
    safe integers, a boolean): a call the original never refuses, whatever came before."""
    thought, number, total = (arguments.get(k) for k in ("thought", "thoughtNumber", "totalThoughts"))
    return (set(arguments) == _PLAIN_KEYS and isinstance(thought, str) and bool(thought)
            and isinstance(arguments["nextThoughtNeeded"], bool)
            and all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_SAFE_INTEGER
                    for n in (number, total)))


def _key(command: tuple[str, ...], env: Mapping[str, str]) -> _Key:
    return command, tuple(sorted(env.items()))


@dataclass
class ServerSession:
    """The suite's handle on a target: a shared wire driver, fresh processes on demand, an SDK host."""

    target: Target
    transcript: Transcript
    timeout: float = 10.0
    server_info: dict[str, JSON] = field(default_factory=dict)
    protocol_version: str | None = None
    restarts: int = 0
    on_failure: FailureHook | None = field(default=None, repr=False)
    handover: Handover | None = field(default=None, repr=False)
    _wire: WireDriver | None = field(default=None, repr=False)
    _spares: dict[_Key, WireDriver] = field(default_factory=dict, repr=False)
    _host_start: HostStart | None = field(default=None, repr=False)
    _counted: tuple[WireDriver, int, float] | None = field(default=None, repr=False)
    spare_source: SpareSource | None = field(default=None, repr=False)
    """Asked for the spare's process (in the target's own environment) before one is started."""
    replaced: int = 0
    """Shared processes replaced because they ran out (`renew_if_spent`), not because they died."""
    _refused_plain: bool = field(default=False, repr=False)
    """The shared process refused a plain call the original accepts since the last `renew_if_spent`."""
    _uses: int = field(default=0, repr=False)
    """Uses of the shared driver so far (`wire`): the positions `shared_mark` hands out."""
    _switches: list[int] = field(default_factory=list, repr=False)
    _listed: tuple[str, ...] | None = field(default=None, repr=False)
    """The tool names the shared process's tools/list serves, read once (`listed_names`)."""
    """For each shared process after the first, the use it first served: where the calls met a new one."""

    @property
    def env(self) -> Mapping[str, str]:
        return self.target.env

    def _start(self) -> WireDriver:
        driver = self.handover.take(self.target) if self.handover is not None else None
        if driver is not None:
            driver.transcript = self.transcript
            driver.stderr_limit = SESSION_STDERR_LIMIT
            driver.timeout = self.timeout
            driver.on_failure = self.on_failure
            self.transcript.note(f"shared process: pid {driver.pid}, started and initialized by preflight")
            assert driver.initialize_result is not None, (
                "the harness's preflight handed over a process it did not initialize")
            result = driver.initialize_result
        else:
            driver, result = self._initialized_shared()
        info = result.get("serverInfo")
        if isinstance(info, dict):
            self.server_info = info
        version = result.get("protocolVersion")
        self.protocol_version = version if isinstance(version, str) else None
        return driver

    def _initialized_shared(self) -> tuple[WireDriver, dict[str, JSON]]:
        """A new process of the target as the shared one is started, initialized, and its initialize answer;
        closed again when it does not start or answer."""
        driver = WireDriver(self.target.command, env=self.target.env, timeout=self.timeout,
                            transcript=self.transcript, stderr_limit=SESSION_STDERR_LIMIT,
                            on_failure=self.on_failure, renames=self.target.renames,
                            lateness=self.target.lateness)
        try:
            driver.start()
            return driver, driver.initialize(PROTOCOL_VERSION)
        except BaseException:
            driver.close()
            raise

    @property
    def wire(self) -> WireDriver:
        """The shared, initialized driver; a dead process is replaced (and counted) before use."""
        if self._wire is not None and not self._wire.is_alive():
            self._wire.close()
            self._wire = None
            self.restarts += 1
        if self._wire is None:
            self._wire = self._start()
            if self._uses:
                self._switches.append(self._uses)
        self._uses += 1
        return self._wire

    def shared_mark(self) -> int:
        """A position in the uses of the shared process: `met_two_processes(mark)` says whether the uses since
        then reached more than one process."""
        return self._uses

    def ended_since(self, mark: int) -> bool:
        """Whether the shared process the uses since `mark` reached ended meanwhile: they met two processes,
        or the one they met is gone (its stderr ended: a box a call was waiting for was cut by the exit)."""
        if self.met_two_processes(mark):
            return True
        driver = self._wire
        return driver is not None and self._uses > mark and (driver.stderr_ended or not driver.is_alive())

    def met_two_processes(self, mark: int) -> bool:
        """Whether the shared process the uses since `mark` began on ended (or was replaced) and a new one
        served the later ones: a failure of those calls may be the process's life, not the check's record (a
        server that exits after its final thought, met inside an explicit example, which is never re-run)."""
        return any(switch > mark for switch in self._switches)

    def call(self, arguments: JSON | Omitted = OMIT, *, name: str = TOOL) -> Exchange:
        exchange = self.wire.call_tool(name, arguments)
        if (not self._refused_plain and name == TOOL and (exchange.error is not None or exchange.is_error)
                and isinstance(arguments, dict) and _plain(arguments)):
            self._refused_plain = True
        return exchange

    def listed_names(self) -> tuple[str, ...]:
        """The names the target's tools/list serves, asked once per run: a name it lists is no unknown tool's
        (fork-readme-names lists `sequential_thinking`, a name RTE-2's check would otherwise call unknown)."""
        if self._listed is None:
            result = self.wire.list_tools().result
            tools = result.get("tools") if result is not None else None
            self._listed = tuple(str(tool.get("name")) for tool in tools or () if isinstance(tool, dict)) \
                if isinstance(tools, list) else ()
        return self._listed

    def renew_if_spent(self) -> bool:
        """Between checks: a shared process that ran out is replaced, as the witness session replaces one.

        A fork that bounds a process (held-out-multi-3's `bounded-session` refuses every call after 100
        thoughts) left the checks after the bound nothing but its refusal, so a record those checks alone
        reach (its clamp of totalThoughts at 100: RTE-4, ABS-8, OBJ-14) was only ever "seen once". Asked only
        after the shared process refused a plain call the original accepts: the probe is sent to it, and when
        it refuses the probe and a new process accepts it, the new process becomes the shared one (a refusal
        a new process gives too is the server's, and the old process stays). True when it was replaced."""
        if not self._refused_plain or self._wire is None or not self._wire.is_alive():
            self._refused_plain = False
            return False
        self._refused_plain = False
        old = self._wire
        answer = old.call_tool(TOOL, dict(PROBE_ARGUMENTS))
        if answer.error is None and not answer.is_error:
            return False  # not spent (the probe's one more thought keeps ABS-11's count rising)
        try:
            fresh, _ = self._initialized_shared()
        except DriverError:
            return False  # no new process to tell: the old one stays, as when it would not be replaced
        try:
            again = fresh.call_tool(TOOL, dict(PROBE_ARGUMENTS))
        except DriverError:
            fresh.close()
            return False
        except BaseException:
            fresh.close()
            raise
        if again.error is not None or again.is_error:
            fresh.close()
            return False
        self.transcript.note(f"shared process: pid {old.pid} refused the probe a new process accepts (it ran "
                             f"out); pid {fresh.pid} replaces it")
        old.close()
        self._wire, self._counted = fresh, None
        self._switches.append(self._uses)
        self.replaced += 1
        return True

    def probe(self) -> StoreState:
        """One accepted call: the state the next call starts from is this plus the probe itself. Across the
        run, the shared process's count never falls between probes: one that fell was cleared, scoped or
        expired while the process lived (ABS-11), whichever check probed next, however long the pause."""
        driver = self.wire
        state = probed(self.call(dict(PROBE_ARGUMENTS)))
        now = time.monotonic()
        if self._counted is not None and self._counted[0] is driver:
            _, before, then = self._counted
            expect("ABS-11", state.history_length >= before,
                   f"the shared process answered thoughtHistoryLength {state.history_length} to a probe "
                   f"{now - then:.1f} s after it answered {before} to the previous one, where the count "
                   f"never falls while the process lives")
        self._counted = (driver, state.history_length, now)
        return state

    @contextmanager
    def fresh(self, *, env: Mapping[str, str] | None = None) -> Iterator[WireDriver]:
        """A new process for records about a fresh process (startup banner, initial state).

        Once its check passed, an initialized process is kept as the spare for its environment (when there is
        none yet) instead of being closed: a fresh process is only fresh once, but it is still a process.
        """
        merged = {**self.target.env, **(env or {})}
        key = _key(tuple(self.target.command), merged)
        driver = WireDriver(self.target.command, env=merged, timeout=self.timeout,
                            transcript=self.transcript, on_failure=self.on_failure,
                            renames=self.target.renames, lateness=self.target.lateness)
        kept = False
        try:
            driver.start()
            yield driver
            if key not in self._spares and driver.is_alive() and driver.initialize_result is not None:
                self._spares[key] = driver
                kept = True
        finally:
            if not kept:
                driver.close()

    @contextmanager
    def spare(self, *, env: Mapping[str, str] | None = None) -> Iterator[WireDriver]:
        """An initialized process other than the shared one, in whatever state earlier users left it.

        For checks that need a second process or their own environment but not a new one (a description
        served by another process, a render under forced colour, a store counted from where it stands): one
        pooled process per environment serves them all. A check that fails leaves no process behind for the
        next one: its process is closed.
        """
        merged = {**self.target.env, **(env or {})}
        key = _key(tuple(self.target.command), merged)
        driver = self._spares.pop(key, None)
        if driver is not None and not driver.is_alive():
            driver.close()
            driver = None
        if driver is None and env is None:
            driver = self._taken_over()
        if driver is None:
            driver = self._started(merged)
        if driver.initialize_result is None:
            try:
                driver.initialize(PROTOCOL_VERSION)
            except BaseException:
                driver.close()
                raise
        ok = False
        try:
            yield driver
            ok = True
        finally:
            if ok and driver.is_alive():
                self._spares[key] = driver
            else:
                driver.close()

    def prestart_spare(self) -> None:
        """Start the spare's process now, to be initialized when a check first asks for it: its start-up
        then overlaps the checks before it instead of delaying that one."""
        key = _key(tuple(self.target.command), dict(self.target.env))
        if key not in self._spares:
            self._spares[key] = self._started(dict(self.target.env))

    def release_spare(self) -> tuple[subprocess.Popen[bytes], bytes, dict[str, JSON] | None] | None:
        """The spare's process in the target's own environment, out of the session for good, with the stderr
        read from its start and its initialize answer: for a check that ends a process (`RawPool.take_back`),
        once no check needs the spare any more. None when there is none still running."""
        return _handed_out(self._spares.pop(_key(tuple(self.target.command), dict(self.target.env)), None))

    def release_shared(self) -> tuple[subprocess.Popen[bytes], bytes, dict[str, JSON] | None] | None:
        """The shared process, out of the session for good, as `release_spare` gives the spare's: for a check
        that ends a process, once no check needs the shared process any more (a later use starts a new one,
        not counted as a restart). None when it was never started or is no longer running."""
        driver, self._wire = self._wire, None
        if driver is not None:
            self._counted = None
        return _handed_out(driver)

    def _taken_over(self) -> WireDriver | None:
        """A driver of a process `spare_source` gives, already initialized; None when it gives none."""
        taken = self.spare_source() if self.spare_source is not None else None
        if taken is None:
            return None
        proc, initialized, said = taken
        driver = WireDriver(self.target.command, env=self.target.env, timeout=self.timeout,
                            transcript=self.transcript, on_failure=self.on_failure,
                            renames=self.target.renames, lateness=self.target.lateness)
        driver.adopt(proc, initialize_result=initialized, stderr_before=said)
        return driver

    def _started(self, env: Mapping[str, str]) -> WireDriver:
        """A started, not yet initialized driver for a spare in `env` (closed again if it cannot start)."""
        driver = WireDriver(self.target.command, env=env, timeout=self.timeout,
                            transcript=self.transcript, on_failure=self.on_failure,
                            renames=self.target.renames, lateness=self.target.lateness)
        try:
            driver.start()
        except BaseException:
            driver.close()
            raise
        return driver

    @contextmanager
    def host(self) -> Iterator[SdkDriver]:
        """A realistic host: the official mcp client session over its stdio client, the one `prestart_host`
        started if there is one. The SDK is imported by the checks that use it: a run of a suite that never
        does, or a merge, does not pay its import."""
        starting = self._host_start
        if starting is None:
            with self._new_host() as driver:
                yield driver
            return
        driver = starting.result()  # until it returns, `close` ends the start however it is interrupted
        self._host_start = None
        try:
            yield driver
        finally:
            driver.close()

    def prestart_host(self) -> None:
        """Start the host's process and its handshake now, on a thread: its start-up then overlaps the checks
        before the first that uses it. A start that fails is raised to that check, as if it started there."""
        if self._host_start is None:
            self._host_start = HostStart(self._new_host())

    def _new_host(self) -> SdkDriver:
        from conformance.drivers.sdk import SdkDriver

        return SdkDriver(self.target.command, env=self.target.env, timeout=self.timeout,
                         on_failure=self.on_failure, renames=self.target.renames,
                         strays=self.target.lateness.strays)

    def close(self) -> None:
        """End every process of the session at once: each may take its grace periods (a cancelled run has
        seconds, not a grace period per process)."""
        drivers: list[WireDriver | HostStart] = [*self._spares.values()]
        drivers += [d for d in (self._wire, self._host_start) if d is not None]
        self._spares.clear()
        self._wire = None
        self._host_start = None
        closing = [threading.Thread(target=d.close) for d in drivers[1:]]
        for thread in closing:
            thread.start()
        try:
            if drivers:
                drivers[0].close()
        finally:
            for thread in closing:
                thread.join()


def _handed_out(
    driver: WireDriver | None,
) -> tuple[subprocess.Popen[bytes], bytes, dict[str, JSON] | None] | None:
    """A driver's running process handed out of the session, with the stderr read from its start and its
    initialize answer; None (and the driver closed) when it is no longer running."""
    if driver is None:
        return None
    released = driver.release()
    if released is None:
        driver.close()
        return None
    proc, said = released
    return proc, said, driver.initialize_result
