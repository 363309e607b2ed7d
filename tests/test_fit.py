"""What a ticket says fits the feature and the defect it is about, counted over many queues.

A checker that reads generated queues as a blind reader would and counts each kind of seam:
a browser symptom on a phone app, an on-screen symptom on an email or a push that never
arrives, an error box pasted for a defect that shows no error, a timeout or a dropped
connection pasted for an exposure (whose requests succeed), a "never works" clause on an
exposure, a tester's headcount instead of a matrix, a tester asking for the old behaviour
back, a feature request dressed as a bug report. Every count must be zero; the planted
examples show that each check can fail. Run as a script to print the counts per split:

    .venv/bin/python tests/test_fit.py [instances per level]
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable
from datetime import timedelta
from functools import cache

import planting
import pytest
import sweeps

from openenv_bug_triage.catalogue import Defect, load_catalogue
from openenv_bug_triage.generator import GeneratedTask, TicketFacts
from openenv_bug_triage.generator.compose import named, quiet
from openenv_bug_triage.generator.kinds import AREA, CONFUSABLE
from openenv_bug_triage.generator.personas import load_personas, seats_needed
from openenv_bug_triage.models import Ticket

SPLITS = ("train", "validation", "test")
PER_LEVEL = 15

Item = tuple[Ticket, TicketFacts]

MOBILE = frozenset({"ios-app", "android-app"})
MESSAGE = frozenset({"email-delivery", "push-notifications"})
"""Components whose defect is something that should arrive and does not (or arrives wrong)."""

BROWSER_IDIOM = re.compile(
    r"\buntil I reload\b|\bthe page says\b|\bthe whole tab\b|\bplain white page\b|\bNetwork (?:tab|panel)\b", re.I
)
"""What only a web page shows."""
ON_SCREEN = re.compile(
    r"\bthe button greys out\b|\bspinner turns\b|'Working\.\.\.'|\bthe page says\b|\bthe whole tab\b|"
    r"\bflickers on screen\b|\bloading dots\b|\bred banner reading\b",
    re.I,
)
"""A symptom of a screen the reporter acts on (a button, a spinner, a page)."""
ERROR_BOX = re.compile(
    r"copied by hand:\n|^Support code: |^Reference code: |\bwhat the screen (?:says|shows)\b|\bthe screen says this\b",
    re.I | re.M,
)
"""An error message pasted from the screen."""
REQUEST_FAILED = re.compile(
    r"ERR_CONNECTION_RESET|pending, then cancelled|per-attempt deadline|no confirmation after|timeout per call",
)
"""A pasted record of requests that failed or timed out."""
NEVER_WORKS = re.compile(
    r"\bit never works\b|\bnothing works\b|\bfails every time\b|\bno detour\b|\bnot once has it worked\b|"
    r"\bevery (?:attempt|try) fails\b|\bcan't do it at all\b",
    re.I,
)
"""A clause saying the feature fails outright."""
HEADCOUNT = re.compile(
    r"\b\d+ (?:of|out of) (?:the |our )?\d+ (?:test accounts|seeded|people|users)\b|"
    r"\b(?:for|affects|hits) (?:all users|every customer|everyone) (?:of|on|using|with)\b",
    re.I,
)
"""A scope told by counting people rather than by a configuration."""
OLD_BEHAVIOUR = re.compile(r"\b(?:previous version's behaviour|how it was last month) back\b", re.I)
BUG_FURNITURE = re.compile(
    r"\bthinks it's on your side\b|\bScreenshots of each step\b|\bRequest and response dump\b|"
    r"\b(?:completely stuck|dead in the water) (?:until|till) this is fixed\b",
    re.I,
)
"""What a report of something broken carries: blame, a dump, steps shot one by one, being blocked."""


ONE_CELL_AS_ALL = re.compile(r"\b1, (?:all|every one|each)\b|\(1 in all\)|\bonly 1 configuration", re.I)
"""One failing cell said to be "all on the same account"."""
RATE = re.compile(r"\b\d+% of (?:our |my )?(?:tries|attempts|requests|calls|sign-ins)\b", re.I)
"""A share of tries that fail: what a degraded service shows."""
ALWAYS = re.compile(
    r"(?<!Often there is )\bno way to\b|\bevery attempt to\b|\bnot once\b|\bnot a single\b|\bnothing at all\b|"
    r"(?<!come back )(?<!urgent )\bat all\b|"
    r"(?<!often )\bnever (?:works|arrives|comes)\b|\bevery (?:call|try|time)\b",
    re.I,
)
"""A failure that happens every time."""


def _text(t: Ticket) -> str:
    return f"{t.title}\n{t.description}"


# --------------------------------------------------------------------------- checks per ticket


def browser_symptom_in_app(t: Ticket, f: TicketFacts) -> bool:
    """A phone app's defect told with a web page's symptom (a reload, a tab, the page)."""
    return f.kind == "defect" and f.component in MOBILE and bool(BROWSER_IDIOM.search(_text(t)))


def screen_symptom_on_message(t: Ticket, f: TicketFacts) -> bool:
    """An email or push that never comes, told with a button, a spinner or a page."""
    return f.kind == "defect" and f.component in MESSAGE and bool(ON_SCREEN.search(_text(t)))


def error_box_without_error(t: Ticket, f: TicketFacts) -> bool:
    """An error box pasted from the screen for a message that never came or data shown to the wrong people."""
    quiet = f.component in MESSAGE or f.exposure
    return f.kind == "defect" and quiet and bool(ERROR_BOX.search(t.description))


def failed_requests_on_exposure(t: Ticket, f: TicketFacts) -> bool:
    """Timeouts or dropped connections pasted for an exposure, whose requests succeed."""
    return f.exposure and bool(REQUEST_FAILED.search(t.description))


def never_works_on_exposure(t: Ticket, f: TicketFacts) -> bool:
    """An exposure (the request works, with another customer's data) said to fail every time."""
    return f.exposure and bool(NEVER_WORKS.search(t.description))


def qa_headcount(t: Ticket, f: TicketFacts) -> bool:
    """A tester stating scope as a number of people hit, not as a configuration of a matrix."""
    own = "\n".join(line for line in t.description.splitlines() if not line.startswith(">"))  # not a quote
    return t.reporter_type == "qa" and bool(HEADCOUNT.search(own))


def qa_asks_old_behaviour(t: Ticket, f: TicketFacts) -> bool:
    """A tester pleading for the previous version back, as a customer would."""
    return t.reporter_type == "qa" and bool(OLD_BEHAVIOUR.search(t.description))


def feature_request_as_bug(t: Ticket, f: TicketFacts) -> bool:
    """A pure feature request carrying a bug report's furniture (blame, dumps, being blocked)."""
    return f.kind == "feature" and bool(BUG_FURNITURE.search(t.description))


def one_cell_as_all(t: Ticket, f: TicketFacts) -> bool:
    """A tester's one failing cell of a matrix told as "all on the same test account"."""
    return t.reporter_type == "qa" and bool(ONE_CELL_AS_ALL.search(t.description))


@cache
def _seats() -> dict[str, int]:
    return {o.name: o.seats for o in load_personas().organisations}


def workspace_bigger_than_organisation(t: Ticket, f: TicketFacts) -> bool:
    """A customer of a small organisation reports what only a workspace larger than theirs sees
    (nine seats, and "in workspaces with more than 500 members")."""
    if t.reporter_type != "user" or f.organisation is None:
        return False
    return _seats()[f.organisation] < seats_needed([t.title, t.description])


def rate_on_an_always_failure(t: Ticket, f: TicketFacts) -> bool:
    """A customer counts the share of tries that fail of a failure they say happens every time
    ("no way to log in" and "18% of our tries fail")."""
    return t.reporter_type == "user" and bool(RATE.search(t.description) and ALWAYS.search(t.description))


BOX = re.compile(
    r"^(?:.*\b(?:copied as is|copied exactly|copy-pasted|pasted as is|the message I (?:get|see|keep getting)|"
    r"copied by hand|typed out)|The message on (?:my |the )?screen, .*|This is what the screen says|"
    r"The screen says this|Here's what the screen says|What the screen shows):$",
    re.M,
)
"""The first line of an error box pasted from the screen."""
BOX_OF_CHANGES = re.compile(
    r"\bchanges may not have been\b|\bYour work is saved up to\b|\bNothing you (?:entered|typed|changed) has been lost\b"
)
"""An error box's line about the reporter's unsaved edits."""
DARK = re.compile(r"\bdark mode\b", re.I)
DIAGNOSTIC_LANGUAGE = re.compile(r"^(?:App language|Language|Display language|Locale): (?P<lang>.+)$", re.M)
ENGLISH = re.compile(r"^(?:English\b|en-[A-Z]{2}$)")
LANGUAGE_CODES = {
    "nl": "Dutch",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "pt": "Portuguese",
    "it": "Italian",
    "tr": "Turkish",
    "da": "Danish",
    "pl": "Polish",
    "ar": "Arabic",
    "he": "Hebrew",
    "ja": "Japanese",
}


@cache
def _catalogue() -> dict[str, Defect]:
    return {d.id: d for d in load_catalogue().defects}


def _defect(f: TicketFacts) -> Defect | None:
    return named(f.scenario) or _catalogue().get(f.scenario)


def _pastes(description: str) -> tuple[str, str]:
    """The description's pasted blocks (a line ending in a colon and the lines under it) and the rest (the
    writer's numbered steps among it: "Turn on a Japanese input method" names the language the writer uses)."""
    pasted, own = [], []
    for block in description.split("\n\n"):
        first, _, rest = block.partition("\n")
        steps = bool(rest) and all(re.match(r"\d+\. ", line) for line in rest.split("\n"))
        (pasted if rest and first.endswith(":") and not steps else own).append(block)
    return "\n\n".join(pasted), "\n\n".join(own)


def error_box_on_silent_defect(t: Ticket, f: TicketFacts) -> bool:
    """An error box pasted from the screen for a defect that shows no error message (a wrong number in a
    report, a status in a list, a display glitch)."""
    d = _defect(f)
    return f.kind == "defect" and d is not None and not d.error_box and bool(BOX.search(t.description))


def box_speaks_of_changes(t: Ticket, f: TicketFacts) -> bool:
    """An error box that speaks of the reporter's unsaved changes (it fits only a form's save, and reads as a
    stock line on a report, a page that will not open or a sign-in)."""
    return bool(BOX_OF_CHANGES.search(t.description))


ENDONYMS = {"Türkçe": "Turkish", "Deutsch": "German", "Français": "French", "Español": "Spanish", "Polski": "Polish"}
"""A language as its own speakers name it (a phone "set to Türkçe"): a reader knows it is Turkish."""


def _languages(text: str) -> set[str]:
    named = {lang for lang in LANGUAGE_CODES.values() if re.search(rf"\b{lang}\b", text, re.I)}  # lower case too
    coded = {LANGUAGE_CODES[m[1]] for m in re.finditer(r"\b([a-z]{2})-[A-Z]{2}\b", text) if m[1] in LANGUAGE_CODES}
    return named | coded | {lang for own, lang in ENDONYMS.items() if own in text}


ZONE = re.compile(r"\b(?:Africa|America|Asia|Atlantic|Australia|Europe|Pacific)/[A-Z][A-Za-z_]+")
ZONE_LINE = re.compile(r"^(?:Device )?[Tt]ime zone: (.*)$", re.M)
GUESTS = re.compile(r"\bguests?\b", re.I)
GUESTS_OFF = re.compile(r"^(?:External guests|Guests allowed|Guest access): (?:not allowed|no|off)$", re.M)


def diagnostics_contradict(t: Ticket, f: TicketFacts) -> bool:
    """A pasted settings line that says otherwise than the ticket: dark mode off for a dark-mode defect, or an
    app language the reporter neither writes in nor names."""
    pasted, own = _pastes(t.description)
    told = f"{t.title}\n{own}"
    if DARK.search(told) and "Dark mode: off" in pasted:
        return True
    zone = ZONE.search(told)
    if zone and any(m[1] != zone[0] for m in ZONE_LINE.finditer(pasted)):  # "set to America/Denver", "Time zone: auto"
        return True
    if GUESTS.search(told) and GUESTS_OFF.search(pasted):
        return True
    named_languages = _languages(told)
    for m in DIAGNOSTIC_LANGUAGE.finditer(pasted):
        lang = m["lang"].strip()
        lang = LANGUAGE_CODES.get(lang.split("-")[0], lang) if re.fullmatch(r"[a-z]{2}-[A-Z]{2}", lang) else lang
        if named_languages:
            if lang not in named_languages:
                return True
        elif not ENGLISH.match(lang) and lang != "English":
            return True
    return False


def blame_beyond_reason(t: Ticket, f: TicketFacts) -> bool:
    """A wrong-cause reporter blames a part of the product no reader would confuse with the symptom
    (the export feature for a dark-mode display glitch in the editor)."""
    if f.case != "wrong_cause":
        return False
    d = _defect(f)
    confused = set(CONFUSABLE.get(f.component, ()))
    if f.impact == "cosmetic" and confused & SCREENS:  # how something looks is blamed on a screen
        confused &= SCREENS
    plausible = confused | set(d.misfiled if d else ())  # a form's misfiled components are plausible by definition
    said = " ".join(text for rule, text in f.evidence if rule == "case:wrong_cause")
    blamed = {c for c, area in AREA.items() if area in said}
    return bool(blamed) and not blamed & plausible


SLOT_SLIPS = re.compile(
    r"\bon (?:my|an?) (?:Android phone|iPhone|phone|tablet)\b[^.\n]{0,20}\bon (?:\w+ ){1,3}(?:phones|devices|tablets)\b|"
    r"\bI on (?:an?|my)\b"
)
SECOND_HEADED = re.compile(r"\b(?:unrelated|issue|problem|thing|bug|one)(?: here)?: [A-Z][\w ]{0,25}: [A-Z]")
"""A composed sentence whose slot does not fit its frame: a device said twice, a subject lost before its verb,
a second problem pasted with its field header."""
TERMINAL = re.compile(r"[.!?)'\"]$")


def slot_grammar(t: Ticket, f: TicketFacts) -> bool:
    """A slot filled into a sentence frame that does not fit it: a device said twice, a subject without its
    verb, a second problem pasted with its field header, a sentence run on from a symptom written without a
    full stop, a feature phrase starting a sentence in lower case."""
    if SLOT_SLIPS.search(t.description) or (f.case == "two_problems" and SECOND_HEADED.search(t.description)):
        return True
    d = _defect(f)
    if d is None:
        return False
    for symptom in d.symptoms:
        if not TERMINAL.search(symptom) and re.search(re.escape(symptom[-40:]) + r" [A-Z]", t.description):
            return True
    lead = d.feature[:1].islower() and re.search(r"(?:^|[.!?] )" + re.escape(d.feature), t.description, re.M)
    return bool(lead)


IE = re.compile(r"\bInternet Explorer\b|\bIE ?11\b|\bTrident/7\.0\b")
V8_CONSOLE = re.compile(
    r"\bChrome console\b|Cannot read properties of|DevTools failed|\[Violation\]|\bUncaught \(in promise\)"
)
TABLET = re.compile(r"\b(?:tablet|iPad)\b", re.I)
PHONE_NAMED = re.compile(r"\b(?:iPhone|Android phone|phones?)\b")
PHONE_IN_HAND = re.compile(r"\b(?:from|on) my phone\b", re.I)
TEST_DATA = re.compile(
    r"\b(?:fixture|seeded|regression seed|demo (?:tenant|workspace)|sample projects|anonymised)\b", re.I
)
"""A tester's words for the data they ran with: made-up data, not a customer's."""
LIBRARY_NAMED = re.compile(r"\b(Node\.js|Python|Go) client library\b")
LIBRARY_PASTED = re.compile(r"^library: larkspur-(node|python|go) ", re.M)
SIGN_IN_PAGE = re.compile(r"\bsign[- ]?in (?:page|screen)\b|\blog[- ]?in (?:page|screen)\b", re.I)
SETTINGS_UNCHANGED = re.compile(
    r"\b(?:Our settings \((?:unchanged|nobody changed)|My settings: (?:unchanged|untouched|not))"
)
SETTING_SET = re.compile(r"\b[Ss]et [A-Z][\w ]* > ")  # "set Billing > Invoice language", not "set a password under X >"
MAC = re.compile(r"\b(?:iMac|MacBook|macOS|Mac mini|on (?:a|my) Mac)\b")
CUSTOMER_ORIGIN = re.compile(r"\borigin=https://(?!\S*(?:localhost|\.test\b|example|staging|dev|qa))\S+")


def ie_with_chrome_console(t: Ticket, f: TicketFacts) -> bool:
    """A ticket about Internet Explorer with a console only Chrome prints (in the text, the log or a comment)."""
    text = "\n".join([t.title, t.description, t.log_excerpt or "", *(c.text for c in t.comments)])
    return bool(IE.search(text) and V8_CONSOLE.search(text))


def tablet_told_as_phone(t: Ticket, f: TicketFacts) -> bool:
    """A report about a tablet written "from my phone"."""
    text = f"{t.title}\n{t.description}"
    rest = PHONE_IN_HAND.sub("", text)
    return bool(TABLET.search(text) and PHONE_IN_HAND.search(text) and not PHONE_NAMED.search(rest))


def customer_origin_off_production(t: Ticket, f: TicketFacts) -> bool:
    """A staging or development log carrying a real customer's web origin."""
    return t.environment != "production" and bool(CUSTOMER_ORIGIN.search(t.log_excerpt or ""))


SCREENS = frozenset({"web-ui", "editor", "ios-app", "android-app"})
BUILD = re.compile(r"(?<![\w.-])(?:\d{4}\.\d{1,2}\.\d{1,2}|[1-9]\.\d{1,2}(?:\.\d)?)(?![\w.]| ?(?:days|hours|h|%))")
"""An app or web build as a title names it (5.14, 5.12.0, 2026.9.0; an amount such as 0.00 is none)."""


def title_names_two_builds(t: Ticket, f: TicketFacts) -> bool:
    """A subject naming two different builds of the product ("5.11.1: iOS 5.14: crash")."""
    return len(set(BUILD.findall(t.title))) > 1


FAULT_TALK = re.compile(
    r"\btried it again\b|\bsame (?:result|error|outcome)\b|\bconfirmed it on\b|\buser error\b|\bcleared my\b|"
    r"\bsigned out and back in\b|\blogged out and in again\b|\bsomething similar\b|\bworking around it\b|"
    r"\bstatus page first\b|\brestarted my phone\b|\bchecked it (?:separately|independently|each on our own)\b",
    re.I,
)
"""A customer's words about a fault: retried, reproduced by a colleague, worked around."""


def fault_talk_on_a_wish(t: Ticket, f: TicketFacts) -> bool:
    """A feature request padded with words about a fault ("someone else confirmed it on their computer")."""
    return f.kind == "feature" and bool(FAULT_TALK.search(t.description))


CONSOLE_ERROR = re.compile(r"^(?:Uncaught )?(?:\(in promise\) )?TypeError: |\bUncaught TypeError\b", re.M)
SETTINGS_SCREEN = re.compile(
    r"^(?:(?:Connection|Network|Free storage|Storage free|Space left|Available space|Licensed users|Seats in use|"
    r"Members|Dark mode|Dark theme|Night mode|App language|Interface language|Installed version):|"
    r"(?:App version|Version|Build) \d)",
    re.M,
)
"""A line of a pasted device, app, profile or workspace settings screen."""


def console_errors_on_a_quiet_defect(t: Ticket, f: TicketFacts) -> bool:
    """A console of script errors pasted for a defect that works (a display glitch, a message that does not
    come, another customer's data)."""
    d = _defect(f)
    return f.kind == "defect" and d is not None and quiet(d) and bool(CONSOLE_ERROR.search(t.description))


def script_errors_on_a_server_defect(t: Ticket, f: TicketFacts) -> bool:
    """A console of the web app's script errors pasted for a defect of a server-side component (a storage
    error page, a failed sign-in): the page's own code did not fail."""
    return f.kind == "defect" and f.component not in ("web-ui", "editor") and bool(CONSOLE_ERROR.search(t.description))


def two_settings_screens(t: Ticket, f: TicketFacts) -> bool:
    """Two pasted settings screens in one ticket (a device's About screen, the app's settings page, the workspace's
    admin page): a writer pastes the one screen that bears on the problem, not a dump of each."""
    return sum(bool(SETTINGS_SCREEN.search(block)) for block in t.description.split("\n\n")) > 1


COLLEAGUE_TOO = re.compile(
    r"\bcolleague(?:'s (?:account|login)| on their own account)\b[^\n]{0,12}(?:same|also broken)"
    r"|\b(?:asked|had) a colleague (?:try|check): same|tried the same thing and got the same\b"
    r"|\bconfirmed it on their (?:machine|computer|laptop) too\b|\bon a colleague's, with the same\b"
    r"|\bcolleagues: .{0,60}\bfails for all of them\b|\bcolleague's login: (?:none of it|we tried all)",
    re.I,
)
OTHER_OBJECT_TOO = re.compile(r"\b(?:another|a second|a different) project\b[^\n]{0,6}(?:same|no difference)", re.I)
RETRIED_IN_VAIN = {
    "reload": re.compile(
        r"\b(?:reload(?:ed|ing) the (?:page|tab)|hard refresh|force-quit the app|closed and reopened the app|"
        r"closing and reopening the app)\b[^\n]{0,6}(?:no change|same|no difference|nothing changed)"
        r"|\brestarted (?:the app|my phone)\b[^\n]{0,60}\b(?:no change|no difference|same thing|made no)\b"
        r"|\bcleared my (?:browser cache|cache and cookies|browser's cache)\b",
        re.I,
    ),
    "sign": re.compile(
        r"\b(?:signed out and back in|logged out and in again|signing out and in again)\b[^\n]{0,6}"
        r"(?:no change|same|still broken|no difference|nothing changed)"
        r"|\bsigned in again (?:first|beforehand)\b|\blogged out and in again on my phone first\b",
        re.I,
    ),
}
WAY_ROUND = {
    "reload": re.compile(r"\b(?:reload\w*|refresh\w*|restart\w*|reopen\w*|force[- ]quit\w*)\b", re.I),
    "sign": re.compile(r"\b(?:sign(?:ing)? (?:in|out)|log(?:ging)? (?:in|out)|fresh login)\b", re.I),
}


OTHER_DEVICE_TOO = re.compile(r"\bA different device \((?:same|no change)\)")


def others_share_a_lone_defect(t: Ticket, f: TicketFacts) -> bool:
    """A list of checks saying a colleague's account (or another project) shows a defect that hits one
    person or a few (or one object), or that a colleague's laptop or another device fails like the one browser or
    OS we no longer support that a report is from."""
    d = _defect(f)
    if f.kind != "defect" or d is None:
        return False
    lone = d.reach == "user" or f.scope == "few" or f.unsupported
    unsupported_too = f.unsupported and bool(OTHER_DEVICE_TOO.search(t.description))
    return (
        (lone and bool(COLLEAGUE_TOO.search(t.description)))
        or unsupported_too
        or (d.reach == "object" and bool(OTHER_OBJECT_TOO.search(t.description)))
    )


ACCOUNT = frozenset({"login", "sso", "payments", "invoicing"})
"""Components of signing in and paying: nothing about them differs from one project to the next."""


def project_check_on_an_account_defect(t: Ticket, f: TicketFacts) -> bool:
    """A check of another project listed for a sign-in or payment defect (a glitch of the sign-in page too), or of
    signing in again for a sign-in one."""
    signing_in = f.component in ("login", "sso") and bool(RETRIED_IN_VAIN["sign"].search(t.description))
    account = f.component in ACCOUNT or (f.component == "web-ui" and bool(SIGN_IN_PAGE.search(t.title)))
    return f.kind == "defect" and account and (bool(OTHER_OBJECT_TOO.search(t.description)) or signing_in)


def way_round_tried_in_vain(t: Ticket, f: TicketFacts) -> bool:
    """A check that reloading (or signing in again) changed nothing, where that is the defect's way round."""
    d = _defect(f)
    if f.kind != "defect" or d is None:
        return False
    ways = " ".join(d.workaround)
    return any(WAY_ROUND[k].search(ways) and tried.search(t.description) for k, tried in RETRIED_IN_VAIN.items())


LOG_FILES_ATTACHED = re.compile(
    r"\blog files? attached\b|\b(?:log file|runner log|test log) \S+ attached\b|\b(?:the test log|the runner's log) \S+\.",
    re.I,
)


def log_files_without_a_log(t: Ticket, f: TicketFacts) -> bool:
    """A note that log files are attached on a ticket that carries no log (`logs_present` false)."""
    return not t.logs_present and bool(LOG_FILES_ATTACHED.search(t.description))


NAMED_BUILD = re.compile(r"(?<![\d.])(?:\d{4}\.\d{1,2}\.\d{1,2}|[1-9]\.\d{1,2}\.\d)(?![.\d])")
"""A build as a subject names it, letters before it or not ("v2026.9.2", "[5.12.0]")."""


def build_named_but_no_version(t: Ticket, f: TicketFacts) -> bool:
    """A title naming the build it was seen on while the ticket's `version` field is empty."""
    return t.version is None and bool(NAMED_BUILD.search(t.title))


EACH_STEP = re.compile(
    r"\b(?:screenshots of each step|each step has its own screenshot|a screenshot at every step)\b", re.I
)
TWO_FILES = re.compile(r"\{?(?:\.mp4)\b.{0,40}\b(?:log files|log file|runner log|test log|runner's log)\b", re.I)


MORE_NAMED = re.compile(r"\b(one|two|three|four) more files?\b")
WORDS_TO_COUNT = {"one": 1, "two": 2, "three": 3, "four": 4}


def more_files_than_attached(t: Ticket, f: TicketFacts) -> bool:
    """A note on what is attached naming more files than `attachments_count` (a screenshot of each of three
    steps with one attachment; a recording and a log with one), or screenshots of steps the ticket does not give."""
    if EACH_STEP.search(t.description):
        return not t.repro_steps_present or t.attachments_count < 3
    more = MORE_NAMED.search(t.description)
    besides = WORDS_TO_COUNT.get(more[1], 0) if more else 0  # "..., plus two more files"
    return bool(TWO_FILES.search(t.description)) and t.attachments_count < 2 + besides


FRESH = re.compile(r"\b(?:this morning|tonight|since (?:about )?\d|an hour ago|since lunch)\b", re.I)
"""Words that date a failure to the last few hours ("today" alone may be when the writer can test)."""
DEADLINE = re.compile(r"[^.!?\n]*\b(?:expect|answer|reply|fixed by|fixed before|need it|by tonight)\b[^.!?\n]*", re.I)
"""A sentence that sets a deadline ("fixed by tonight", "an answer this morning"): it dates no failure."""
PUT_OFF = re.compile(
    r"\bI waited (?:a day|a couple of days|until today|to see if)|\bon my list to report\b|\bmeaning to send this\b"
    r"|\bSorry it took me a while\b|\bputting off writing this\b",
    re.I,
)


def put_off_a_fresh_failure(t: Ticket, f: TicketFacts) -> bool:
    """A writer who says they put off writing in about a failure their own facts date to this morning."""
    rest = RETRIED.sub("", PUT_OFF.sub("", t.description))  # trying again this morning dates the retry, not the failure
    rest = DEADLINE.sub("", rest)
    return bool(PUT_OFF.search(t.description)) and bool(FRESH.search(rest))


def put_off_while_stopped(t: Ticket, f: TicketFacts) -> bool:
    """A customer who says they put off writing in about a failure that stops their whole team or group with no way
    round it (a scope of everyone or a segment; an exposure stops no one's work)."""
    stopped = f.reporter == "user" and f.scope in ("everyone", "segment") and not f.exposure
    return stopped and bool(PUT_OFF.search(t.description))


RETRIED = re.compile(
    r"\bI (?:have )?tried (?:already )?it (?:again|agian|agin)\b[^.]*", re.I
)  # typed as noise leaves it

RELEASE_PASS = re.compile(r"\brelease (?:sign-off pass|checklist)\b")


def fixture_data_on_an_exposure(t: Ticket, f: TicketFacts) -> bool:
    """A tester who saw one customer's data shown to another calls the data a fixture or a seed: then no customer's
    data was exposed, which the handbook's exposure rule (sev0 in any environment) is about."""
    return f.exposure and t.reporter_type == "qa" and bool(TEST_DATA.search(t.description))


def another_library_pasted(t: Ticket, f: TicketFacts) -> bool:
    """A paste of API calls made with another client library than the one the ticket says fails."""
    named, pasted = LIBRARY_NAMED.search(t.description), LIBRARY_PASTED.search(t.description)
    lib = {"Node.js": "node", "Python": "python", "Go": "go"}
    return bool(named and pasted and lib[named[1]] != pasted[1])


def production_api_from_a_test_build(t: Ticket, f: TicketFacts) -> bool:
    """A staging or development build reproduced by calling the production API's address."""
    return t.environment != "production" and "https://api.larkspur.app" in t.description


def ctrl_keys_on_a_mac(t: Ticket, f: TicketFacts) -> bool:
    """A customer on a Mac who presses Ctrl+S (a Mac's shortcuts use Cmd)."""
    return t.reporter_type == "user" and "Ctrl+" in t.description and bool(MAC.search(t.description))


def settings_unchanged_beside_a_change(t: Ticket, f: TicketFacts) -> bool:
    """ "Our settings (unchanged)" in a ticket whose own steps change a setting ("set Billing > Invoice language")."""
    return bool(SETTINGS_UNCHANGED.search(t.description) and SETTING_SET.search(t.description))


def release_pass_on_a_dev_build(t: Ticket, f: TicketFacts) -> bool:
    """A tester filing from a release pass on a feature-branch development build."""
    return t.environment == "development" and bool(RELEASE_PASS.search(t.description))


EVERY_CLIENT = re.compile(r"\b(?:web, iOS, Android(?:,| and) (?:the )?API|all clients|every client)\b", re.I)
ONE_CLIENT_RUN = re.compile(
    r"^(?:Run on (?:Chrome|Firefox)|Browsers(?: covered)?:|Phones:|Handsets:|Devices in the run:)", re.I | re.M
)


def one_client_run_beside_every_client(t: Ticket, f: TicketFacts) -> bool:
    """A tester's run set up on one client's browsers or phones that reports every client failing."""
    return t.reporter_type == "qa" and bool(ONE_CLIENT_RUN.search(t.description) and EVERY_CLIENT.search(t.description))


def alert_filed_elsewhere(t: Ticket, f: TicketFacts) -> bool:
    """An alert whose form guesses leave out the component it measures (an alert is raised on its own service)."""
    return t.reporter_type == "monitoring" and f.component not in t.component_candidates


def past_incident_from_a_run(t: Ticket, f: TicketFacts) -> bool:
    """A past incident (a failover's lost writes) told by a tester's run or met on a test build."""
    d = _defect(f)
    return d is not None and d.past and (t.reporter_type == "qa" or t.environment != "production")


NEVER_OPENS = re.compile(r"\bsplash\b|\bnever gets (?:any )?(?:further|past the logo)\b|\blogo forever\b", re.I)
"""An app told as never opening: stuck on its splash screen or its logo."""
INSIDE_THE_APP = re.compile(
    r"^(?:From the About screen of the app|(?:The app's )?(?:App )?settings screen|Device details from the app's Help"
    r"|The app's own report screen|Copied from the app's (?:settings|diagnostics)|Info from Settings > About in the app"
    r"|Settings page of the app)|\b(?:another|a different|a second) project\b|\b(?:signed|signing|logged) out and"
    r" (?:back )?in\b",
    re.I | re.M,
)
"""A screen of the app pasted, or something tried inside it (another project, signing out and in)."""


def inside_an_app_that_never_opens(t: Ticket, f: TicketFacts) -> bool:
    """A screen of an app pasted, or a check made inside it, by a reporter whose app never gets past its splash
    screen."""
    d = _defect(f)
    never_opens = d is not None and any(NEVER_OPENS.search(x) for x in (*d.titles, *d.symptoms))
    return f.kind == "defect" and never_opens and bool(INSIDE_THE_APP.search(t.description))


RECURRENCE = re.compile(
    r"\b(?:AGAIN|ONCE AGAIN|yet again|STILL NOT FIXED|NOT FIXED YET|NOBODY IS ANSWERING|FOR THE THIRD TIME|"
    r"STILL BROKEN|EVERY SINGLE DAY|not again|STILL A THING)\b"
)
TITLED_AGAIN = re.compile(r"\b(?:broken|failing|misbehaving|fails) again\b|\bstarted failing again\b")
"""A subject or an outburst saying the problem came back, or was reported before and left unanswered."""


@cache
def _titles() -> dict[str, tuple[str, ...]]:
    """Every scenario's own titles, by its id."""
    cat = load_catalogue()
    return {s.id: tuple(s.titles) for s in (*cat.defects, *cat.features, *cat.invalid, *cat.vague)}


def recurrence_nobody_told(t: Ticket, f: TicketFacts) -> bool:
    """A title or an outburst saying the problem is back or was reported before ("STILL BROKEN!!", "not again!!"),
    where nothing in the ticket or the queue tells of an earlier time (a scenario's own title, "Finance has
    questions about our billing documents again", may say so, shouted or not)."""
    title = t.title
    for own in sorted(_titles().get(f.scenario, ()), key=len, reverse=True):
        title = re.sub(re.escape(own), "", title, flags=re.I)
    return bool(RECURRENCE.search(title) or RECURRENCE.search(t.description) or TITLED_AGAIN.search(title))


FAILURE_TITLE = re.compile(
    r"\b(?:keeps failing|not working|is broken|fails)\b|^(?:Failing|Not working|Broken):|\bCan't get\b"
)


def cosmetic_glitch_titled_as_failure(t: Ticket, f: TicketFacts) -> bool:
    """A display glitch (the feature still works) whose subject says the feature fails or is broken, in words none
    of the defect's own titles use."""
    d = _defect(f)
    if f.kind != "defect" or d is None or d.impact != "cosmetic" or not FAILURE_TITLE.search(t.title):
        return False
    return not any(FAILURE_TITLE.search(x) for x in d.titles)


TICKET_CHECKS: dict[str, Callable[[Ticket, TicketFacts], bool]] = {
    "browser symptom in a phone app": browser_symptom_in_app,
    "screen symptom on an email or push": screen_symptom_on_message,
    "error box where no error shows": error_box_without_error,
    "failed requests pasted on an exposure": failed_requests_on_exposure,
    "never-works clause on an exposure": never_works_on_exposure,
    "QA scope as a headcount": qa_headcount,
    "QA asks for the old behaviour back": qa_asks_old_behaviour,
    "feature request dressed as a bug": feature_request_as_bug,
    "one failing cell told as all": one_cell_as_all,
    "workspace bigger than the reporter's organisation": workspace_bigger_than_organisation,
    "a rate of failures that always happen": rate_on_an_always_failure,
    "error box on a defect that shows no error": error_box_on_silent_defect,
    "error box speaks of unsaved changes": box_speaks_of_changes,
    "pasted settings contradict the ticket": diagnostics_contradict,
    "blame no reader would confuse with the symptom": blame_beyond_reason,
    "slot that does not fit its sentence": slot_grammar,
    "Internet Explorer with a Chrome console": ie_with_chrome_console,
    "tablet report written from a phone": tablet_told_as_phone,
    "customer origin in a non-production log": customer_origin_off_production,
    "title names two builds": title_names_two_builds,
    "fault talk on a feature request": fault_talk_on_a_wish,
    "console errors on a defect that works": console_errors_on_a_quiet_defect,
    "two settings screens in one ticket": two_settings_screens,
    "script errors on a server-side defect": script_errors_on_a_server_defect,
    "a colleague or another object shows a lone defect": others_share_a_lone_defect,
    "a way round said to change nothing": way_round_tried_in_vain,
    "a project or sign-in check on a sign-in or payment defect": project_check_on_an_account_defect,
    "log files said attached without a log": log_files_without_a_log,
    "a build in the title, none in the version field": build_named_but_no_version,
    "more files named than attached": more_files_than_attached,
    "writing put off for a failure of this morning": put_off_a_fresh_failure,
    "writing put off while the whole team is stopped": put_off_while_stopped,
    "a release pass on a development build": release_pass_on_a_dev_build,
    "test data on an exposure": fixture_data_on_an_exposure,
    "another client library pasted": another_library_pasted,
    "the production API called from a test build": production_api_from_a_test_build,
    "Ctrl keys on a Mac": ctrl_keys_on_a_mac,
    "settings unchanged beside a setting changed": settings_unchanged_beside_a_change,
    "an alert filed under another component": alert_filed_elsewhere,
    "a one-client run that finds every client failing": one_client_run_beside_every_client,
    "a past incident told by a test run": past_incident_from_a_run,
    "a screen of an app that never opens": inside_an_app_that_never_opens,
    "a recurrence nothing tells of": recurrence_nobody_told,
    "a cosmetic glitch titled as a failure": cosmetic_glitch_titled_as_failure,
}

ALERT_AFTER_REPORT_HOURS = 6


def alert_long_after_report(made: GeneratedTask) -> int:
    """Alerts filed hours after the report of the failure they duplicate (an alert fires when the failure
    starts, so an alert and the first report of one incident are close in time)."""
    created = {t.ticket_id: t.created_at for t in made.task.tickets}
    late = 0
    for t in made.task.tickets:
        first = made.facts[t.ticket_id].duplicate_of
        if t.reporter_type == "monitoring" and first is not None:
            late += (t.created_at - created[first]).total_seconds() > ALERT_AFTER_REPORT_HOURS * 3600
    return late


QUEUE_CHECKS: dict[str, Callable[[GeneratedTask], int]] = {
    "alert filed long after the first report of its failure": alert_long_after_report,
}

# --------------------------------------------------------------------------- counting


def instances(split: str, per_level: int = PER_LEVEL) -> tuple[GeneratedTask, ...]:
    return sweeps.instances(split, per_level)


def found(made: tuple[GeneratedTask, ...], kind: str) -> list[str]:
    return [t.ticket_id for t, f in sweeps.items(made) if TICKET_CHECKS[kind](t, f)]


OPEN: frozenset[tuple[str, str]] = frozenset()
"""(kind, split) pairs still found: strict xfail, so that fixing one fails here until it is taken off this list."""


@pytest.mark.parametrize(
    ("kind", "split"),
    [
        pytest.param(k, split, marks=pytest.mark.xfail(strict=True)) if (k, split) in OPEN else (k, split)
        for k in TICKET_CHECKS
        for split in SPLITS
    ],
)
def test_no_seam_of_this_kind(kind: str, split: str) -> None:
    hits = found(instances(split), kind)
    assert not hits, (kind, len(hits), hits[:5])


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("kind", list(QUEUE_CHECKS))
def test_no_queue_seam_of_this_kind(kind: str, split: str) -> None:
    assert sum(QUEUE_CHECKS[kind](m) for m in instances(split)) == 0, kind


# --------------------------------------------------------------------------- each check can fail


_ticket, _facts = planting.ticket, planting.facts


def test_each_check_finds_a_planted_seam() -> None:
    android, email, exposed = _facts(component="android-app"), _facts(component="email-delivery"), _facts(exposure=True)
    hang = _ticket(description="The editor greys out and a 'Working...' label stays there until I reload.")
    assert browser_symptom_in_app(hang, android)
    assert not browser_symptom_in_app(hang, _facts(component="web-ui"))
    assert screen_symptom_on_message(_ticket(description="the button greys out and nothing happens"), email)
    assert not screen_symptom_on_message(_ticket(description="Nothing arrives, not even in spam."), email)
    box = _ticket(description="The text in the red box, copied by hand:\nThis didn't go through.")
    assert error_box_without_error(box, email)
    assert error_box_without_error(box, exposed)
    assert not error_box_without_error(box, _facts(component="web-ui"))
    reset = _ticket(description="Network tab:\nStatus: (failed) net::ERR_CONNECTION_RESET")
    assert failed_requests_on_exposure(reset, exposed)
    assert not failed_requests_on_exposure(reset, _facts())
    never = _ticket(description="Web, iPhone and our scripts: nothing works and we have no detour.")
    assert never_works_on_exposure(never, exposed)
    assert not never_works_on_exposure(never, _facts())
    assert qa_headcount(_ticket(reporter_type="qa", description="Fails for 1 of 286 test accounts."), _facts())
    assert qa_headcount(_ticket(reporter_type="qa", description="Fails for all users of a Samsung phone."), _facts())
    assert not qa_headcount(_ticket(reporter_type="qa", description="> Only 3 of 40 people hit it"), _facts())
    assert not qa_headcount(_ticket(description="Fails for 1 of 286 test accounts."), _facts())
    plea = _ticket(reporter_type="qa", description="Can we get the previous version's behaviour back?")
    assert qa_asks_old_behaviour(plea, _facts())
    wish = _ticket(description="Could you add S3 delivery? Our developer looked at it and thinks it's on your side.")
    assert feature_request_as_bug(wish, _facts(kind="feature"))
    assert not feature_request_as_bug(wish, _facts())
    one = _ticket(reporter_type="qa", description="Matrix: failing cells 1, all on the same test account.")
    assert one_cell_as_all(one, _facts())
    assert not one_cell_as_all(
        _ticket(reporter_type="qa", description="Failing cells: 2, all on one account."), _facts()
    )
    charity = _facts(organisation="Bright Harbour Appeal", person=("Darius Moradi", "developer"))  # 9 seats
    big = _ticket(description="Renaming fails in workspaces with more than 500 members.")
    assert workspace_bigger_than_organisation(big, charity)
    assert not workspace_bigger_than_organisation(big, _facts(organisation="Orwell County Council"))  # 720 seats
    okta = "There is no way to log in through Okta. About 18% of our tries at single sign-on fail, the others are slow."
    assert rate_on_an_always_failure(_ticket(description=okta), _facts())
    assert not rate_on_an_always_failure(_ticket(description=okta.split(". ", 1)[1]), _facts())
    assert not rate_on_an_always_failure(_ticket(description=f"Often there is {okta[9:]}"), _facts())
    calm = f"Not urgent at all on our side. {okta.split('. ', 1)[1]}"
    assert not rate_on_an_always_failure(_ticket(description=calm), _facts())


def test_each_fit_check_finds_a_planted_seam() -> None:
    utc_day = _facts(scenario="reporting-daily-completions-utc-buckets")
    box = _ticket(description="Fine.\n\nWhat the screen shows:\nOops, that didn't go through.\nSupport code: LX-1")
    assert error_box_on_silent_defect(box, utc_day)
    assert not error_box_on_silent_defect(box, _facts(scenario="login-password-signin-500"))
    assert box_speaks_of_changes(_ticket(description="Code: LX-1\nYour changes may not have been kept."), _facts())
    dark = "Copied from the app's diagnostics page:\nDark mode: off\nApp language: English (UK)"
    assert diagnostics_contradict(_ticket(description=f"Grey text in dark mode.\n\n{dark}"), _facts())
    assert not diagnostics_contradict(_ticket(description=f"Grey text.\n\n{dark}"), _facts())
    spoken = "Copied from the app's diagnostics page:\nApp language: Portuguese"
    assert diagnostics_contradict(_ticket(description=f"It crashes.\n\n{spoken}"), _facts())
    assert not diagnostics_contradict(
        _ticket(description=f"With the app in Portuguese it crashes.\n\n{spoken}"), _facts()
    )
    endonym = "Copied from the About screen:\nLanguage: Turkish"
    assert not diagnostics_contradict(_ticket(description=f"My phone is set to Türkçe.\n\n{endonym}"), _facts())
    waited = _ticket(description="I waited a day before writing in. Nobody here can save a task.")
    assert put_off_while_stopped(waited, _facts(scope="everyone"))
    assert not put_off_while_stopped(waited, _facts(scope="workaround"))
    run = (
        "Browsers covered: Chrome 132, Safari 18.\n\nSaving fails in every cell of the matrix (web, iOS, Android, API)."
    )
    assert one_client_run_beside_every_client(_ticket(reporter_type="qa", description=run), _facts())
    assert not one_client_run_beside_every_client(_ticket(reporter_type="qa", description=run[:40]), _facts())
    alert = _ticket(reporter_type="monitoring", component_candidates=["editor"])
    assert alert_filed_elsewhere(alert, _facts(component="database"))
    assert not alert_filed_elsewhere(alert, _facts(component="editor"))
    assert not alert_filed_elsewhere(_ticket(component_candidates=["editor"]), _facts(component="database"))
    failover = _facts(component="database", scenario="database-failover-lost-writes")
    assert past_incident_from_a_run(_ticket(reporter_type="qa"), failover)
    assert past_incident_from_a_run(_ticket(environment="staging"), failover)
    assert not past_incident_from_a_run(_ticket(), failover)
    zoned = "Copied from the app's diagnostics page:\nDevice time zone: Atlantic/Azores"
    assert diagnostics_contradict(_ticket(description=f"Set the profile to America/Denver.\n\n{zoned}"), _facts())
    assert not diagnostics_contradict(_ticket(description=f"Reminders come at night.\n\n{zoned}"), _facts())
    guests = "From Admin > Workspace:\nLicensed users: 40\nGuest access: off"
    assert diagnostics_contradict(_ticket(description=f"Suppliers join as guests.\n\n{guests}"), _facts())
    assert not diagnostics_contradict(_ticket(description=f"Suppliers join as members.\n\n{guests}"), _facts())
    turkish = "Device details:\nLocale: de-DE"
    assert diagnostics_contradict(_ticket(description=f"Set to Turkish, Save fails.\n\n{turkish}"), _facts())
    export = [("case:wrong_cause", "We think the export feature started failing again.")]
    assert blame_beyond_reason(_ticket(), _facts(component="editor", case="wrong_cause", evidence=export))
    assert not blame_beyond_reason(_ticket(), _facts(component="reporting", case="wrong_cause", evidence=export))
    database = [("case:wrong_cause", "Most likely your database.")]
    glitch = _facts(component="editor", impact="cosmetic", case="wrong_cause", evidence=database)
    assert blame_beyond_reason(_ticket(), glitch)
    assert not blame_beyond_reason(_ticket(), dataclasses.replace(glitch, impact="core"))
    assert slot_grammar(_ticket(description="When I write on my Android phone on Pixel 8 phones, it greys."), _facts())
    assert slot_grammar(_ticket(description="I on an Android phone, set the font to large."), _facts())
    headed = _ticket(description="Additionally, unrelated: Layout: German locale, Settings.")
    assert slot_grammar(headed, _facts(case="two_problems"))
    assert not slot_grammar(headed, _facts())
    utc = "The daily completion chart splits days at midnight UTC"
    assert not slot_grammar(_ticket(description=f"{utc}. It is wrong."), utc_day)
    invoice = _facts(scenario="invoicing-emailed-invoice-wrong-total")
    assert slot_grammar(
        _ticket(description="we paid the correct lower amount. accounting is confused The copy"), invoice
    )
    assert not slot_grammar(_ticket(description="accounting is confused. The copy"), invoice)
    ie = _ticket(description="On IE11 the board is blank.\n\nCopied from the Chrome console:\nUncaught (in promise)")
    assert ie_with_chrome_console(ie, _facts())
    assert not ie_with_chrome_console(_ticket(description="Copied from the Chrome console:\nUncaught"), _facts())
    assert tablet_told_as_phone(
        _ticket(description="On my iPad the chart is cut. Sent from my phone on the train."), _facts()
    )
    assert not tablet_told_as_phone(_ticket(description="On my iPad the chart is cut."), _facts())
    log = "10:10:58 [info] OPTIONS /v2/comments 403 0ms origin=https://portal.brightlane.co"
    assert customer_origin_off_production(_ticket(environment="development", log_excerpt=log), _facts())
    assert not customer_origin_off_production(_ticket(log_excerpt=log), _facts())
    assert not customer_origin_off_production(
        _ticket(environment="development", log_excerpt=log.replace("portal.brightlane.co", "localhost:3000")), _facts()
    )


def test_the_console_and_device_checks_find_planted_seams() -> None:
    console = _ticket(description="Console output:\nTypeError: null is not an object (evaluating 'this.view.id')")
    assert console_errors_on_a_quiet_defect(console, _facts(scenario="data-export-csv-status-keys"))
    assert not console_errors_on_a_quiet_defect(console, _facts(scenario="login-password-signin-500"))
    assert script_errors_on_a_server_defect(console, _facts(component="file-storage"))
    assert not script_errors_on_a_server_defect(console, _facts(component="web-ui"))
    about = "From the About screen:\nNetwork: 5G\nFree storage: 12.1 GB"
    help_ = "Device details:\nConnection: home Wi-Fi\nStorage free: 30.2 GB"
    assert two_settings_screens(_ticket(description=f"{about}\n\n{help_}"), _facts())
    assert not two_settings_screens(_ticket(description=about), _facts())


def test_the_checklist_checks_find_planted_seams() -> None:
    colleague = _ticket(description="Things I ruled out, in order:\n1. A colleague's login (same for them)")
    assert others_share_a_lone_defect(colleague, _facts(scenario="sso-google-mixed-case-email"))
    assert others_share_a_lone_defect(colleague, _facts(scenario="login-password-signin-500", scope="few"))
    assert not others_share_a_lone_defect(colleague, _facts(scenario="login-password-signin-500"))
    project = _ticket(description="Checked first:\n- A second project: same result")
    assert others_share_a_lone_defect(project, _facts(scenario="editor-table-docs-saved-empty"))
    assert not others_share_a_lone_defect(project, _facts(scenario="login-password-signin-500"))
    reload = _ticket(description="Stuff I tried already:\n* hard refresh: no difference")
    assert way_round_tried_in_vain(reload, _facts(scenario="database-replica-lag-stale-reads"))
    assert not way_round_tried_in_vain(reload, _facts(scenario="editor-table-docs-saved-empty"))
    filler = _ticket(description="A colleague at the next desk tried the same thing and got the same error.")
    assert others_share_a_lone_defect(filler, _facts(scenario="sso-google-mixed-case-email"))
    old_browser = _facts(scenario="login-password-signin-500", unsupported=True)
    assert others_share_a_lone_defect(_ticket(description="Tried:\n- A different device (same)"), old_browser)
    assert others_share_a_lone_defect(colleague, old_browser)
    restarted = _ticket(description="I restarted my phone before writing in, which made no difference.")
    assert way_round_tried_in_vain(restarted, _facts(scenario="database-replica-lag-stale-reads"))
    assert project_check_on_an_account_defect(project, _facts(component="sso"))
    assert not project_check_on_an_account_defect(project, _facts(component="editor"))
    sign = _ticket(description="What I checked:\n- Signed out and back in: still broken")
    assert way_round_tried_in_vain(sign, _facts(scenario="android-app-logged-out-on-resume"))


def test_the_log_file_check_finds_a_planted_seam() -> None:
    run = "Recording of the red run clip12.mp4 and log files attached."
    assert log_files_without_a_log(_ticket(reporter_type="qa", description=run), _facts())
    its = "Recording of the red run clip12.mp4 and its log file attached."
    assert log_files_without_a_log(_ticket(reporter_type="qa", description=its), _facts())
    assert not log_files_without_a_log(_ticket(reporter_type="qa", description=run, logs_present=True), _facts())
    runner = "Run video capture-4.mp4 and runner log run-17.txt attached."
    assert log_files_without_a_log(_ticket(reporter_type="qa", description=runner), _facts())


def test_the_field_and_timeline_checks_find_planted_seams() -> None:
    assert build_named_but_no_version(_ticket(title="Export fails (v2026.9.2)", version=None), _facts())
    assert not build_named_but_no_version(_ticket(title="Export fails (v2026.9.2)", version="web 2026.9.2"), _facts())
    steps = "Screenshots of each step are attached, starting with IMG_1.png."
    assert more_files_than_attached(_ticket(description=steps, repro_steps_present=True, attachments_count=1), _facts())
    assert more_files_than_attached(_ticket(description=steps, attachments_count=3), _facts())
    assert not more_files_than_attached(
        _ticket(description=steps, repro_steps_present=True, attachments_count=3), _facts()
    )
    four = "Failing run recording recording-737.mp4 and log files attached, plus two more files."
    assert more_files_than_attached(_ticket(description=four, attachments_count=3), _facts())
    assert not more_files_than_attached(_ticket(description=four, attachments_count=4), _facts())
    run = "Run recording attached (recording-366.mp4), and the runner's log run-83.txt."
    assert more_files_than_attached(_ticket(description=run, attachments_count=1), _facts())
    assert not more_files_than_attached(_ticket(description=run, attachments_count=2), _facts())
    late = "Since this morning buying seats fails. It's been on my list to report for a few weeks now, sorry."
    assert put_off_a_fresh_failure(_ticket(description=late), _facts())
    assert not put_off_a_fresh_failure(_ticket(description=late.split(". ", 1)[1]), _facts())
    retried = "I waited a day before writing in. I tried it again this morning before sending this."
    assert not put_off_a_fresh_failure(_ticket(description=retried), _facts())
    deadline = "I've been putting off writing this for days. We will cancel if this isn't fixed by tonight."
    assert not put_off_a_fresh_failure(_ticket(description=deadline), _facts())
    asked = "I waited a couple of days before writing in. I EXPECT AN ANSWER THIS MORNING."
    assert not put_off_a_fresh_failure(_ticket(description=asked), _facts())
    sign_off = "Filed from the release sign-off pass for web 2026.10.0-dev.60."
    assert release_pass_on_a_dev_build(_ticket(environment="development", description=sign_off), _facts())
    assert not release_pass_on_a_dev_build(_ticket(environment="staging", description=sign_off), _facts())


def test_the_exposure_data_and_library_checks_find_planted_seams() -> None:
    fixture = 'Data set: fixture "smallco".'
    assert fixture_data_on_an_exposure(_ticket(reporter_type="qa", description=fixture), _facts(exposure=True))
    assert not fixture_data_on_an_exposure(_ticket(reporter_type="qa", description=fixture), _facts())
    assert not fixture_data_on_an_exposure(
        _ticket(reporter_type="qa", description="Set up as two unrelated organisations."), _facts(exposure=True)
    )
    paste = "It fails from the Node.js client library.\n\nWhat our wrapper recorded:\ntr-1\nlibrary: larkspur-{} 0.14"
    assert another_library_pasted(_ticket(description=paste.format("go")), _facts())
    assert not another_library_pasted(_ticket(description=paste.format("node")), _facts())
    unchanged = "Set Billing > Invoice language to Français. Our settings (unchanged, I checked the history)"
    assert settings_unchanged_beside_a_change(_ticket(description=unchanged), _facts())
    assert not settings_unchanged_beside_a_change(_ticket(description=unchanged.split(". ")[1]), _facts())
    mac = "Safari 26.2 on an iMac. I opened a document and pressed Ctrl+S."
    assert ctrl_keys_on_a_mac(_ticket(description=mac), _facts())
    assert not ctrl_keys_on_a_mac(_ticket(description=mac.replace("Ctrl", "Cmd")), _facts())
    call = "Call GET https://api.larkspur.app/v2/taskz with a valid token."
    assert production_api_from_a_test_build(_ticket(environment="development", description=call), _facts())
    assert not production_api_from_a_test_build(_ticket(description=call), _facts())


def test_the_wish_check_finds_a_planted_seam() -> None:
    wish = _ticket(
        description="Could we mute one project? Someone else in the office confirmed it on their laptop too."
    )
    assert fault_talk_on_a_wish(wish, _facts(kind="feature"))
    assert not fault_talk_on_a_wish(wish, _facts())


def test_the_app_that_never_opens_check_finds_a_planted_seam() -> None:
    splash = _facts(scenario="android-app-work-profile-splash-hang", component="android-app")
    assert inside_an_app_that_never_opens(_ticket(description="Copied from the app's settings:\nDark mode: on"), splash)
    assert inside_an_app_that_never_opens(_ticket(description="Tried:\n- logged out and in again: same"), splash)
    assert not inside_an_app_that_never_opens(_ticket(description="Reinstalling changed nothing."), splash)
    other = _facts(scenario="android-app-crash-opened-from-notification", component="android-app")
    assert not inside_an_app_that_never_opens(
        _ticket(description="Copied from the app's settings:\nDark mode: on"), other
    )


def test_the_title_checks_find_planted_seams() -> None:
    assert recurrence_nobody_told(_ticket(title="Exports are empty STILL BROKEN!!"), _facts())
    assert recurrence_nobody_told(_ticket(title="Export is broken again"), _facts())
    assert not recurrence_nobody_told(_ticket(title="Deleted tasks still show up in search results"), _facts())
    footer = _facts(scenario="email-delivery-footer-placeholder-shown", component="email-delivery")
    assert cosmetic_glitch_titled_as_failure(_ticket(title="The footer of notification emails keeps failing"), footer)
    assert not cosmetic_glitch_titled_as_failure(
        _ticket(title="Problem with the footer of notification emails"), footer
    )
    assert not cosmetic_glitch_titled_as_failure(_ticket(title="Export keeps failing"), _facts(scenario="x"))


def test_the_build_and_alert_checks_find_planted_seams() -> None:
    assert title_names_two_builds(_ticket(title="5.11.1: iOS 5.14: crash"), _facts())
    assert not title_names_two_builds(_ticket(title="[5.11.1] iOS: crash on task detail"), _facts())
    assert not title_names_two_builds(_ticket(title="Australian invoices show 'Tax: 0.00' [2026.2.1]"), _facts())
    made = instances("test", 1)[-1]
    assert alert_long_after_report(made) == 0
    first, second = made.task.tickets[:2]
    late = second.model_copy(
        update={"reporter_type": "monitoring", "created_at": first.created_at + timedelta(hours=35)}
    )
    facts = {
        **made.facts,
        late.ticket_id: dataclasses.replace(made.facts[late.ticket_id], duplicate_of=first.ticket_id),
    }
    task = dataclasses.replace(made.task, tickets=(first, late, *made.task.tickets[2:]))
    assert alert_long_after_report(GeneratedTask(task, facts, made.split, made.seed)) == 1


def main(per_level: int) -> None:
    for split in SPLITS:
        made = instances(split, per_level)
        print(f"{split}: {len(made)} queues, {len(sweeps.items(made))} tickets")
        for kind in TICKET_CHECKS:
            print(f"  {len(found(made, kind)):5d}  {kind}")
        for kind, check in QUEUE_CHECKS.items():
            print(f"  {sum(check(m) for m in made):5d}  {kind}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else PER_LEVEL)
