"""Routine lines around a log excerpt (`generator.logpad`): in the log's own format, never a fault, and a log's
length spread from a few lines to a screenful."""

from __future__ import annotations

import random
import re
from datetime import datetime
from itertools import pairwise

import pytest
import sweeps

from openenv_bug_triage.catalogue import load_phrases
from openenv_bug_triage.generator import logpad
from openenv_bug_triage.generator.render import _CHANGE, _ERRORED, _FAILED, _FAULT

SERVER = """2026-11-26 08:02:11.550 upload-service INFO  POST /uploads/sign name="PO #88-B.xlsx" size=40211
2026-11-26 08:02:12.004 storage-gw WARN  PUT /uploads/ws_0933/f3c1 400 SignatureDoesNotMatch
2026-11-26 08:02:13.118 upload-service INFO  uploads last 1h: 9,410 ok, 38 failed"""
COMPOSED = """2026-11-03T09:41:12.108Z INFO  data POST /exports
2026-11-03T09:41:13.108Z ERROR data export failed"""
LOGCAT = """11-12 10:20:03.118 22817 22817 I TaskDetailFragment: open TSK-2290 attachments=2
11-12 10:20:03.204 22817 22817 E AndroidRuntime: FATAL EXCEPTION: main"""
CRASH_REPORT = """Incident Identifier: 3F1A92C4
Exception Type: EXC_BAD_ACCESS (SIGSEGV)"""
MESSAGES = ["heartbeat ok seq={r}", "config revision {h} unchanged", "pool active={a} idle={b}"]
_STAMP = re.compile(r"^(?:\d{4}-)?\d\d-\d\d[T ]\d\d:\d\d:\d\d\.\d+")


def _added(padded: str, log: str) -> list[str]:
    lines = padded.split("\n")
    start = lines.index(log.split("\n")[0])
    assert lines[start : start + len(log.split("\n"))] == log.split("\n")  # the log itself, whole and in order
    return lines[:start] + lines[start + len(log.split("\n")) :]


@pytest.mark.parametrize("log", [SERVER, COMPOSED, LOGCAT])
def test_padding_keeps_the_log_and_writes_its_lines_as_the_log_does(log: str) -> None:
    r = random.Random(5)
    padded = logpad.pad(log, MESSAGES, 9, r)
    added = _added(padded, log)
    assert len(added) == 9
    stamps = [_STAMP.match(line)[0] for line in padded.split("\n")]  # type: ignore[index]
    assert stamps == sorted(stamps)  # in time order, the log's own stamp format throughout
    prefix = log.split("\n")[0].split(" ")[0]
    for line in added:
        assert len(line.split(" ")[0]) == len(prefix), line
        assert not _FAULT.search(line) and not _FAILED.search(line), line
    revisions = {m[1] for line in added if (m := re.search(r"revision (\w+)", line))}
    assert len(revisions) <= 1  # a revision said unchanged is the same one each time


def test_a_service_named_after_the_level_word_stays_in_its_lines() -> None:
    added = _added(logpad.pad(COMPOSED, MESSAGES, 4, random.Random(1)), COMPOSED)
    assert all(" INFO  data " in line for line in added), added


def test_each_service_logs_its_own_few_routine_messages_in_every_log() -> None:
    """A Go service's goroutine count beside a Node service's event loop in one job (realism reader 44): each service
    logs a few routine messages of its own, the same few in every log of it."""
    many = [f"routine message {word} {{a}}" for word in "abcdefghijklmn"]
    two = SERVER.replace("storage-gw WARN ", "storage-gw INFO ")
    seen: dict[str, set[str]] = {}
    for seed in range(6):
        for line in _added(logpad.pad(two, many, 20, random.Random(seed)), two):
            service = line.split(" ")[2]
            seen.setdefault(service, set()).add(line.split("routine message ")[1].split(" ")[0])
    assert set(seen) == {"upload-service", "storage-gw"}
    assert all(len(words) == logpad.REPERTOIRE for words in seen.values()), seen
    assert seen["upload-service"] != seen["storage-gw"]


def test_a_routine_message_never_comes_twice_in_a_row() -> None:
    """Each round of a service's few messages is drawn afresh; one round's last is never the next round's first."""
    for seed in range(40):
        said = [
            re.sub(r"\d+", "#", line.split(" data ", 1)[1])
            for line in logpad.pad(COMPOSED, MESSAGES, 20, random.Random(seed)).split("\n")
        ]
        assert all(a != b for a, b in pairwise(said)), (seed, said)


