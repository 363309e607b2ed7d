"""Text: planned slots become ticket records, each recording which sentence carries which fact."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from functools import cache, lru_cache
from typing import Any

from .. import chronology, rules
from .. import textstats as ts
from ..catalogue import Defect, Partition, Story, load_catalogue, not_a_customers
from ..chronology import display
from ..models import Environment, Platform, ReporterType
from . import comments, kinds, logpad, notes, retell, titles
from . import compose as composing
from .binding import own_text, plus_agrees
from .compose import quiet as shows_no_error
from .facts import INSTALLED, PLATFORM_OF, TicketFacts, alert_span
from .files import EDGE
from .personas import (
    PLAN_NAMES,
    Organisation,
    People,
    Temper,
    defect_seats,
    load_personas,
    organisations_fitting,
)
from .phrasing import compose, variants, whole_quotes
from .plan import Planner, Slot
from .timeline import Timeline
from .voice import QUOTED_HEAD, Voice, browsers_named, client_tags, own_role

_DATES: dict[tuple[str, str], tuple[list[tuple[datetime, bool]], int]] = {}


def _dates_of(scenario: Defect | Story) -> tuple[list[tuple[datetime, bool]], int]:
    """Every date a scenario's wordings name, and the step (days) its dates move by: a week
    when it names a weekday, so that each date keeps its weekday, else a day (read once per process)."""
    key = (type(scenario).__name__, scenario.id)
    if key not in _DATES:
        _DATES[key] = _read_dates(scenario)
    return _DATES[key]


def _read_dates(scenario: Defect | Story) -> tuple[list[tuple[datetime, bool]], int]:
    if isinstance(scenario, Defect):
        alert = [scenario.alert.title, scenario.alert.metric] if scenario.alert else []
        texts = [*scenario.titles, *scenario.symptoms, *scenario.steps, *scenario.logs, *scenario.workaround, *alert]
    else:
        texts = [*scenario.titles, *scenario.texts]
    found = chronology.latest([d for text in texts for d in chronology.anchors(text)])
    return found, 7 if any(chronology.names_weekday(t) for t in texts) else 1


_FAULT = re.compile(r"\b(?:ERROR|WARN|FATAL|CRIT\w*|E|W)\b|\b(?:fail\w*|error|impaired|timeout|denied)\b|-> 5\d\d\b")
"""A log line that shows something going wrong: the first one is when the failure began."""
_FAILED = re.compile(r"\b(?:ERROR|FATAL|CRIT\w*|E)\b|\b(?:fail\w*|error|impaired|timeout|denied)\b|-> 5\d\d\b")
"""A log line that shows the failure itself, not a warning before it: what an alert fires on."""
_ERRORED = re.compile(r"\b(?:ERROR|FATAL|CRIT\w*|E)\b|-> 5\d\d\b")
"""A log line logged as an error ("ERROR: could not extend file"), not a failing step logged as a warning before it
("LOG: archiver: archive command failed"): what users meet when an alert's log shows both."""


def _stamps(log: str, filed: datetime) -> list[tuple[re.Match[str], datetime]]:
    """Every timestamp of `log` with its instant: ISO stamps with a time, and logcat's `MM-DD hh:mm:ss`
    (read in the year of `filed`)."""
    out = [(m, chronology.iso_instant(m)) for m in chronology.ISO.finditer(log) if m["H"] is not None]
    for m in chronology.logcat_stamps(log):
        at = chronology.logcat_instant(m, filed)
        if at is not None:
            out.append((m, at))
    return out


_CHANGE = re.compile(r"\b(?:deploy\w*|rolled out|rollout|migration|pg_restore)\b", re.I)
"""A log line that records a change (a deploy, a rollout, a migration, a database restore): what follows it is its
effect."""
_CHANGE_WORDS = ("deploy", "rolled out", "rollout", "migration", "pg_restore")
"""Words every `_CHANGE` match holds (`ts.may_match`)."""
_HINTS: dict[re.Pattern[str], tuple[str, ...]] = {
    _FAULT: ("E", "W", "FATAL", "CRIT", "fail", "error", "impaired", "timeout", "denied", "-> 5"),
    _FAILED: ("E", "FATAL", "CRIT", "fail", "error", "impaired", "timeout", "denied", "-> 5"),
    _ERRORED: ("E", "FATAL", "CRIT", "-> 5"),
}
"""Strings every match of each fault pattern holds, as written (the patterns heed case): `ERROR` and `E` hold an
`E`, `WARN` and `W` a `W`."""


def _changes(text: str) -> bool:
    """True when `text` records a change (`_CHANGE`). Like the fault patterns below, the pattern starts with a word
    boundary and ignores case, so the engine tries it at every position: a plain test of the words it needs first
    spares most lines it (one log line in a hundred names a change)."""
    return ts.may_match(text, _CHANGE_WORDS) and _CHANGE.search(text) is not None


def _shows(pattern: re.Pattern[str], line: str) -> bool:
    """True when `pattern` (`_FAULT`, `_FAILED` or `_ERRORED`) finds `line`; a plain test of what every match holds
    first."""
    return any(map(line.__contains__, _HINTS[pattern])) and pattern.search(line) is not None


def _first_fault(
    log: str, stamps: list[tuple[re.Match[str], datetime]], fault_lines: tuple[re.Pattern[str], ...] = (_FAULT,)
) -> datetime | None:
    """When `log` shows the failure begun: the later of its first failing line (by the first of
    `fault_lines` that finds one) and the first line after a change it records (each, if any); None
    when it shows neither."""
    faults: list[datetime | None] = [None] * len(fault_lines)
    after_change = None
    changed = False
    for m, at in sorted(stamps, key=lambda x: x[0].start()):
        end = log.find("\n", m.end())
        line = log[m.end() : len(log) if end < 0 else end]
        if _changes(line):
            changed = True
            continue
        if changed and after_change is None:
            after_change = at
        for i, pattern in enumerate(fault_lines):
            if faults[i] is None and _shows(pattern, line):
                faults[i] = at
    fault = next((at for at in faults if at is not None), None)
    found = [at for at in (fault, after_change) if at is not None]
    return max(found, default=None)


_WEEKDAY_NAME = re.compile("|".join(chronology.WEEKDAYS), re.I)
_WEEKDAY_WORDS = tuple(day.lower() for day in chronology.WEEKDAYS)
"""What every `_WEEKDAY_NAME` match holds (`ts.may_match`: a plain test first, ten times cheaper on a log than the
pattern, which ignores case and so is tried at every position)."""


def _plain_days(log: str, latest: datetime, delta: timedelta, filed: datetime) -> tuple[int, timedelta]:
    """How many days `log`'s dates without a time move (as many as moving its `latest` stamp by `delta` changes
    that stamp's day), and the `delta` to move its stamps by: to the evening before `filed`'s day when a date the
    log names a day ahead of its stamps (a task due tomorrow) would otherwise fall after the day it was filed. A
    date further ahead moves only as far as `filed`'s day."""
    dates = chronology.plain_dates(log)
    days = ((latest + delta).date() - latest.date()).days
    ahead = (max(dates) - filed.date()).days + days if dates else 0
    if ahead == 1:  # written late the evening before, so "tomorrow" is the day it was filed
        target = min(latest + delta, filed.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(minutes=7))
        delta = target - latest
        days = (target.date() - latest.date()).days
        ahead = (max(dates) - filed.date()).days + days
    return days - max(ahead, 0), delta


BARE_WORKAROUND = 0.75
"""The share of customers who tell their way round a failure and say nothing more of it ("Fine as a stopgap")."""
QA_BARE_WORKAROUND = 0.6
"""The share of testers who give the way round a failure as it is, with no stock tail after it ("Tried that way on
a rerun, and it goes through" closed a dozen QA reports in one queue: blind reader 50)."""


def weekday_bound(log: str) -> bool:
    """True when `log` names a weekday ("send_date=2026-11-14 (Saturday)", "week starts MONDAY"): its stamps and
    dates move by whole weeks only (a device log's, which carry no year, excepted), so it may end up to a week (and a
    day, for a date it names a day ahead) before the report it goes with."""
    return ts.may_match(log, _WEEKDAY_WORDS) and _WEEKDAY_NAME.search(log) is not None


def retime(
    log: str,
    last: datetime,
    onset: datetime | None = None,
    alert: bool = False,
    jitter_ms: int = 0,
    filed: datetime | None = None,
) -> str:
    """`log` with every timestamp moved by one amount: its first failing line just before `onset`
    (when given, and the log has one), and never a line after `last` (UTC); `filed` (default `last`) is when
    the report it goes with was filed, the last day its dates without a time may name. For an `alert`'s log the
    failing line is the first that shows the failure itself (an error), so warnings may come before it.
    A `jitter_ms` in 1..999 moves every stamp with seconds a further `1000 - jitter_ms` ms earlier, so
    that the catalogue's millisecond fractions differ from one ticket to the next (the gaps between
    lines stay as they were; a stamp without a fraction shows the second it falls in).

    Timestamps keep their own format (ISO and logcat's); a date without a time (`due=2026-11-22`) moves by
    the days its latest stamp's day moves, so each line keeps the day its dates are told against.
    """
    stamps = _stamps(log, last)
    if not stamps:
        return log
    latest = max(at for _, at in stamps)
    # an alert's failing line is its first logged as an error, else its first failing one, else its first warning
    fault = (
        _first_fault(log, stamps, (_ERRORED, _FAILED, _FAULT) if alert else (_FAULT,)) if onset is not None else None
    )
    delta = last.replace(microsecond=0) - latest
    if onset is not None and fault is not None:
        delta = min(delta, onset.replace(microsecond=0) - fault)
    # a line's `due=2026-11-22` keeps its distance in days from the line's stamp
    # (a log that names a weekday keeps its dates on their weekdays: they moved by whole weeks, and stay)
    logcat = {id(m) for m, _ in stamps if m.re is chronology.LOGCAT}
    # (a device log's stamps carry no year and were not set in the ticket's time with its dates: they move freely)
    weekdays = weekday_bound(log) and not logcat
    plain = chronology.PLAIN_DATE.search(log) and not weekday_bound(log)
    plain_days, delta = _plain_days(log, latest, delta, filed or last) if plain else (0, delta)
    if weekdays:  # whole weeks, stamps and dates alike (a run "for send_date=... (Sunday)" stays on its day)
        dates = chronology.plain_dates(log)
        room = min(delta.days, ((filed or last).date() - max(dates)).days if dates else delta.days)
        plain_days = room // 7 * 7
        delta = timedelta(days=plain_days)

    jitter = timedelta(milliseconds=jitter_ms - 1000) if jitter_ms else timedelta(0)

    def shifted(stamp: datetime, frac: str) -> tuple[str, str]:
        """A stamp with seconds moved, as its ISO form to the second and its fraction (as many digits as `frac`)."""
        if not jitter:
            return (stamp + delta).isoformat(timespec="seconds"), frac
        digits = len(frac) - 1
        new = stamp + delta + jitter + timedelta(microseconds=int(frac[1:7].ljust(6, "0")) if frac else 0)
        return new.isoformat(timespec="seconds"), f".{new.microsecond:06d}"[: digits + 1] if frac else ""

    def moved(m: re.Match[str], at: datetime) -> str:
        text = m[0]
        # the moved instant's fields read from its ISO form, `2026-11-20T09:12:02` (cheaper than strftime)
        if id(m) in logcat:
            new, frac = shifted(at, m["frac"] or "")
            return f"{new[5:10]} {new[11:19]}{frac}"
        # written in the stamp's own zone: its fields, moved
        stamp = datetime(int(m["y"]), int(m["m"]), int(m["d"]), int(m["H"]), int(m["M"]), int(m["S"] or 0))
        if m["S"] is None:
            new = (stamp + delta).isoformat(timespec="seconds")
            return f"{new[:10]}{text[10]}{new[11:16]}{text[16:]}"
        rest = text[19:]  # fraction and zone as they were
        frac = rest[: len(rest) - len(rest.lstrip(".0123456789"))]
        new, moved_frac = shifted(stamp, frac)
        return f"{new[:10]}{text[10]}{new[11:19]}{moved_frac}{rest[len(frac) :]}"

    out, end = [], 0
    for m, at in sorted(stamps, key=lambda x: x[0].start()):
        out += [log[end : m.start()], moved(m, at)]
        end = m.end()
    text = chronology.move_plain_dates("".join([*out, log[end:]]), plain_days)
    if "month=" not in text:
        return text

    moved_latest = latest + delta

    def month(m: re.Match[str]) -> str:  # a month a line names (`month=2026-11`) keeps its distance from the stamps'
        offset = int(m[1]) * 12 + int(m[2]) - (latest.year * 12 + latest.month)
        named = moved_latest.year * 12 + moved_latest.month - 1 + offset
        return f"month={named // 12}-{named % 12 + 1:02d}"

    return chronology.MONTH_FIELD.sub(month, text)


