"""One reporter's voice: phrases that fit the ticket, drawn at most once per queue, and the
customer's framing around the facts (greeting, padding, what is attached, pasted output,
sign-off, noise).

A `Voice` lives for one instance. Before each ticket the renderer `cast`s the ticket's
reporter and tags; every phrase is then drawn only from those that fit the tags, preferring
one no other ticket of the queue has used, and its choices are drawn as it is written
(`phrasing.compose`), so a phrase used twice need not read the same. Framing sentences (greetings, padding, notes on
attachments) are used at most once per queue, and half the customer tickets carry no padding.
How long a customer writes is drawn apart from the truth: three in ten write only the facts, in
as few words as they can, and over a quarter write at length, pasting what their screen printed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import lru_cache
from http import HTTPStatus

from ..catalogue import Partition, Phrases
from ..errors import FixtureError
from ..textstats import may_hold, may_match, self_descriptions
from .files import DESKTOPS, EDGE, desktop_said, file_series
from .noise import NO_NOISE, Noise, draw_noise
from .personas import Persona
from .phrasing import CHOICE, compose, whole_quotes
from .settings import agreeing, client_library, screen_settings

_CLIENT_WORDS: dict[str, re.Pattern[str]] = {
    "mobile": re.compile(r"\b(?:iphone|ipad|ios|android|phone app|mobile app|mobile)\b", re.I),
    "api": re.compile(r"\b(?:api|endpoint|webhook|GET|POST|PUT|PATCH|DELETE) ?/|\bapi\b", re.I),
    "web": re.compile(rf"\b(?:browser|chrome|firefox|safari|web app|website)\b|{EDGE}", re.I),
}
_CLIENT_HINTS: dict[str, tuple[str, ...]] = {
    "mobile": ("iphone", "ipad", "ios", "android", "phone app", "mobile"),
    "api": ("api", "endpoint", "webhook", "get", "post", "put", "patch", "delete"),
    "web": ("browser", "chrome", "firefox", "safari", "edge", "web app", "website"),
}
"""Words each `_CLIENT_WORDS` pattern needs (`may_hold`): a plain test first spares a text the patterns it cannot match."""


_BROWSERS: dict[str, re.Pattern[str]] = {
    "chromium": re.compile(rf"\b(?:Chrome|Chromium|Chromebook|Opera|Brave)\b|{EDGE}|\bCannot read properties of\b"),
    "safari": re.compile(r"\bSafari\b"),
    "firefox": re.compile(r"\bFirefox\b"),
    "ie": re.compile(r"\bInternet Explorer\b|\bIE ?1[01]\b|\bTrident/7\.0\b"),
}
"""Browser families a ticket can name: a console pasted into it must be one of theirs (a console message in
Chromium's words, "Cannot read properties of undefined", names its family)."""
_BROWSER_WORDS: dict[str, tuple[str, ...]] = {
    "chromium": ("Chrom", "Edge", "Opera", "Brave", "Cannot read properties"),
    "safari": ("Safari",),
    "firefox": ("Firefox",),
    "ie": ("Internet Explorer", "IE", "Trident"),
}
"""Words each family's pattern needs in a text: a plain substring test first spares most texts the regex."""


_ROLE_CLAIM = re.compile(
    r"(?<!in )(?<!up )\b(?P<lead>I'm|I am|I work as|[Aa]s)(?P<art> one of the| one of our| the| a| an| our)? "
    r"(?P<role>project leads?|team leads?|office manager|operations lead|IT lead|project coordinator|workspace admin|"
    r"admin(?! of)|developer|systems administrator|founder)\b",
    re.I,
)
"""A writer naming their own job ("I'm one of the project leads", "As a team lead I'd like")."""
_ROLE_WORDS = ("lead", "manager", "coordinator", "admin", "developer", "founder")
"""Words every `_ROLE_CLAIM` role holds (`may_hold`)."""


def own_role(text: str, persona: Persona) -> str:
    """`text` with every job its writer claims made the reporter's own: a catalogue story or a stock
    greeting says "I'm the office manager" whoever writes it, and one person has one job."""
    if persona.reporter != "user" or not persona.role or not may_hold(text, _ROLE_WORDS):
        return text

    def mine(m: re.Match[str]) -> str:
        said = m["role"].lower().removesuffix("s")
        if said == persona.role.lower() or (said == "admin" and persona.admin):
            return m[0]
        art = m["art"]
        if art in (" a", " an"):
            art = " an" if persona.role[0].lower() in "aeiou" or persona.role.startswith("IT") else " a"
        elif art is not None:
            art = " the"
        return f"{m['lead']}{art or ''} {persona.role}"

    return _ROLE_CLAIM.sub(mine, text)


_PEOPLE = r"(?:everyone|everybody|anyone|all users|all customers|every customer|customers|people|users)"
_WHO_DOES = re.compile(rf"^{_PEOPLE} who (?P<verb>\w+)(?P<rest>.*)$")
_PEOPLE_ON = re.compile(
    rf"^{_PEOPLE}(?: working)? (?:on|of|in|using|with) (?P<what>.+?)(?: who (?P<verb>\w+)(?P<rest>.*))?$"
)
_GERUNDS = {
    "plans": "planning",
    "has": "having",
    "does": "doing",
    "goes": "going",
    "puts": "putting",
    "gets": "getting",
    "sets": "setting",
}


def _gerund(verb: str) -> str:
    """ "signs" -> "signing", "swipes" -> "swiping", "works" -> "working" (a third-person verb made a gerund)."""
    if verb in _GERUNDS:
        return _GERUNDS[verb]
    stem = verb[:-1] if verb.endswith("s") else verb
    if stem.endswith("e") and not stem.endswith(("ee", "ye", "oe")):
        stem = stem[:-1]
    return f"{stem}ing"


_EVERY_ONE = re.compile(
    r"^(?:every|each) (?P<kind>customer|workspace|account|team|organi[sz]ation|integration|client|user|company|"
    r"business)s? (?:(?:that|who) (?P<verb>\S+)(?P<rest>.*)|(?P<where>(?:on|in|at|with|using|whose|still|\w+ing|\w+ed)\b.*))$"
)
"""A group counted by its members: "every team that co-edits documents", "every customer hosted in Sydney"."""
_EVERYONE_DOING = re.compile(r"^(?:everyone|everybody|anyone) (?:(?P<doing>\w+ing\b.*)|(?P<whose>whose\b.*))$")


def as_configuration(who: str) -> str:
    """A group named by its people ("all users of Microsoft Edge 120", "everyone who signs in with a
    password", "every team that co-edits documents", "every customer hosted in the Sydney region") named as a
    tester's configuration ("Microsoft Edge 120", "signing in with a password", "co-editing documents", "a workspace
    hosted in the Sydney region"): a test run covers a case, it counts no customers."""
    m = _WHO_DOES.match(who)
    if m is not None:
        return f"{_gerund(m['verb'])}{m['rest']}"
    m = _EVERY_ONE.match(who)
    if m is not None:
        if m["where"] is None:
            return f"{_gerund(m['verb'])}{m['rest']}"
        one = {"integration": "an integration", "client": "an integration", "user": "a user", "team": "a team"}.get(
            m["kind"], "a workspace"
        )
        if re.search(
            r"\bwho\b", m["where"]
        ):  # "every customer on a Mac who works in Safari": a person, not a workspace
            one = "a user"
        return f"{one} {m['where']}"
    m = _EVERYONE_DOING.match(who)
    if m is not None:
        return m["doing"] or f"an account {m['whose']}"
    m = _PEOPLE_ON.match(who)
    if m is None:
        return who
    if m["verb"] is None:
        return m["what"]
    return f"{m['what']}, {_gerund(m['verb'])}{m['rest']}"


_QUOTED = re.compile(r"(?<!\w)(['\"])(.+?)\1(?!\w)")
"""A quote in single or double quotes (an apostrophe inside a word does not end it)."""


def _quotes(text: str) -> list[str]:
    """What `text` quotes, six characters or more (not a quoted key or letter: '#', 'ü')."""
    return [m[2] for m in _QUOTED.finditer(text) if len(m[2]) >= 6] if "'" in text or '"' in text else []


def shown_message(facts: str, told: str = "") -> str:
    """The error message an error box pasted from the screen shows: the longest quote of the defect's wording
    (`facts`; a button's name is shorter) that holds what the ticket `told` quotes, else the longest the ticket
    quotes, else the defect's longest."""
    said, known = _quotes(told), _quotes(facts)
    fitting = [k for k in known if any(q in k for q in said)] or said or known
    code = _ERROR_CODE.search(f"{facts} {told}")  # "fails with error SSO-212": the box says that code
    named = code and (code[1] or code[2])
    if named and not any(named in k for k in fitting):
        return f"Something went wrong ({named})."
    if fitting:
        return max(fitting, key=len)
    status = _STATUS.search(f"{facts} {told}")  # "it answers with a 403": the box says the status it got
    if status is not None and int(status[1]) in _REASONS:
        number = int(status[1])
        return f"Request failed ({number} {_REASONS[number]})."
    return "Something went wrong."


_ERROR_CODE = re.compile(r"\b(?:[Ee]rror|code|with) ([A-Z]{2,}-\d+)\b(?!-)|\b([A-Z]{2,}-\d+) (?:error|rejection)\b")
"""An error code a wording names as the error ("fails with error SSO-212", "is rejected with SSO-212", "the SSO-212
error"), not a ticket, an invoice ("INV-2026-119002") or a build."""
_STATUS = re.compile(
    r"\b(?:HTTP|status|returns?|returned|answers? with|gets?|got|with|an?) (?:an? |the )?([45]\d\d)\b(?! (?:members|seats|"
    r"users|people|tasks|projects|ms|MB|KB|GB|rows|items|of))"
)
"""An HTTP status a wording names ("a 403 saying we are not allowed")."""
_REASONS = {s.value: s.phrase for s in HTTPStatus if 400 <= s.value < 600}


def browsers_named(text: str) -> set[str]:
    """The browser families `text` names, as phrase tags."""
    return {
        name
        for name, pattern in _BROWSERS.items()
        if any(map(text.__contains__, _BROWSER_WORDS[name])) and pattern.search(text)  # no generator per family
    }


def client_tags(platform: str | None, text: str) -> set[str]:
    """The clients a ticket is about: its component's platform and every client its facts name."""
    tags = set(_clients_named(text))
    if platform:
        tags.add("mobile" if platform in ("ios", "android") else platform)
    return tags


@lru_cache(maxsize=4096)
def _clients_named(text: str) -> frozenset[str]:
    """Every client `text` names (catalogue wordings: read once per process)."""
    return frozenset(
        name for name, pattern in _CLIENT_WORDS.items() if may_hold(text, _CLIENT_HINTS[name]) and pattern.search(text)
    )


_TITLE_COLON = re.compile(r": (?=[a-z])")
"""A subject's colon before what its subject does ("Export: fails with code 5012")."""
_CLAUSE_START = re.compile(r"(?:\w+ing|the|a|an|every|all|my|our|some|any|no)\b")
"""The start of a clause with its own subject ("opening a project shows...", "the button is grey")."""
_SENTENCE_END = re.compile(r"(?<=[a-z)'\"][.!?])\s+(?=[A-Z])")
_REQUEST = re.compile(
    r"\b(please|could you|would you|can you|could we|can we|would it be|it would be|i'd love|we'd love|"
    r"wish|allow|let us|let me|option to|support for|why can't|why is there no|add)\b",
    re.IGNORECASE,
)
"""Words that mark the sentence of a feature request that asks for something."""

_MORE_FILES = {1: "one more file", 2: "two more files", 3: "three more files", 4: "four more files"}


_GREETING = re.compile(r"\bGood (?:morning|afternoon|evening)\b")
_AFTERNOON = re.compile(r"\b(this|all|my) afternoon\b")
_MORNING = re.compile(r"\b(this|my) morning\b")
OPENED = 0.75
"""The share of customers with no opener of their own who open with a greeting or a short lead-in ("Hi,", "Quick
one:"), at any length: one who writes two lines greets as often as one who writes twenty (a greeting only above
steps told a tree which reports have no steps to give)."""
QUOTED_HEAD = re.compile(r"^On .* at \d\d:\d\d, [^<\n]+ <support@larkspur\.io> wrote:$", re.M)


def own_message(text: str) -> str:
    """A customer's email without the old support thread quoted below it (`Voice.quoted_thread`)."""
    found = QUOTED_HEAD.search(text)
    return text[: found.start()].rstrip() if found else text


INLINE_IMAGES = 0.3
"""The share of emails with files attached whose files are screenshots pasted into the message, which the tracker
shows as `[image: IMG_4821.PNG]` where each was pasted."""
QUOTED_THREAD = 0.4
"""The share of returning customers writing by email, in more than a line or two, who answer an old support thread
to write in, so that support's last reply in it is quoted below their message."""
INTRO_SHARE = {"padded": 0.25, "long": 0.5}
"""The share of padded and of long customer tickets that say who writes and for whom, when the writer has not (most
reporters give their organisation in a signature or not at all: realism reader 51 counted an introduction in 25 of 55
customer tickets at 0.4 and 0.7)."""

CLOSING_ASIDE = re.compile(
    r"\breach me\b|\b(?:jump|hop) on a call\b|\bdo a quick call\b|\bscreen-share\b|\bshare my screen\b|\banything else I\b|\btest a fix\b"
    r"|\breply to this address\b|\bkeep an eye on my\b|\bshare more\b|\bI'm around\b|\bI'm off\b|\bat my desk\b"
    r"|\bis copied in\b|\bThanks in advance\b|\btry something on our side\b|\bthank you for (?:reading|taking|looking)\b"
)
"""An aside that ends a message (where to reach the writer, an offer to test, thanks in advance): written after the
problem, so a long writer does not stack it with the rest of their preamble before it."""
_SPENT_AFTERNOON = re.compile(r"\b(my) afternoon\b")


def daytime(text: str, hour: int) -> str:
    """`text` (a greeting or an aside, not the facts) as written at `hour` UTC: "Good morning" before noon, "Good
    afternoon" until six, "Good evening" after, "Hello" at night; no afternoon still ahead after dark, nor spent in
    the morning, nor a morning spent before five."""
    part = "morning" if 5 <= hour < 12 else "afternoon" if 12 <= hour < 18 else "evening" if 18 <= hour < 23 else ""
    text = _GREETING.sub(f"Good {part}" if part else "Hello", text)
    if part == "morning":  # no afternoon spent yet: "more of my afternoon" at 08:52 is of my morning
        text = _SPENT_AFTERNOON.sub(lambda m: f"{m[1]} morning", text)
    if not part or part == "evening":
        text = _AFTERNOON.sub(lambda m: "today" if m[1] == "this" else f"{m[1]} day", text)
    if not part:
        text = _MORNING.sub(lambda m: "today" if m[1] == "this" else "my day", text)
    return text


"""The files attached beyond those a note names, in words."""
_UNNAMED_LOG = re.compile(r"\b(?:log files?|test log|runner log|run log)\b(?! \S+\.txt)")
"""A log an attachment note tells of without its file name ("the failing run's video and log files attached")."""
_OWN_ENGLISH = re.compile(r"\b(?:sorry for|excuse) my english\b|\bmy english is (?:not|bad)\b", re.I)
"""A writer's apology for their English: the report around it is as brief as their English."""
_OWN_ENGLISH_WORDS = ("my english",)
"""What every `_OWN_ENGLISH` match holds (`may_match`): a plain test spares nearly every body the pattern."""
_LABELLED = re.compile(r"[^\s:.!?]+(?: [^\s:.!?]+){0,2}: ")
"""A text that opens with a label of up to three words and a colon ("Android: ...", "Small wish: ...")."""

_LOWER_I = re.compile(r"i(?<![\w'’.]i)(?=['’]\w|\s)")
"""The pronoun typed in lower case ("i think", "i'm"); the look-behind follows the letter (see `render._LOWER_I`)."""

_FRESH = re.compile(
    r"\b(?:this morning|today|tonight|last night|since (?:about )?\d|an hour ago|just now|since lunch)\b", re.I
)
"""A failure the facts date to the last few hours."""
_FRESH_WORDS = ("this morning", "today", "tonight", "last night", "since", "an hour ago", "just now")
"""Words every `_FRESH` match holds (`may_hold`: a plain test before the pattern, which starts with a boundary)."""


def _fresh(text: str) -> bool:
    """True when `text` dates the failure to the last few hours (`_FRESH`)."""
    return may_hold(text, _FRESH_WORDS) and _FRESH.search(text) is not None


_STEM = 5
"""Letters two words share at their start to count as one word (contractor, contractors)."""


_SETTINGS_SCREEN = re.compile(
    r"^(?:Connection|Network|Free storage|Storage free|Space left|Available space|Licensed users|Seats in use|Members"
    r"|Dark (?:mode|theme)|Night mode|Time zone|Device time zone):",
    re.M,
)
"""A line of a pasted device, app, profile or workspace settings screen: a ticket pastes one such screen (not the
app's About screen, its settings page and the workspace's admin page one after another)."""
_BOX = re.compile(r"^(?:Error reference|Reference number|Reference code|Reference|Support code|Code): ", re.M)
"""The reference line under an error box's message: a ticket pastes one box (one failure, one screen)."""
_APP_SCREEN = re.compile(
    r"^(?:(?:Interface |Display |App )?[Ll]anguage: |Build \d|Version \d|Installed version: |App version \d)", re.M
)
"""A line of a pasted app or profile screen (its language, its build): one such screen a ticket, as above."""
_API_CLIENT = re.compile(r"^(?:User agent: |library: |client: |connector build |wrapper version )\S", re.M)
"""The line naming the API client that logged a paste: an integration is one client, so a ticket pastes one
client's output (not a Go library's beside a Java wrapper's)."""


_LISTED = re.compile(r"^(?:[-*] |\d\. |\{1st\|First\}: |(?:1st|First): )\S", re.M)
"""A line of a list of what the writer tried: a ticket holds one list (of tries, or of what was ruled out)."""
_A_LIST = "- a list"
"""Stands for the list of what was ruled out among a ticket's pastes however it is written (`_LISTED` finds it)."""


_COMMON_WORD = re.compile(r"^[A-Z](?=[a-z']*\b(?!-))")
"""The capital of an item's first word, where it is no name ("A different device", not "Wi-Fi")."""
_LEAD_ON = re.compile(
    r"^(?:A|An|The|My|Our|Every|Each|Some|All|Any|Most|This|That|These|It|There|Nothing|None|No|When|Whenever|"
    r"After|Since|If|On|In|Today|Yesterday|Sometimes|Clicking|Opening|Tapping|Trying)(?= )"
)
"""A sentence's first word that runs on in lower case after a lead-in's colon ("Heads up: the export..."); a name,
"I" or a label ("Android:") keeps its capital."""


_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


def store_build(version: str, drawn: int) -> int:
    """The build number an app's screen shows beside `version` ("5.18.0 (4545)"): one per version, growing with it,
    so two tickets on one release show one build (`drawn` for a version that is no app's: a web build's date)."""
    m = _VERSION.match(version)
    if m is None or int(m[1]) > 50:  # (a web release is numbered by its year)
        return drawn
    major, minor, patch = (int(x) for x in m.groups())
    return 4000 + (major - 5) * 600 + minor * 30 + patch * 5


def _run_on(body: str) -> str:
    """`body` run on after a lead-in's colon: its first word in lower case where it is a common word (`_LEAD_ON`)."""
    return _LEAD_ON.sub(lambda m: m[0].lower(), body, 1)


_ONE_A_TICKET: tuple[tuple[re.Pattern[str], ...], ...] = (
    (_SETTINGS_SCREEN, _APP_SCREEN),
    (_BOX,),
    (_API_CLIENT,),
    (_LISTED,),
)
"""Kinds of paste a ticket holds one of, each told by the lines any of its patterns finds."""


def _shows(kind: tuple[re.Pattern[str], ...], paste: str) -> bool:
    """True when `paste` is of `kind` (one of `_ONE_A_TICKET`)."""
    return any(x.search(paste) for x in kind)


def _one_of_a_kind_again(paste: str, pasted: Sequence[str]) -> bool:
    """True when `paste` (a phrase, or its rendering) is of a kind of `_ONE_A_TICKET` that one of `pasted` is of."""
    return any(_shows(kind, paste) and any(_shows(kind, p) for p in pasted) for kind in _ONE_A_TICKET)


_ASIDES = tuple(
    re.compile(p, re.I)
    for p in (
        r"user error|something I'm doing|something obvious|silly question|well be nothing|setting we got wrong"
        r"|something I did",
        r"putting off|meaning to send|took me a while|waited|on my list to report|a few days now",
        r"checked|went over it|tried it again|re-ran|once more before",
        r"colleague|someone else in the office|of us (?:checked|noticed)|people on (?:the|my) team|came to my desk",
        r"call\b|ask me anything|I'm around|try something|tab open|by phone|share more|test a fix|reply to this"
        r"|I'm off\b|pick it up",
        r"changed (?:anything|on our)|nothing changed",
        r"technical|wording|phrasing|describe|as (?:clearly|plainly|simply) as|wall of text|long message|notes as",
        r"noticed",
        r"helped (?:us|me)|last time (?:we|I) wrote|wrote in (?:last|a while)|(?:quick|great|fast) to help|same luck"
        r"|with you for|support has always",
        r"me again|one more from me|report from me|writing twice|back again|what I reported|my (?:other|last) ticket"
        r"|ticket I sent",
    )
)
"""Kinds of aside a writer makes once in a ticket: doubting it is their fault, having put off writing,
checking again first, what colleagues saw, offering help, nothing changed on their side, apologising
for the wording, how they noticed, how support helped them before, another ticket of theirs (two of a kind
read as slots filled, or contradict each other)."""


@lru_cache(maxsize=8192)
def _aside_kinds(text: str) -> frozenset[int]:
    """Which `_ASIDES` (by index) `text` makes. A pure function of the text, and the texts asked about
    are mostly the phrase pools' frames, so each is searched once per process rather than once per draw."""
    return frozenset(i for i, x in enumerate(_ASIDES) if x.search(text))


def _said_kinds(said: Sequence[str]) -> frozenset[int]:
    """The kinds of aside the sentences `said` make between them."""
    return frozenset().union(*(_aside_kinds(h) for h in said))


def _same_aside(phrase: str, said: Sequence[str]) -> bool:
    """True when `phrase` is an aside of a kind one of `said` already makes."""
    return not _aside_kinds(phrase).isdisjoint(_said_kinds(said))


@lru_cache(maxsize=4096)
def _self_describing(phrase: str) -> bool:
    """True when some wording of `phrase` (a frame with `{a|b}` choices) says who the writer is."""
    groups = [m.split("|") for m in CHOICE.findall(phrase)]
    pieces = CHOICE.split(phrase)  # text, choices, text, choices, ..., text
    for i in range(max((len(g) for g in groups), default=1)):
        wording = "".join(
            p if k % 2 == 0 else groups[k // 2][min(i, len(groups[k // 2]) - 1)] for k, p in enumerate(pieces)
        )
        if self_descriptions(wording):
            return True
    return False


def _stems(text: str) -> set[str]:
    return {w[:_STEM] for w in re.findall(r"[a-z]{4,}", text.lower())}


def _shares_a_word(sentence: str, headline: str) -> bool:
    """True when `sentence` holds a word (of four letters or more) of `headline`, read by its stem."""
    return bool(_stems(sentence) & _stems(headline))


def _echoes(name: str, sector: str) -> bool:
    """True when the organisation's `name` already holds a word of its `sector`."""
    return _shares_a_word(sector, name)


Length = str
"""`terse` (only the facts), `plain` (greeting and sign-off), `padded` (a plain ticket whose facts
are shorter than a length drawn apart from the truth), or `long` (padded, with pasted output)."""


@dataclass
class Voice:
    """Draws every phrase of one instance, so that a ticket's phrases fit its reporter."""

    phrases: Phrases
    partition: Partition
    rng: random.Random
    used: set[str] = field(default_factory=set)
    persona: Persona = field(default_factory=lambda: Persona("monitoring", "alert"))
    tags: frozenset[str] = frozenset()
    noise: Noise = field(default_factory=Noise)
    length: Length = "plain"
    platform: str = "web"
    """The client the ticket is about: what its screen recordings are named by."""
    build: str = ""
    """The version number of the build the ticket is about ("5.15.0"): what an app's own screen prints."""
    facts: str = ""
    """The ticket's own wording of its facts: what a pasted settings screen agrees with."""
    habits: dict[str, tuple[Noise, str]] = field(default_factory=dict)
    """Each customer's typing (noise) and register (formal or casual), by name, drawn at their first ticket."""
    named: dict[str, datetime] = field(default_factory=dict)
    """Customers who have signed a ticket of the queue with their first name, with when the first of those was filed:
    only their later tickets may say they wrote before ("Apologies for writing twice in a row"), as only then can a
    reader tell the earlier one is theirs (tickets are not written in the order they are filed)."""
    filed: datetime | None = None
    """When the ticket being written is filed."""
    began: datetime | None = None
    """When the failure it reports began (None: no failure): no screenshot of it is older."""
    frame: str = ""
    """The phrase `once` drew last, as written in the pool (every `{a|b}` choice still in it)."""
    since: int | None = None
    """Minutes from the failure's onset to the report (None for a report of no failure): what a list of tries
    spreads over."""
    hour: int = 12
    """The hour (UTC) the ticket is written at: what its greeting and asides say of the time of day."""
    signature: dict[str, str] = field(init=False)
    """The reporter's `signature_values`, worked out once per ticket (read by every phrase drawn)."""

    def __post_init__(self) -> None:
        self.signature = self.persona.signature_values()

    def cast(self, persona: Persona, ticket_tags: set[str]) -> None:
        """Make `persona` the reporter of the next ticket, with the ticket's own tags."""
        r = self.rng
        self.persona = persona
        self.signature = persona.signature_values()
        self.since = None
        self.length = "plain"
        self.noise = NO_NOISE
        extra = set()
        if persona.reporter == "user":
            x = r.random()
            self.length = "terse" if x < 0.3 else "plain" if x < 0.63 else "long"
            first = persona.name not in self.habits
            if first:  # how a person types and their register: the same in each ticket they write
                noise = draw_noise(r, persona.nonnative, persona.tags() | frozenset(ticket_tags))
                self.habits[persona.name] = (noise, "formal" if r.random() < 0.5 else "casual")
            noise, register = self.habits[persona.name]
            # a form field left unfilled is one ticket's slip, and the next may be on another platform's form
            self.noise = noise if first or noise.placeholder is None else replace(noise, placeholder=None)
            extra.add(register)
        if self.length in ("long", "terse"):
            extra.add(self.length)  # a long report may apologise for its length; a terse one is not praised for detail
        tags = persona.tags() | frozenset(ticket_tags) | extra
        if not self.noise.nonnative:  # one who says English is not their first language writes as one
            tags = tags - {"nonnative"}
        signed = self.named.get(persona.name)
        if "again" in tags and (signed is None or self.filed is None or signed >= self.filed):  # none signed before:
            tags = tags - {"again"}  # no word of it, nor of a history before it
        self.tags = tags

    def fitting(self, pool: str) -> Sequence[str]:
        """Phrases of `pool` that fit the current ticket; a typed error when none does."""
        found = self.phrases.texts_fitting(pool, self.partition, self.tags)
        if not found:
            raise FixtureError(
                f"generator phrases: pool '{pool}' has no {self.partition} phrase that fits tags {sorted(self.tags)}; "
                "add one without those requires or forbids"
            )
        return found

    def pick(self, pool: str, **values: object) -> str:
        """A fitting phrase of `pool`, one the queue has not used when there is one."""
        found = self.fitting(pool)
        fresh = [p for p in found if p not in self.used] or found
        phrase = self.rng.choice(fresh)
        self.used.add(phrase)
        return self._filled(compose(phrase, self.rng), values)

    def _filled(self, text: str, values: dict[str, object]) -> str:
        """`text` with its fields filled from `values` and the signature; a text without braces as it is (most)."""
        if "{" not in text and "}" not in text:  # `format` would return it unchanged
            return text
        # an API build is named "API v2 build ...": a wording's own "build {version}" does not say it twice
        return text.format(**values, **self.signature).replace("build API v2 build", "API v2 build")

    def once(self, pool: str, **values: object) -> str | None:
        """A fitting phrase of `pool` that no other ticket of the queue has used, or None."""
        return self._once(pool, False, values)

    def once_anonymous(self, pool: str, anonymous: bool, said: Sequence[str] = ()) -> str | None:
        """`once`, but when `anonymous` only a phrase in which the writer does not say who they are, and
        none of a kind of aside the sentences `said` already make."""
        return self._once(pool, anonymous, {}, said)

    def _once(
        self,
        pool: str,
        anonymous: bool,
        values: dict[str, object],
        said: Sequence[str] = (),
        beside: Sequence[str] = (),
    ) -> str | None:
        fresh = [p for p in self.phrases.texts_fitting(pool, self.partition, self.tags) if p not in self.used]
        if beside:  # a paste of a kind the ticket holds one of, already pasted: not drawn (nor used up)
            fresh = [p for p in fresh if not _one_of_a_kind_again(p, beside)]
        if anonymous:
            fresh = [p for p in fresh if not _self_describing(p)]
        if said:
            made = _said_kinds(said)  # the same test as `_same_aside`, with `said`'s kinds worked out once
            fresh = [p for p in fresh if made.isdisjoint(_aside_kinds(p))]
        if not fresh:
            return None
        phrase = self.rng.choice(fresh)
        self.used.add(phrase)
        self.frame = phrase
        return self._filled(compose(phrase, self.rng), values)

    def scope_pool(self, pool: str) -> str:
        """The pool a scope sentence comes from: a terse customer states scope in a few words."""
        if self.length == "terse" and pool.startswith("scope_"):
            return pool.replace("scope_", "scope_terse_", 1)
        return pool

    def shorten(self, symptom: str, headline: str = "") -> str:
        """A terse writer's symptom: its first sentence, or the scenario's headline if that is shorter.
        A first sentence that only sets the scene ("Our workspace time zone is America/Chicago.") keeps
        the sentences up to the first that tells of what the headline names."""
        if self.length != "terse":
            return symptom
        said = whole_quotes(_SENTENCE_END.split(symptom))
        first = said[0]
        if headline and len(headline.split()) < len(first.split()):
            # a subject's "Webhook delivery: has stopped coming" is written as a sentence; one whose label heads a
            # clause of its own ("Safari 26: opening a project shows...") keeps the two apart with a dash
            head, colon, tail = headline.partition(": ")
            own_clause = colon and _CLAUSE_START.match(tail)
            joined = f"{head} - {tail}" if own_clause else _TITLE_COLON.sub(" ", headline, count=1)
            return joined.rstrip(".") + "."
        if headline and len(said) > 1 and not _shares_a_word(first, headline):
            upto = next((i for i, sentence in enumerate(said[1:3], 1) if _shares_a_word(sentence, headline)), 0)
            return " ".join(said[: upto + 1])
        return first

    def shorten_request(self, text: str) -> str:
        """A terse writer's feature request: the first sentence that asks for something (the whole
        text when none plainly does), so the request itself is never cut away."""
        if self.length != "terse":
            return text
        for sentence in whole_quotes(_SENTENCE_END.split(text)):
            if _REQUEST.search(sentence):
                return sentence
        return text

    def own_counts(self, values: dict[str, object]) -> dict[str, object]:
        """Scope values as this reporter can know them: a customer counts people in their own workspace;
        a tester names the configuration that fails (not the people on it) and, when a few cells fail,
        more than one (one failing cell is not "all on the same account")."""
        if self.persona.reporter == "qa":
            n = values["n"]
            assert isinstance(n, int) and isinstance(values["who"], str)
            return {**values, "who": as_configuration(values["who"]), "n": max(2, n)}
        seats = self.persona.seats
        if not seats:
            return values
        n = values["n"]
        assert isinstance(n, int)
        return {**values, "m": seats, "n": max(1, min(n, (seats - 1) // 2))}

    # ------------------------------------------------------------------ customer framing

    def wrap(self, body: str, extra: list[str], opener: str | None, attachments: int) -> str:
        """A customer's ticket around `body` (the facts): greeting, padding, notes, sign-off."""
        r, length = self.rng, self.length
        if _LOWER_I.search(body) and not self.noise.lower_i:  # one who writes "i" in the facts writes it throughout
            self.noise = replace(self.noise, lower_i=True)
            noise, register = self.habits.get(self.persona.name, (self.noise, "casual"))
            self.habits[self.persona.name] = (replace(noise, lower_i=True), register)
        if _fresh(body):  # a failure of this morning was not put off for days before writing in
            self.tags |= {"fresh"}
        # one who apologises for their English writes no fluent padding around it
        if may_match(body, _OWN_ENGLISH_WORDS) and _OWN_ENGLISH.search(body):
            length = self.length = "terse"
        extra = [daytime(x, self.hour) for x in extra]  # a demo "this afternoon" is not ahead after dark
        if opener and opener.endswith(":") and body.startswith(tuple(self_descriptions(body)[:1])):
            opener = f"{opener[:-1]}."  # no lead-in ("I could use a hand with this:") into who writes
        head: list[str] = [opener] if opener else []
        if length == "terse":  # only the facts, and whatever the writer cannot keep to themselves
            greeting = (
                daytime(self.pick("opener_user_terse"), self.hour) if opener is None and r.random() < OPENED else None
            )
            if greeting is not None and greeting.endswith(":") and body.startswith(tuple(self_descriptions(body)[:1])):
                greeting = f"{greeting[:-1]}."  # no lead-in ("Quick one:") into who writes
            if greeting is not None and greeting.endswith(":"):  # "Quick one:", the problem runs on after it
                head.append(greeting)
            elif greeting is not None:  # "Hi," before two lines as before twenty, on a line of its own
                body = f"{greeting}\n{body}"
            sign = [self.pick("closer_terse")] if r.random() < 0.35 else []  # signed off as briefly as written
            if not sign and self.persona.channel == "email" and self.persona.first:
                sign = [f"- {self.persona.first}"]  # a short email still carries its sender's name
            if head and head[-1].endswith(":"):  # a lead-in: the problem runs on after its colon
                body = _run_on(body)
            return "\n\n".join([" ".join([*head, body]), *([" ".join(extra)] if extra else []), *sign])
        if length == "plain" and len(body) < r.randrange(100, 480):
            length = self.length = "padded"  # towards a length drawn apart from the truth: length says nothing of it
        told = bool(self_descriptions(body))  # one writer says who they are at most once
        placed: int | None = None  # where in `head` they say it
        frames = list(head)  # what `head` says, as the frames drawn with every choice in them
        fillers: list[str] = []  # the asides drawn to pad it out
        if opener is None and r.random() < OPENED:
            greeting = self.once_anonymous("opener_user", told) if r.random() < 0.4 else None
            head.append(greeting or self.pick("opener_user_terse"))
            frames.append(self.frame if greeting else head[-1])
            if _fresh(head[-1]):  # "came to my desk this morning": no putting off for days after it
                self.tags |= {"fresh"}
            told = told or bool(greeting and self_descriptions(greeting))
        if length in ("padded", "long"):
            low, high = (1200, 1900) if length == "long" else (450, 1000)
            target, size = r.randrange(low, high), len(body) + sum(len(h) for h in head)
            org = self.persona.organisation
            intros = self._intros()
            frame = r.choice([f for f in intros if f not in self.used] or intros)  # a frame the queue has not used
            intro = compose(frame, r).format(**self.signature)
            if org is not None and r.random() < 0.5:
                intro = org.about  # who they are, in one sentence of one kind or the other
            # told once per queue by each reporter, and once in a ticket; most who pad a ticket out tell no
            # one who they are (a blurb atop half the customer tickets was the queue's most quoted slot)
            if intro not in self.used and not told and r.random() < INTRO_SHARE[length]:
                self.used |= {intro, frame}
                placed = len(head)
                head.append(intro)
                size += len(intro)
                told = True
            for _ in range(1 if length == "padded" else 3):  # an aside, or a few of a long writer, each of its own kind
                filler = self.once_anonymous("filler_user", told, frames) if size < target else None
                if filler is None:
                    break
                head.append(filler)
                fillers.append(filler)
                frames.append(self.frame)
                size += len(filler)
        # who they are is said after the problem as often as before it
        after = [head.pop(placed)] if placed is not None and not head[placed].endswith(":") and r.random() < 0.4 else []
        # an offer, a thank-you in advance or where to reach them comes after the problem, not stacked before it
        late = [h for h in fillers if CLOSING_ASIDE.search(h) is not None]
        head = [h for h in head if all(h is not x for x in late)]
        # a lead-in ("Probably just me, but here it is:") leads into the problem, not into who they are
        # (none before a problem that opens with its own label, "Android: Save stays greyed out": no two colons)
        # (nor before one that opens with who writes it, "Quick one: I'm the operations lead")
        opens_with_writer = told and body.startswith(tuple(self_descriptions(body)[:1]))
        leads = [h for h in head if h.endswith(":") and not _LABELLED.match(body) and not opens_with_writer]
        head = [h for h in head if not h.endswith(":")]
        head = [daytime(h, self.hour) for h in head]
        parts = [self.noise.join([own_role(h, self.persona) for h in head])] if head else []
        # the facts word for word, after a lead-in ("Heads up:") in lower case where they open with a common word
        parts.append(" ".join([*leads, _run_on(body) if leads else body]))
        if after:
            parts.append(own_role(after[0], self.persona))
        if late:
            parts.append(self.noise.join([own_role(daytime(h, self.hour), self.persona) for h in late]))
        if length == "long":
            # what the screen showed, once per queue where the pool allows, else words drawn anew
            values = self.paste_values(body)  # one device, one build, one session in every paste of a ticket
            written = "\n".join([self.facts, *parts])  # what the ticket says before its pastes, its writer's blurb too
            first = self.once("pasted_output", **values)
            listed = first is None  # the ticket holds a list (of tries, or of what was ruled out): one a ticket
            if listed:
                first = self.checklist()
            pastes = [agreeing(p, written) for p in [first] if p]
            listed = listed or any(_shows((_LISTED,), p) for p in pastes)
            # one block, two or now and then three, while the ticket is short of a long one's length: long
            # reports differ in what they paste, not every one a settings screen, a list and an error box
            for _ in range(r.choices((0, 1, 2), weights=(10, 50, 40))[0]):
                if not pastes or len(" ".join([*parts, *pastes]).split()) >= 260:
                    break
                # not two settings or device screens (the connection and storage told twice, an About screen
                # beside a settings page), two error boxes, two API clients' logs or two lists of tries
                held = [*pastes, *([_A_LIST] if listed else [])]  # a list run into one line is a list too
                more = self._once("pasted_output", False, values, beside=held)
                if more is None and not listed:
                    more = self.checklist()
                    listed = True  # (drawn, or none left to draw: not tried again)
                elif more is not None:
                    listed = listed or _shows((_LISTED,), more)
                if more:
                    pastes.append(agreeing(more, written))
            for paste in pastes:
                intro, _, rest = paste.partition("\n")
                if self.noise.markdown and rest.strip():  # (a paste of one line is fenced by nobody)
                    paste = f"{intro}\n```\n{rest}\n```"
                parts.append(paste)
        # what is attached, before a closing claim or a planted line
        note = self.attachment_note(attachments, "\n".join(parts))
        if note and note.startswith("[image: "):  # images pasted into an email stand on lines of their own
            parts.append(note)
            note = None
        tail = [note, *extra] if note else list(extra)
        if tail:
            parts.append(" ".join(tail))
        if self.noise.placeholder:
            parts.append(self.noise.placeholder)
        if r.random() < 0.7:
            closer = daytime(self.pick("closer_user"), self.hour)
            thanks = closer.split(",")[0].strip(
                " -."
            )  # "Thanks for looking, Pieter": not after "... Thanks for looking."
            if len(thanks.split()) < 2 or thanks.lower() not in body.lower():
                parts.append(closer)
        if self.tags & {"again", "returning"} and self.persona.channel == "email" and r.random() < QUOTED_THREAD:
            parts.append(self.quoted_thread())
        return "\n\n".join(parts)

    def quoted_thread(self) -> str:
        """The end of an old support thread a returning customer answered to write in anew, quoted below the
        message the way their mail client quotes it: support's last reply, weeks before the ticket was filed."""
        r = self.rng
        filed = self.filed or datetime(2026, 1, 1)
        sent = (filed - timedelta(days=r.randrange(14, 150))).replace(
            hour=r.randrange(8, 18), minute=r.randrange(60), second=0, microsecond=0
        )
        sent -= timedelta(days=max(0, sent.weekday() - 4))  # sent on a working day
        staff = r.choice(self.phrases.pool("comment_author", self.partition))
        reply = self.pick("quoted_support_reply")
        hello = f"Hi {self.persona.first}," if self.persona.first else "Hello,"
        letter = [
            hello,
            "",
            reply,
            "",
            r.choice(["Best,", "Thanks,", "All the best,", "Many thanks,"]),
            staff.split()[0],
        ]
        # the header names the agent who sent it, from support's address: Gmail's (with the weekday) or Apple Mail's
        when = f"{sent:%a}, {sent.day} {sent:%b %Y} at" if r.random() < 0.5 else f"{sent.day} {sent:%b %Y}, at"
        head = f"On {when} {sent:%H:%M}, {staff} <support@larkspur.io> wrote:"
        return "\n".join([head, *(f"> {line}".rstrip() for line in [*letter, "Larkspur Support"])])

    def checklist(self) -> str | None:
        """What a writer tried before writing in, as a list of their own: three to five checks that fit
        the ticket and that no other ticket of the queue listed, under a heading; None when too few are left."""
        r = self.rng
        fresh = [
            p for p in self.phrases.texts_fitting("checklist_item", self.partition, self.tags) if p not in self.used
        ]
        if len(fresh) < 3:
            return None
        checks = r.sample(fresh, min(len(fresh), r.randrange(3, 6)))
        self.used.update(checks)
        head = self.pick("checklist_head")
        if r.random() < 0.45:  # as often run into one line as listed one a line
            items = [compose(check, r) for check in checks]
            return (
                f"{head} {', '.join([items[0], *(_COMMON_WORD.sub(lambda m: m[0].lower(), i, 1) for i in items[1:])])}."
            )
        marks = r.choice(["- ", "* ", "#"])
        lines = [f"{i}. " if marks == "#" else marks for i in range(1, len(checks) + 1)]
        return "\n".join([head, *(mark + compose(check, r) for mark, check in zip(lines, checks, strict=True))])

    def _intros(self) -> Sequence[str]:
        """Self-introductions that fit, less those naming the sector when the organisation's name
        already says it (no one writes "Lanternfield Festival, a festival")."""
        found = self.fitting("self_intro")
        org = self.persona.organisation
        if org is None or not _echoes(org.name, org.sector):
            return found
        return [f for f in found if "{sector}" not in f] or found

    def paste_values(self, told: str = "") -> dict[str, object]:
        """What differs from one paste to the next: the bundle hash, error reference, ids, timings, sizes; and
        settings that agree with the ticket's facts and what else it `told` (a second problem's language)."""
        r = self.rng
        hexes = [f"{r.getrandbits(48):012x}" for _ in range(4)]
        return {
            "hash": f"{r.getrandbits(24):06x}",
            "ref": f"LX-{r.randrange(1000, 10000)}-{r.randrange(10)}{r.choice('ABCDEF')}",
            **{f"id{i}": h for i, h in enumerate(hexes, 1)},
            "n5": r.randrange(10_000, 99_999),
            "n5b": r.randrange(10_000, 99_999),
            "ms": r.randrange(120, 990),
            "s": r.randrange(11, 59),
            # a second try minutes after the first, both after the failure began
            "later": r.randrange(2, max(3, min(59, self.since))) if self.since is not None else r.randrange(11, 59),
            "build": store_build(self.build, r.randrange(4100, 4700)),
            "app_version": self.build,
            "message": shown_message(self.facts, told),
            "gb": f"{r.randrange(2, 60)}.{r.randrange(10)}",
            **screen_settings(f"{self.facts} {told}", r),
            "library": client_library(f"{self.facts} {told}", r),  # (the one its steps name too)
        }

    def attachment_note(self, attachments: int, told: str = "") -> str | None:
        """What is attached, by file name, said most of the time there is an attachment: named as the device the
        report was made on names its files (the computer its `told` text names, if any)."""
        r = self.rng
        if attachments == 0 or r.random() >= 0.75:
            return None
        filed = self.filed or datetime(2026, 1, 1)
        lead = 40 if self.persona.reporter == "monitoring" else 3000  # a dashboard is captured once it has fired
        if self.began is not None and self.began < filed:  # a capture of the failure, taken since it began
            lead = min(lead, max(30, int((filed - self.began).total_seconds()) - 300))
        device = self.platform if self.platform in ("ios", "android") else desktop_said(f"{self.facts}\n{told}")
        device = device or r.choice(DESKTOPS)
        alert = self.persona.reporter == "monitoring"  # its shots are the graphs of the alert's dashboard
        series = {
            k: file_series(k, "dashboard" if alert and k == "shot" else device, filed, 3, r, lead=lead)
            for k in ("shot", "video", "har", "log")
        }
        files = {kind: names[0] for kind, names in series.items()}
        if self.persona.channel == "email" and r.random() < INLINE_IMAGES:  # pasted into the mail, not attached
            return "\n".join(f"[image: {name}]" for name in series["shot"][:attachments])
        note = self.pick("attachment_note", **files)
        # a log said without its name ("and log files attached") is one of the files too
        named = sum(note.count(name) for name in files.values()) + bool(_UNNAMED_LOG.search(note))
        more = attachments - named
        if more > 0:  # three files attached, one named: the others are said too, in the same sentence (its file
            # name makes it the ticket's own; a sentence of its own would recur across the queue)
            body, end = (note[:-1], note[-1]) if note[-1] in ".!" else (note, ".")
            first = next((kind for kind, name in files.items() if name in note), None)
            if first is not None and more <= 2 and r.random() < 0.7:  # the next files off the same device, by name
                files_more = " and ".join(series[first][1 : more + 1])
                said = r.choice([f", plus {files_more}", f" (and {files_more})", f"; {files_more} too"])
            else:
                files_more = _MORE_FILES.get(more, f"{more} more files")
                said = r.choice([f", plus {files_more}", f" (and {files_more})", f"; {files_more} attached as well"])
            note = f"{body}{said}{end}"
        return note
