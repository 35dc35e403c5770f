"""Behaviour signatures: each record's witness calls sent to one fresh process, made canonical, hashed.

A baseline pins a departure's signature, so a departure whose behaviour changes again fails the gate.
The digest must depend on the behaviour only: fixed witnesses (no generated examples), the store read
relative to a probe sent before each record's witnesses (so records need no process of their own), JSON
compared parsed, and the details each side's SDK owns (docs/reference-server.md) normalized away.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import re
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance.catalog.witnesses import WitnessSet, WitnessStep, default_witnesses
from conformance.core.errors import HarnessError, InputError
from conformance.core.inputs import PACKAGE_BYTES, parse_json, read_bytes, read_json
from conformance.core.jsontypes import JSON, OMIT
from conformance.core.protocol import PROBE_ARGUMENTS, PROTOCOL_VERSION, TOOL
from conformance.drivers.errors import DriverError, ServerTimeout
from conformance.drivers.transcript import Transcript, decode
from conformance.drivers.wire import Exchange, WireDriver
from conformance.gate.canonical import (
    HISTORY,
    StoreBase,
    accepted_status,
    canonical_response,
    error_class,
    json_strings,
    label_key,
    offered_capabilities,
    short_json,
    sorted_json,
    store_base,
    text_view,
    tool_view,
    without_volatile,
)
from conformance.gate.idle_watch import IDLE_WITNESS, QUIET, IdleWatch, without_clock_lines
from conformance.report.model import WitnessAnswer
from conformance.targets.project import package_dir_of
from conformance.targets.specs import Target, resolve_target

PACKAGE_VERSION: Final = "<package version>"
"""What serverInfo.version reads as when it equals the installed package's version (true of every release
since the version fix, so the next release keeps the signature)."""
BANNER_WAIT: Final = 1.0
ARTIFACT_UNAVAILABLE: Final = {"artifact": "not available"}
"""An artifact step's answer on a target with no installed package (a `cmd:` fork): nothing observed."""
SPARES: Final = 2
"""Fresh processes of the target kept started ahead once records are signed again alone one after another
(their refusals seen to carry, `REFUSAL_CHECKS`, or a probe refused): a red run signed 10-16 records so, and a
fresh process's start (spawn to initialize answered) is 90 % of each (npm:2026.8.31: 0.6-2.1 s under load, its
witness calls 0.05-0.4 s). A spare is started and initialized as a fresh process is, and nothing is sent to it
before it is taken, so each record meets the same calls on the same kind of process; not for a target that
carries its store across processes (a spare started earlier could restore an older one)."""
CARRY_LABEL: Final = "carry-check"
"""The label `_WitnessSession.start` files on a target's first process (numbered past any it holds)."""
CARRY_CALL: Final[dict[str, JSON]] = {"thought": "conformance carry check", "thoughtNumber": 2,
                                      "totalThoughts": 2, "branchFromThought": 1}
"""The call filing it, a branch from the probe's thought."""
REFUSAL_CHECKS: Final = 2
"""Records refused after other records' refused calls that are signed again alone, and answer there exactly as
on the shared process, before a target is taken to keep nothing from a refused call (`refusals_carry`): a red
run's signing then starts 2 fresh processes for them, not one per refused record (its departures signed beside
the run's: npm:2026.8.31 20 processes → 5, fork-hardened-store 20 → 4, the snake_case port 15 → 7; every
signature the same). One answer that differs (a lockout, a refusal counting the refusals before it) and every
such record is signed again alone, as before. What a check cannot see: a server whose refusals change only
after more refused calls than the checked records made while it still accepts the probe; a lockout refusing
the probe is met by the probe (`renew`, `shared_refusal`) whatever was learned."""
_IMPORT = re.compile(r"""(?:\bfrom\s+|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']""")


@dataclass(frozen=True)
class RecordSignature:
    """A record's signature and the (shortened) canonical answers it was computed from."""

    record: str
    signature: str
    witness: list[WitnessAnswer]


