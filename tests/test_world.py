"""One world per ticket: cause before effect, the right build, the right finder, counted over many queues.

A checker that reads generated queues as a blind reader would and counts each kind of
contradiction of time and state: a log line after the ticket was filed (logcat stamps too), an
alert that fires before the first failing line of its own log, a change that rolls out after the
first report of the defect it caused, a QA ticket on a staging or development build quoting a
customer (no customer can reach that build), "before release" or a test run on a production
build that is not the current one, a web-only pass claiming other clients, a phone app "on a
cluster", and two finders in one ticket. Every count must be zero; the planted examples show
that each check can fail. Run as a script to print the counts per split:

    .venv/bin/python tests/test_world.py [instances per level]
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta
from functools import cache
from itertools import pairwise

import planting
import pytest

from openenv_bug_triage import chronology
from openenv_bug_triage.catalogue import load_catalogue
from openenv_bug_triage.generator import GeneratedTask, TicketFacts, generate, load_levels
from openenv_bug_triage.generator.files import FILE_NAME
from openenv_bug_triage.generator.render import weekday_bound
from openenv_bug_triage.models import Release, Ticket
from openenv_bug_triage.world import load_world

LEVELS = tuple(level.task_id for level in load_levels().levels if level.dynamics is None)
"""The static levels: a live level's queue is drawn by the same code as hard's and expert's (the world of its
history and replies is checked in test_live_generator)."""
SPLITS = ("train", "validation", "test")
PER_LEVEL = 12

Item = tuple[Ticket, TicketFacts, tuple[Release, ...]]

FAULT = re.compile(r"\b(?:ERROR|WARN|FATAL|CRIT\w*|E|W)\b|\b(?:fail\w*|error|impaired|timeout|denied|-> 5\d\d)\b")
"""A log line that shows something going wrong (a level or a failure word)."""
FAILED = re.compile(r"\b(?:ERROR|FATAL|CRIT\w*|E)\b|\b(?:fail\w*|error|impaired|timeout|denied|-> 5\d\d)\b")
"""A log line that shows the failure itself, not a warning before it (what an alert fires on)."""
CAUSE = re.compile(
    r"\b(?:deploy\w*|rolled out|rollout|migration \S+ (?:started|applied)|config \S+ applied"
    r"|migration from \S+ marked complete|pg_restore finished)\b",
    re.I,
)
"""A log line that records a change: a deploy, a rollout, a migration."""
FIRED = re.compile(r"\b(?P<H>[0-2]\d):(?P<M>[0-5]\d) UTC\b")
"""The time an alert says its condition was met (`HH:MM UTC`)."""
QUOTE = re.compile(r"^> ", re.M)
PRE_RELEASE_RUN = re.compile(r"\bbefore release\b|\brelease (?:sign-off|checklist)\b", re.I)
NAMED_BUILD = re.compile(
    r"(?:web|iOS app|Android app|API v2 build) (?P<version>\d{1,4}\.\d{1,2}\.\d{1,3})(?P<pre>-(?:rc|dev)\.\d+)?"
)
WEB_PASS = re.compile(r"cross-browser", re.I)
CLUSTER = re.compile(r"\bcluster running\b", re.I)
QA_FINDER = re.compile(r"\b(?:Logged|Filed|Reproduced|Caught) by QA\b|\btesters? saw\b", re.I)
DEV_FINDER = re.compile(r"\b(?:Found|Seen|Hit) by a developer\b", re.I)
DIALECTS: dict[str, re.Pattern[str]] = {
    "chromium": re.compile(r"Cannot read properties of (?:undefined|null)|net::ERR_"),
    "safari": re.compile(r"is not an object \(evaluating"),
    "firefox": re.compile(r"\b[\w.]+ is (?:undefined|null)\b(?! or)|Source map error"),
}
"""How each browser family words a console error: a pasted console is in one of these."""
BROWSER_NAMES: dict[str, re.Pattern[str]] = {
    "chromium": re.compile(r"\b(?:Chrome|Chromium|Edge)\b"),
    "safari": re.compile(r"\bSafari\b"),
    "firefox": re.compile(r"\bFirefox\b"),
    "ie": re.compile(r"\bInternet Explorer\b|\bIE ?1[01]\b|\bTrident/7\.0\b"),
}
BROWSER_VERSION = re.compile(r"\b(?P<name>Chrome|Edge|Firefox|Safari) (?P<v>\d+(?:\.\d+)?)\b")
INSTALLED_WEB = re.compile(r"\bweb \d{4}\.\d{1,2}\.\d{1,2} installed\b|\binstalled web \d{4}\.", re.I)
MONTH_THING = re.compile(
    r"\b(?P<month>" + "|".join(chronology.MONTHS) + r")(?:'s)? (?:invoice|bill|statement|report|payroll|export|payment)"
)
PAID_CHARGE = re.compile(r"\bplan=(?:pro|business|enterprise)\b|\bcharge \S+ succeeded\b")
_PLATFORM_WORDS = {"web": "web", "iOS app": "ios", "Android app": "android", "API v2 build": "api"}


def created(t: Ticket) -> datetime:
    at = t.created_at
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def log_times(log: str, filed: datetime) -> list[tuple[datetime, str]]:
    """Each timestamped line of `log` with its instant (ISO stamps, and logcat `MM-DD hh:mm:ss` read as
    `chronology.logcat_instant` reads them), in the order written."""
    out: list[tuple[datetime, str]] = []
    for line in log.split("\n"):
        m = chronology.ISO.search(line)
        if m is not None and m["H"] is not None:
            out.append((chronology.iso_instant(m), line))
            continue
        lc = chronology.LOGCAT.match(line)
        if lc is not None:
            at = chronology.logcat_instant(lc, filed)
            if at is not None:
                out.append((at, line))
    return out


# --------------------------------------------------------------------------- checks per ticket


def log_after_filed(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A log line stamped after the ticket was filed (logcat's short stamps included)."""
    if not t.log_excerpt:
        return False
    cutoff = created(t) + timedelta(minutes=1)
    return any(at >= cutoff for at, _ in log_times(t.log_excerpt, created(t)))