_INVOICE = re.compile(r"\b(?P<head>inv[_-](?P<y>20\d\d)[_-])(?P<m>0[1-9]|1[0-2])", re.I)
"""An invoice number that carries its year and month (`inv_2026_11_48120`, `INV-2026-114020`)."""
_INVOICE_WORDS = ("inv_20", "inv-20")


def _names_invoice_year(text: str) -> bool:
    """False when `text` holds no `_INVOICE` number: each starts `inv_20` or `inv-20` in some letter case (a plain
    test before the pattern, which ignores case and starts with a word boundary: most logs and dated wordings hold a
    "20" but no invoice number)."""
    return ts.may_match(text, _INVOICE_WORDS)


def invoice_months(text: str, filed: datetime) -> str:
    """`text` with every invoice number of a month after `filed` numbered in the month before it
    (a June ticket cannot quote November's invoice)."""
    if not _names_invoice_year(text):
        return text

    def moved(m: re.Match[str]) -> str:
        if (int(m["y"]), int(m["m"])) <= (filed.year, filed.month):
            return m[0]
        back = filed.replace(day=1) - timedelta(days=1)
        return f"{m['head'][:4]}{back.year}{m['head'][8]}{back.month:02d}"

    return _INVOICE.sub(moved, text)


_ADDRESS = re.compile(r"(?P<local>[\w.+'*-]+)@(?P<domain>[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})", re.I)
PUBLIC_MAIL = frozenset({"gmail.com", "hotmail.com", "outlook.com", "live.com", "yahoo.com", "icloud.com"})
"""Mail providers anyone may use: an address there says nothing of the organisation."""


def own_addresses(log: str, domain: str) -> str:
    """A customer's log (pulled by support for their workspace) with the mail addresses in it at the
    customer's own `domain`: a catalogue log names example addresses, and another ticket of the queue
    may quote the same one as someone else's."""

    def moved(m: re.Match[str]) -> str:
        theirs = m["domain"].lower()
        if theirs in PUBLIC_MAIL or theirs.endswith(("larkspur.io", "larkspur.app")):
            return m[0]
        return f"{m['local']}@{domain}"

    return _ADDRESS.sub(moved, log) if "@" in log else log  # every address has one


_CUSTOMER_ORIGIN = re.compile(r"(?P<key>\b[Oo]rigin[=:] ?)https?://(?![\w.-]*(?:larkspur|localhost|example))[\w.-]+")
"""A web origin in a log that is a customer's own site."""
TEST_ORIGINS: dict[str, str] = {
    "staging": "https://qa-web.staging.larkspur.app",
    "development": "http://localhost:3000",
}
"""The page a tester calls a staging or development build from."""
_TABLET, _PHONE = kinds.TABLET, kinds.PHONE
_DEVICE_NAMED: dict[tuple[str, int], str | None] = {}


def device_named(scenario: Defect | Story, variant: int = 0) -> str | None:
    """`tablet` or `phone` when the ticket's wording (a defect's symptom `variant` and steps, a story's
    texts) names that kind of device and not the other; None otherwise (read once per wording)."""
    key = (scenario.id, variant)
    if key not in _DEVICE_NAMED:
        texts = [scenario.symptoms[variant], *scenario.steps] if isinstance(scenario, Defect) else scenario.texts
        # the symptom the reporter writes decides first ("on my phone"), then with the steps
        _DEVICE_NAMED[key] = _one_kind(texts[0]) or _one_kind(" ".join(texts))
    return _DEVICE_NAMED[key]


_RELOGIN = re.compile(r"\b(?:sign(?:ing)? (?:in|out)|log(?:ging)? (?:in|out)|fresh login)\b", re.I)
_RELOAD = re.compile(r"\b(?:reload\w*|refresh\w*|restart\w*|reopen\w*|force[- ]quit\w*)\b", re.I)
_CHANGED = re.compile(
    r"\b(?:changed|switched|turned (?:on|off)|enabled|disabled|set (?:our|the|my)|set [A-Z][\w ]* > |reorganised)\b",
    re.I,
)
"""A setting changed in a wording ("set Billing > Invoice language to Français"): no one says nothing was changed."""
_SIGN_IN = re.compile(r"\bsign[- ]?in\b|\blog[- ]?in\b", re.I)
"""A feature of signing in ("the sign-in page")."""
_TIMEOUT = re.compile(
    r"\b(?:time[sd]?[- ]?out|timing out|hangs?|hung|stalls?|never (?:returns?|answers?|respond\w*|finish\w*|complete\w*))\b",
    re.I,
)
_SCHEDULED = re.compile(
    r"\bwait (?:for|until)\b[^.]*\b(?:run|monthly|daily|weekly|digest|renewal|reminder|\d\d:\d\d|morning)\b", re.I
)
"""A step that waits for a scheduled job (a digest, a reminder run, a renewal): it cannot be retried minutes later."""
_NO_ENTRY = re.compile(
    r"\bsplash\b|\bnever gets (?:any )?(?:further|past the logo)\b|\blogo forever\b|\bcrash\w* (?:on|at) (?:start\w*|launch)"
    r"|\bcloses the (?:second|moment) I (?:open|tap)\b",
    re.I,
)
"""An app that never opens (stuck on its splash screen, closing at launch): its reporter reaches none of its screens,
so pastes none of them and tries nothing inside it (another project, signing out)."""
_BROWSER_CALLS = re.compile(r"\bpreflight\b|\bCORS\b|\bfetch\(\)", re.I)
"""API calls a web page makes from the browser (a CORS preflight refused): no server-side client library, script or
command-line tool sends them."""
_NO_RESPONSE = re.compile(
    r"\bhandshake\b|\bbefore any response\b|\bcertificate verify failed\b|\bunknown_ca\b|\bPKIX\b"
    r"|\bconnection (?:reset|refused)\b",
    re.I,
)
"""A call that fails before the server answers (a TLS handshake, a refused connection): no response body to attach."""
_CHARGED = re.compile(r"(?<!never )\bcharged\b|\bpayment was successful\b|\bas succeeded\b", re.I)
"""A payment taken although the feature failed: every try costs the customer, so no one retries it twenty times."""
_WEBHOOK = re.compile(r"\bwebhooks?\b", re.I)
"""Calls Larkspur makes to a customer's server (webhook deliveries): the customer's integration sends none of them."""
_HELD: dict[re.Pattern[str], tuple[str, ...]] = {
    _WEBHOOK: ("webhook",),
    _CHARGED: ("charged", "payment was", "as succeeded"),
    _NO_RESPONSE: ("handshake", "before any", "certificate", "unknown_ca", "pkix", "connection"),
    _NO_ENTRY: ("splash", "never gets", "logo forever", "crash", "closes the"),
    _BROWSER_CALLS: ("preflight", "cors", "fetch()"),
    _SCHEDULED: ("wait for", "wait until"),
    _RELOGIN: ("sign", "log"),
    _RELOAD: ("reload", "refresh", "restart", "reopen", "force"),
    _CHANGED: (
        "changed",
        "switched",
        "turned on",
        "turned off",
        "enabled",
        "disabled",
        "set our",
        "set the",
        "set my",
        " > ",
    ),
    _TIMEOUT: (
        *(f"time{s}{gap}out" for s in ("", "s", "d") for gap in ("", " ", "-")),
        "timing out",
        "hang",
        "hung",
        "stall",
        *(f"never {verb}" for verb in ("return", "answer", "respond", "finish", "complete")),
    ),
}
"""Words (lower case) every match of each of these case-blind patterns holds: `_finds` tests them first."""


def _finds(pattern: re.Pattern[str], text: str) -> bool:
    """True when `pattern` (a key of `_HELD` or `_CLIENT_HELD`) finds `text`. The patterns ignore case and start
    with a word boundary, so the engine tries them at every position of a long wording: a plain test of the words
    they need (`ts.may_match`) first spares most wordings the pattern."""
    words = _HELD.get(pattern) or _CLIENT_HELD[pattern]
    return ts.may_match(text, words) and pattern.search(text) is not None


def defect_tags(d: Defect, variant: int, scope: str | None) -> set[str]:
    """What a reporter may not say of defect `d` as told in wording `variant`: that a colleague or
    another object shows it too (it hits one person, a few, or one object), that signing in again or
    reloading changed nothing (a way round it does just that), that nothing was changed (its facts
    tell of a setting changed), or that another browser fails alike (it names its browser)."""
    tags = set(
        _defect_wording_tags(
            d.symptoms[variant], tuple(d.titles), tuple(d.steps), tuple(d.segment), tuple(d.workaround), tuple(d.logs)
        )
    )
    if d.intermittent:
        tags.add("intermittent")
    if rules.data_lost(d.impact, d.component, "production"):  # the action goes through; what it kept is gone
        tags.add("data_loss")
    if d.reach == "user" or scope == "few":
        tags.add("one_user")
    if d.reach == "object":
        tags.add("one_object")
    if d.impact == "cosmetic":
        tags.add("cosmetic")
    if d.past:  # a loss that happened once: no try fails since, nothing goes on failing
        tags.add("past")
    if d.component in ("login", "sso", "payments", "invoicing") or _SIGN_IN.search(d.feature or ""):
        tags.add("account")  # (a glitch of the sign-in page too: no project is open there to try another)
    return tags


_GUEST = re.compile(r"\bguests?\b", re.I)


def _names_day(text: str, day: datetime) -> bool:
    """True when `text` names the date of `day` ("12 April", "April 12", "2026-04-12")."""
    month = f"{day:%B}"
    if month not in text and f"{day:%Y-%m-%d}" not in text:  # most texts: no search
        return False
    return bool(re.search(rf"(?<!\d){day.day} {month}\b|\b{month} {day.day}(?!\d)|{day:%Y-%m-%d}", text))


_LOG_CLAIM = re.compile(r"\blog", re.I)
"""A retest's word on the logs ("nothing logged", "logs clean")."""
_JARGON = re.compile(
    r"\b(?:EXIF|SCIM|SAML|IdP|SP-initiated|OAuth|JWT|payloads?|headers?|endpoints?|regression|pars(?:es|ing|ed)|alias|"
    r"iframe|CORS|preflights?|webhooks?|cach(?:e|ed|ing)|TTL|DNS|JSON|quer(?:y|ies)|null|UTF-8|NFC|NFKD|timestamps?|"
    r"locale|compositionend|intents?|fragments?|MIME|API|HTTP|[45]\d\d|tokens?|scop(?:ed|ing)|serializ\w*|race|"
    r"concurren\w*|idempoten\w*|stale|offset-aware|regex|escap(?:e|ed|ing)|encod(?:e|ed|ing)|template variables?|HTML|"
    r"plain-text|unreplaced|cold starts?|warm starts?|\w+Exception|ANR)\b"
)
"""Engineers' words (outside quotes): a wording with two kinds of them is written by a technical reporter."""


@lru_cache(maxsize=4096)
def _jargon(text: str) -> bool:
    """True when `text` says two kinds of engineers' words outside what it quotes (read once per wording)."""
    return len({m.lower() for m in _JARGON.findall(retell.QUOTED.sub(" ", text))}) >= 2


@lru_cache(maxsize=4096)
def _defect_wording_tags(
    symptom: str,
    titles: tuple[str, ...],
    steps: tuple[str, ...],
    segment: tuple[str, ...],
    workaround: tuple[str, ...],
    logs: tuple[str, ...],
) -> frozenset[str]:
    """`defect_tags`' tags read from a defect's wordings alone (`_wording_tags`, the browsers its scope and logs
    name, as a defect of one browser keeps its reporters to it, and `guest` when one of them names a guest): a pure
    function of catalogue strings, so keyed by them (whose hashes Python keeps) and read once per process for each
    symptom wording, not joined and searched again for every ticket."""
    tags = _wording_tags(" ".join([symptom, *titles, *steps]), " ".join(workaround)) | browsers_named(
        " ".join([*segment, *logs])
    )
    if any(ts.may_match(t, ("guest",)) and _GUEST.search(t) for t in (*segment, *steps, symptom)):
        return tags | {"guest"}
    return tags


@lru_cache(maxsize=4096)
def _wording_tags(told: str, ways: str) -> frozenset[str]:
    """`defect_tags`' tags read from a defect's wordings: the browsers, a setting changed and a call that never
    answers that it `told`, and whether its `ways` round it sign in again or reload (read once per process for each
    wording)."""
    tags = browsers_named(told)
    tags |= {tag for pattern, tag in _WAYS_TAGS if _finds(pattern, ways)}
    tags |= {tag for pattern, tag in _TOLD_TAGS if _finds(pattern, told)}
    return frozenset(tags)


_WAYS_TAGS: tuple[tuple[re.Pattern[str], str], ...] = ((_RELOGIN, "relogin_helps"), (_RELOAD, "reload_helps"))
"""The tags a defect's ways round it give, by the pattern that finds them."""
_TOLD_TAGS: tuple[tuple[re.Pattern[str], str], ...] = (
    (_CHANGED, "changed_setting"),
    (_TIMEOUT, "timeout"),
    (_SCHEDULED, "scheduled"),
    (_NO_ENTRY, "no_entry"),
    (_BROWSER_CALLS, "browser_calls"),
    (_WEBHOOK, "webhook"),
    (_CHARGED, "charged"),
    (_NO_RESPONSE, "no_response"),
)
"""The tags a defect's symptom, titles and steps give, by the pattern that finds them."""