def witness_signatures(
    target: Target | str,
    records: Iterable[str],
    *,
    timeout: float = 10.0,
    cache_dir: Path | None = None,
    witnesses: WitnessSet | None = None,
    transcript: Transcript | None = None,
    stateless: bool = False,
    refusals_carry: bool = True,
    refusal_checks: int = REFUSAL_CHECKS,
    clockless: bool = False,
    idle: float = IDLE_WITNESS,
) -> dict[str, RecordSignature]:
    """Signatures of `records` (those with witnesses) on one fresh process of `target`. `stateless`: the
    target is known to keep nothing across processes (the original), so no second process is started to see
    whether it does. `refusals_carry=False`: the target is known to keep nothing from a refused call (the
    original validates before it stores), so a record refused after others is not signed again alone (a
    process per such record, 11-13 per red run, each answering as the shared one did). Otherwise that is
    learned: once `refusal_checks` records refused after other records' refusals answered alone exactly as on
    the shared process, and none otherwise, the rest are not signed again alone (`_WitnessSession.learn`).

    A fresh process held idle beside the witnesses (`IdleWatch`) answers the `idle` step (held `idle` seconds
    at most) and names the lines the target writes on a clock, dropped from every pinned stderr; `clockless`:
    the target is known to do nothing between calls (the original), so no such process is started and its
    `idle` step answers `QUIET`, what that process held the whole while answered (a red run's 6 s wait).

    A server that exits or breaks the protocol on a witness has that in its answers (it is behaviour); a
    witness that times out leaves its record and the ones after it unsigned, since slowness of the machine
    is not behaviour."""
    resolved = resolve_target(target, cache_dir=cache_dir) if isinstance(target, str) else target
    chosen = witnesses or default_witnesses()
    wanted = set(records)
    plan = _state_plan(chosen, wanted)
    if not plan:
        return {}
    observed = {step.observe for _, steps in plan for _, step in steps if step.observe is not None}
    pins_stderr = any(step.stderr or step.observe == "banner" for rid, steps in plan if rid in wanted
                      for _, step in steps)
    watch: IdleWatch | None = None
    session = _WitnessSession(resolved, timeout, transcript, stateless=stateless,
                              refusals_carry=refusals_carry, refusal_checks=refusal_checks)
    try:
        answers: dict[str, list[tuple[str, JSON]]] = {}
        session.start(first_call="first-call" in observed)
        if not clockless and ("idle" in observed or pins_stderr):
            # Started once the start's two processes have told whether a store is carried: no other process
            # of the target runs beside them (a fork restoring its labels from a file it rewrites).
            watch = IdleWatch(resolved, timeout, transcript, observe="idle" in observed, hold=idle)
        previous: tuple[str, list[tuple[str, WitnessStep]]] | None = None
        answering = True
        for rid, steps in plan:
            if rid not in wanted and not answering:
                # Sent only for the store it leaves: a target refusing or failing the probe keeps none worth
                # building, and a crashing or garbling one costs a start per call (a broken server's red run
                # took 4x its green one).
                continue
            try:
                base = session.probe()
                if session.refused and session.renew():
                    # Its state ran out (it refuses the probe a fresh process accepts): the record before may
                    # have been answered by the exhausted state too, so both go to the fresh process.
                    if previous is not None:
                        answers[previous[0]] = session.record(previous[1], session.probe())
                    base = session.probe()
                if _files_a_label_seen(steps, base):
                    # A label this record files is already in the store (two records sending "__proto__"):
                    # read relative to the probe it would vanish from this record's answers, so it goes to a
                    # fresh process and is signed as it is alone.
                    session.restart()
                    base = session.probe()
                answering = base is not None
                refused_before = session.process_refused
                answers[rid] = session.record(steps, base)
                if session.shared_refusal(base):
                    # Refused after other records' calls on this process (a refusal-streak lockout, issue 43):
                    # the answer may come from what the records before built, and which records come first
                    # depends on the seed, so it is signed again alone on a fresh process (one started ahead
                    # once refusals are seen to carry, or a probe refused: such records come in runs).
                    shared = answers[rid]
                    session.ahead = not session.carried and (session.carry_seen or base is None)
                    session.restart()
                    answers[rid] = session.record(steps, session.probe())
                    if base is not None and refused_before:
                        # Alike as signed: times, dates and ids are placeholders (`without_volatile`).
                        alone = signed_answers(rid, answers[rid]).signature
                        session.learn(same=alone == signed_answers(rid, shared).signature)
                previous = (rid, steps)
            except ServerTimeout:
                # Too slow to tell: no signature (a pinned entry is then unconfirmed), and no further record
                # is asked either, since a target that hangs would cost a call timeout per record.
                break
        if "exit-on-stdin-close" in observed:
            session.end()
        if watch is not None:
            session.observations["idle"] = watch.answer()
        elif "idle" in observed:
            session.observations["idle"] = dict(QUIET)
        clock = watch.clock_lines() if watch is not None else frozenset()
        for rid, steps in plan:
            if rid not in answers:
                continue
            answers[rid] = [
                (name, session.observation(str(step.observe)))
                if step.observe in ("exit-on-stdin-close", "idle")
                else (name, _without_clock(value, step, clock))
                for (name, value), (_, step) in zip(answers[rid], steps, strict=True)
            ]
    finally:
        session.close()
        if watch is not None:
            watch.clock_lines()
    return {rid: signed_answers(rid, pairs) for rid, pairs in answers.items() if rid in wanted}