def release_not_out(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A build named anywhere in the ticket (a client version in a log too) that its platform had not
    released when the ticket was filed, or that is not in the queue's calendar."""
    text = f"{t.title}\n{t.description}\n{t.log_excerpt or ''}"
    return any(x.kind == "release" for x in chronology.late(text, created(t), releases))


def alert_before_fault(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """An alert says it fired before the first failing line of its own log."""
    if t.reporter_type != "monitoring" or not t.log_excerpt:
        return False
    m = FIRED.search(t.description)
    stamped = log_times(t.log_excerpt, created(t))
    faults = [at for at, line in stamped if FAILED.search(line.split(" ", 2)[-1])]
    faults = faults or [at for at, line in stamped if FAULT.search(line.split(" ", 2)[-1])]
    if m is None or not faults:
        return False
    filed = created(t)
    fired = filed.replace(hour=int(m["H"]), minute=int(m["M"]), second=59)
    if fired > filed + timedelta(minutes=1):
        fired -= timedelta(days=1)
    return min(faults) > fired


def qa_quotes_customer_off_production(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A QA ticket on a staging or development build quotes a customer (none can reach that build)."""
    return t.reporter_type == "qa" and t.environment != "production" and bool(QUOTE.search(t.description))


def _builds(text: str) -> list[tuple[str, str, str | None]]:
    out = []
    for m in NAMED_BUILD.finditer(text):
        before = text[: m.start()]
        word = next(w for w in _PLATFORM_WORDS if m[0].startswith(w))
        del before
        out.append((_PLATFORM_WORDS[word], m["version"], m["pre"]))
    return out


def _current(releases: tuple[Release, ...], platform: str, at: datetime) -> str | None:
    live = [r for r in releases if r.platform == platform and r.released_at <= at]
    return max(live, key=lambda r: r.released_at).version if live else None


def qa_run_on_old_build(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A QA ticket in production whose opening run names a build that is not the current one, or says
    "before release" of a build already out; an alert on production stamped with a superseded build."""
    if t.reporter_type == "monitoring" and t.version and t.environment == "production":
        return any(pre is None and v != _current(releases, p, created(t)) for p, v, pre in _builds(t.version))
    if t.reporter_type != "qa":
        return False
    first = t.description.split("\n", 1)[0]
    if t.environment == "production" and PRE_RELEASE_RUN.search(first):
        return True
    if t.environment != "production" or f.retest_clean or f.fixed_in_release:
        return False
    builds = _builds(first)
    return any(pre is None and v != _current(releases, p, created(t)) for p, v, pre in builds)


EVERY_CLIENT = re.compile(r"\bweb, iOS, Android\b|\bevery client\b|\bweb, both mobile apps\b", re.I)
ONE_CLIENT_RUN = re.compile(
    r"cross-browser|smoke test of|acceptance run for|manual test pass on|regression of|exploratory testing of"
    r"|localisation test round on|end-to-end run on|release checklist|release sign-off|unrelated fix in",
    re.I,
)


def one_client_run_claims_all(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A QA run of one client's build that reports results on every client."""
    if t.reporter_type != "qa":
        return False
    first, _, rest = t.description.partition("\n")
    return bool(ONE_CLIENT_RUN.search(first) and EVERY_CLIENT.search(rest))


QUOTED_RUN = re.compile(r"^> .*(?:\bQA\b|\bmatrix\b|\b(?:Run|Case|run|case) (?:passes|goes green)\b)", re.M)
EVERY_DEVICE = re.compile(
    r"\b(?i:every|all|any) devices?\b|\b(?i:all) clients and\b|\bweb, iOS, Android\b|\b(?:Browser|Web), (?:iPhone|Android)\b"
)


def quote_holds_the_run(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A customer's words QA quotes that hold the run's own ("in our QA matrix", "Run goes green that way")."""
    return t.reporter_type == "qa" and QUOTED_RUN.search(t.description) is not None


def api_report_claims_devices(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A report met through the API (its build an API build) that says every device or client fails (an alert
    measures the service, whose clients are all of them)."""
    api = (t.version or "").startswith("API") and t.reporter_type != "monitoring"
    return api and EVERY_DEVICE.search(t.description) is not None


def web_pass_claims_other(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A cross-browser pass on a build that is not the web app's."""
    if t.reporter_type != "qa" or not WEB_PASS.search(t.description):
        return False
    return any(p != "web" for p, _, _ in _builds(t.description.split("\n", 1)[0]))


def phone_on_cluster(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A phone app's build said to run "on a cluster"."""
    return bool(CLUSTER.search(t.description)) and any(p in ("ios", "android") for p, _, _ in _builds(t.description))


def two_finders(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """One ticket found both by QA and by a developer."""
    return bool(QA_FINDER.search(t.description) and DEV_FINDER.search(t.description))


def console_of_another_browser(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A pasted console in the dialect of a browser family the ticket does not name, while it names one
    (or any console in a ticket about Internet Explorer, which cannot run the app). A form's unfilled example
    ("Browser/version: <e.g. Chrome 145>") names no browser of the writer's."""
    text = FORM_EXAMPLE.sub("", f"{t.title}\n{t.description}")
    named = {b for b, p in BROWSER_NAMES.items() if p.search(text)}
    spoken = {b for b, p in DIALECTS.items() if p.search(t.description)}
    return bool(named and spoken and (spoken - named or "ie" in named))


FORM_EXAMPLE = re.compile(r"<e\.g\.[^>]*>")
"""An in-app form's example left in place of an answer."""


def two_versions_of_a_browser(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """One browser named at two versions in one ticket ("Edge 120" and "Edge 130"); a form's unfilled example
    ("Browser/version: <e.g. Chrome 144>") is the form's, not the writer's."""
    seen: dict[str, set[str]] = defaultdict(set)
    for m in BROWSER_VERSION.finditer(FORM_EXAMPLE.sub("", f"{t.title}\n{t.description}")):
        seen[m["name"]].add(m["v"].split(".")[0])
    return any(len(v) > 1 for v in seen.values())


def web_app_installed(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """The web app spoken of as installed."""
    return bool(INSTALLED_WEB.search(t.description))


def month_after_filed(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A month's invoice, report or statement named for a month that has not begun when the ticket was filed."""
    filed = created(t)
    for m in MONTH_THING.finditer(f"{t.title}\n{t.description}\n{t.log_excerpt or ''}"):
        month = chronology.MONTHS.index(m["month"]) + 1
        if 0 < month - filed.month <= 6:
            return True
    return False


def free_tier_charged(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A free-tier customer whose log shows a paid plan's charge (not an upgrade from the free plan)."""
    log = t.log_excerpt or ""
    upgrade = re.search(r"checkout|upgrad", log, re.I)
    return t.customer_tier == "free" and t.reporter_type == "user" and bool(PAID_CHARGE.search(log)) and not upgrade


# --------------------------------------------------------------------------- one product state, one vantage

WORLD = load_world()
MISFILED: defaultdict[str, set[str]] = defaultdict(set)
"""Per component, what the catalogue says its defects are often filed under instead."""
_CATALOGUE = load_catalogue()
for _scenario in [*_CATALOGUE.defects, *_CATALOGUE.features, *_CATALOGUE.invalid, *_CATALOGUE.vague]:
    MISFILED[_scenario.component].update(_scenario.misfiled)
SERVER_LOGS = re.compile(
    r"\bserver(?:-side)? log|\bservice logs?\b|\bour logs\b|\blog lines from our side\b|\bfound your requests in our logs\b",
    re.I,
)
"""A comment that says the attached log is the service's own (not "a known issue on our side", said of no log)."""
IOS_LOG = re.compile(r"^\S+ \S+ \w+\[\d+\] <\w+>|^Incident Identifier:|^Exception Type:", re.M)
BROWSER_LOG = re.compile(r"^\[web-app\]|Uncaught |^\s*at \S+ \(\S+\.js")
APPLE_DEVICE = re.compile(r"\b(?i:iphone|ipad)\b")
ANDROID_DEVICE = re.compile(r"\b(?:(?i:galaxy|samsung)|Pixel|Motorola|Moto [A-Z]|Nokia|OnePlus|Xiaomi|Redmi|Huawei)\b")
RUN_DEVICES = re.compile(r"\b(?:Handsets?|Devices?(?: in the run)?|Phones?|Tested on|Device/OS):[^.\n]*")
"""The line of a test run that lists its handsets."""
RECORDING_OF = {"ios": re.compile(r"\bRPReplay_\d+"), "android": re.compile(r"\bScreen_Recording_\d{8}")}
BROWSER_IDIOM = re.compile(r"\b(?:until|till) I (?:reload|refresh)\b|\brefresh the page\b|\breload the page\b", re.I)
ON_LAPTOP = re.compile(r"\blaptop\b", re.I)
TEST_DATA = re.compile(r"\bseeded\b|\bfixture\b|\bload-test workspace\b|\bdemo workspace\b", re.I)
HEADCOUNT = re.compile(
    r"\b\d+ (?:of|out of) (?:the |our )?\d+ (?:people|members|users|of us|colleagues|seats)\b|\b\d+ out of \d+ have\b"
    r"|\bout of \d+ (?:people|members|users)\b",
    re.I,
)
ONE_MAILBOX = re.compile(
    r"\b(?:invoice|billing) emails?\b.{0,80}@|\binvoices?\b.{0,60}\b(?:currency|pounds|euros|dollars)\b", re.I | re.S
)
NO_WORKAROUND = re.compile(
    r"\bno workaround\b|\bno way round\b|\bnothing gets round it\b|\bwe have no detour\b|\bnone of the usual tricks\b",
    re.I,
)
USER_SERVER_KNOWLEDGE = re.compile(r"\breach(?:ed|es)? the server\b|\bnever (?:got|made it) to the server\b", re.I)
RELATIVE_MONTH = re.compile(
    r"\b(?:before|since|until|after|stopped in|started in) (?P<month>" + "|".join(chronology.MONTHS) + r")\b"
)
WEEKDAY_UPDATE = re.compile(r"\b(?P<day>" + "|".join(chronology.WEEKDAYS) + r")'s (?:update|release|upgrade)\b")


def _platform(t: Ticket) -> str | None:
    """The client the ticket's version field names (None for a ticket without one)."""
    for word, platform in _PLATFORM_WORDS.items():
        if t.version and t.version.startswith(word):
            return platform
    return None


def _log_source(log: str) -> str:
    """Where a pasted log comes from: `android` (logcat), `ios` (device log or crash report),
    `browser` (the web app's console) or `server`."""
    if chronology.LOGCAT.search(log):
        return "android"
    if IOS_LOG.search(log):
        return "ios"
    lines = [line for line in log.split("\n") if line.strip()]
    return "browser" if all(BROWSER_LOG.search(line) for line in lines) else "server"


def service_off_facts(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """The `service` field names another service than the defect's own, except the one a wrong-cause
    reporter blames or, on a misfiled ticket, one the defect is often mistaken for (their first candidate)."""
    allowed = {WORLD.service_of[f.component]}
    if f.case == "wrong_cause" or ("misfiled" in f.traps and t.component_candidates[0] in MISFILED[f.component]):
        allowed.add(WORLD.service_of[t.component_candidates[0]])
    return t.service not in allowed


def server_logs_over_device_log(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A comment or the text calls the attached log the service's own while it is a device log or a
    browser console."""
    if not t.log_excerpt or _log_source(t.log_excerpt) == "server":
        return False
    said = "\n".join(c.text for c in t.comments if c.role == "support")
    return bool(SERVER_LOGS.search(said))


def comment_names_unreleased_build(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A comment names a build its platform had not released when the comment was written."""
    return any(
        x.kind == "release" for c in t.comments for x in chronology.late(c.text, c.time.replace(tzinfo=UTC), releases)
    )


def log_out_of_order(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A log whose timestamped lines go back in time."""
    if not t.log_excerpt:
        return False
    times = [at for at, _ in log_times(t.log_excerpt, created(t))]
    return any(b < a for a, b in pairwise(times))


def month_not_yet(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """ "Before October" or "since October" in a ticket filed in May: a month that has not come yet this
    year and, read as last year's, too long ago to say so (more than four months back)."""
    filed = created(t)
    texts = [t.title, t.description, *(c.text for c in t.comments)]
    months = [chronology.MONTHS.index(m["month"]) + 1 for x in texts for m in RELATIVE_MONTH.finditer(x)]
    return any(month > filed.month and (filed.month - month) % 12 > 4 for month in months)


def update_on_no_release_day(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """ "Before Friday's update" while no release came out on the last Friday before the ticket (or that day)."""
    filed = created(t)
    for day in weekday_update_days(t):
        if not any(r.released_at.date() == day and r.released_at <= filed for r in releases):
            return True
    return False


def weekday_update_days(t: Ticket) -> list[date]:
    """The days a ticket's "Friday's update" names: the last such weekday on or before it was filed."""
    filed = created(t)
    return [
        (filed - timedelta(days=(filed.weekday() - chronology.WEEKDAYS.index(m["day"])) % 7)).date()
        for m in WEEKDAY_UPDATE.finditer(f"{t.title}\n{t.description}")
    ]


DATED_UPDATE = re.compile(r"\b(?P<day>\d{1,2}) (?P<month>" + "|".join(chronology.MONTHS) + r") (?:update|release)\b")


def update_after_own_build(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A report on an installed app's build dating the update it blames after that build came out ("Prior to
    the 5 June release" on iOS app 5.11.0 of 3 May): the reporter never took the update they name."""
    platform = _platform(t)
    if t.environment != "production" or platform not in ("ios", "android") or not t.version:
        return False
    own = next((r for r in releases if r.platform == platform and r.version == t.version.split(" ")[-1]), None)
    if own is None:
        return False
    filed, days = created(t), weekday_update_days(t)
    for m in DATED_UPDATE.finditer(f"{t.title}\n{t.description}"):
        month = chronology.MONTHS.index(m["month"]) + 1
        days.append(filed.date().replace(year=filed.year - (month > filed.month), month=month, day=int(m["day"])))
    return any(day > own.released_at.date() for day in days)


def phones_of_two_platforms(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A tester's run of one phone app naming a handset of the other platform ("iPhone 13 mini and
    Galaxy A54" in an iOS app run), or a title naming a handset of another platform than the build."""
    handset = {"ios": APPLE_DEVICE, "android": ANDROID_DEVICE}
    other = {"ios": "android", "android": "ios"}
    platform = _platform(t)
    if platform not in other:
        return False
    run = " ".join(RUN_DEVICES.findall(t.description))
    in_run = t.reporter_type == "qa" and f.component == f"{platform}-app" and handset[other[platform]].search(run)
    own_word = {"ios": re.compile(r"(?i)\bios\b"), "android": re.compile(r"(?i)\bandroid\b")}[platform]
    titled = handset[other[platform]].search(t.title) and not (
        handset[platform].search(t.title) or own_word.search(t.title)
    )
    return bool(in_run or titled)


def recording_of_another_platform(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A screen recording named the way another platform names them (iOS's `RPReplay_` on web or Android)."""
    named = {p for p, _, _ in _builds(t.description)}
    platform = _platform(t) or (named.pop() if len(named) == 1 else None)
    if platform is None:  # a report that names no one client may come from any phone
        return False
    return any(p != platform and pattern.search(t.description) for p, pattern in RECORDING_OF.items())


PHONE_RECORDING = re.compile(
    r"\b(?:recording from my phone|recorded from my phone|phone recording|phone's screen recording)\b", re.I
)
IPAD = re.compile(r"\b(?i:ipad|tablet)\b")
IPHONE = re.compile(r"\b(?i:iphone|phone)\b(?! recording|'s screen)")


def phone_recording_of_a_tablet(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A report about an iPad or a tablet, and no phone, whose recording is said to come from a phone."""
    text = f"{t.title}\n{t.description}"
    rest = PHONE_RECORDING.sub("", text)
    return bool(PHONE_RECORDING.search(text) and IPAD.search(text) and not IPHONE.search(rest))


def browser_idiom_in_app(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A browser's "until I reload" in a report on a phone app."""
    return _platform(t) in ("ios", "android") and bool(BROWSER_IDIOM.search(t.description))


def phone_app_on_laptop(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A phone app's build said to run on a laptop (in one sentence)."""
    sentences = re.split(r"(?<=[.!?])\s+|\n", t.description)
    return any(ON_LAPTOP.search(x) and any(p in ("ios", "android") for p, _, _ in _builds(x)) for x in sentences)


def seeded_data_in_production(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """Seeded users, fixtures or a load-test copy in production (where the workspaces are customers'),
    or quoted by support, who speak of customers."""
    support = "\n".join(c.text for c in t.comments if c.role == "support")
    quoted = "\n".join(line for line in t.description.split("\n") if line.startswith("> "))
    in_prod = t.reporter_type == "qa" and t.environment == "production" and bool(TEST_DATA.search(t.description))
    return in_prod or bool(TEST_DATA.search(support) or TEST_DATA.search(quoted))


def headcount_on_account_wide(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """People counted on what is one per account (invoices, the invoice mailbox, the plan)."""
    account_wide = f.component in ("invoicing", "payments") or bool(ONE_MAILBOX.search(t.description))
    return account_wide and bool(HEADCOUNT.search(t.description))


def workaround_then_none(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """ "No workaround" in a ticket whose evidence gives one."""
    gives = any(rule == "workaround" or rule.startswith("workaround") for rule, _ in f.evidence)
    return gives and bool(NO_WORKAROUND.search(t.description))


def user_knows_server(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A customer saying what reached the server (they cannot see it)."""
    return t.reporter_type == "user" and bool(USER_SERVER_KNOWLEDGE.search(t.description))


PASTED_SUCCESS = re.compile(r"\bHTTP/\d(?:\.\d)? 200 OK\b|\bresult: 200 OK\b")
"""A pasted response or call record that says the request succeeded."""
FAILED_STATUS = re.compile(r"\b[45]\d\d (?:[A-Z][a-z]+|error)\b|\b(?:returns?|status|with an?) [45]\d\d\b")
"""A request answered with an HTTP error ("returns 422", "404 Not Found")."""


def success_pasted_beside_error(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A report whose pasted response says 200 OK while its text says the request was answered with an error."""
    text = f"{t.title}\n{t.description}"
    return bool(PASTED_SUCCESS.search(text)) and bool(FAILED_STATUS.search(PASTED_SUCCESS.sub("", text)))


INVOICE_NUMBER = re.compile(r"\binv[_-](?P<y>20\d\d)[_-](?P<m>0[1-9]|1[0-2])", re.I)
"""An invoice number with its year and month in it (`inv_2026_11_48120`)."""
STALE = timedelta(days=1)


def invoice_of_a_later_month(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """An invoice numbered for a month after the ticket was filed (November's number in June)."""
    filed = created(t)
    text = f"{t.title}\n{t.description}\n{t.log_excerpt or ''}"
    return any((int(m["y"]), int(m["m"])) > (filed.year, filed.month) for m in INVOICE_NUMBER.finditer(text))


def log_days_before_report(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A customer's or tester's log that ends a day or more before the report it goes with ("since this
    morning", and every line three days old), unless it records the change that began the failure."""
    if t.reporter_type == "monitoring" or not t.log_excerpt:
        return False
    stamped = log_times(t.log_excerpt, created(t))
    if not stamped or any(CAUSE.search(line) for _, line in stamped):
        return False
    # a log whose dates carry their weekdays moves by whole weeks (a weekend's runs stay on the weekend), and a
    # date it names a day ahead of its stamps stays on or before the day the report was filed: up to eight days
    stale = timedelta(days=8) if weekday_bound(t.log_excerpt) else STALE
    return created(t) - max(at for at, _ in stamped) > stale


CLOCKED = (
    (re.compile(r"\bthis morning\b"), lambda at, gap: at.hour >= 5),
    (re.compile(r"\bafter lunch\b"), lambda at, gap: 12 <= at.hour < 20 and gap >= timedelta(hours=1)),
    (re.compile(r"\ban hour ago\b"), lambda at, gap: gap >= timedelta(hours=1)),
)
"""A follow-up's clock words, and when they can be written: "this morning" once the morning has come,
"again after lunch" after noon and an hour or more after the report."""


def follow_up_off_the_clock(t: Ticket, f: TicketFacts, releases: tuple[Release, ...]) -> bool:
    """A reporter's follow-up whose words do not fit its time ("We hit it again after lunch." at 03:21,
    21 minutes after filing)."""
    for c in t.comments:
        if c.role != "reporter":
            continue
        at = c.time if c.time.tzinfo is not None else c.time.replace(tzinfo=UTC)
        if any(p.search(c.text) and not fits(at, at - created(t)) for p, fits in CLOCKED):
            return True
    return False


TICKET_CHECKS: dict[str, Callable[[Ticket, TicketFacts, tuple[Release, ...]], bool]] = {
    "log line after the ticket": log_after_filed,
    "build not out (or not in the calendar)": release_not_out,
    "alert fired before its first failing line": alert_before_fault,
    "QA off production quotes a customer": qa_quotes_customer_off_production,
    "QA run or alert on a superseded or released build": qa_run_on_old_build,
    "web pass claims another client": web_pass_claims_other,
    "one-client run claims every client": one_client_run_claims_all,
    "phone app on a cluster": phone_on_cluster,
    "two finders in one ticket": two_finders,
    "console from another browser": console_of_another_browser,
    "two versions of one browser": two_versions_of_a_browser,
    "web app installed": web_app_installed,
    "month named before it began": month_after_filed,
    "free tier charged for a paid plan": free_tier_charged,
    "service field off the facts": service_off_facts,
    "server logs said of a device log": server_logs_over_device_log,
    "comment names a build not out": comment_names_unreleased_build,
    "log lines out of order": log_out_of_order,
    "month not yet come": month_not_yet,
    "update on a day without a release": update_on_no_release_day,
    "update after the build it reports": update_after_own_build,
    "phones of two platforms": phones_of_two_platforms,
    "recording named by another platform": recording_of_another_platform,
    "browser idiom in a phone app": browser_idiom_in_app,
    "phone recording of a tablet": phone_recording_of_a_tablet,
    "phone app on a laptop": phone_app_on_laptop,
    "test data in production or from support": seeded_data_in_production,
    "headcount on an account-wide thing": headcount_on_account_wide,
    "no workaround after a workaround": workaround_then_none,
    "customer knows what reached the server": user_knows_server,
    "invoice numbered for a later month": invoice_of_a_later_month,
    "log a day older than its report": log_days_before_report,
    "follow-up words off the clock": follow_up_off_the_clock,
    "a success pasted beside an error": success_pasted_beside_error,
    "QA quotes its own run as the customer's": quote_holds_the_run,
    "API report says every device fails": api_report_claims_devices,
}

# --------------------------------------------------------------------------- checks per queue


def cause_after_first_report(made: GeneratedTask) -> int:
    """Duplicate groups where a change (deploy, rollout, migration) in a member's log is stamped after the
    group's first report was filed."""
    groups: dict[str, list[Ticket]] = defaultdict(list)
    for t in made.task.tickets:
        groups[made.facts[t.ticket_id].duplicate_of or t.ticket_id].append(t)
    bad = 0
    for members in groups.values():
        first = min(created(t) for t in members)
        changes = [
            at
            for t in members
            if t.log_excerpt
            for at, line in log_times(t.log_excerpt, created(t))
            if CAUSE.search(line) and not FAULT.search(line.split(" ", 2)[-1].split(" ", 2)[-1])
        ]
        bad += any(at > first for at in changes)
    return bad


def date_after_first_report(made: GeneratedTask) -> int:
    """Duplicate groups where a member's text names a day or time after the group's first report was
    filed (a cause dated after the earliest report of its effect)."""
    groups: dict[str, list[Ticket]] = defaultdict(list)
    for t in made.task.tickets:
        groups[made.facts[t.ticket_id].duplicate_of or t.ticket_id].append(t)
    bad = 0
    for members in groups.values():
        first = min(created(t) for t in members)
        # (a file's name dates when it was taken, by a later reporter too: not when the failure began)
        texts = [f"{t.title}\n{FILE_NAME.sub('', t.description)}" for t in members if len(members) > 1]
        bad += any(x.kind == "time" for text in texts for x in chronology.late(text, first))
    return bad


LOG_BEFORE_ALERT = timedelta(minutes=10)


def log_ends_before_the_alerted_failure(made: GeneratedTask) -> int:
    """Reports whose pasted log ends more than ten minutes before the first failing line of the alert on
    the same failure (a customer's "not found after failover" lines twenty minutes before the alert's
    "starting failover"), where the report was filed after that line: its log shows the failure before it began."""
    groups: dict[str, list[Ticket]] = defaultdict(list)
    for t in made.task.tickets:
        groups[made.facts[t.ticket_id].duplicate_of or t.ticket_id].append(t)
    bad = 0
    for members in groups.values():
        alerts = [t for t in members if t.reporter_type == "monitoring" and t.log_excerpt]
        failing = [at for t in alerts for at, line in log_times(t.log_excerpt or "", created(t)) if FAILED.search(line)]
        if not failing:
            continue
        first = min(failing)
        for t in members:
            if t.reporter_type == "monitoring" or not t.log_excerpt or created(t) <= first:
                continue
            stamps = [at for at, _ in log_times(t.log_excerpt, created(t))]
            bad += bool(stamps) and max(stamps) < first - LOG_BEFORE_ALERT
    return bad


def failure_before_its_change(made: GeneratedTask) -> int:
    """Duplicate groups where a member's log shows the failure (an error) before the change that another
    member's log records as its cause (a customer's 'request body exceeds acs.max_body' a minute before the
    alert's 'config reload: acs.max_body=65536')."""
    groups: dict[str, list[Ticket]] = defaultdict(list)
    for t in made.task.tickets:
        groups[made.facts[t.ticket_id].duplicate_of or t.ticket_id].append(t)
    bad = 0
    for members in groups.values():
        if len(members) < 2:
            continue
        logged = {t.ticket_id: log_times(t.log_excerpt, created(t)) for t in members if t.log_excerpt}
        for tid, lines in logged.items():
            changes = [at for at, line in lines if CAUSE.search(line) and not FAILED.search(line)]
            if not changes:
                continue
            first_change = min(changes)
            others = [at for other, o in logged.items() if other != tid for at, line in o if FAILED.search(line)]
            bad += any(at < first_change for at in others)
    return bad


QUEUE_CHECKS: dict[str, Callable[[GeneratedTask], int]] = {
    "change rolled out after the first report": cause_after_first_report,
    "date after the first report": date_after_first_report,
    "log ends before the alerted failure": log_ends_before_the_alerted_failure,
    "failure logged before its change": failure_before_its_change,
}

# --------------------------------------------------------------------------- counting


@cache
def instances(split: str, per_level: int = PER_LEVEL) -> tuple[GeneratedTask, ...]:
    return tuple(generate(level, seed, split) for level in LEVELS for seed in range(per_level))


def items(made: Iterable[GeneratedTask]) -> list[Item]:
    return [(t, m.facts[t.ticket_id], tuple(m.task.releases)) for m in made for t in m.task.tickets]


def found(made: tuple[GeneratedTask, ...], kind: str) -> list[str]:
    if kind in TICKET_CHECKS:
        return [t.ticket_id for t, f, rel in items(made) if TICKET_CHECKS[kind](t, f, rel)]
    return [f"{m.task.task_id}/{m.seed}" for m in made for _ in range(QUEUE_CHECKS[kind](m))]


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("kind", [*TICKET_CHECKS, *QUEUE_CHECKS])
def test_no_contradiction_of_this_kind(split: str, kind: str) -> None:
    hits = found(instances(split), kind)
    assert not hits, (kind, len(hits), hits[:5])


# --------------------------------------------------------------------------- each check can fail


def _ticket(**fields: object) -> Ticket:
    return planting.ticket(**({"reporter_type": "qa"} | fields))


def _facts(**fields: object) -> TicketFacts:
    return planting.facts(**({"reporter": "qa"} | fields))


_RELEASES = (
    Release(platform="web", version="2026.9.0", released_at=datetime(2026, 9, 14, 10, tzinfo=UTC)),
    Release(platform="web", version="2026.9.1", released_at=datetime(2026, 9, 27, 10, tzinfo=UTC)),
)


def test_each_ticket_check_finds_a_planted_contradiction() -> None:
    f, rel = _facts(), _RELEASES
    late = "2026-10-08T05:37:01.000Z cdn-deploy INFO config rolled out"
    assert log_after_filed(_ticket(log_excerpt=late, logs_present=True), f, rel)
    logcat = "11-20 09:12:02.118 4410 4410 E TokenStore: read failed"
    assert log_after_filed(_ticket(log_excerpt=logcat, logs_present=True), f, rel)
    assert release_not_out(_ticket(log_excerpt="422 UnsupportedSchema (client=android 5.12.1)"), f, rel)
    assert not release_not_out(_ticket(description="Seen on web 2026.9.1."), f, rel)
    early = "10-08 02:12:02.118 4410 4410 E TokenStore: read failed"
    assert not log_after_filed(_ticket(log_excerpt=early, logs_present=True), f, rel)
    alert = _ticket(
        reporter_type="monitoring",
        description="Condition met at 01:43 UTC.",
        log_excerpt="2026-10-08T02:37:01.000Z files-cdn ERROR 500 on GET /files",
        logs_present=True,
    )
    assert alert_before_fault(alert, f, rel)
    warned = alert.model_copy(
        update={
            "log_excerpt": "2026-10-08T01:40:01.000Z patroni WARN replica lagging 4.2 MB\n"
            "2026-10-08T01:47:56.004Z patroni ERROR health check failed 3 times, starting failover"
        }
    )
    assert alert_before_fault(warned, f, rel)  # fired between the warning and the failure
    quoted = _ticket(environment="staging", description="Seen on staging.\n\nCustomer quote:\n> It breaks.")
    run = "Customer's report:\n> It breaks.\n> In production it shows for 2 of the 30 accounts in our QA matrix."
    assert quote_holds_the_run(_ticket(description=run), f, rel)
    assert not quote_holds_the_run(_ticket(description=run.replace("> In", "In")), f, rel)
    api = "Creating tasks fails. All clients and all test regions fail; support has reports across every plan."
    assert api_report_claims_devices(_ticket(version="API v2 build 2026.9.1", description=api), f, rel)
    assert not api_report_claims_devices(_ticket(version="web 2026.9.1", description=api), f, rel)
    assert qa_quotes_customer_off_production(quoted, f, rel)
    assert qa_run_on_old_build(_ticket(description="Spotted on web 2026.9.1 before release."), f, rel)
    assert qa_run_on_old_build(_ticket(description="Acceptance run for web 2026.9.0."), f, rel)
    assert not qa_run_on_old_build(_ticket(description="Acceptance run for web 2026.9.1."), f, rel)
    assert qa_run_on_old_build(_ticket(reporter_type="monitoring", version="web 2026.9.0"), f, rel)
    assert web_pass_claims_other(_ticket(description="Cross-browser pass for API v2 build 2026.10.1-rc.2."), f, rel)
    web_pass = "Picked up in the cross-browser and device pass for web 2026.9.0.\n\nFails on web, iOS, Android and API."
    assert one_client_run_claims_all(_ticket(description=web_pass), f, rel)
    assert phone_on_cluster(_ticket(description="Found on the staging cluster running iOS app 5.15.0-rc.8."), f, rel)
    firefox = "Safari 18.2 on an iMac.\nUncaught TypeError: e.columns is undefined"
    assert console_of_another_browser(_ticket(reporter_type="user", description=firefox), f, rel)
    ie = "Internet Explorer 11.\nTypeError: null is not an object (evaluating 'this.panel.id')"
    assert console_of_another_browser(_ticket(reporter_type="user", description=ie), f, rel)
    chrome = "Chrome 131.\nTypeError: Cannot read properties of undefined (reading 'rows')"
    assert not console_of_another_browser(_ticket(reporter_type="user", description=chrome), f, rel)
    assert two_versions_of_a_browser(_ticket(description="In Edge 120 it fails. Edge 130 on Windows 11."), f, rel)
    assert not two_versions_of_a_browser(
        _ticket(description="Tried in Chrome 143.\n\nBrowser/version: <e.g. Chrome 144>"), f, rel
    )
    assert web_app_installed(_ticket(description="We have web 2026.9.0 installed."), f, rel)
    assert month_after_filed(_ticket(description="The November invoice is wrong."), f, rel)
    charged = _ticket(customer_tier="free", reporter_type="user", log_excerpt="charge ch_3QbT succeeded plan=pro")
    assert free_tier_charged(charged, f, rel)
    pasted = "The API returns 422 with a plain-text message.\n\nHeaders of one of the responses:\nHTTP/1.1 200 OK"
    assert success_pasted_beside_error(_ticket(description=pasted), f, rel)
    assert not success_pasted_beside_error(_ticket(description=pasted.replace("returns 422", "is slow")), f, rel)
    both = "Logged by QA during the end-to-end run. Found by a developer trying web 2026.6.0-dev.88."
    assert two_finders(_ticket(description=both), f, rel)


def test_each_world_check_finds_a_planted_contradiction() -> None:
    f, rel = _facts(), _RELEASES
    assert service_off_facts(_ticket(service="auth"), f, rel)
    assert not service_off_facts(_ticket(service="data"), f, rel)
    blamed = _ticket(service="auth", component_candidates=["sso"])
    assert service_off_facts(blamed, f, rel)
    assert not service_off_facts(blamed, _facts(case="wrong_cause"), rel)
    logcat = "10-08 02:12:02.118 4410 4410 I TaskDetailFragment: bind tsk_1"
    support = {"author": "Sam", "role": "support", "time": "2026-10-08T05:00:00Z"}
    said = [support | {"text": "I've pulled the server log lines for your workspace."}]
    assert server_logs_over_device_log(_ticket(log_excerpt=logcat, logs_present=True, comments=said), f, rel)
    named = [support | {"text": "The customer sent a logcat from their phone; it's attached."}]
    assert not server_logs_over_device_log(_ticket(log_excerpt=logcat, logs_present=True, comments=named), f, rel)
    later = [support | {"text": "Fixed for us on web 2026.10.0."}]
    assert comment_names_unreleased_build(_ticket(comments=later), f, rel)
    back = "2026-10-08T02:00:02.000Z api INFO b\n2026-10-08T02:00:01.000Z api INFO a"
    assert log_out_of_order(_ticket(log_excerpt=back, logs_present=True), f, rel)
    may = _ticket(created_at="2026-05-14T09:00:00Z", description="Invoices before October were in pounds.")
    assert month_not_yet(may, f, rel)
    feb = _ticket(created_at="2026-02-02T09:00:00Z", description="Only PDFs uploaded before December show.")
    assert not month_not_yet(feb, f, rel)
    friday = "Before Friday's update this worked."  # 2026-10-08 is a Thursday; the last release was 27 September
    assert update_on_no_release_day(_ticket(description=friday), f, rel)
    sunday = _ticket(description="Before Sunday's update this worked.", created_at="2026-09-29T09:00:00Z")
    assert not update_on_no_release_day(sunday, f, rel)
    apps = (
        Release(platform="ios", version="5.11.0", released_at=datetime(2026, 9, 3, 10, tzinfo=UTC)),
        Release(platform="ios", version="5.12.0", released_at=datetime(2026, 9, 25, 10, tzinfo=UTC)),
    )
    on_old = {"version": "iOS app 5.11.0", "component_candidates": ["ios-app"], "reporter_type": "user"}
    assert update_after_own_build(
        _ticket(description="Prior to the 25 September release it worked.", **on_old), f, apps
    )
    assert not update_after_own_build(
        _ticket(description="Prior to the 3 September release it worked.", **on_old), f, apps
    )
    ios = {"version": "iOS app 5.15.0", "component_candidates": ["ios-app"]}
    run = _ticket(description="Handsets: iPhone 13 mini and Galaxy A54.", **ios)
    assert phones_of_two_platforms(run, _facts(component="ios-app"), rel)
    assert phones_of_two_platforms(_ticket(title="no pushes on my samsung", **ios), f, rel)
    assert recording_of_another_platform(_ticket(version="web 2026.9.1", description="See RPReplay_343.mp4."), f, rel)
    assert browser_idiom_in_app(_ticket(description="It hangs until I reload.", **ios), f, rel)
    assert phone_app_on_laptop(_ticket(description="Only seen on a developer laptop with iOS app 5.15.0."), f, rel)
    assert seeded_data_in_production(_ticket(description="Env: empty workspace plus three seeded users."), f, rel)
    quoted = _ticket(reporter_type="user", comments=[support | {"text": "Only 1 of 9 seeded test users hit it."}])
    assert seeded_data_in_production(quoted, f, rel)
    mailbox = "Our invoice emails to accounts@harbourline.example stopped. Out of 40 people, only 3 are affected."
    assert headcount_on_account_wide(_ticket(description=mailbox), f, rel)
    eased = _facts(evidence=(("workaround", "Removing the mention lets it save again."),))
    assert workaround_then_none(_ticket(description="Fails on each of 12 runs, no workaround."), eased, rel)
    assert user_knows_server(_ticket(reporter_type="user", description="Nothing of it reached the server."), f, rel)
    ipad = "When I hold my tablet sideways the board is cut off. Recorded from my phone, attached (RPReplay_4.mp4)."
    assert phone_recording_of_a_tablet(_ticket(description=ipad), f, rel)
    assert not phone_recording_of_a_tablet(_ticket(description=ipad.replace("tablet", "iPhone")), f, rel)
    june = "2026-06-21T09:00:00Z"
    assert invoice_of_a_later_month(_ticket(created_at=june, log_excerpt="render inv_2026_11_48120 ok"), f, rel)
    assert not invoice_of_a_later_month(_ticket(created_at=june, log_excerpt="render inv_2026_05_48120 ok"), f, rel)
    old = "2026-10-05T19:39:02.604Z pg-primary ERROR duplicate key value"
    assert log_days_before_report(_ticket(reporter_type="user", log_excerpt=old, logs_present=True), f, rel)
    fresh = old.replace("10-05T19", "10-08T02")
    assert not log_days_before_report(_ticket(reporter_type="user", log_excerpt=fresh, logs_present=True), f, rel)
    soon = [
        {"author": "Ana", "role": "reporter", "time": "2026-10-08T03:28:00Z", "text": "We hit it again after lunch."}
    ]
    assert follow_up_off_the_clock(_ticket(reporter_type="user", comments=soon), f, rel)
    later = [soon[0] | {"time": "2026-10-08T14:10:00Z"}]
    assert not follow_up_off_the_clock(_ticket(reporter_type="user", comments=later), f, rel)


def main(per_level: int) -> None:
    for split in SPLITS:
        made = instances(split, per_level)
        print(f"{split}: {len(made)} queues, {len(items(made))} tickets")
        for kind in [*TICKET_CHECKS, *QUEUE_CHECKS]:
            print(f"  {len(found(made, kind)):5d}  {kind}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else PER_LEVEL)
