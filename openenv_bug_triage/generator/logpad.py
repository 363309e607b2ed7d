"""Routine lines around a log excerpt: what a service or a client logs all the while, saying nothing of a fault.

An excerpt looked up or pasted for a ticket runs longer than the lines that show its failure: health checks,
heartbeats, pool and cache figures come before and after them. `pad` sets such lines around a log in the log's own
format (its stamp, its service or process, its level word), drawn from the partition's pools of routine messages
(`log_routine_<source>` in `data/generator/phrases.json`), so a log's length says nothing of the truth and its
failing lines are not all it holds.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import cache

MOST_LINES = 30
"""No padded log runs longer than this."""
REPERTOIRE = 5
"""How many routine messages one service or process logs."""

_STAMP = (
    r"(?P<pre>\[[\w-]+\] )?"
    r"(?P<stamp>(?:(?P<y>20\d\d)-)?(?P<m>[01]\d)-(?P<d>[0-3]\d)[T ](?P<H>[0-2]\d):(?P<M>[0-5]\d):(?P<S>[0-5]\d)"
    r"(?P<frac>\.\d{1,6})?(?P<z>Z)?)"
)
_STAMPED = re.compile(f"^{_STAMP}")
"""A line that starts with a stamp (ISO, or logcat's without a year), after a process tag (`[web-app] `) if any."""
_LINE = re.compile(
    f"^{_STAMP}"
    r"(?P<mid> (?:\S+ )*?)"
    r"(?P<level>(?:INFO|DEBUG|I|D) {1,2}|\[(?:info|debug)\] |<(?:Notice|Info|Debug)> )"
    r"(?P<rest>\S.*)$"
)
"""A stamped log line at a routine level (info or debug): the service or process ids, the level word, the message."""
_ENDED = re.compile(r"FATAL|<Fault>|\bSIG(?:SEGV|ABRT|TRAP|KILL)\b|SIG: 9|[Cc]rash", re.M)
"""A process that died in the excerpt (a crash, a fatal exception, a kill signal): it logs nothing after."""
_VERBS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})


REPEAT_GAP = timedelta(seconds=30)
"""Shortest time between two lines of one routine message from one process (a sweep, a heartbeat, a disk figure)."""


def extra_lines(r: random.Random) -> int:
    """How many routine lines a log gains: none half the time, a few often, a screenful now and then."""
    x = r.random()
    if x < 0.5:
        return 0
    if x < 0.8:
        return r.randint(1, 4)
    if x < 0.95:
        return r.randint(5, 12)
    return r.randint(13, 24)


def _instant(m: re.Match[str]) -> datetime:
    """The instant a stamp names (a logcat stamp, which has no year, in a leap year so 29 February exists)."""
    year = int(m["y"]) if m["y"] else 2024
    micro = int((m["frac"] or ".0")[1:].ljust(6, "0")[:6])
    return datetime(year, int(m["m"]), int(m["d"]), int(m["H"]), int(m["M"]), int(m["S"]), micro)


def _stamp_like(m: re.Match[str], at: datetime) -> str:
    """`at` written as the stamp of `m` is: the same fields, separator, fraction digits and zone."""
    stamp = m["stamp"]
    sep = stamp[10] if m["y"] else stamp[5]
    day = f"{at:%Y-%m-%d}" if m["y"] else f"{at:%m-%d}"
    frac = f".{at.microsecond:06d}"[: len(m["frac"])] if m["frac"] else ""
    return f"{day}{sep}{at:%H:%M:%S}{frac}{m['z'] or ''}"


def routine_numbers(r: random.Random) -> dict[str, int]:
    """The numbers a routine message holds (`{n}`, `{a}`, `{b}`, `{r}`, `{ms}`), none in the 400s or 500s: "lru
    evicted 429 entries" reads as an HTTP error."""
    numbers = {"n": r.randrange(200, 9000), "a": r.randrange(2, 90), "b": r.randrange(2, 40)}
    numbers |= {"r": r.randrange(10, 900), "ms": r.randrange(3, 400)}
    return {k: v + 200 if 400 <= v < 600 else v for k, v in numbers.items()}