def _state_plan(chosen: WitnessSet, wanted: set[str]) -> list[tuple[str, list[tuple[str, WitnessStep]]]]:
    """Every record of the witness set up to the one after the last of `wanted`, in its order, with its calls:
    a witness answer may depend on what the records before it on the shared process left in the store (the
    furthest thoughtNumber a fork raises the total to, a history capped at 25), so the records before each one
    are sent whichever others depart (a fork's ci run, departing one record fewer, read two others "changed";
    fork-plan-tracker, held-out-multi-16), and the one after it, whose probe refused on an exhausted process
    has the record signed again on a fresh one (`renew`) as when it is not the last. Those not wanted send
    their probe and calls only: what they observe (the banner, the end, the idle step) changes no store."""
    last = max((i for i, rid in enumerate(chosen.records) if rid in wanted), default=None)
    if last is None:
        return []
    return [(rid, chosen.steps_of(rid) if rid in wanted
             else [(name, step) for name, step in chosen.steps_of(rid) if step.observe is None])
            for rid in list(chosen.records)[:last + 2]]


def _without_clock(value: JSON, step: WitnessStep, clock: frozenset[str]) -> JSON:
    """A pinned stderr (the banner, a call's `stderr`) without the lines written on a clock (`IdleWatch`)."""
    if not clock:
        return value
    if step.observe == "banner" and isinstance(value, str):
        return without_clock_lines(value, clock)
    if step.stderr and isinstance(value, dict) and isinstance(value.get("stderr"), str):
        return {**value, "stderr": without_clock_lines(str(value["stderr"]), clock)}
    return value


def sign_departures(
    target: Target, records: list[str], timeout: float, transcript_path: Path, *, stateless: bool = False,
    refusals_carry: bool = True, clockless: bool = False,
) -> dict[str, RecordSignature]:
    """A run's signatures: what cannot be computed (the target died, would not start) is left out, and the
    gate then reports pinned departures it could not check as not confirmed. A witness pass that timed out or
    could not start is tried once more on fresh processes at twice the call timeout, since a loaded machine
    is not the server's behaviour; the records it signed the first time keep those signatures."""
    if not records:
        return {}
    witnesses = default_witnesses()  # a broken witness file is the harness's error, reported as such
    planned = [rid for rid in witnesses.records if rid in set(records)]
    signed: dict[str, RecordSignature] = {}
    try:
        with Transcript(transcript_path) as transcript:
            for attempt_timeout in (timeout, 2 * timeout):
                try:
                    again = witness_signatures(
                        target, records, timeout=attempt_timeout, transcript=transcript, witnesses=witnesses,
                        stateless=stateless, refusals_carry=refusals_carry, clockless=clockless)
                except HarnessError:
                    again = {}
                signed = {**again, **signed}
                if all(rid in signed for rid in planned):
                    break
    except HarnessError:
        pass
    return signed