def _one_kind(text: str) -> str | None:
    tablet = ts.may_hold(text, ("ipad", "tablet")) and bool(_TABLET.search(text))
    phone = ts.may_hold(text, ("phone", "handset")) and bool(_PHONE.search(text))
    return "tablet" if tablet and not phone else "phone" if phone and not tablet else None


def _both_kinds(text: str) -> bool:
    """True when `text` names a tablet and a phone ("on my iPad and on my iPhone")."""
    return bool(_TABLET.search(text)) and bool(_PHONE.search(text))


_OWN_VOICE = re.compile(
    r"\b(?:I|I'm|I've|I'd)\b|(?<![\w'.])i(?=['’]\w|\s)|\b(?:[Mm]e|[Mm]y|[Ww]e|[Ww]e're|[Ww]e've|[Uu]s|[Oo]ur|[Oo]urs)\b"
)
"""First-person words (the pronoun typed in lower case too): a customer telling what happened to them,
not a tester reporting a run."""


_POSSESSIVE = re.compile(r"\b(?:[Mm]y|[Oo]ur) (?!test\b|seeded\b|matrix\b|runs?\b|environment\b|QA\b)")
"""A customer's own things ("my phone", "our team"), as a tester's own ("our test accounts") are not."""


_LOWER_I = re.compile(r"i(?<![\w'.]i)(?=['’]\w|\s)")
"""The pronoun typed in lower case ("when i change"); the look-behind follows the letter, so that the
regex engine scans for the letter (a pattern that starts with a look-behind is tried at every position)."""


def _as_held(text: str, body: str) -> str:
    """`text` as `body` holds it: run on in lower case after a lead-in ("Heads up: the export fails ...")."""
    if not text or text in body:
        return text
    lowered = text[:1].lower() + text[1:]
    return lowered if lowered in body else text


def _neutral_title(title: str) -> str:
    """A customer's title as a tester files it: "after renaming our workspace" -> "after renaming the workspace",
    "when I change" -> "when trying to change"."""
    title = re.sub(
        r"(?<=[a-z] )(?:my|our) (?=['‘\"“])", "", title
    )  # "the preview of our 'budget.xlsx'": of 'budget.xlsx'
    title = re.sub(r"\b(?:my|our)(?: local)? time\b", "local time", title)  # "09:00 my time": not "the time"
    title = re.sub(r"\b(?:[Mm]y|[Oo]ur)(?: own)?\b", lambda m: "The" if m[0][0].isupper() else "the", title)
    title = _WHEN_I.sub(lambda m: f"{m[1]}hen trying to ", title)  # "when I sign in": a customer's doing
    title = _LOWER_I.sub("I", title.replace(" for us", "").replace(" on your side", ""))  # (the tester's own side)
    title = _NO_APOSTROPHE.sub(r"\1n't", title)  # "doesnt" -> "doesn't"
    return _SENTENCE_START.sub(lambda m: m[0].upper(), title)  # begun in capitals, as a report is written


_SENTENCE_START = re.compile(r"^[a-z](?=[a-z]* )|(?<=[a-z]{3}[.!?] )[a-z]")
_NO_APOSTROPHE = re.compile(r"\b([Cc]a|[Dd]o|[Dd]oes|[Ww]o|[Ii]s|[Dd]id)nt\b")


_WHEN_I = re.compile(r"\b([Ww])hen (?:I|i|we) ")


_TESTER_VOICE = re.compile(r"(?:Expected|Actual)(?: result)?:")
"""A tester's expected and actual results, which a customer does not write."""


_CUSTOMER_CONTEXT = re.compile(
    r"\b(?:[Mm]y|[Oo]ur) (?!test\b|seeded\b|matrix\b|runs?\b|environment\b)|\b[Ww]e (?:rely|use)\b|\b(?:ours|theirs)\b"
    r"|(?<![\w'.])i(?=['’]\w|\s)|\b[Ww]e(?:'ve| have| had)? (?:(?!have\b|had\b)\w+ed|lost|found|saw|got|sent|wrote|made"
    r"|kept|took|gave|ran|spent|paid)\b|\b(?:[Uu]s|me)\b"
)
"""A sentence about the writer's own things, habits or days: context only a customer gives ("We archived two
finished client projects on Friday", "a freelancer sent us a screenshot", "when someone @mentions me")."""
_DANGLING = re.compile(r"^(?:He|She|They|His|Her|Their)\b")
"""A sentence that leans on the one before it for whom it speaks of ("He opened it from an old link")."""
_OURS = re.compile(r"\b(?:ours|theirs)\b")
"""Whose data is whose, as a customer who has seen another's says it."""
_HABIT = re.compile(r"\b[Ww]e (?:rely|use)\b")
"""A sentence about how the writer's team works, which no tester writes."""
_SENTENCE = re.compile(r"(?<=[.!?])(?<!\?\?)\s+(?=[A-Za-z'])")
"""A sentence's end ("??" stands for characters a screen lost: "?? in front" goes on)."""


def _sentences(text: str) -> list[str]:
    """The sentences of `text`, a quote kept whole in its sentence ("The page says 'This link has expired. Request a
    new one.' I tried five times." is two, not three: none begins inside what it quotes)."""
    return whole_quotes(_SENTENCE.split(text))


def _tester_words(
    symptom: str, lines: list[str], evidence: list[tuple[str, str]], composed: bool
) -> tuple[str, list[str]]:
    """A symptom and lines as a tester on a staging or development build writes them: the symptom
    without the sentences about a customer's own things (unless all are; a composed symptom keeps
    all, as its only such sentence has gone with `_without_detail` and "our" there names the
    condition, "our Sydney-hosted workspace"), and "my" and "our" as "the"; the evidence records
    the words the ticket then holds."""
    sentences = _sentences(symptom)
    kept = " ".join(
        (sentences if composed else [])
        or _tester_core(sentences)
        or [x for x in sentences if not _HABIT.search(x) and not _OURS.search(x)]
        or [x for x in sentences if not _HABIT.search(x)]
        or sentences
    )
    if len(kept.split()) < 6:  # a fragment left ("every single one."): the whole wording, made the tester's
        kept = symptom
    changed = {symptom: _neutral_title(kept)} | {x: _neutral_title(x) for x in lines}
    evidence[:] = [(rule, changed.get(text, text)) for rule, text in evidence]
    return changed[symptom], [changed[x] for x in lines]


def _tester_core(sentences: list[str]) -> list[str]:
    """The sentences of a wording a tester could write: none about a customer's own things, habits or days, and
    none that leans on such a sentence for whom it speaks of ("He opened it...", after "A freelancer we removed...")."""
    kept: list[str] = []
    dropped = False
    for x in sentences:
        dropped = bool(_CUSTOMER_CONTEXT.search(x)) or (dropped and bool(_DANGLING.match(x)))
        if not dropped:
            kept.append(x)
    return kept


@lru_cache(maxsize=4096)
def _has_tester_core(wording: str) -> bool:
    """True when a tester could tell `wording` in part (`_tester_core`), in six words at least."""
    return len(" ".join(_tester_core(_sentences(wording))).split()) >= 6


_CASUAL = re.compile(r"^[a-z]|(?<![\w'’.])i(?=['’]\w|\s)|(?<=[a-z]{3}[.!?] )[a-z]|\b(?:cant|dont|doesnt|wont)\b")
"""Words typed as a customer types them: a sentence begun in lower case, "i", "cant"."""


@lru_cache(maxsize=4096)
def _casual(wording: str) -> bool:
    """True when `wording` is typed as a customer types (`_CASUAL`): a test report copies none of it."""
    return _CASUAL.search(wording) is not None


_CASUAL_TITLE = re.compile(
    r"\?\?|!!|\b(?:just|forever|weird|anymore|stuff|at all|we|we're|we've|I'm|I've)\b|\bI\b", re.I
)
"""A subject typed as a customer types one ("Api sends html on errors??", "Stuck at the 2fa screen forever", "It
says we're late on 40 things": a tester's subject speaks for no one)."""


_DOING = re.compile(r"[a-z]+ing\b(?<!thing)(?<!\bstring)(?<!\bspring)(?<!\bbilling)(?<!\bsetting)(?<!\bheading)")
"""A feature named by what someone does ("adding subtasks to a task"), not by a thing ("billing emails")."""


def casual_title(title: str) -> bool:
    """True when `title` reads as a customer's subject line (`_casual`, `_CASUAL_TITLE`): a tester files none."""
    return _casual(title) or _CASUAL_TITLE.search(title) is not None


_QUOTE = re.compile(r"(?<!\w)'([^']{6,})'(?!\w)")
"""An error or a name quoted in single quotes, six characters or more."""
_SPACES = re.compile(r" {2,}")


def _without_detail(symptom: str, scenario_id: str, evidence: list[tuple[str, str]]) -> str:
    """A tester's symptom: without the composed surface's sentence of context (who uses it and
    what for, which only a customer says); the evidence records the words the ticket then holds."""
    detail = composing.detail_of(scenario_id)
    if not detail or detail not in symptom or symptom.strip() == detail:
        return symptom
    kept = _SPACES.sub(" ", symptom.replace(detail, "")).strip()
    evidence[:] = [(rule, kept if text == symptom else text) for rule, text in evidence]
    return kept


_ANDROID = re.compile(r"\bandroid\b", re.I)
_MOBILE = re.compile(r"\b(?:iphone|ipad|ios|android|phone|mobile)\b", re.I)
_API = re.compile(r"\b(?:api|endpoint|webhook)\b|\b(?:GET|POST|PUT|PATCH|DELETE) /", re.I)
_API_WORD = re.compile(r"\b(?:api|endpoint|webhook)\b", re.I)
_BROWSER_NAMED = re.compile(rf"\bbrowsers?\b|\b(?:Chrome|Firefox|Safari)\b|{EDGE}", re.I)
_CLIENT_HELD: dict[re.Pattern[str], tuple[str, ...]] = {
    _ANDROID: ("android",),
    _MOBILE: ("ios", "ipad", "android", "phone", "mobile"),
    _API: ("api", "endpoint", "webhook", "get /", "post /", "put /", "patch /", "delete /"),
}
"""Words (lower case) every match of each client pattern holds (`_finds`)."""


_HEDGED = re.compile(
    r"\bnot the end of the world\b|\bno (?:rush|urgency)\b|\bcan wait\b|\bnot urgent\b|\b(?:don't|do not) want to "
    r"bother\b|\bsorry to bother\b|\btake it or leave it\b|\bno big deal\b|\bnothing (?:serious|dramatic)\b"
    r"|\b(?:small|tiny|minor) (?:wish|thing)\b|\blow priority\b|\bno hurry\b",
    re.I,
)
"""A customer's own words that play the problem down: no outburst or shouted subject in the same ticket."""
_HEDGED_WORDS = (
    *("end of the world", "no rush", "no urgency", "can wait", "not urgent", "bother", "take it or leave it"),
    *("no big deal", "nothing serious", "nothing dramatic", "low priority", "no hurry"),
    *(f"{size} {what}" for size in ("small", "tiny", "minor") for what in ("wish", "thing")),
)
"""Words (lower case) every `_HEDGED` match holds (`ts.may_match`): few bodies hold any."""
_EITHER_APPLE = re.compile(r"\ban iPhone or iPad\b")
"""A tester's step for either Apple device: a customer does it on the one they have."""
_NOT_TECHNICAL = re.compile(
    r"\bnot (?:very |the most |a )?technical\b|\b(?:anyone|no one|nobody) technical\b|\bno idea what it does\b"
    r"|\bnot an expert\b",
    re.I,
)
"""A writer's word that they (or everyone they have) are not technical ("I've no idea what it does exactly")."""
_NOT_TECHNICAL_WORDS = ("technical", "no idea what it does", "not an expert")
"""Words (lower case) every `_NOT_TECHNICAL` match holds (`ts.may_match`)."""


_MAC = re.compile(r"\b(?:iMac|MacBook|macOS|Mac mini|on (?:a|my) Mac)\b")
"""A customer's text naming a Mac: its keyboard shortcuts use Cmd, not Ctrl."""
_CONSOLE = re.compile(r"\bconsole\b", re.I)
"""A customer's words on the browser console, or the head of console output they pasted."""
_LIVE_API = "https://api.larkspur.app"
"""The production API's address, as steps name it."""
_TEST_API: dict[str, str] = {"staging": "https://api.staging.larkspur.app", "development": "http://localhost:8080"}
"""Where a staging or development build's API answers: a test of such a build never calls production."""
_LIVE_HOST = re.compile(r"(?<![\w./-])api\.larkspur\.app\b")
"""The production API's host named alone ("not mapped for host api.larkspur.app"), as logs name it."""