def test_a_routine_message_comes_round_on_its_own_period() -> None:
    """ "filesystem usage 14% of quota" three times in two seconds (found reading a test queue): one process logs one
    routine message again only `REPEAT_GAP` after it last did, and a log still gains every line it was given."""
    for seed in range(40):
        padded = logpad.pad(COMPOSED, MESSAGES, 20, random.Random(seed))
        added = _added(padded, COMPOSED)
        assert len(added) == 20
        last: dict[str, datetime] = {}
        for line in added:
            stamp, message = line.split(" ", 1)
            at = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            key = re.sub(r"\d+", "#", message)
            assert key not in last or at - last[key] >= logpad.REPEAT_GAP, (seed, line)
            last[key] = at


def test_nothing_is_logged_after_a_process_died_nor_around_a_log_without_stamps() -> None:
    padded = logpad.pad(LOGCAT, MESSAGES, 6, random.Random(2))
    assert padded.endswith(LOGCAT)  # every routine line before the crash
    assert logpad.pad(CRASH_REPORT, MESSAGES, 6, random.Random(2)) == CRASH_REPORT
    assert logpad.pad(SERVER, MESSAGES, 0, random.Random(2)) == SERVER


def test_a_padded_log_holds_thirty_lines_at_most() -> None:
    padded = logpad.pad(SERVER, MESSAGES, 100, random.Random(3))
    assert len(padded.split("\n")) == logpad.MOST_LINES


@pytest.mark.parametrize("source", ["server", "browser", "android", "ios"])
def test_routine_messages_never_read_as_a_fault_or_a_change(source: str) -> None:
    phrases = load_phrases()
    for partition in ("train", "validation", "test"):
        pool = phrases.pool(f"log_routine_{source}", partition)
        assert len(pool) >= 8, (source, partition)
        for message in pool:
            for pattern in (_FAULT, _FAILED, _ERRORED, _CHANGE):
                assert not pattern.search(message), (partition, message)
            assert not re.search(r"\b[45]\d\d\b", message), message  # no status that reads as an HTTP error


def test_generated_logs_run_from_a_few_lines_to_a_screenful() -> None:
    lengths = [
        len(t.log_excerpt.split("\n"))
        for g in sweeps.instances("test", 20)
        for t in g.task.tickets
        if t.log_excerpt and _STAMP.match(t.log_excerpt)
    ]
    assert max(lengths) <= logpad.MOST_LINES
    assert sum(n >= 10 for n in lengths) >= len(lengths) / 10, sorted(lengths)
    assert sum(n <= 6 for n in lengths) >= len(lengths) / 3, sorted(lengths)


@pytest.mark.parametrize("source", ("server", "browser", "android", "ios"))
def test_a_routine_pool_figure_never_exceeds_its_stated_maximum(source: str) -> None:
    """ "connection pool in_use=86 idle=19 max=50" (blind reader 48): the figures a routine message draws stay within
    the maximum it states, at their largest draws."""
    largest = {"n": 8999, "a": 89, "b": 39, "r": 899, "ms": 399}
    for split in ("train", "validation", "test"):
        for message in load_phrases().pool(f"log_routine_{source}", split):
            if (cap := re.search(r"\bmax=(\d+)", message)) is not None:
                used = sum(largest[k] for k in re.findall(r"\{(\w+)\}", message[: cap.start()]) if k in largest)
                assert used <= int(cap[1]), (split, message)


def test_a_process_counters_run_on_with_the_clock_and_its_steady_figures_stay() -> None:
    """ "uptime 690m" and then "uptime 612m" from one host 25 seconds later (blind reader 50), "heartbeat sent seq=205"
    then 869, 842, 738, and a certificate expiring in 269, 660 and 787 days within two minutes (realism reader 58):
    within one excerpt a process's uptime and heartbeat sequence never run backwards, and its disk's fill and its
    certificate's days left are the same on every line."""
    messages = [
        "uptime {u}m, build info unchanged",
        "filesystem usage {b}% of quota",
        "heartbeat sent seq={seq} peers={a}",
        "tls certificate check ok, expires in {days} days",
    ]
    for seed in range(40):
        padded = logpad.pad(SERVER, messages, 24, random.Random(seed), spread_ms=60_000)
        seen: dict[str, list[tuple[str, int]]] = {}
        for line in padded.split("\n"):
            if m := re.search(
                r"^(\S+ \S+) (\S+) INFO  (uptime |filesystem usage |heartbeat sent seq=|tls \D+)(\d+)", line
            ):
                seen.setdefault(f"{m[2]} {m[3]}", []).append((m[1], int(m[4])))
        for who, values in seen.items():
            numbers = [n for _, n in sorted(values)]
            if who.endswith(("filesystem usage ", "expires in ")):
                assert len(set(numbers)) == 1, (who, values)
            else:
                assert numbers == sorted(numbers), (who, values)
        assert len({who.split(" ", 1)[1] for who in seen}) == 4, seen