EXHAUST_CALLS: Final = 1000
"""The most probe calls `exhaustion_refusal` sends one fresh process (the suite's shared processes answer
hundreds of calls; a session bounded at 100 thoughts refuses the 101st)."""
EXHAUST_BATCH: Final = 100
"""Probe calls written at once (pipelined): a thousand calls cost about a second, not a thousand round
trips."""


@dataclass(frozen=True)
class Exhaustion:
    """A fresh process of the target accepted the probe `accepted` times, then refused it with `refusal`."""

    accepted: int
    refusal: str


def exhaustion_refusal(target: Target, *, timeout: float, calls: int = EXHAUST_CALLS) -> Exhaustion | None:
    """The refusal a fresh process gives once its state ran out: the probe call sent again and again (at most
    `calls`), accepted at first, refused later (fork-bounded-session: "Thought limit reached (100)" from its
    101st thought on). None when the process accepts them all (the original), refuses the very first (its
    refusal is then its behaviour, not its state's), breaks off, or cannot be started."""
    accepted = 0
    try:
        with target.wire(timeout=timeout) as driver:
            driver.initialize(PROTOCOL_VERSION)
            while accepted < calls:
                batch = [(TOOL, dict(PROBE_ARGUMENTS))] * min(EXHAUST_BATCH, calls - accepted)
                answered, failure = driver.call_tools_pipelined(batch)
                for exchange in answered:
                    if exchange.error is not None or exchange.is_error:
                        return Exhaustion(accepted, _refusal_text(exchange)) if accepted else None
                    accepted += 1
                if failure is not None or len(answered) < len(batch):
                    return None
    except (DriverError, HarnessError):
        return None
    return None


def _refusal_text(exchange: Exchange) -> str:
    if exchange.error is not None:
        message = exchange.error.get("message")
        return message if isinstance(message, str) else json.dumps(exchange.error, ensure_ascii=False)
    return exchange.text or json.dumps(exchange.result, ensure_ascii=False)