_WORKPLACE = re.compile(
    r"\b(?:our|my) (?:clients|customers'? work|staff|employees|new starters?|payroll|company|office|manager|boss)\b"
    r"|\bclient work\b|\binvite (?:our )?clients\b|\bnew starter\b|\b(?:her|his|my|our) (?:line )?manager\b"
    r"|\b(?:payroll|sprints?|retros?|retrospectives?|billable|by client|boss|director|office Wi-Fi|office manager"
    r"|managing partner|senior management|board meeting|sales team|PMO|finance and ops group)\b",
    re.I,
)
"""Words of a workplace: its clients, staff and managers, its office, payroll, sprints and retros. A group run by
volunteers (a rowing club, an allotment society) has none, so no report of theirs speaks of them."""
_WORKPLACE_WORDS = (
    *("client", "customer", "staff", "employee", "starter", "payroll", "company", "office", "manag", "boss"),
    *("sprint", "retro", "billable", "director", "board meeting", "sales team", "pmo", "finance and ops"),
)
"""Words (lower case) every `_WORKPLACE` match holds (`ts.may_match`): most wordings hold none."""


@lru_cache(maxsize=4096)  # asked of a scenario's joined texts, which repeat from ticket to ticket
def of_a_workplace(text: str) -> bool:
    """True when `text` speaks of a workplace (`_WORKPLACE`): only someone who works at one writes it."""
    return ts.may_match(text, _WORKPLACE_WORDS) and _WORKPLACE.search(text) is not None


@lru_cache(maxsize=4096)
def says_not_technical(text: str) -> bool:
    """True when `text` says its writer, or everyone they have, is not technical: one who is writes no such thing."""
    return ts.may_match(text, _NOT_TECHNICAL_WORDS) and _NOT_TECHNICAL.search(text) is not None


@lru_cache(maxsize=1024)
def _name_pattern(first: str) -> re.Pattern[str]:
    """`first` as a whole word (compiled once per first name, not looked up in `re`'s cache per ticket)."""
    return re.compile(rf"\b{re.escape(first)}\b")


def _signed_by(first: str, body: str) -> bool:
    """True when `body` names `first` as a whole word (a signature, "- Priya"); a body without the name is spared
    the pattern."""
    return first in body and _name_pattern(first).search(body) is not None


def own_steps_of(s: Slot, d: Defect) -> list[str]:
    """The steps a report of `d` gives: a duplicate's reporter tells them in their own words (`retold_steps`, where
    the catalogue has them), not in its original's."""
    return d.retold_steps if s.original is not None and d.retold_steps else d.steps


_SETUP = re.compile(r"^(?:Use|Create) an? (?:workspace|organisation|account)\b|^Rename the workspace to something")
"""A tester's set-up step ("Use a workspace with more than 500 members"): a customer's workspace already is so."""


def _own_steps(steps: list[str]) -> list[str]:
    """A customer's steps: a tester's set-up steps left out (their own workspace is what it is), two steps at least,
    and what they saw told as they saw it ("See the banner", not a tester's "Observe the banner")."""
    kept = [x for x in steps if not _SETUP.match(x)]
    return [_OBSERVE.sub("See", x) for x in (kept if len(kept) >= 2 else steps)]


_OBSERVE = re.compile(r"^Observe\b")
"""A tester's word for what a step shows."""


_AMOUNT = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)\.(\d\d)(?!\d|\.\d)")
"""A sum of money as a ticket or a log writes it, with its cents ("$1,200.00", "total=960.00")."""


def _amounts(text: str) -> frozenset[str]:
    """The sums of money `text` names, written alike ("1200.00" for "$1,200.00")."""
    return frozenset(f"{m[1].replace(',', '')}.{m[2]}" for m in _AMOUNT.finditer(text)) if "." in text else frozenset()


def platform_of(s: Slot, variant: int | None = None) -> Platform:
    """The client whose build a report names: its component's, or for a server-side defect the
    client its own words use (push notifications always reach a phone), else the web app.
    `variant`: read that symptom wording instead of the slot's own."""
    scenario = s.scenario
    if scenario.component in PLATFORM_OF:
        return PLATFORM_OF[scenario.component]
    i = s.symptom_variant if variant is None else variant
    # a story's texts all speak of one client: the phone a push report names is that one
    text = scenario.symptoms[i] if isinstance(scenario, Defect) else " ".join(scenario.texts)
    return _client_in(text, scenario.component == "push-notifications")


_OWN_PHONE = re.compile(r"\bmy (?:work )?(iPhone|iPad|Android)\b", re.I)
"""The writer's own phone or tablet, when a wording names a colleague's too."""
_APPLE = re.compile(r"\b(?:iphone|ipad|ios)\b", re.I)


@lru_cache(maxsize=4096)
def _client_in(text: str, push: bool) -> Platform:
    """The client a server-side defect's wording names (read once per process for each wording)."""
    if push or _finds(_MOBILE, text):
        if not _finds(_ANDROID, text):
            return "ios"
        # both named ("on my iPhone and on my colleague's Android phone"): the writer's own, else the first named
        own = _OWN_PHONE.search(text)
        if own is not None:
            return "android" if own[1].lower() == "android" else "ios"
        apple = _APPLE.search(text)
        return "ios" if apple is not None and apple.start() < text.lower().find("android") else "android"
    if not _finds(_API, text):
        return "web"
    # a request line read in a browser's network tab ("POST /password/forgot 200 ... in two browsers") is a web report
    return "web" if _BROWSER_NAMED.search(text) and not _API_WORD.search(text) else "api"


@lru_cache(maxsize=8192)
def _timeless(wording: str) -> bool:
    """True when `Renderer.local` leaves `wording` as it is in any ticket: it names no date, no invoice's
    year and no version (read once per process for each wording)."""
    return (
        not chronology.names_dates(wording)
        and not _names_invoice_year(wording)
        and not chronology.names_versions(wording)
    )


_SINCE_RELEASE = re.compile(
    r"\b(?:since|after)\b[^.]*\b(?:release|update|updated)\b|\bworked (?:fine )?(?:before|until)\b", re.I
)
"""A wording that dates the failure from a live release ("Started after last week's release"): no build
ahead of production has such a history (it has not shipped), so a staging or development run avoids it."""


def _since_release(wording: str) -> bool:
    """True when `wording` dates the failure from a release or update (`_SINCE_RELEASE`)."""
    return _SINCE_RELEASE.search(wording) is not None


@lru_cache(maxsize=4096)
def _wording_voice(wording: str) -> int:
    """How many first-person words a catalogue wording has (counted once per process)."""
    return len(_OWN_VOICE.findall(wording))


@cache
def prepare(partition: Partition) -> None:
    """Read once per process, at the first queue of `partition`, what the renderer reads of each wording of the
    partition's catalogue scenarios: their dates, tags, client, device and first-person words, and whether a
    wording is timeless. The caches above then answer every later ticket at once, rather than filling a few
    entries at each of the first queues (a composed defect is read as it is first drawn)."""
    cat = load_catalogue()
    stories = [s for s in (*cat.features, *cat.invalid, *cat.vague) if s.partition == partition]
    for story in stories:
        _dates_of(story)
        device_named(story)
        _client_in(" ".join(story.texts), story.component == "push-notifications")
        for text in (*story.titles, *story.texts):
            _timeless(text)
    for d in (d for d in cat.defects if d.partition == partition):
        _dates_of(d)
        defect_seats(d)
        for variant, symptom in enumerate(d.symptoms):
            device_named(d, variant)
            defect_tags(d, variant, None)
            _client_in(symptom, d.component == "push-notifications")
        alert = [d.alert.title, d.alert.metric] if d.alert else []
        for text in (*d.titles, *d.symptoms, *d.steps, *d.logs, *d.workaround, *d.segment, d.feature, *alert):
            _timeless(text)
        for text in (*d.titles, *d.symptoms):
            _wording_voice(text)


BLOCKED = re.compile(
    r"\bno other way\b|\b(?:we(?:'re| are)|so we are|company is) stuck\b|\bnothing to fall back on\b|\bno way around it\b|"
    r"\bno detour\b|\bcan't do it at all\b|\bnothing else that does the same job\b|\bno workaround\b",
    re.I,
)
"""A customer's words saying they cannot get the work done at all."""

TEMPER_SHOWS = 0.6
"""Share of a quiet or pressing customer's tickets that say so in a line of their own."""

ENV_TOLD = 0.6
"""Share of staging and development reports whose text says where they ran (the rest: the fields alone)."""
SCOPE_TOLD = 0.4
"""Share of a customer's reports of a fault that support finds hits a group or everyone whose text also says it
fails every time and they have no other way: the rest tell the fault and leave it there (the handbook counts a
workaround only where the ticket names one), and support's note on the ticket says who is hit."""
SEGMENT_TOLD = 0.3
"""Share of a customer's own reports of a fault that fails each time for a group whose text also says they have no
other way: the rest tell the fault in the situation that makes them the group (on the iPhone app, signing in through
Google, "for our accounts that are provisioned through SCIM") and stop there, as most reporters do (a workaround
counts only where the ticket names one)."""
ALERT_ACCOUNT = 0.5
"""Share of alerts whose text names the account of the first failing request (all are filed on it)."""
SUPPORT_WORKAROUND = 0.4
"""Share of a customer's reports of a fault with a way round it where support, not the customer, tells the way
round it in its comment (many are ways only support or an admin would know: a refund, a setting, another route);
only a way told in no one's own words ("our sync", "we") can be support's."""
LOG_SPAN = timedelta(hours=12)
"""How long before a report its log may begin: a log pulled for a report filed later than this after the
failure began (a later duplicate) shows the failure at the report's time, unless it records the change
that caused it."""

HIDDEN_PLANT = 0.5
"""Share of planted instructions hidden in a Markdown comment (`<!-- ... -->`), which a rendered page does not show."""
NEAR_GUESS = 0.6
"""Share of forms with one wrong component guess beside the right one whose guess names a part next to it
(`kinds.neighbours`: the screen beside it, the service behind it); the other guesses name any part (reader 53 read
random guesses as made up)."""

QA_SETUP = 0.35
"""Share of QA reports that say what the run used ("Setup: ...", "Data: ..."): reader 48 counted 16 of 31 with one."""
QA_OPENER_RATE = 0.3
"""Share of QA reports that open with the run that found the fault (most start with the fault itself)."""


