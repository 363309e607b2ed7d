"""A generated ticket's comment thread: what arrived after it was filed.

Retest and upgrade evidence arrives as a comment (a QA or reporter retest on the current
release that passes, a reporter saying it went away after upgrading), not in the
description. Neutral comments (support acknowledging a customer's report, a reporter saying
it still happens on a bug to fix) appear on any kind of ticket, so that having a thread says
nothing of the truth; support answers customers only, never QA or an alert. Every comment comes after `created_at` and before the queue is read, at the
end of the planning window.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from .. import chronology
from ..catalogue import Defect
from ..models import ReporterType
from .kinds import SlotLike, Teller
from .phrasing import compose
from .plan import QUEUE_MINUTES, RETEST_GAP

STILL_RATE = 0.15
"""Chance that the reporter of a bug to fix comments that it still happens."""
ACK_SHARE = 0.35
"""Share of the customer reports support answers with nothing to add that it acknowledges in the thread anyway (a
desk that says "received, passed to the developers" on every ticket reads as one macro reworded; reader 56: 19 of 90)."""
SUPPORT_NOTE_WITHIN = 6 * 60
"""Support's note on who is hit or on a way round it comes this many minutes after filing at most (an outage support
called live for everyone 38 hours after the report had lasted two days: realism reader 57)."""
LOG_NOTE_EARLIEST, LOG_NOTE_WITHIN = 10, 60
"""Support's note on the log a customer's ticket carries comes this many minutes after filing, where the queue leaves
room: support pulls the log once it has read the report (not a minute after it came in), and within the hour (a log
"attached" hours after it was on the ticket read as two timelines)."""


_IOS_LOG = re.compile(r"^\S+ \S+ \w+\[\d+\] <\w+>|^Incident Identifier:", re.M)
"""An iOS device log line (`Larkspur[880] <Notice>`) or the head of an iOS crash report."""
_BROWSER_LOG = re.compile(r"\[web-app\]")
"""A line of the web app's own console log (a log of nothing else is the browser's console)."""


def log_source(log: str) -> str:
    """Where a log excerpt was captured: `android` (logcat), `ios` (device log or crash report),
    `browser` (the web app's console, every line of it) or `server` (the service's own logs, which
    may carry the client's lines it received)."""
    if chronology.LOGCAT.search(log):
        return "android"
    if _IOS_LOG.search(log):
        return "ios"
    lines = [line for line in log.split("\n") if line.strip() and not line[0].isspace()]  # a trace continues its line
    return "browser" if all(_BROWSER_LOG.match(line) for line in lines) else "server"


def _log_comment(renderer: Teller, source: str) -> str:
    """Support's note on the log it added: the service's logs it looked up, or the device log or
    console it asked the customer for, named as what it is."""
    if source == "server":
        return renderer.pick("comment_log_support")
    return renderer.pick("comment_log_client", source=renderer.pick(f"log_source_{source}"))


STILL = "<still happening>"
"""Where the reporter's "still happening" comment goes, its words drawn once its time is known."""
CLOCK_WORDS: tuple[tuple[re.Pattern[str], int, int, int], ...] = (
    (re.compile(r"\bthis morning\b"), 6, 12, 120),
    (re.compile(r"\bafter lunch\b"), 13, 19, 120),
    (re.compile(r"\ban hour ago\b"), 0, 24, 90),
    (re.compile(r"\btoday\b"), 8, 24, 240),
)
"""Words of a follow-up that tie it to the clock: the UTC hours it may be written in (from, until) and the
fewest minutes after the report it may come (no one hits it "again after lunch" 21 minutes after filing at 03:00,
nor asks for news an hour after filing)."""
CHASING = re.compile(
    r"\b(?:[Bb]ump(?:ing)?|nudging|poking|slipped through|[Aa]ny (?:news|update|progress|word|ETA|joy|luck)|an update|"
    r"[Ss]tatus\?|ETA|estimated|[Hh]eard anything|[Ii]s anyone looking|[Hh]as anyone had)"
)
"""A follow-up that chases support for news: written half a day after the report at the soonest."""
CHASE_AFTER = 12 * 60
FAILING = re.compile(
    r"\b(?:failed|went wrong|broken|not working|hit it|hitting it|happened|happening|occurs|occurring|did it again|"
    r"coming back|stuck)\b"
)
"""A follow-up that says it failed again: not of a glitch in looks only, which never fails."""


def fits_clock(text: str, filed: datetime, at: datetime, chase: bool = True) -> bool:
    """True when the clock words of `text` fit a comment written at `at` on a ticket filed at `filed` (and, with
    `chase`, when a follow-up that chases for news comes half a day after filing at the soonest)."""
    gap = (at - filed).total_seconds() / 60
    if chase and gap < CHASE_AFTER and CHASING.search(text):
        return False
    return all(lo <= at.hour < hi and gap >= least for p, lo, hi, least in CLOCK_WORDS if p.search(text))


def still(renderer: Teller, filed: datetime, at: datetime, cosmetic: bool = False) -> str:
    """The reporter's "it still happens", in words that fit the time it is written and that no other reporter of the
    queue used (two customers do not bump their tickets word for word); of a glitch in looks only (`cosmetic`), in
    words that do not say it failed again."""
    pool = renderer.phrases.pool("comment_still_reporter", renderer.partition)
    if cosmetic:
        pool = [p for p in pool if not FAILING.search(p)] or pool
    if at - filed < timedelta(minutes=CHASE_AFTER):  # nobody chases for news within half a day, whatever else fits
        pool = [p for p in pool if not CHASING.search(p)] or pool
    fitting = [p for p in pool if fits_clock(p, filed, at)]
    fresh = (  # words no other reporter of the queue used, fitting the clock as closely as any such can
        [p for p in fitting if p not in renderer.used]
        or [p for p in pool if p not in renderer.used and fits_clock(p, filed, at, chase=False)]
        or [p for p in pool if p not in renderer.used]
    )
    phrase = renderer.r.choice(fresh or fitting or list(pool))
    renderer.used.add(phrase)
    return compose(phrase, renderer.r)


def _cosmetic(s: SlotLike) -> bool:
    return isinstance(s.scenario, Defect) and s.scenario.impact == "cosmetic"


def record_time(at: datetime) -> str:
    """`at` as a ticket record writes a time, to the minute: `2026-11-20T09:12:00Z` (strftime's
    `%Y-%m-%dT%H:%M:00Z`, read from the ISO form, which is about three times faster)."""
    return f"{at.isoformat(timespec='minutes')[:16]}:00Z"


REPLY_GAP = 20
"""Fewest minutes between two comments on one ticket, where the queue leaves room."""


def _room(s: SlotLike, n: int = 1) -> int:
    """Minutes between filing and the end of the comment window (two days at most)."""
    return min(max(QUEUE_MINUTES - s.minute - 1, n), 2 * 24 * 60)


def _roomy(s: SlotLike) -> bool:
    """True when the ticket was filed early enough for chatter: one filed just before the queue is read has none."""
    return _room(s) >= 4 * REPLY_GAP


def answered(renderer: Teller, s: SlotLike) -> bool:
    """Whether support answers this report in its thread: drawn alike for every ticket, whatever its kind (used for
    a customer's), where there is time for it."""
    return renderer.r.random() < renderer.b.level.rates.comment and _roomy(s)


def _times(renderer: Teller, s: SlotLike, created: datetime, n: int) -> list[datetime]:
    """`n` comment times, oldest first, after `created` and before the queue is read, the first at least
    `REPLY_GAP` minutes after it and each `REPLY_GAP` minutes apart where there is room (nobody answers
    within a minute)."""
    room = _room(s, n)
    gap = max(1, min(REPLY_GAP, (room - 1) // n))
    last = room - (n - 1) * (gap - 1)  # the latest first offset that leaves the others room
    first = min(REPLY_GAP, max(1, last // 2))  # nobody has looked into it a minute after it was filed
    if last - first + 1 < n:
        first = 1
    offsets = sorted(renderer.r.sample(range(first, last + 1), n))
    return [created + timedelta(minutes=m + i * (gap - 1)) for i, m in enumerate(offsets)]


def thread(
    renderer: Teller,
    s: SlotLike,
    reporter: ReporterType,
    created: datetime,
    follow_up: str | None,
    reporter_name: str | None = None,
    log_from: str | None = None,
    support_note: str | None = None,
    before: datetime | None = None,
    answered: bool = False,
) -> list[dict[str, Any]]:
    """The comments of one ticket, oldest first, as record dicts.

    `follow_up` is the retest or upgrade sentence that settles the ticket, if any: it comes
    last, from QA when QA filed the ticket and from the reporter otherwise. `reporter_name`
    is the reporter's own name when the ticket has one (else one is drawn). `log_from`: where the
    log a customer's ticket carries was captured (`log_source`); support says it added it, naming that
    source (a customer cannot see the server's logs, and a device log came with their report).
    `support_note`: how far the defect reaches beyond the reporter's workspace, which only support
    can tell (a customer speaks for their own workspace), or a way round it; it takes the place of an
    acknowledgement. `answered`: support answers a customer's report (`answered`), with its note or, on
    `ACK_SHARE` of them, an acknowledgement.
    `before`: the follow-up comes before this time (the next deploy of a hosted client, after which nobody can
    retest on the release the ticket was filed against), where the thread leaves room.
    """
    r = renderer.r
    drawn = r.choice(renderer.phrases.pool("comment_author", renderer.partition))
    reporter_name = reporter_name or drawn
    drafts: list[tuple[str, str, str]] = []  # (author, role, text)
    roomy = _roomy(s)
    if log_from is not None:  # the log support filed the ticket with: its note comes first, within the hour
        staff = r.choice(renderer.phrases.pool("comment_author", renderer.partition))
        drafts.append((staff, "support", _log_comment(renderer, log_from)))
    # (support acknowledges every kind of report alike; one a writer has solved on their own, a slip of theirs, is
    # not said to be passed to engineering: its acknowledgement is one that promises only a reply)
    if support_note is not None or (reporter == "user" and answered and r.random() < ACK_SHARE):
        staff = r.choice(renderer.phrases.pool("comment_author", renderer.partition))
        drafts.append((staff, "support", support_note or renderer.pick("comment_ack_support")))
    if (
        reporter == "user"
        and follow_up is None
        and not s.clean_retest
        and s.role in ("fix", "near", "duplicate", "fixed_release")
        and r.random() < STILL_RATE
        and roomy
    ):
        drafts.append((reporter_name, "reporter", STILL))
    if follow_up is not None:
        drafts.append((reporter_name, "qa" if reporter == "qa" else "reporter", follow_up))
    times = _times(renderer, s, created, len(drafts)) if drafts else []
    if log_from is not None:  # (not hours later: the excerpt is on the ticket from the start)
        times[0] = min(times[0], created + timedelta(minutes=r.randint(LOG_NOTE_EARLIEST, LOG_NOTE_WITHIN)))
    if support_note is not None:  # who is hit, or a way round it, is known hours after the report, not days
        k = 1 if log_from is not None else 0
        floor = times[k - 1] + timedelta(minutes=REPLY_GAP) if k else created + timedelta(minutes=1)
        soon = created + timedelta(minutes=r.randint(30, SUPPORT_NOTE_WITHIN))
        times[k] = min(times[k], max(floor, soon))  # (never later than drawn: the comments after it keep their order)
    if follow_up is not None:  # the last comment: hours after the report, after every other comment
        times[-1] = max(times[-1], created + timedelta(minutes=min(RETEST_GAP, _room(s, len(drafts)))))
        n = len(times)
        if before is not None and times[-1] >= before and before - created > timedelta(minutes=n):
            # the thread ends a minute before the deploy: every comment keeps its order, a minute apart at least
            times = [min(at, before - timedelta(minutes=n - i)) for i, at in enumerate(times)]
    drafts = [
        (author, role, still(renderer, created, at, _cosmetic(s)) if text is STILL else text)
        for (author, role, text), at in zip(drafts, times, strict=True)
    ]
    return [
        {"author": author, "role": role, "time": record_time(at), "text": text}
        for (author, role, text), at in zip(drafts, times, strict=True)
    ]