def signature_of(answers: Iterable[tuple[str, JSON]]) -> str:
    """sha256 hex of the canonical answers, step names included."""
    body = json.dumps([[name, value] for name, value in answers], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


def signed_answers(record: str, pairs: list[tuple[str, JSON]]) -> RecordSignature:
    """A record's canonical answers, hashed, and shortened for the report (seed and spec records alike); the
    time, dates, epochs, ids and durations in them are placeholders first (`without_volatile`), so what a
    baseline pins of an unchanged fork is what every later run observes."""
    pairs = [(name, without_volatile(value)) for name, value in pairs]
    shown = [WitnessAnswer(step=name, answer=short_json(value)) for name, value in pairs]
    return RecordSignature(record, signature_of(pairs), shown)



class _WitnessSession:
    """One witness process: startup observations, then each record's witnesses after a probe."""

    def __init__(self, target: Target, timeout: float, transcript: Transcript | None, *,
                 stateless: bool = False, refusals_carry: bool = True,
                 refusal_checks: int = REFUSAL_CHECKS) -> None:
        self.target = target
        self.stateless = stateless
        """Known to start every process from an empty store (the original): `start` asks one process."""
        self.refusals_carry = refusals_carry
        """False when known to keep nothing from a refused call (the original) or once learned (`learn`):
        `shared_refusal` then asks no fresh process for a record whose witness call was refused (its probe
        refused still does)."""
        self.timeout = timeout
        self.transcript = transcript
        self.driver: WireDriver | None = None
        self.observations: dict[str, JSON] = {}
        self.package_dir = package_dir_of(target)
        self.package_version = _package_version(self.package_dir)
        self.refused = False
        """The last probe was refused (an error or isError answer)."""
        self.shared = False
        """The process has answered a record's witnesses (the next record's answers may depend on them)."""
        self.after_others = False
        """The record last answered was sent to a process that had answered another record's first."""
        self.step_refused = False
        """A witness call of the record last answered was refused (an error or isError answer)."""
        self.process_refused = False
        """A witness call was refused on this process (its next record's answers may carry what that left)."""
        self.checked = 0
        """Records refused after other records' refusals, answering alone as on the shared process."""
        self.refusal_checks = refusal_checks
        """How many such records alike make `refusals_carry` False (`REFUSAL_CHECKS`)."""
        self.carry_seen = False
        """One such record answered otherwise alone: refusals carry (every such record is signed alone)."""
        self.renewable = True
        """False once a fresh process refused the probe too, or fresh processes failed it at start: the
        refusal or failure is the server's, not its state's."""
        self.carried = False
        """Two fresh processes answered the same first call with different stores: state carried across
        processes (a journal the next process restores), read so in every answer (`StoreBase.carried`)."""
        self.ahead = False
        """Keep `SPARES` fresh processes started ahead (set once a record is signed again alone)."""
        self._spares: deque[Future[tuple[WireDriver, DriverError | None]]] = deque()
        self._pool: ThreadPoolExecutor | None = None

    # -- the process -------------------------------------------------------------------------------

    def start(self, *, first_call: bool) -> None:
        driver = self._spawn()
        init = driver.initialize_result or {}
        self.observations["server-info"] = self._server_info(init.get("serverInfo"))
        self.observations["capabilities"] = offered_capabilities(init.get("capabilities"))
        self.observations["banner"] = decode(driver.stderr_settled(BANNER_WAIT))
        # The same first call on two fresh processes: a store that differs was carried from one to the next.
        opening, failure = self._first_call()
        answered = opening is not None
        if not self.stateless:
            self._file_new_label(opening)
            # The witnesses then go on in the second process, which was sent the same one call as the first.
            self.restart()
            again, _ = self._first_call()
            answered = answered or again is not None
            self.carried = (opening is not None and again is not None
                            and _store_of(opening) not in (None, _store_of(again)))
        # The first call is the probe: fresh processes that fail it (garbage or a death in place of its
        # answer) fail it whatever came before, so a record whose probe failed after other records' is not
        # signed again alone (`shared_refusal`): for a server failing every call that doubled the signing's
        # calls and processes, each answer the same failure on the fresh process as on the shared one.
        self.renewable = answered
        if first_call:
            carried = StoreBase({HISTORY: 0}, {"branches": frozenset()}, carried=True)
            self.observations["first-call"] = {"failure": failure} if opening is None else canonical_response(
                opening, carried if self.carried else None)

    def _first_call(self) -> tuple[Exchange | None, str]:
        try:
            return self._live().call_tool(TOOL, dict(PROBE_ARGUMENTS)), ""
        except ServerTimeout:
            raise
        except DriverError as exc:
            return None, type(exc).__name__

    def _file_new_label(self, opening: Exchange | None) -> None:
        """A label the first process's store did not hold, filed there before the second process starts: a
        fork that restores only its labels (a file beside its script) files none on the probe, so both
        processes answered alike whenever no other process rewrote the file in between (timing); the second
        now shows this label. A refusal or a failure files nothing and finds nothing."""
        status = accepted_status(opening) if opening is not None else None
        held = {label_key(v) for value in (status or {}).values() if isinstance(value, list) for v in value}
        label = next(f"{CARRY_LABEL}-{n}" for n in itertools.count(1) if f"{CARRY_LABEL}-{n}" not in held)
        try:
            self._live().call_tool(TOOL, {**PROBE_ARGUMENTS, **CARRY_CALL, "branchId": label})
        except ServerTimeout:
            raise
        except DriverError:
            return

    def _spawn(self) -> WireDriver:
        """A fresh process, initialized: a spare started ahead when there is one (`SPARES`)."""
        if self._spares:
            driver, failure = self._spares.popleft().result()
        else:
            driver, failure = self._started()
        self.driver = driver
        self.shared = False
        self.process_refused = False
        self._top_up()
        if failure is not None:
            raise failure
        return driver

    def _started(self) -> tuple[WireDriver, DriverError | None]:
        """A process started and asked to initialize; its failure to initialize is raised when it is taken."""
        driver = self.target.wire(timeout=self.timeout, transcript=self.transcript)
        driver.start()
        try:
            driver.initialize(PROTOCOL_VERSION)
        except DriverError as exc:
            return driver, exc
        return driver, None

    def _top_up(self) -> None:
        if not self.ahead:
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(SPARES, thread_name_prefix="witness-spare")
        while len(self._spares) < SPARES:
            self._spares.append(self._pool.submit(self._started))

    def _live(self) -> WireDriver:
        """The witness process; a dead one is replaced (its failure is already in an answer)."""
        if self.driver is None or not self.driver.is_alive():
            if self.driver is not None:
                self.driver.close()
            return self._spawn()
        return self.driver

    def restart(self) -> None:
        """A fresh process: the same first call asked again to see whether two fresh processes start from
        the same store (`carried`)."""
        if self.driver is not None:
            self.driver.close()
        self._spawn()

    def renew(self) -> bool:
        """Replace a process whose state ran out (a bounded session refusing every call once it holds 100
        thoughts, issue 43) with a fresh one, when the fresh one accepts the probe: each record's signature is
        then the same whether it is witnessed alone or after every other record. False (the process kept) when
        a fresh process refuses the probe as well."""
        if not self.renewable:
            return False
        if self.driver is not None:
            self.driver.close()
        self._spawn()
        self.probe()
        self.renewable = not self.refused
        return self.renewable

    def record(self, steps: list[tuple[str, WitnessStep]], base: StoreBase | None) -> list[tuple[str, JSON]]:
        """One record's witness answers, after the probe that gave `base`."""
        self.after_others = self.shared
        self.step_refused = False
        answers = [(name, self.answer(step, base)) for name, step in steps]
        self.shared = True
        return answers

    def shared_refusal(self, base: StoreBase | None) -> bool:
        """Whether the record just answered had its probe or a witness call refused on a process that had
        answered other records' witnesses first, while a fresh process accepts the probe (else the refusal is
        the server's whatever came before, and signing alone would change nothing)."""
        return self.after_others and self.renewable and (base is None or (self.step_refused
                                                                           and self.refusals_carry))

    def learn(self, *, same: bool) -> None:
        """After a record refused after other records' refusals was signed again alone: whether it answered
        there as on the shared process. `refusal_checks` alike and none otherwise: refusals carry nothing."""
        if self.carry_seen:
            return
        if not same:
            self.carry_seen = True
            return
        self.checked += 1
        if self.checked >= self.refusal_checks:
            self.refusals_carry = False

    def end(self) -> None:
        driver = self._live()
        status, _ = driver.end_input_paced()
        self.observations["exit-on-stdin-close"] = {"exit": status if status is not None else "still running"}

    def close(self) -> None:
        if self.driver is not None:
            self.driver.close()
        while self._spares:
            spare = self._spares.popleft()
            if not spare.cancel():
                with contextlib.suppress(Exception):
                    spare.result()[0].close()
        if self._pool is not None:
            self._pool.shutdown(wait=True)

    def observation(self, name: str) -> JSON:
        return self.observations.get(name, {"observation": "not made"})

    # -- answers -----------------------------------------------------------------------------------

    def probe(self) -> StoreBase | None:
        self.refused = False
        try:
            exchange = self._live().call_tool(TOOL, dict(PROBE_ARGUMENTS))
        except ServerTimeout:
            raise
        except DriverError:
            return None
        self.refused = exchange.error is not None or exchange.is_error
        status = accepted_status(exchange)
        return store_base(status, carried=self.carried) if status is not None else None

    def answer(self, step: WitnessStep, base: StoreBase | None) -> JSON:
        kind = step.kind
        if kind == "observe":
            assert step.observe is not None
            return self.observation(step.observe)
        if kind == "artifact":
            return self._artifact(step)
        try:
            if kind == "call":
                return self._call(OMIT if step.no_arguments else step.call, base, stderr=step.stderr,
                                  name=step.tool)
            if kind == "list":
                params: JSON = step.params if step.params is not None else {}
                return tool_view(step, self._live().request("tools/list", params))
            assert step.request is not None
            return self._request(step.request, step.params)
        except ServerTimeout:
            raise
        except DriverError as exc:
            return {"failure": type(exc).__name__}

    def _call(self, arguments: object, base: StoreBase | None, *, stderr: bool, name: str = TOOL) -> JSON:
        exchange = self._live().call_tool(name, arguments)  # type: ignore[arg-type]
        refused = exchange.error is not None or exchange.is_error
        self.step_refused = self.step_refused or refused
        self.process_refused = self.process_refused or refused
        answer = canonical_response(exchange, base)
        if stderr and isinstance(answer, dict):
            answer["stderr"] = decode(exchange.stderr)
        return answer

    def _request(self, method: str, params: JSON) -> JSON:
        exchange = self._live().request(method, params if params is not None else OMIT)
        if exchange.error is not None:
            return {"error": error_class(exchange.error)}
        result = dict(exchange.result or {})
        result.pop("_meta", None)
        if method == "initialize":
            result["serverInfo"] = self._server_info(result.get("serverInfo"))
            result["capabilities"] = offered_capabilities(result.get("capabilities"))
        return {"result": sorted_json(result)}

    def _server_info(self, info: object) -> JSON:
        if not isinstance(info, dict):
            return {"serverInfo": "absent"}
        shown = {str(k): v for k, v in info.items()}
        if self.package_version is not None and shown.get("version") == self.package_version:
            shown["version"] = PACKAGE_VERSION
        return sorted_json(dict(shown))

    def _artifact(self, step: WitnessStep) -> JSON:
        root = self.package_dir
        if root is None:
            return dict(ARTIFACT_UNAVAILABLE)
        try:
            if step.artifact == "files":
                return json_strings(
                    str(p.relative_to(root)) for p in root.rglob("*")
                    if p.is_file() and "node_modules" not in p.relative_to(root).parts
                )
            path = root / str(step.artifact)
            if not path.is_file():
                return {"artifact": "missing"}
            text = read_bytes(path, what="artifact").decode("utf-8", "replace")
        except OSError as exc:
            return {"artifact": f"unreadable: {type(exc).__name__}"}
        except InputError:
            return {"artifact": "unreadable"}
        if step.artifact == "package.json":
            try:
                manifest = parse_json(text, str(path))
            except InputError:
                return {"artifact": "not JSON"}
            if not isinstance(manifest, dict):
                return {"artifact": "not an object"}
            return {key: sorted_json(manifest[key]) for key in step.keys if key in manifest}
        if step.imports:
            return json_strings(set(_IMPORT.findall(text)))
        return text_view(text, step)



def _files_a_label_seen(steps: list[tuple[str, WitnessStep]], base: StoreBase | None) -> bool:
    """Whether a call among `steps` files a branch label the probe already found in the store."""
    if base is None or not base.labels:
        return False
    seen = frozenset().union(*base.labels.values())
    calls = [step.call for _, step in steps if isinstance(step.call, dict)]
    filed = [call["branchId"] for call in calls if "branchId" in call]
    return any(label_key(label) in seen for label in filed)


def _store_of(exchange: Exchange) -> tuple[JSON, JSON] | None:
    """The store a first call's answer shows (its count and labels); None for a refusal."""
    status = accepted_status(exchange)
    return None if status is None else (status.get("thoughtHistoryLength"), status.get("branches"))


def _package_version(root: Path | None) -> str | None:
    if root is None:
        return None
    try:
        meta = read_json(root / "package.json", what="package.json", limit=PACKAGE_BYTES)
    except InputError:
        return None
    version = meta.get("version") if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None