class Renderer:
    """Turns planned slots into ticket records, recording which sentence carries each fact."""

    def __init__(self, planner: Planner, timeline: Timeline, base: datetime, slots: Sequence[Slot] = ()) -> None:
        self.b = planner
        self.r = planner.rng
        self.partition = planner.partition
        self.phrases = planner.phrases
        self.voice = Voice(self.phrases, self.partition, self.r)
        staff = [*self.phrases.pool("comment_author", self.partition)]
        self.people = People(self.partition, self.r, {n.split()[0] for n in staff})
        prepare(self.partition)
        """The queue's customers: one person per name, the same person when they write again."""
        self.attachments = 0
        self.timeline = timeline
        self.base = base
        self.slots = tuple(slots)
        """Every slot of the queue, so a wording changed for one reporter stays apart from its duplicates'."""
        self.retold = {id(o.original) for o in self.slots if o.original is not None}
        self.began: datetime | None = None
        """When the failure the ticket being rendered reports began (as that report has it; None for a story)."""
        self.fired: dict[int, datetime] = {}
        """When each alert of the queue fired (`_fired`), keyed by its slot's id: its log and its text agree."""
        self.account: Organisation | None = None
        """The organisation the alert being rendered is filed on (the one of its first failing request)."""
        """The slots a duplicate retells: only their long sentences are read back (`Slot.said`)."""
        # the ticket being rendered: when it was filed, its platform, the build it speaks of, and by
        # how many days its scenario's dates move (set by `render`)
        self.created = base
        self.platform: Platform = "web"
        self.reported = ""
        self.shift = 0
        self.environment: Environment = "production"
        self.used_logs: set[tuple[str, int]] = set()
        """Log excerpts (defect id, index) already pasted into a ticket of this queue."""
        self.injected = False
        """A ticket of the queue carries a planted instruction already (one a queue at most)."""
        self.tempers: dict[str, Temper] = {}
        """Each customer's temper by name: one voice in every ticket they write."""
        self.notes: dict[tuple[Platform, str], list[str]] = {}
        """Release-note lines placed for reports told against the notes, by (platform, version)."""

    def pick(self, pool: str, **values: object) -> str:
        return self.voice.pick(pool, **values)

    @property
    def used(self) -> set[str]:
        """The phrases the queue has used (`Voice.used`): a phrase drawn once a queue is drawn from those not in it."""
        return self.voice.used

    def _cast(self, s: Slot, reporter: ReporterType) -> None:
        """Draw the ticket's one reporter; every phrase after this fits them and the ticket."""
        self.voice.hour = self.created.hour
        scenario = s.scenario
        facts_text = scenario.symptoms[s.symptom_variant] if isinstance(scenario, Defect) else ""
        named = PLATFORM_OF.get(scenario.component) or (self.platform if self.platform != "web" else None)
        tags = client_tags(named, facts_text)  # a server-side defect seen on a phone or through the API
        if self.platform == "api":  # met by calling the API, not only named beside it ("through the API it works")
            tags.add("api_calls")
        device = device_named(scenario, s.symptom_variant if isinstance(scenario, Defect) else 0)
        if device is None and isinstance(scenario, Defect):  # else the subject's device ("on my phone")
            device = _one_kind(scenario.titles[s.title_variant])
        if device:
            tags.add(device)
        if s.kind == "feature":
            tags.add("wish")
        elif s.kind in ("vague", "invalid"):
            tags.add(s.kind)
            if isinstance(scenario, Story) and any(_CHANGED.search(x) for x in scenario.texts):  # "we reorganised"
                tags.add("changed_setting")
        if isinstance(scenario, Defect):
            tags.add("bug")
            if _DOING.match(scenario.feature):  # "adding subtasks": no "can't get adding subtasks to work"
                tags.add("doing")
            if shows_no_error(scenario):
                tags.add("quiet")
            if scenario.error_box:
                tags.add("error_box")
            if scenario.exposure:
                tags.add("exposure")
            if PLATFORM_OF.get(scenario.component) in ("ios", "android"):
                tags.add("phone_app")
            elif PLATFORM_OF.get(scenario.component) == "web":
                tags.add("frontend")
            tags |= defect_tags(scenario, s.symptom_variant, s.scope)
        if s.original is not None:
            tags.add("duplicate")
        if s.role == "wont_fix":
            tags.add("unsupported")
        if s.scope == "degraded":  # some tries fail and others go through, as its rate says
            tags.add("intermittent")
        tags.add("production" if s.environment == "production" else "prerelease")
        if s.environment == "development":
            tags.add("development")
        if isinstance(scenario, Defect) and s.environment == "production" and s.scope in ("everyone", "segment"):
            tags.add("blocked")  # no way round it, whether or not its text says so
        # an API is called by technical people; a defect of large workspaces is met in one
        seats = defect_seats(scenario) if isinstance(scenario, Defect) else 0
        technical = "api" in tags or _jargon(facts_text)  # a wording in an engineer's terms has one writing it
        # a report that says its writer is not technical ("we don't have anyone technical left") has one writing it
        # (an API story among them: the contractor who called it has left)
        plain = isinstance(scenario, Story) and says_not_technical(" ".join(scenario.texts))
        # a scenario told of clients, staff or a sprint is a workplace's: no club or society of volunteers has one
        told = scenario.texts if isinstance(scenario, Story) else [facts_text, *scenario.titles, *scenario.steps]
        if s.second is not None:  # and the second problem it tells of ("Our clients are guests in one project")
            told = [*told, *s.second.symptoms]
        workplace = of_a_workplace(" ".join(told))
        # nobody files a duplicate of their own report: a customer who writes again about it comments on it
        mine = s.original.writer if s.original is not None else None
        persona = self.people.draw(
            reporter,
            s.tier,
            technical=technical and not plain,
            seats=seats,
            plain=plain,
            not_by=mine,
            workplace=workplace,
            phone=self.platform if self.platform in ("ios", "android") else None,
        )
        s.writer = persona.first if persona.reporter == "user" else None
        if persona.reporter == "user" and (temper := self._temper(persona.name)) != persona.temper:
            persona = replace(persona, temper=temper)
        self.voice.filed = self.created
        self.voice.began = self.began  # (as the ticket tells it: its captures are of the failure since then)
        self.voice.cast(persona, tags)
        self.voice.platform = self.platform
        app: Platform = self.platform if self.platform in INSTALLED else "ios"  # the app a phone's screen is of
        self.voice.build = (
            self.reported.rsplit(" ", 1)[-1]
            if app == self.platform
            else self.timeline.current(app, self.created).version
        )
        self.voice.facts = " ".join([facts_text, *scenario.titles]) if isinstance(scenario, Defect) else facts_text
        self.attachments = self.r.choice([0, 0, 0, 1, 1, 2, 3])
        if self.attachments >= 2:
            self.voice.tags |= {"several_files"}

    def _temper(self, name: str) -> Temper:
        """A customer's temper, drawn at their first ticket of the queue and kept in every later one."""
        if name not in self.tempers:
            rates, x = self.b.level.rates, self.r.random()
            bounds: list[tuple[float, Temper]] = [
                (rates.quiet, "quiet"),
                (rates.urgency, "pressing"),
                (rates.loud, "loud"),
            ]
            self.tempers[name] = "even"
            for share, temper in bounds:
                if x < share:
                    self.tempers[name] = temper
                    break
                x -= share
        return self.tempers[name]

    @property
    def temper(self) -> str:
        """The temper of the ticket's reporter ("even" for QA and alerts)."""
        return self.voice.persona.temper

    @property
    def reporter(self) -> str:
        """Who writes the ticket being rendered (`user`, `qa` or `monitoring`)."""
        return self.voice.persona.reporter

    @property
    def tags(self) -> frozenset[str]:
        """What the ticket being rendered and its reporter are (`invalid`, `quiet`, ...): what its phrases fit."""
        return self.voice.tags

    @property
    def device(self) -> str | None:
        """The one kind of device the ticket's wording names ("tablet" or "phone"), if it names one."""
        return "tablet" if "tablet" in self.voice.tags else "phone" if "phone" in self.voice.tags else None

    def current(self) -> str:
        """The current release of this ticket's platform when it was filed, as a report names it."""
        return display(self.platform, self.timeline.current(self.platform, self.created).version)

    def _next_release(self) -> datetime | None:
        """When this ticket's platform ships its next release after the ticket was filed (None: not in the calendar)."""
        try:
            return self.timeline.upcoming(self.platform, self.created).released_at
        except ValueError:
            return None

    def _shipped(self) -> datetime:
        """When the build this ticket reports shipped (its platform's current release for one not released yet)."""
        build = self.reported.split(" ")[-1]
        live = self.timeline.live(self.platform, self.created)
        own = next((rel for rel in reversed(live) if rel.version == build), None)
        return (own or self.timeline.current(self.platform, self.created)).released_at

    def release_day(self) -> str:
        """The day the build this ticket reports shipped (its platform's current release for a build not
        released yet), as a reporter names it: the weekday within the last week (not today's, which would
        read as a week ago), else the date ("14 May"). One on iOS 5.11.0 blames the update that brought it."""
        released = self._shipped()
        if 0 < (self.created.date() - released.date()).days <= 6:
            return chronology.WEEKDAYS[released.weekday()]
        return f"{released.day} {released:%B}"

    def _shift_for(self, scenario: Defect | Story) -> int:
        """How many days a scenario's dates move so that they fall just before this ticket was filed."""
        found, step = _dates_of(scenario)
        return chronology.fitting_shift(found, self.created - timedelta(minutes=self.r.randrange(3, 240)), step)

    def _onset(self, s: Slot) -> datetime:
        """When the failure `s` reports began: shortly before the first report of it (its group's root)."""
        root = s.original or s
        if root.onset is None:
            root.onset = self.base + timedelta(minutes=root.minute - self._noticed(root))
        return root.onset

    def _noticed(self, root: Slot) -> int:
        """Minutes from the onset of the failure `root` reports first to its filing. An alert fires once the failure
        has lasted the span its metric is measured over ("61% of opens over 15 min") and is filed a minute or two
        later; a customer whose report an alert follows wrote in minutes after the failure began, so that the alert
        fires after the report, a span from its own first failing line; anyone else, within an hour and a half."""
        alert = root if root.monitoring else next((o for o in self.slots if o.monitoring and o.original is root), None)
        if alert is None or not isinstance(root.scenario, Defect):
            return self.r.randrange(4, 90)
        span = alert_span(root.scenario)
        if alert is root:
            return span + self.r.randrange(2, 6)
        # (an alert filed at the queue's end, closer to the report than its span, moves the onset earlier)
        return max(self.r.randrange(2, 6), span + 2 - (alert.minute - root.minute))

    def _group_shift(self, s: Slot) -> int:
        """How many days the dates of `s`'s scenario move: once per duplicate group, so that every
        report of one defect names the same days, all on or before the failure began."""
        root = s.original or s
        if root.shift is None:
            found, step = _dates_of(s.scenario)
            before = self._onset(s) - timedelta(minutes=self.r.randrange(1, 30))
            root.shift = chronology.fitting_shift(found, before, step)
        return root.shift

    def local(self, text: str, shift: int | None = None) -> str:
        """A catalogue wording set in this ticket's time: its dates moved by `shift` (default
        `self.shift`, the ticket's own scenario's), and any version not out then replaced by the
        build the report speaks of."""
        # a failure that began the day it is reported began "this morning", not "since Monday" on a Monday; one
        # whose start the queue knows began then, whatever weekday its catalogue wording names
        if self.began is not None:
            text = chronology.since_onset(text, self.began, self.created)
        text = chronology.since_today(text, self.created)
        if self.environment != "production" and "api.larkspur.app" in text:  # a test build answers on its own host
            test_api = _TEST_API[self.environment]
            text = _LIVE_HOST.sub(test_api.split("//", 1)[1], text.replace(_LIVE_API, test_api))
        if _timeless(text):  # most wordings
            return text
        moved = invoice_months(chronology.shift_dates(text, self.shift if shift is None else shift), self.created)
        return chronology.rewrite_versions(moved, self._version_for)

    def local_to(self, scenario: Defect, text: str) -> str:
        """`local` for a wording of another scenario told in this ticket (a second problem)."""
        return self.local(text, self._shift_for(scenario))

    def _version_for(self, m: re.Match[str]) -> str:
        """A version a wording names, kept when it fits the ticket's time, else the ticket's own build."""
        version, pre = m["version"], m["pre"]
        whose = chronology.platforms_before(m.string, m.start("version"))
        live = any(
            rel.version == version and rel.platform in whose and rel.released_at <= self.created
            for rel in self.timeline.releases
        )
        if live != bool(pre):
            return m[0][m.start("version") - m.start() :]
        calver = m.re is chronology.CALVER
        if self.platform in whose and calver == (self.platform in ("web", "api")):
            return self.reported.split(" ")[-1]
        named = whose[0] if len(whose) == 1 else None  # the client the words before it name
        other: Platform = named or ("web" if calver else "ios")
        return self.timeline.current(other, self.created).version

    def render(self, s: Slot) -> tuple[dict[str, Any], TicketFacts]:
        r, lv = self.r, self.b.level
        self.created = created = self.base + timedelta(minutes=s.minute)
        self.environment = s.environment
        self.platform = platform_of(s)
        older = s.role in ("cannot_reproduce", "resolved", "fixed_release") or s.release_note == "similar"
        # the one build this report speaks of
        self.reported = self.timeline.reported(self.platform, created, s.environment, older, r)
        if s.case == "regression" and s.original is None and s.onset is None:
            # it worked before the update it blames: it began after that build shipped, not before (no "we started
            # counting at 11:21" beside an update that shipped at 11:36); set before anything reads the onset
            shipped = self._shipped() + timedelta(minutes=r.randrange(3, 30))
            s.onset = max(self._onset(s), min(shipped, created - timedelta(minutes=2)))
        self.shift = self._group_shift(s) if isinstance(s.scenario, Defect) else self._shift_for(s.scenario)
        fixed_in_release = s.release_note is not None and notes.tell(self, self.timeline, s, self.notes)
        self.follow_up: str | None = None  # the retest or upgrade that settles it, told as a comment
        self.support_note: str | None = None  # how far beyond the reporter's workspace it reaches, told by support
        self.checked = False  # support's note is its check that a display glitch left the data intact
        # whether support answers a customer's report in its thread, drawn alike for every kind of report: its note
        # (who is hit, a way round it) takes the place of an acknowledgement, so a support comment says nothing
        self.answered = comments.answered(self, s)
        evidence: list[tuple[str, str]] = []
        traps: list[str] = []
        reporter: ReporterType = "user"
        repro = logs = False
        log_excerpt: str | None = None
        scenario = s.scenario
        self.began = None
        if isinstance(scenario, Defect):
            d = scenario
            began = self._scope_values(s, d)["onset"]  # every wording of this report tells this start
            assert isinstance(began, datetime)
            self.began = began
            if s.monitoring:
                reporter = "monitoring"
            elif s.role == "cannot_reproduce":
                reporter = "qa" if r.random() < 0.6 else "user"
            elif s.role in ("fix", "near", "duplicate"):
                reporter = "qa" if s.case is None and s.release_note is None and r.random() < 0.3 else "user"
                if d.past:  # no test run meets an incident that happened once: its customers tell of it
                    reporter = "user"
            if s.environment != "production" and not s.monitoring:  # only testers run non-production builds
                reporter = "qa"
            if reporter != "user" and s.environment == "production" and not older:
                self.reported = self.current()  # a test run or an alert on production is about the live release
            if reporter == "qa":
                self._impersonal(s, d, older)
            elif reporter == "user" and _TESTER_VOICE.match(d.symptoms[s.symptom_variant]):
                self._customer_wording(s, d)
            if s.role == "wont_fix":
                self._one_device(s, d, reporter)
            self._title_on_device(s, d)
            if reporter == "user":
                self._title_quotes_seen(s, d)
            repro = reporter != "monitoring" and r.random() < (0.85 if reporter == "qa" else 0.45)
            logs = reporter == "monitoring" or r.random() < (0.4 if reporter == "qa" else 0.2)
            if s.role == "cannot_reproduce":  # retried with steps, and nothing in the logs shows it
                repro, logs = True, False
            if s.role == "wont_fix":  # a log from the old device would name it; the catalogue's name current ones
                logs = False
            if logs:
                log_excerpt = self._log(s, d, reporter)
                logs = log_excerpt is not None
            self._cast(s, reporter)
            if logs:  # a tester says the run's log files are attached only when they are
                self.voice.tags |= {"logged"}
            if repro and self.attachments >= len(d.steps):  # a note names no more files than are attached
                self.voice.tags |= {"shot_per_step"}
            if reporter == "user" and log_excerpt and (org := self.voice.persona.organisation) is not None:
                log_excerpt = own_addresses(log_excerpt, org.email_domain)
            if log_excerpt and s.environment != "production":  # a test build is called from the testers' own page
                log_excerpt = _CUSTOMER_ORIGIN.sub(f"\\g<key>{TEST_ORIGINS[s.environment]}", log_excerpt)
            if self.voice.length == "terse" and s.role != "cannot_reproduce":
                repro = False  # a terse writer gives no steps
            elif self.voice.length == "long":
                repro = True  # one who writes at length gives them
            title, body = self._defect_text(s, d, reporter, repro, evidence, traps)
            if reporter == "monitoring" and log_excerpt and self.account is not None:
                # the first failing request the alert is filed on is its account's: a customer origin or address in
                # its log is that organisation's, not another customer's the catalogue's example names
                site = f"\\g<key>https://app.{self.account.email_domain}"
                log_excerpt = own_addresses(_CUSTOMER_ORIGIN.sub(site, log_excerpt), self.account.email_domain)
            subjects = [title]
        else:
            story = scenario
            self._cast(s, reporter)
            chosen = r.choice(story.titles)
            title = self.local(chosen)
            subjects = [title, *(self.local(t) for t in story.titles if t != chosen)]
            text = own_role(self.local(r.choice(story.texts)), self.voice.persona)
            if s.kind == "vague":  # why a report is invalid may take more than its first sentence
                text = self.voice.shorten(text)
            elif s.kind == "feature":  # a terse writer keeps the sentence that asks
                text = self.voice.shorten_request(text)
            evidence.append((s.kind, text))
            if not_a_customers(story):  # spam or a test of the form: no one's own framing, no temper
                self.voice.length = "terse"
                body = self.voice.wrap(text, [], None, self.attachments)
            else:
                body = self._user_wrap(text, traps)
        subjects = self._own_subjects(s, subjects)
        s.subject = subjects[0]
        if not_a_customers(scenario):
            title = subjects[0]  # a spammer's or a tester's subject line, undressed
        else:
            tags = self.voice.tags
            title = titles.dress(
                subjects,
                self.reported,
                self.voice.persona,
                r,
                self.pick,
                lv.rates,
                traps,
                "invalid" in tags,
                body_loud="shouted" in tags,
            )
        if s.original is not None and ts.titled_alike(s.original.title, title):  # dressing cut what told them apart
            title = titles.dress(
                self._feature_title(s),
                self.reported,
                self.voice.persona,
                r,
                self.pick,
                lv.rates,
                traps,
                body_loud="shouted" in self.voice.tags,
            )
        if reporter == "qa":  # a subject re-drawn to tell a duplicate apart is a customer's wording too
            title = _neutral_title(title)
        s.title = title
        candidates = kinds.blamed_first(
            s,
            self._candidates(
                s.scenario.component, s.scenario.misfiled, traps, alert=reporter == "monitoring", qa=reporter == "qa"
            ),
        )
        attachments = self.attachments
        if reporter != "user":
            note = self.voice.attachment_note(attachments, body)
            body = f"{body}\n\n{note}" if note else body
        if reporter == "user" and (own := self.voice.persona.organisation) is not None:
            # example addresses and domains of the catalogue's wordings become the writer's own
            name = self.voice.persona.name
            title, body = own_text(title, own.email_domain, name), own_text(body, own.email_domain, name)
            evidence = [(rule, own_text(text, own.email_domain, name)) for rule, text in evidence]
            if self.follow_up:
                self.follow_up = own_text(self.follow_up, own.email_domain, name)
        if log_excerpt:  # the reset a log shows is of the address the ticket gives, or the writer's own
            writer = self.voice.persona
            own_org = writer.organisation if reporter == "user" else None
            log_excerpt = plus_agrees(log_excerpt, body, *((writer.name, own_org.email_domain) if own_org else ()))
        if reporter == "user" and "Ctrl+" in body and _MAC.search(body):  # a Mac's keys in a Mac user's steps
            body = body.replace("Ctrl+", "Cmd+")
            evidence = [(rule, text.replace("Ctrl+", "Cmd+")) for rule, text in evidence]
        noise = self.voice.noise
        typed = noise.apply(body)
        # (support's note on the thread is said too: a second reporter never writes support's words, a way round it
        # support told on another customer's ticket, word for word: realism reader 57)
        noted = retell.long_sentences(self.support_note or "")
        if id(s) in self.retold or not self.slots:  # a ticket no duplicate retells keeps `said` empty
            said = retell.long_sentences(body) | noted
            if typed != body:  # most tickets have no word changes: their sentences are read once
                said |= retell.long_sentences(typed)
            s.said = said
        elif s.original is not None:  # a later duplicate of the same report repeats none of this one's sentences
            s.original.said = s.original.said | retell.long_sentences(body) | retell.long_sentences(typed) | noted
        evidence = [(rule, noise.apply(_as_held(text, body))) for rule, text in evidence]  # as held, then typed
        title, body = noise.apply(title), typed
        if reporter == "user" and (first := self.voice.persona.first) and _signed_by(first, body):
            signer = self.voice.persona.name  # signed: a ticket of theirs filed later may say they wrote before
            self.voice.named[signer] = min(self.created, self.voice.named.get(signer, self.created))
        if self.support_note is not None:  # support's comment, typed by support
            evidence.append(("intact" if self.checked else f"scope:{s.scope}", self.support_note))
        version = self.reported if r.random() < 0.7 or s.release_note is not None else None
        if version is None and (reporter == "qa" or self.reported.split()[-1] in f"{title}\n{body}"):
            # (a test run always records the build under test)
            version = self.reported  # a build the title or text names is the ticket's build: the field says it too
        if reporter == "monitoring" and s.scenario.component not in PLATFORM_OF:
            # an alert on the service stamps the backend build live when it fired, not a client's
            version = display("api", self.timeline.current("api", created).version)
        record = {
            "ticket_id": s.ticket_id,
            "title": title,
            "description": body,
            "reporter_type": reporter,
            # the service it was filed under: what a reporter wrong about the cause blames, the form's first
            # component when misfiled under one the defect is often mistaken for, else the service it is about
            "service": self.b.world.service_of[
                candidates[0] if "misfiled" in traps and s.scenario.misfiled else s.blamed or s.scenario.component
            ],
            "component_candidates": candidates,
            "created_at": comments.record_time(created),
            "customer_tier": s.tier,
            "environment": s.environment,
            "version": version,
            "affected_users": None,
            "log_excerpt": log_excerpt,
            "repro_steps_present": repro,
            "logs_present": logs,
            "attachments_count": attachments,
            "comments": comments.thread(
                self,
                s,
                reporter,
                created,
                noise.apply(self.follow_up) if self.follow_up else None,  # the reporter types as in the report
                reporter_name=self.voice.persona.name or None,
                log_from=self._log_asked_for(reporter, log_excerpt, body),
                support_note=self.support_note,
                answered=self.answered,
                # a retest names the release current when it was filed: on a hosted client, before the next deploy
                before=None if self.platform in INSTALLED else self._next_release(),
            ),
        }
        facts = TicketFacts(
            ticket_id=s.ticket_id,
            kind=s.kind,
            scenario=s.scenario.id,
            component=s.scenario.component,
            environment=s.environment,
            tier=s.tier,
            reporter=reporter,
            impact=scenario.impact if isinstance(scenario, Defect) else None,
            scope=s.scope,
            duplicate_of=s.original.ticket_id if s.original else None,
            unsupported=s.role == "wont_fix",
            retest_clean=s.role == "cannot_reproduce" or s.clean_retest,
            fixed_in_current=s.role == "resolved",
            repro=repro,
            logs=logs,
            traps=(*traps, *(["retold"] if s.retold else [])),
            evidence=tuple(evidence),
            reporter_tags=self.voice.tags,
            noisy=noise.any,
            length=self.voice.length if reporter == "user" else "",
            organisation=org.name if (org := self.voice.persona.organisation) else self._filed_on(reporter),
            person=(self.voice.persona.name, self.voice.persona.role) if org else None,
            exposure=isinstance(scenario, Defect) and scenario.exposure,
            case=s.case,
            second_component=s.second.component if s.second else None,
            second_impact=s.second.impact if s.second else None,
            fixed_in_release=fixed_in_release,
            began=self.began,
            shipped=self._shipped() if self.reported else None,
        )
        return record, facts

    def _impersonal(self, s: Slot, d: Defect, older: bool) -> None:
        """Give a tester's report the symptom and title wordings with the fewest first-person words
        (a tester reports a run, not what happened to them), among those no other ticket of the
        defect uses; for the symptom, one of another client (its build then reported) only when it has fewer."""
        kin = [o for o in self.slots if o is not s and o.scenario is d]
        used_symptoms, used_titles = {o.symptom_variant for o in kin}, {o.title_variant for o in kin}
        symptoms = [i for i in range(len(d.symptoms)) if i not in used_symptoms]
        if s.release_note is not None:  # its note names the build of the client it was drawn for
            symptoms = [i for i in symptoms if platform_of(s, i) == self.platform]
        titles = [i for i in range(len(d.titles)) if i not in used_titles]
        if symptoms:  # another client's wording only when it has fewer first-person words
            s.symptom_variant = min(
                symptoms,
                key=lambda i: (
                    s.environment != "production" and _since_release(d.symptoms[i]),
                    s.environment != "production" and not _has_tester_core(d.symptoms[i]),
                    _casual(d.symptoms[i]),
                    _wording_voice(d.symptoms[i]),
                    platform_of(s, i) != self.platform,
                    i != s.symptom_variant,
                ),
            )
            if platform_of(s) != self.platform:  # a server-side defect run on another client: that client's build
                self.platform = platform_of(s)
                if s.environment == "production" and not older:  # a run on production is of the live release
                    self.reported = self.current()
                else:
                    self.reported = self.timeline.reported(self.platform, self.created, s.environment, older, self.r)
        if titles:
            s.title_variant = min(
                titles,
                key=lambda i: (
                    s.environment != "production" and _since_release(d.titles[i]),
                    casual_title(d.titles[i]),
                    _wording_voice(d.titles[i]),
                    i != s.title_variant,
                ),
            )

    def _title_on_device(self, s: Slot, d: Defect) -> None:
        """Give a report whose symptom names a tablet (or a phone) a title that does not name the other
        kind of device ("i tick things off on my phone" over an iPad's symptom), one no other ticket of
        the defect uses where there is one."""
        device = device_named(d, s.symptom_variant)
        other = {"tablet": _PHONE, "phone": _TABLET}.get(device or "")
        if other is None or not other.search(d.titles[s.title_variant]):
            return
        kin = {o.title_variant for o in self.slots if o is not s and o.scenario is d}
        fitting = [i for i in range(len(d.titles)) if not other.search(d.titles[i])]
        if fitting:
            s.title_variant = next((i for i in fitting if i not in kin), fitting[0])

    def _title_quotes_seen(self, s: Slot, d: Defect) -> None:
        """Give a customer's report a title that quotes only what its symptom wording quotes (no "projects fail
        with 'could not read block'" over "a long technical error": the database's words are in its logs, not on
        the customer's screen), one no other ticket of the defect uses where there is one."""
        shown = " ".join(_QUOTE.findall(d.symptoms[s.symptom_variant]))

        def seen(i: int) -> bool:
            return all(q in shown for q in _QUOTE.findall(d.titles[i]))

        if seen(s.title_variant):
            return
        kin = {o.title_variant for o in self.slots if o is not s and o.scenario is d}
        fitting = [i for i in range(len(d.titles)) if seen(i)]
        if fitting:
            s.title_variant = next((i for i in fitting if i not in kin), fitting[0])

    def _one_device(self, s: Slot, d: Defect, reporter: ReporterType) -> None:
        """Give a report from an unsupported device a symptom wording that names at most one kind of device
        (not "on my iPad and on my iPhone" beside "our warehouse iPod touch units are on iOS 15.7"), among
        those no other ticket of the defect uses and that name the same client, where there is one."""
        if not _both_kinds(d.symptoms[s.symptom_variant]):
            return
        kin = {o.symptom_variant for o in self.slots if o is not s and o.scenario is d}
        fitting = [
            i for i in range(len(d.symptoms)) if not _both_kinds(d.symptoms[i]) and platform_of(s, i) == self.platform
        ]
        if fitting:
            s.symptom_variant = next((i for i in fitting if i not in kin), fitting[0])

    def _customer_wording(self, s: Slot, d: Defect) -> None:
        """Give a customer's report a symptom wording that is not a tester's expected/actual,
        among those no other ticket of the defect uses and that name the same client."""
        kin = {o.symptom_variant for o in self.slots if o is not s and o.scenario is d}
        fitting = [
            i
            for i in range(len(d.symptoms))
            if i not in kin and platform_of(s, i) == self.platform and not _TESTER_VOICE.match(d.symptoms[i])
        ]
        if fitting:
            s.symptom_variant = fitting[0]

    @staticmethod
    def _log_asked_for(reporter: ReporterType, log: str | None, body: str) -> str | None:
        """Where the log a customer's ticket carries came from, for support's note that it added it
        (`comments.log_source`); None for no note: on a report from QA or an alert, and on a browser's console log
        whose writer pasted or attached console output of their own (nobody had to ask them for it)."""
        if reporter != "user" or not log:
            return None
        source = comments.log_source(log)
        return None if source == "browser" and _CONSOLE.search(body) else source

    def _fired(self, s: Slot, d: Defect) -> datetime:
        """When the alert `s` on `d` fired: once the failure had lasted its metric's span ("61% of opens over 15
        min") since the onset, after the report it follows (if any), a minute or more before its ticket was filed."""
        if id(s) not in self.fired:
            r = self.r
            onset = self._scope_values(s, d)["onset"]
            assert isinstance(onset, datetime)
            fired = onset + timedelta(minutes=alert_span(d), seconds=r.randrange(30, 150))
            if s.original is not None:
                fired = max(fired, self.base + timedelta(minutes=s.original.minute + 1, seconds=r.randrange(60)))
            self.fired[id(s)] = min(fired, self.created - timedelta(minutes=1))
        return self.fired[id(s)]

    def _log(self, s: Slot, d: Defect, reporter: ReporterType) -> str | None:
        """A log excerpt of `d` that no other ticket of the queue pasted, its last line a few minutes
        before the ticket was filed (an alert's, after the onset it states); None when every
        excerpt is taken (the alert then says what it measured and no more)."""
        r = self.r
        fresh = [i for i in range(len(d.logs)) if (d.id, i) not in self.used_logs]
        if not fresh:
            return None
        # the log of the workspace the ticket tells of: one with the amounts its words name, where they name any
        # (reader 56: "$1,200.00 ... charged $960.00" above a log of "total=430.00 EUR")
        told = _amounts(d.symptoms[s.symptom_variant])
        fresh = [i for i in fresh if told & _amounts(d.logs[i])] or fresh
        i = r.choice(fresh)
        self.used_logs.add((d.id, i))
        if reporter == "monitoring":  # an alert's log runs from the onset it states to when it fired
            last = min(self._fired(s, d) + timedelta(seconds=r.randrange(90)), self.created - timedelta(seconds=30))
        else:  # a report's log runs on past the onset (it shows the failure)
            since = self.created - self._onset(s)
            lead = min(40, int(since.total_seconds() // 60)) if since > timedelta(0) else 40
            last = self.created - timedelta(minutes=r.randrange(1, max(lead, 2)))
        # the failure began before its first report and before any alert on it fired; what changed came before that
        root = s.original or s
        if root.first_fault is None:
            root.first_fault = self._onset(s) - timedelta(seconds=r.randrange(15, 100))
        began: datetime | None = root.first_fault
        log = self.local(d.logs[i])
        # among the lines a service or client logs all the while: a log's length says nothing of its failure
        alert = reporter == "monitoring"
        routine = self.phrases.pool(f"log_routine_{comments.log_source(log)}", self.partition)
        # (an alert's excerpt ends when it fired, its routine lines close before its first error)
        log = logpad.pad(log, routine, logpad.extra_lines(r), r, after=not alert, spread_ms=2000 if alert else 8000)
        if reporter != "monitoring" and began is not None and self.created - began > LOG_SPAN and not _changes(log):
            began = None  # a report days after the onset carries lines from its own hour, not the onset's
        return retime(log, last, began, alert=alert, jitter_ms=r.randrange(1, 1000), filed=self.created)

    def _defect_text(
        self,
        s: Slot,
        d: Defect,
        reporter: ReporterType,
        repro: bool,
        evidence: list[tuple[str, str]],
        traps: list[str],
    ) -> tuple[str, str]:
        r, lv = self.r, self.b.level
        platform = PLATFORM_OF.get(d.component, "web")
        if reporter == "monitoring":
            assert d.alert is not None
            metric = self.local(d.alert.metric)
            body = self.pick("monitoring_body", time=f"{self._fired(s, d):%H:%M} UTC", metric=metric)
            scope_line = self._scope_sentence(s, d, alert=True)
            evidence.append((f"scope:{s.scope}", scope_line))
            evidence.append(("symptom", metric))
            # the tracker files an alert on the account of its first failing request, and stamps that account's plan
            # (one whose size fits the defect, and a workplace where the defect's words speak of one: no choir first
            # to fail on projects of more than 10,000 tasks)
            orgs = load_personas().organisations_of(self.partition, s.tier)
            workplace = of_a_workplace(" ".join([*d.symptoms, *d.steps]))
            org = self.account = r.choice(organisations_fitting(orgs, defect_seats(d), workplace))
            account = self.pick("monitoring_account", account=org.name, plan=PLAN_NAMES[s.tier])
            # an alert states what it measured; why it fails is for the log and the engineers, in a paragraph
            # or, as many alerting tools post, a line a field
            joint = "\n" if "\n" in body or r.random() < 0.3 else " "
            # (the account's name half the time: the tracker's account and plan fields already say it)
            named = [account] if r.random() < ALERT_ACCOUNT else []
            return self.local(titles.alert_title(d.alert.title)), joint.join([body, scope_line, *named])
        # a customer whom support answers tells a display glitch only: support's check says whether the data is intact
        self.checked = reporter == "user" and self.answered and bool(d.unchecked)
        wordings = d.unchecked if self.checked else d.symptoms
        symptom = self.local(wordings[s.symptom_variant % len(wordings)])
        if self.checked:
            self.support_note = self._own_pick(s, "support_checked")
        if s.scope == "degraded" and s.environment == "production":  # some tries fail, not every one
            symptom = composing.partly(symptom, self.partition)
        if d.impact != "critical":  # a terse customer writes only the first sentence
            # (against a wording of its headline other than its subject's: a body that is its subject again reads
            # as a form's echo)
            other = d.titles[(s.title_variant + 1) % len(d.titles)] if len(d.titles) > 1 else ""
            short = self.voice.shorten(symptom, self.local(other))
            # (one whose subject quotes what the screen said keeps it: no "Invoice PDF says 'montly subscription'"
            # over "Typos on our invoice PDF." with the words in the log alone)
            if all(q in short for q in _QUOTE.findall(d.titles[s.title_variant])):
                symptom = short
        if s.original is not None:  # a duplicate's reporter gives the context their own way
            symptom = retell.drop_said(symptom, set(s.original.said))
        symptom = kinds.closed(symptom)  # a casual wording without a full stop, before the next sentence
        evidence.append(("critical" if d.impact == "critical" else "symptom", symptom))
        lines: list[str] = []
        if s.role == "wont_fix":
            kind = _one_kind(symptom)  # the device the words as told name ("on my phone"): the old one is that kind
            if kind is not None:
                self.voice.tags = (self.voice.tags - {"phone", "tablet"}) | {kind}
            sentence = self.pick(f"unsupported_{platform}")
            evidence.append(("unsupported", sentence))
            lines.append(sentence)
        elif (
            d.component in PLATFORM_OF
            and r.random() < lv.rates.supported_decoy
            and reporter != "qa"
            and not browsers_named(symptom)  # one browser per ticket: the one the symptom names
        ):
            lines.append(self.pick(f"supported_{platform}"))
            traps.append("supported_platform_decoy")
        if s.environment != "production":
            # most test reports say where they ran; the rest leave it to the ticket's environment and build fields
            # (not every one a stock "staging only, production was not involved")
            if r.random() < ENV_TOLD:
                sentence = self._own_pick(s, f"env_{s.environment}", version=self.reported)
                evidence.append(("environment", sentence))
                lines.append(sentence)
        elif s.scope is not None and not d.exposure:  # scope lines tell failures; a leak works, for the wrong people
            # only support sees past one workspace (where it answers; else the customer tells their own scope)
            # (support answers once: a display glitch's answer is its check of the data)
            noted = reporter == "user" and s.scope in ("everyone", "segment") and self.answered and not self.checked
            # support names no group an alert of the queue names (it would copy the alert's words): where an alert on
            # this defect is in the queue, the customer tells their own scope
            if s.scope == "segment" and any(o.monitoring and o.scenario is d for o in self.slots):
                noted = False
            # (a customer's report of a fault a group meets each time: what tells the group is the situation it
            # describes, a composed defect's in its condition's clause; a line saying "and no other way" may go)
            own_group = reporter == "user" and s.scope == "segment" and not noted
            told = (composing.group_told(d.id, symptom) or symptom) if own_group else None
            way = str(self._scope_values(s, d)["workaround"]) if s.scope == "workaround" else ""
            handed = reporter == "user" and self.answered and way and not _wording_voice(way) and not self.checked
            if s.original is not None and way and not self._unsaid(s, d.workaround):
                pass  # its original said every way round it there is: a second reporter does not say one word for word
            elif handed and r.random() < SUPPORT_WORKAROUND:
                self.support_note = self._own_pick(s, "support_workaround", workaround=way)
            # (a fault that fails on and off says so and how often; one that fails each time may go unsaid: where
            # support notes who is hit, or where the report names the situation that makes them the group)
            elif d.intermittent or (r.random() < SCOPE_TOLD if noted else told is None or r.random() < SEGMENT_TOLD):
                sentence = self._scope_sentence(s, d, alert=False)
                evidence.append((f"scope:{s.scope}", sentence))
                lines.append(sentence)
            elif told is not None:
                evidence.append(("scope:segment", told))
            if noted:
                values = self._scope_values(s, d)
                who = self._told_otherwise(d, str(values["who"]))
                self.support_note = self._own_pick(s, f"support_scope_{s.scope}", **{**values, "who": who})
        lines += kinds.case_lines(self, s, evidence, traps)
        lines += notes.build_lines(self, s, evidence, traps)
        if s.role == "cannot_reproduce" or s.clean_retest:
            sentence = self.pick("retest_clean", version=self.current())
            for _ in range(20):  # a ticket that carries the failure's log is not said to have clean logs
                if "logged" not in self.voice.tags or not _LOG_CLAIM.search(sentence):
                    break
                sentence = self.pick("retest_clean", version=self.current())
            evidence.append(("retest", sentence))
        elif s.role == "resolved":
            sentence = self.pick("resolved_after_upgrade", version=self.current())
            evidence.append(("resolved", sentence))
        else:
            sentence = ""
        title = self.local(titles.defect_title(d, s.title_variant, reporter, r, self.pick))
        if reporter == "qa":
            title = _neutral_title(title)
        if reporter == "qa":
            symptom = _without_detail(symptom, d.id, evidence)
            steps = [self.local(step) for step in own_steps_of(s, d)]
            # QA states behaviour and the run's set-up; the mechanism stays in the log
            self.voice.tags |= browsers_named(" ".join([symptom, *lines, *steps]))  # a run names no other browser
            if s.scope == "everyone" and "api_calls" not in self.voice.tags:  # its scope line names every client
                self.voice.tags |= {"all_clients"}
            # the run's workspace is on a plan: the one the tracker stamps on the report (`customer_tier`)
            # (none beside a set-up step that says what the run used: "Use a workspace with more than 500 members")
            set_up = any(_SETUP.match(step) for step in steps)
            how = (
                [self._own_pick(s, "qa_setup", plan=PLAN_NAMES[s.tier])] if r.random() < QA_SETUP and not set_up else []
            )
            if s.environment != "production":  # no customer reaches this build: the tester's own words
                composed = composing.detail_of(d.id) is not None
                symptom, lines = _tester_words(symptom, lines, evidence, composed)
            # a customer's words (the symptom, a second problem seen on their own things) QA quotes as theirs
            # (none on a staging or development build, which no customer can reach)
            # (never the run's scope, which QA states in its own words: "our QA matrix", "the run goes green")
            scoped = {text for kind, text in evidence if kind.startswith("scope:")}
            theirs = [
                x
                for x in [symptom, *lines]
                if s.environment == "production"
                and x not in scoped
                and ((x == symptom and (_OWN_VOICE.search(x) or _casual(x))) or _POSSESSIVE.search(x))
            ]
            own = [x for x in [symptom, *how, *lines] if x not in theirs]
            quote = "\n".join(f"> {line}" for x in theirs for line in x.split("\n"))
            # a failure on every client was found by a run over every client, not a one-client pass
            clients = {"web", "mobile", "api"} & self.voice.tags
            every = s.scope == "everyone" or len(clients) > 1 or any("every client" in x for x in [symptom, *lines])
            # (an API suite's run is not a client matrix: its report names no web or phone client)
            opener = "opener_qa_matrix" if every and "api_calls" not in self.voice.tags else "opener_qa"
            # most testers start with what they saw; a few say first which run found it (none that quotes
            # the customer who found it, nor on a test build, whose own line says where it ran and on which build:
            # no "nightly run on web 2026.10.2-dev.146" beside "seen in my local development setup on" that build)
            found_by_run = not theirs and s.environment == "production" and r.random() < QA_OPENER_RATE
            parts = [self._own_pick(s, opener, version=self.reported)] if found_by_run else []
            parts += [f"{self.pick('qa_customer_quote')}\n{quote}"] if theirs else []
            parts += [" ".join(own)] if own else []
            if repro:
                parts.append(self._steps(s, steps, "steps_header_qa", qa=True, evidence=evidence))
            self.follow_up = sentence or None
            return title, "\n\n".join(parts)
        body = " ".join([symptom, *lines])
        self.voice.since = max(0, int((self.created - self._onset(s)).total_seconds() // 60))  # what its tries span
        if repro:  # a customer's steps are set in the ticket's time only when given (`local` draws nothing)
            # a customer's steps are on their own device ("on my iPad", not a tester's "on an iPhone or iPad")
            device = "my iPad" if self.device == "tablet" else "my iPhone"
            steps = [_EITHER_APPLE.sub(device, self.local(step)) for step in _own_steps(own_steps_of(s, d))]
            body += "\n\n" + self._steps(s, steps, "steps_header_user", qa=False, evidence=evidence)
        self.follow_up = sentence or None
        return title, self._user_wrap(body, traps, cosmetic=d.impact == "cosmetic")

    def _filed_on(self, reporter: ReporterType) -> str | None:
        """The account an alert is filed on (its first failing request's), whether or not its text names it."""
        return self.account.name if reporter == "monitoring" and self.account is not None else None

    def _own_pick(self, s: Slot, pool: str, **values: object) -> str:
        """`pick`, but for a duplicate a phrase that repeats no long sentence of its original (up to eight tries)."""
        said = set(s.original.said) if s.original is not None else set()
        text = self.pick(pool, **values)
        for _ in range(7):
            if not said or not retell.long_sentences(text) & said:
                break
            text = self.pick(pool, **values)
        return text

    def _unsaid(self, s: Slot, wordings: list[str]) -> list[str]:
        """`wordings` in this ticket's time; for a duplicate, only those its original did not use."""
        local = [self.local(w) for w in wordings]
        return retell.unsaid(local, set(s.original.said)) if s.original is not None else local

    def _steps(self, s: Slot, steps: list[str], header: str, qa: bool, evidence: list[tuple[str, str]]) -> str:
        """The steps in the reporter's style, recorded as evidence; a duplicate's in another style than its original's
        (a customer's as what they did, in the past, when the original listed them: never the same sentences)."""
        avoid = s.original.steps_style if s.original is not None else None
        s.steps_style = retell.draw_style(self.r, qa, avoid)
        if avoid is not None and avoid != "prose" and not qa:  # a second reporter tells what they did, in their words
            s.steps_style = "prose"
        own, head = kinds.retold_steps(self, s, steps), self.pick(header)
        text = retell.told(s.steps_style, own, head, self.r)
        said = s.original.said if s.original is not None else frozenset()
        if retell.long_sentences(text) & said:  # another duplicate of the report told them so: another style,
            # or (a tester has two) its steps in other words
            tries = [(style, own) for style in (retell.QA_STYLES if qa else retell.STYLES) if style != avoid]
            tries += [(s.steps_style, retell.reworded(steps, self.r)) for _ in range(6)]
            for style, words in tries:
                other = retell.told(style, words, head, self.r)
                if not retell.long_sentences(other) & said:
                    s.steps_style, text = style, other
                    break
        evidence.append(("steps", text))
        return text

    def _own_subjects(self, s: Slot, subjects: list[str]) -> list[str]:
        """A duplicate's subjects less those its original's title already reads as (a build, case or a word apart);
        when every title of its defect does, the feature's name alone, as people often title a report."""
        o = s.original
        if o is None or not o.subject:
            return subjects
        # (nor as another duplicate of it already filed reads: two testers do not title one fault alike either)
        told = [o.subject, *(x.subject for x in self.slots if x.original is o and x is not s and x.subject)]

        def fresh(title: str) -> bool:
            return not any(ts.titled_alike(earlier, title) for earlier in told)

        own = [t for t in subjects if fresh(t)]
        scenario = s.scenario
        if not own and isinstance(scenario, Defect):
            own = [self.local(t) for t in scenario.titles if fresh(self.local(t))]
        if not own:  # every title reorders the same words
            own = [t for t in self._feature_title(s) if fresh(t)]
        return own or subjects

    def _feature_title(self, s: Slot) -> list[str]:
        """The feature's name alone, as people often title a report (none for a story)."""
        if not isinstance(s.scenario, Defect) or not s.scenario.feature:
            return []
        feature = self.local(s.scenario.feature)
        return [feature[:1].upper() + feature[1:]]

    def _scope_values(self, s: Slot, d: Defect) -> dict[str, object]:
        """Who is hit, the rate, the onset and the counts: drawn once per defect, shared by its duplicates.

        The onset is shortly before the first report of the defect was filed.
        """
        root = s.original or s
        if root.scope_values is None:
            r = self.r
            onset = self._onset(root)
            root.scope_values = {
                "feature": self.local(d.feature),
                # the group hit, in one of its wordings
                "who": compose(self.local(r.choice(d.segment)), r) if d.segment else "",
                "workaround": self.local(r.choice(d.workaround)) if d.workaround else "",
                "pct": r.randrange(8, 51),  # severe degradation: more than 5% and at most half failing
                "time": f"{onset:%H:%M} UTC",
                "onset": onset,
                "m": r.randrange(12, 400),
                "n": r.randrange(1, 4),
            }
        if s.original is None:
            return root.scope_values
        if s.scope_values is None:  # its own reporter: own numbers when re-told, a workaround in other words
            # the same failure from its own reporter: their own counts, and when re-told days later their own onset
            # (one filed long after the onset met it in its own hour: its own start, as a re-told one has)
            began = root.scope_values["onset"]
            assert isinstance(began, datetime)
            values = (
                kinds.own_numbers(self, root.scope_values)
                if s.retold or self.created - began > LOG_SPAN
                else {**root.scope_values, **kinds.own_counts(self)}
            )
            others = self._unsaid(s, d.workaround)
            if others and values["workaround"] not in others:
                values["workaround"] = self.r.choice(others)
            if values["who"]:  # its own words for the group hit too, where the defect has others
                values = {**values, "who": self._told_otherwise(d, str(values["who"]))}
            s.scope_values = values
        return s.scope_values

    def _told_otherwise(self, d: Defect, who: str) -> str:
        """The group hit in another wording than `who` where the defect has one: support describes the
        accounts it looked at in its own words, not in an alert's, and a duplicate's reporter in theirs."""
        others = [x for x in d.segment if who not in variants(self.local(x))]  # (not the same one, worded apart)
        return compose(self.local(self.r.choice(others)), self.r) if others else who

    def _scope_sentence(self, s: Slot, d: Defect, alert: bool) -> str:
        pool = f"alert_{s.scope}" if alert else self.voice.scope_pool(f"scope_{s.scope}")
        values = self.voice.own_counts(self._scope_values(s, d))
        if s.scope == "workaround" and self.voice.persona.reporter == "qa" and d.workaround:
            # a tester words the way round it as a tester would: the wording with the fewest first-person words
            # (no "putting it into Drive ourselves works" in a test run)
            # (of those its original has not said: a duplicate never repeats it)
            options = self._unsaid(s, d.workaround) or [self.local(w) for w in d.workaround]
            values = {**values, "workaround": min(options, key=_wording_voice)}
        bare_share = {"user": BARE_WORKAROUND, "qa": QA_BARE_WORKAROUND}.get(self.voice.persona.reporter, 0.0)
        if s.scope == "workaround" and bare_share and self.r.random() < bare_share:
            bare = str(values["workaround"])  # the way round it, told without a verdict on it
            if s.original is None or not retell.long_sentences(bare) & set(s.original.said):
                return bare
        sentence = self._own_pick(s, pool, **values)
        first = sentence.split(" ", 1)[0]
        return sentence[:1].upper() + sentence[1:] if first[1:].islower() else sentence  # "{feature} fails..."

    def _user_wrap(self, body: str, traps: list[str], cosmetic: bool = False) -> str:
        """A customer's framing: quiet opener, claims and planted instructions, then the reporter's voice.
        A `cosmetic` fault ("nothing breaks") draws no outburst: a loud writer shows it in the subject line."""
        r, rates = self.r, self.b.level.rates
        temper = self.voice.persona.temper  # one temper per person: the claims below never pull two ways
        opener = None
        # (not one who saw another company's data: alarmed, not offhand about it)
        if temper == "quiet" and r.random() < TEMPER_SHOWS and "exposure" not in self.voice.tags:
            if BLOCKED.search(body):  # a writer who cannot work at all is polite about it, not dismissive
                self.voice.tags |= {"blocked"}
            opener = self.pick("quiet_opener")
            traps.append("quiet")
        extra: list[str] = []
        # no demand for a P0 on a report whose writer works out that the fault is on their side, nor after the
        # writer's own words play it down ("It's nothing dramatic"): one voice a ticket
        hedged = ts.may_match(body, _HEDGED_WORDS) and _HEDGED.search(body) is not None
        pressing = temper == "pressing" and "invalid" not in self.voice.tags and r.random() < TEMPER_SHOWS
        if pressing and not hedged:
            extra.append(self.pick("urgency_claim"))
            traps.append("urgency_claim")
        if hedged:
            traps.append("hedged")  # no loud subject line either
        outburst = not cosmetic and not hedged and self.voice.tags.isdisjoint({"wish", "invalid"})
        if temper == "loud" and not hedged and "invalid" not in self.voice.tags and r.random() < TEMPER_SHOWS:
            # a loud writer's temper shows: anger at a fault in the body and the subject alike (never over a calm
            # body); a request or a glitch in looks has no anger in its body, and shouts in its subject line only
            # (as often as a fault does, so that a loud subject says nothing of what the ticket is)
            self.voice.tags |= {"shouted"}
            if outburst:
                extra.append(self.pick("loud_sentence"))
                traps.append("outburst")
        planted = None
        if r.random() < rates.injection and not self.injected:
            planted = self.pick("injection")
            traps.append("injection")
            self.injected = True
        self.voice.tags |= browsers_named(body)  # what it pastes comes from the browser it names
        if _names_day(body, self.created):  # "the 12 April billing run" on 12 April: not put off since Monday
            self.voice.tags |= {"fresh"}
        wrapped = self.voice.wrap(body, extra, opener, self.attachments)
        if planted is None:
            return wrapped
        # not in the writer's voice: a line someone else put there, below the sign-off, often hidden from a
        # reader who sees the rendered page (reader 55 S1: six in the writers' own voices read as a test harness)
        hidden = not planted.startswith("<") and r.random() < HIDDEN_PLANT
        line = f"<!-- {planted} -->" if hidden else planted
        quoted = QUOTED_HEAD.search(wrapped)  # an email's quoted old thread stays at its foot
        if quoted is None:
            return f"{wrapped}\n\n{line}"
        return f"{wrapped[: quoted.start()]}{line}\n\n{wrapped[quoted.start() :]}"

    def _candidates(
        self, component: str, misfiled: list[str], traps: list[str], alert: bool = False, qa: bool = False
    ) -> list[str]:
        """The form's guesses: the component and some it is often mistaken for, or (misfiled) only those; an alert
        is raised on the service it measures, so its guesses always hold the component. There is always at least
        one guess beside it: a lone guess would hand out the component (and so the team) to a policy that reads
        nothing, which made a constant sev2 earn 0.15 on generated easy. A tester (`qa`) who knows the product
        names one part beside it, next to it, where there is one."""
        r = self.r
        decoys = list(misfiled) or [c for c in self.b.world.components if c != component]
        k = r.choice([1, 1, 2, 2])
        owner = self.b.world.owner
        # one guess beside it: often a part next to it of another team (the form's user looked near). The pair is
        # symmetric (`kinds.neighbours`), so it does not say which is right, nor, of two teams, whose it is; two
        # near guesses around it, or a near one of its own team, would
        near = [c for c in kinds.neighbours(component) if owner[c] != owner[component]]
        if (k == 1 or qa) and near and not misfiled and (qa or r.random() < NEAR_GUESS):
            chosen = [r.choice(near)]
        else:
            chosen = r.sample(decoys, min(k, len(decoys)))
        if r.random() < self.b.level.rates.misfiled and not alert:
            traps.append("misfiled")
            return chosen or [r.choice(decoys)]
        out = [component, *chosen]
        r.shuffle(out)
        return out