def pad(
    log: str, messages: Sequence[str], extra: int, r: random.Random, after: bool = True, spread_ms: int = 8000
) -> str:
    """`log` with `extra` routine lines (at most `MOST_LINES` in all) drawn from `messages`, some before its first
    line and (with `after`, and when no process died in it) some after its last, each up to `spread_ms` from the
    next, written as one of its own routine lines is. A log with no line at a routine level, or whose first or last
    line has no stamp (a crash report, a trace), is returned as it is."""
    lines = log.split("\n")
    extra = min(extra, MOST_LINES - len(lines))
    templates = [m for line in lines if (m := _LINE.match(line))]
    if extra <= 0 or not templates or not messages:
        return log
    head, tail = _STAMPED.match(lines[0]), _STAMPED.match(lines[-1])
    if head is None or tail is None:
        return log
    begin, end = _instant(head), _instant(tail)
    before = extra if not after or _ENDED.search(log) else r.randint(0, extra)
    # each service or process logs its own few routine messages (the same ones in every log of it), each once
    # before any comes again; one that repeats keeps its hash ("revision 04bc02 unchanged" the next time too)
    hashes = {m: f"{r.getrandbits(24):06x}" for m in messages}
    queued: dict[str, list[str]] = {}
    said: dict[str, str] = {}  # each one's last message: a refilled round never starts with it again
    # what a process reports the same all through a minute's excerpt: a disk's fill (`{b}`), a certificate's days
    # left (`{days}`), and counters that run on with the clock: an uptime (`{u}`, in minutes) and a heartbeat's
    # sequence number (`{seq}`, one each 10 s)
    steady: dict[str, tuple[int, int, int, int]] = {}

    logged: dict[tuple[str, str], list[datetime]] = {}  # when each process logged each message

    def next_line(at: datetime, away: int) -> tuple[str, datetime]:
        """The next routine line at `at` or, where no message of its process is due by then, at the first moment
        one is, further `away` from the log (-1: earlier, +1: later), and that moment."""
        like = r.choice(templates)
        who = _who(like)
        if not queued.get(who):
            own = _repertoire(who, tuple(messages))
            queued[who] = r.sample(own, len(own))
            if len(own) > 1 and queued[who][-1] == said.get(who):  # no message twice in a row
                queued[who][0], queued[who][-1] = queued[who][-1], queued[who][0]
        # a routine message comes round on its own period: none again within `REPEAT_GAP` of its last time (no
        # "filesystem usage 14% of quota" three times in two seconds)
        waits = [
            max((REPEAT_GAP - abs(at - t) for t in logged.get((who, m), ())), default=timedelta(0)) for m in queued[who]
        ]
        due = [k for k, wait in enumerate(waits) if wait <= timedelta(0)]
        i = due[-1] if due else min(range(len(waits)), key=waits.__getitem__)
        at += away * max(waits[i], timedelta(0))
        message = said[who] = queued[who].pop(i)
        logged.setdefault((who, message), []).append(at)
        numbers = routine_numbers(r)
        if who not in steady:
            steady[who] = (numbers["b"], r.randrange(60, 20_000), r.randrange(30, 900), r.randrange(2_000, 90_000))
        fill, up, days, seq = steady[who]
        since = (at - begin).total_seconds()
        numbers |= {"b": fill, "u": up + int(since // 60), "days": days, "seq": seq + int(since // 10)}
        return _line(like, at, message.format(h=hashes[message], **numbers)), at

    ahead: list[str] = []
    behind: list[str] = []
    at = begin
    for _ in range(before):
        line, at = next_line(at - timedelta(milliseconds=r.randrange(50, spread_ms)), -1)
        ahead.append(line)
    at = end
    for _ in range(extra - before):
        line, at = next_line(at + timedelta(milliseconds=r.randrange(50, spread_ms)), 1)
        behind.append(line)
    return "\n".join([*reversed(ahead), *lines, *behind])


def _who(like: re.Match[str]) -> str:
    """Who logs a line: its process tag, its ids and service (the words between its stamp and its message)."""
    return f"{like['pre'] or ''}{like['mid']}{_kept(like)}"


@cache
def _repertoire(who: str, messages: tuple[str, ...]) -> tuple[str, ...]:
    """The routine messages `who` logs: a few of `messages`, the same few in every log of it (drawn from its name)."""
    return tuple(random.Random(f"routine {who}").sample(sorted(messages), min(REPERTOIRE, len(messages))))


def _kept(like: re.Match[str]) -> str:
    """A service named after the level word (`INFO  data POST /exports`): it names every line of its service."""
    word, _, _ = like["rest"].partition(" ")
    if like["mid"] == " " and not like["pre"] and word not in _VERBS and not word.endswith(":"):
        return f"{word} "
    return ""


def _line(like: re.Match[str], at: datetime, message: str) -> str:
    """A routine line written as `like` is: its tag, a stamp at `at`, its ids and level word, then `message`; a
    service named after the level word (`INFO  data POST /exports`) stays."""
    return f"{like['pre'] or ''}{_stamp_like(like, at)}{like['mid']}{like['level']}{_kept(like)}{message}"
