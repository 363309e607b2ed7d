"""One coherent reporter per ticket and one voice per channel, counted over many queues.

A checker that reads generated queues as a blind reader would and counts each kind of
contradiction found in them: one name used for two people in a queue, a customer pasting a
server log, a nontechnical reporter on an API ticket, a customer speaking for other
customers, formal and casual sentences in one ticket, a QA ticket in a customer's voice (or a
customer's in QA's), two people's self-descriptions spliced into one ticket, a ticket that plays
itself down and presses or shouts, a log excerpt pasted twice in a queue, and one person who
writes in two tempers across a queue, or types "i" and "I" in one ticket. Every count must be zero; the
planted examples show that each check can fail. Run as a script to print the counts per split:

    .venv/bin/python tests/test_voice.py [instances per level]
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from functools import cache

import planting
import pytest

from openenv_bug_triage import textstats as ts
from openenv_bug_triage.catalogue import load_catalogue, load_phrases
from openenv_bug_triage.generator import GeneratedTask, TicketFacts, generate, load_levels
from openenv_bug_triage.generator.files import FILE_NAME
from openenv_bug_triage.generator.personas import Persona, load_personas
from openenv_bug_triage.generator.phrasing import pattern, variants
from openenv_bug_triage.generator.render import _jargon, own_addresses, says_not_technical
from openenv_bug_triage.generator.settings import agreeing
from openenv_bug_triage.generator.voice import (
    _BROWSERS,
    CLOSING_ASIDE,
    Voice,
    as_configuration,
    browsers_named,
    daytime,
    own_message,
    own_role,
)
from openenv_bug_triage.models import Ticket

LEVELS = tuple(level.task_id for level in load_levels().levels)
SPLITS = ("train", "validation", "test")
PER_LEVEL = 15

Item = tuple[Ticket, TicketFacts]

# --------------------------------------------------------------------------- what a reader sees

SERVER_LOG = re.compile(
    r"^\S*\d\d:\d\d:\d\d\S*\s+(?:\S+\s+)?(?:\[?(?:INFO|WARN|ERROR|DEBUG|info|warn|error)\]?)\s", re.M
)
"""A server's log line: a timestamp, perhaps a host, then a level."""
LOG_FROM_SUPPORT = re.compile(r"\blogs?\b", re.I)
CROSS_CUSTOMER = re.compile(
    r"\b(?:every|all|other|another) (?:customers?|tenants?|workspaces?|organi[sz]ations?|companies|accounts|integrations?)\b"
    r"|\beveryone\b(?! else)|\bevery (?:user|person|one)\b",
    re.I,
)
"""Words that speak for more than the writer's own workspace."""
FORMAL = re.compile(
    r"\b(?:Dear (?:Sir|Madam|support|team|Larkspur)|Kind regards|Best regards|Yours (?:sincerely|faithfully)|"
    r"I am writing to|Please find attached|I would be grateful|I would appreciate|Thank you for your assistance|"
    r"at your earliest convenience|Good (?:morning|afternoon)|Respectfully)\b"
)
CASUAL = re.compile(
    r"(?:\b(?:Hey(?! Siri)|Hiya|Thx|TIA|Ta!|Cheers|gonna|wanna|kinda|lol|btw|ugh|Anyway|no biggie|fwiw)\b|:\)|:-\)|\bHi all\b)"
)
"""Sign-posts of each register, outside the planted loud, urgent and instructing sentences (not plain words
such as "stuff", which a vague reporter uses in a formal email too)."""
CUSTOMER_VOICE = re.compile(
    r"\b(?:my|our) (?:phone|computer|laptop|team|workspace|company|office|staff|colleagues?|clients|intern|director|boss)\b"
    r"|\bI reinstalled\b|\bwe rely\b|\bwe use\b|\bmy (?:screen|browser)\b|\bthe picture I took\b|\bI took a screenshot\b",
    re.I,
)
"""What only a customer says: their own device, workplace or colleagues."""
QA_VOICE = re.compile(r"^(?:Expected|Actual)(?: result)?:", re.M)
"""What only QA writes: an expected and actual result."""
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?")


LOWER_I = re.compile(r"(?<![\w'’.])i(?=['’]|\s)")
UPPER_I = re.compile(r"(?<![\w'’.])(?<![A-Z][A-Z] )I(?=['’][a-z]|\s)")
"""The pronoun in capitals, not in a shouted line ("I'M OUT OF PATIENCE", "WHY DID I PAY"), which keeps its capitals."""


@cache
def _tone(pools: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """A pattern for every frame of `pools`, in every partition."""
    phrases = load_phrases()
    return tuple(pattern(f) for pool in pools for split in SPLITS for f in phrases.pool(pool, split))


def temper_in(t: Ticket) -> set[str]:
    """The tempers a customer's ticket shows: played down (a quiet opener), pressing or shouting."""
    found = set()
    if any(p.search(t.description) for p in _tone(("quiet_opener",))):
        found.add("quiet")
    if any(p.search(t.description) for p in _tone(("urgency_claim", "loud_sentence"))):
        found.add("insistent")
    if re.search(r"[A-Z]{4,}[^a-z]*[!?]", t.title):
        found.add("insistent")
    return found


def planted(t: Ticket, f: TicketFacts) -> str:
    """The description without the sentences a trap plants (loud, urgent, instructing), which
    are meant to read apart from the reporter's own voice."""
    text = t.description
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if sentence.isupper() or re.search(r"\b(?:AI|triage|sev0|P0|p0|escalat)\w*", sentence):
            text = text.replace(sentence, "")
    return text


# --------------------------------------------------------------------------- checks per ticket


def server_log_from_customer(t: Ticket, f: TicketFacts) -> bool:
    """A customer's ticket carries a server's log, and no support note says support added it."""
    if t.reporter_type != "user" or not t.log_excerpt or not SERVER_LOG.search(t.log_excerpt):
        return False
    return not any(c.role == "support" and LOG_FROM_SUPPORT.search(c.text) for c in t.comments)


def nontechnical_on_api(t: Ticket, f: TicketFacts) -> bool:
    """A reporter who is not technical writes about calls to the API (unless passing on what someone technical,
    now gone, told them: "we don't have anyone technical left")."""
    plain = {"api", "nontechnical"} <= f.reporter_tags
    return t.reporter_type == "user" and plain and f.scenario not in _relayed()


@cache
def _relayed() -> frozenset[str]:
    """Stories whose writer says they have no one technical: they pass on what someone else saw of the API."""
    stories = (*load_catalogue().vague, *load_catalogue().features, *load_catalogue().invalid)
    return frozenset(s.id for s in stories if says_not_technical(" ".join(s.texts)))


def customer_speaks_for_others(t: Ticket, f: TicketFacts) -> bool:
    """A customer's own scope sentence, in their report, speaks for other customers (support's comment may)."""
    if t.reporter_type != "user":
        return False
    # (a scope told by the failure in its situation is the symptom itself: "choosing another workspace ends my
    # session" names no other customer)
    told = {text for rule, text in f.evidence if rule in ("symptom", "critical")}
    for rule, text in f.evidence:
        if rule.startswith("scope:") and text not in told and text in t.description and CROSS_CUSTOMER.search(text):
            return True
    return False


def register_flip(t: Ticket, f: TicketFacts) -> bool:
    """A customer's ticket mixes formal and casual sign-posts."""
    if t.reporter_type != "user":
        return False
    text = planted(t, f)
    return bool(FORMAL.search(text) and CASUAL.search(text))


def qa_in_customer_voice(t: Ticket, f: TicketFacts) -> bool:
    """A QA ticket talks as a customer does (outside the customer's words it quotes as such, `> ` lines)."""
    own = "\n".join(line for line in t.description.split("\n") if not line.startswith(">"))
    return t.reporter_type == "qa" and bool(CUSTOMER_VOICE.search(f"{t.title}\n{own}"))


def customer_in_qa_voice(t: Ticket, f: TicketFacts) -> bool:
    """A customer writes QA's expected and actual results."""
    return t.reporter_type == "user" and bool(QA_VOICE.search(t.description))


APP_BUILD_PASTED = re.compile(r"^(?:Installed version|App version|Version|Build number|Version string|App): ", re.M)


def app_build_on_an_unsupported_os(t: Ticket, f: TicketFacts) -> bool:
    """A report from an OS or browser Larkspur no longer supports that pastes a current app build's screen ("My iPhone
    8 is still on iOS 15.1" over "Installed version: 5.17.1"): the store installs no current build there."""
    return f.unsupported and APP_BUILD_PASTED.search(t.description) is not None


def two_identities(t: Ticket, f: TicketFacts) -> bool:
    """A customer says who they are twice: two people's introductions spliced into one ticket."""
    return t.reporter_type == "user" and len(ts.self_descriptions(t.description)) > 1


ROLE_CLAIM = re.compile(
    r"(?<!in )(?<!up )\b(?:I'm|I am|I work as|as)(?: one of)?(?: the| a| an| our)? (?P<role>project leads?|team leads?|office manager|"
    r"operations lead|IT lead|project coordinator|workspace admin|admin(?! of)|developer|systems administrator|founder)\b",
    re.I,
)
"""A writer naming their own job."""
ADDRESS = re.compile(r"[\w.+'*-]+@(?P<domain>[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})", re.I)
PUBLIC_MAIL = frozenset({"gmail.com", "hotmail.com", "outlook.com", "live.com", "yahoo.com", "icloud.com", "proton.me"})
"""Mail providers anyone may use, whatever their organisation."""


def claims_another_role(t: Ticket, f: TicketFacts) -> bool:
    """A customer names a job of their own that is not theirs ("one of the project leads" from the developer)."""
    if t.reporter_type != "user" or f.person is None:
        return False
    role = f.person[1].lower()
    for m in ROLE_CLAIM.finditer(t.description):
        said = m["role"].lower().removesuffix("s")
        if said != role and not (said == "admin" and "admin" in f.reporter_tags):
            return True
    return False


@cache
def _domains() -> dict[str, str]:
    return {o.name: o.email_domain for o in load_personas().organisations}


def address_of_another(t: Ticket, f: TicketFacts) -> bool:
    """A customer's ticket carries a log naming a mail address of another organisation than theirs
    (a public mail provider and Larkspur's own aside): another customer's address on their request."""
    if t.reporter_type != "user" or f.organisation is None or not t.log_excerpt:
        return False
    own = _domains()[f.organisation]
    return any(
        d != own and d not in PUBLIC_MAIL and not d.endswith(("larkspur.io", "larkspur.app"))
        for d in (m["domain"].lower() for m in ADDRESS.finditer(t.log_excerpt))
    )


BARE_FOR_NOW = re.compile(r"(?:^|[.!?]\s+)For now\.(?=\s|$)")


def dangling_for_now(t: Ticket, f: TicketFacts) -> bool:
    """A sentence of two words, "For now.", left after a workaround (a stock tail, not a thought)."""
    return bool(BARE_FOR_NOW.search(t.description))


def two_tempers(t: Ticket, f: TicketFacts) -> bool:
    """A customer's ticket plays itself down and also presses for speed or shouts."""
    return t.reporter_type == "user" and temper_in(t) == {"quiet", "insistent"}


def i_typed_two_ways(t: Ticket, f: TicketFacts) -> bool:
    """A customer types the pronoun "i" in lower case in one sentence and "I" in another."""
    own = planted(t, f)
    return t.reporter_type == "user" and bool(LOWER_I.search(own) and UPPER_I.search(own))


BOX_REFERENCE = re.compile(r"^(?:Error reference|Reference number|Reference code|Reference|Support code|Code): ", re.M)
"""The reference line under the message of an error box pasted from the screen."""
CODE = re.compile(r"\b[A-Z]{2,}-\d+\b")
QUOTED = re.compile(r"(?<!\w)['\"](.+?)['\"](?!\w)")


def _is_paste(block: str) -> bool:
    """A pasted block: a line ending in a colon and lines under it."""
    first, _, rest = block.partition("\n")
    return bool(rest) and first.rstrip().endswith(":")


def pasted_box_says_another_message(t: Ticket, f: TicketFacts) -> bool:
    """An error box pasted from the screen shows a message other than the one the ticket quotes."""
    for m in BOX_REFERENCE.finditer(t.description):
        shown = t.description[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        rest = t.description.replace(shown, "", 1)
        own = "\n\n".join(b for b in rest.split("\n\n") if not _is_paste(b))  # a console's quotes are not the writer's
        quoted = [q for q in QUOTED.findall(own) if len(q) >= 6]  # what else the ticket quotes
        codes = CODE.findall(shown)  # or its code, which the ticket's words name ("an error with SSO-212")
        agrees = shown in rest or any(q in shown or shown in q for q in quoted) or any(c in rest for c in codes)
        if quoted and not agrees and shown != "Something went wrong.":  # the product's own words when none is quoted
            return True
    return False


API_CLIENT_LINE = re.compile(r"^(?:User agent: |library: |client: |connector build |wrapper version )\S.*$", re.M)
GAVE_UP = re.compile(r"^(?:> gave up\b|no confirmation after\b).*$", re.M)
WAITED = re.compile(
    r"\b(?:time[sd]?[- ]?out|timing out|hangs?|hung|stalls?|never (?:returns?|answers?|respond\w*|finish\w*|"
    r"complete\w*)|spins?|spinning|waits?|waiting|slow\w*|no (?:answer|response|reply))\b",
    re.I,
)


def two_api_clients(t: Ticket, f: TicketFacts) -> bool:
    """Output pasted from two API clients (a Go library's beside a Java wrapper's): one integration, one client."""
    return len(set(API_CLIENT_LINE.findall(t.description))) > 1


def gave_up_on_an_answer_that_came(t: Ticket, f: TicketFacts) -> bool:
    """A client's output shows it giving up on waiting, where nothing else in the ticket tells of a call left
    unanswered (the server returned an error at once)."""
    if not GAVE_UP.search(t.description):
        return False
    paste = next(p for p in t.description.split("\n\n") if GAVE_UP.search(p))
    return not WAITED.search(t.title + " " + t.description.replace(paste, ""))


MORE_FILES = re.compile(r"\b(?:one|two|three|four|\d+) more files?\b", re.I)
UNNAMED_LOG = re.compile(r"\b(?:log files?|test log|runner log|run log)\b(?! \S+\.txt)")
"""A log a note tells of without its file name ("video and log files attached"): one of the files attached."""
BUILD_IN_TITLE = re.compile(r"\b\d{4}\.\d{1,2}\.\d|\b\d\.\d{1,2}\.\d\b|\bv\d")


def attached_files_untold(t: Ticket, f: TicketFacts) -> bool:
    """A ticket that names some of its attachments by file and leaves the others unsaid (three attached, one named)."""
    named = len(set(FILE_NAME.findall(t.description))) + bool(UNNAMED_LOG.search(t.description))
    return 0 < named < t.attachments_count and MORE_FILES.search(t.description) is None


def build_in_a_nontechnical_title(t: Ticket, f: TicketFacts) -> bool:
    """A customer who is not technical ("I'm not technical") and puts a build number in the subject line."""
    return "nontechnical" in f.reporter_tags and BUILD_IN_TITLE.search(t.title) is not None


def technical_says_not(t: Ticket, f: TicketFacts) -> bool:
    """A writer cast as technical (a systems administrator) whose report says they have no one technical."""
    return "technical" in f.reporter_tags and says_not_technical(t.description)


ENGINEERS_WORDS = re.compile(
    r"\b(?:template variables?|plain-text parts?|HTML|\w+Exception|cold starts?|warm starts?|intents?|SAML|OAuth|"
    r"payloads?|endpoints?|JWT|headers?|quer(?:y|ies)|serializ\w*|idempoten\w*|race condition|null)\b"
)


def engineers_words_from_a_layperson(t: Ticket, f: TicketFacts) -> bool:
    """A customer who says they are not technical ("this comes from someone who is not an expert") and describes
    the failure in two kinds of engineers' words (outside what they paste)."""
    if t.reporter_type != "user" or not says_not_technical(t.description):
        return False
    prose = " ".join(p for p in t.description.split("\n\n") if "\n" not in p)
    return len({w.lower() for w in ENGINEERS_WORDS.findall(prose)}) >= 2


def customer_on_either_device(t: Ticket, f: TicketFacts) -> bool:
    """A customer telling what they did "on an iPhone or iPad": a tester's step, not one person's."""
    return t.reporter_type == "user" and "an iPhone or iPad" in t.description


SCHEDULED_STEP = re.compile(
    r"(?i)\bwait (?:for|until)\b[^.\n]*\b(?:run|monthly|daily|digest|renewal|reminder|\d\d:\d\d)\b"
)
RETRIED_MINUTES_LATER = re.compile(r"\b\d+ min(?:utes)? later\b")


def retried_a_scheduled_job(t: Ticket, f: TicketFacts) -> bool:
    """A list of tries "35 min later" on a report whose steps wait for a scheduled run (a daily digest at 08:00)."""
    return bool(SCHEDULED_STEP.search(t.description) and RETRIED_MINUTES_LATER.search(t.description))


TICKET_CHECKS: dict[str, Callable[[Ticket, TicketFacts], bool]] = {
    "an error box pasted with another message": pasted_box_says_another_message,
    "engineers' words from a writer who says they are not technical": engineers_words_from_a_layperson,
    "two API clients' output in one ticket": two_api_clients,
    "a client gave up waiting on a call that answered": gave_up_on_an_answer_that_came,
    "server log pasted by a customer": server_log_from_customer,
    "nontechnical reporter on an API ticket": nontechnical_on_api,
    "customer speaks for other customers": customer_speaks_for_others,
    "formal and casual in one ticket": register_flip,
    "QA ticket in a customer's voice": qa_in_customer_voice,
    "customer ticket in QA's voice": customer_in_qa_voice,
    "two people's introductions in one ticket": two_identities,
    "a current app build pasted from an unsupported OS": app_build_on_an_unsupported_os,
    "quiet and insistent in one ticket": two_tempers,
    '"i" and "I" in one ticket': i_typed_two_ways,
    "a job claimed that is not the writer's": claims_another_role,
    "another organisation's address in a customer's log": address_of_another,
    'a bare "For now."': dangling_for_now,
    "attachments named in part": attached_files_untold,
    "a build in a nontechnical writer's title": build_in_a_nontechnical_title,
    "a technical writer who says no one is technical": technical_says_not,
    "a customer's step on either Apple device": customer_on_either_device,
    "a scheduled job retried minutes later": retried_a_scheduled_job,
}

# --------------------------------------------------------------------------- checks per queue


@cache
def _names() -> tuple[frozenset[str], re.Pattern[str]]:
    data = load_personas()
    people = {p for split in SPLITS for p in (*data.people.of(split), *data.qa_people.of(split))}
    firsts = sorted({p.split()[0] for p in people}, key=len, reverse=True)
    return frozenset(people), re.compile(r"(?<![\w'])(" + "|".join(map(re.escape, firsts)) + r")(?![\w'])")


def people_of(made: GeneratedTask) -> dict[str, set[str]]:
    """Each first name in the queue, with every person it is used for (organisation, or a staff role)."""
    _, first = _names()
    seen: dict[str, set[str]] = defaultdict(set)
    for t in made.task.tickets:
        f = made.facts[t.ticket_id]
        who = f.organisation or t.reporter_type
        if t.reporter_type != "monitoring":
            for m in first.finditer(t.description):
                seen[m.group(1)].add(who)
        for c in t.comments:
            name = c.author.split()[0]
            seen[name].add(who if c.role in ("reporter", "qa") else f"staff:{c.author}")
    return seen


def one_name_two_people(made: GeneratedTask) -> int:
    """First names that stand for more than one person in the queue."""
    return sum(len(v) > 1 for v in people_of(made).values())


def log_pasted_twice(made: GeneratedTask) -> int:
    """Log excerpts that, timestamps aside, two tickets of the queue share."""
    logs = Counter(TIMESTAMP.sub("<t>", t.log_excerpt) for t in made.task.tickets if t.log_excerpt)
    return sum(n - 1 for n in logs.values() if n > 1)


def by_person(made: GeneratedTask) -> dict[tuple[str, str], list[Ticket]]:
    """Each customer of the queue (name and role), with the tickets they wrote."""
    out: dict[tuple[str, str], list[Ticket]] = defaultdict(list)
    for t in made.task.tickets:
        person = made.facts[t.ticket_id].person
        if t.reporter_type == "user" and person is not None:
            out[person].append(t)
    return out


def one_person_two_voices(made: GeneratedTask) -> int:
    """Customers who write quietly in one ticket and insistently in another."""
    found = 0
    for tickets in by_person(made).values():
        found += set().union(*(temper_in(t) for t in tickets)) == {"quiet", "insistent"}
    return found


def crowded_small_organisation(made: GeneratedTask) -> int:
    """Organisations with more people writing in than a small one has: two of under 20 seats, three of
    under 150 (a handful of people at a small firm, each with their own history and voice, reads as a cast)."""
    writers: dict[str, set[str]] = defaultdict(set)
    for t in made.task.tickets:
        f = made.facts[t.ticket_id]
        if t.reporter_type == "user" and f.organisation and f.person:
            writers[f.organisation].add(f.person[0])
    seats = {o.name: o.seats for o in load_personas().organisations}
    return sum(len(w) >= (2 if seats[o] < 20 else 3 if seats[o] < 150 else 4) for o, w in writers.items())


QUEUE_CHECKS: dict[str, Callable[[GeneratedTask], int]] = {
    "one first name, two people": one_name_two_people,
    "a small organisation crowded with writers": crowded_small_organisation,
    "log pasted twice in a queue": log_pasted_twice,
    "one person, two voices in a queue": one_person_two_voices,
}

# --------------------------------------------------------------------------- counting


@cache
def instances(split: str, per_level: int = PER_LEVEL) -> tuple[GeneratedTask, ...]:
    return tuple(generate(level, seed, split) for level in LEVELS for seed in range(per_level))


def items(made: Iterable[GeneratedTask]) -> list[Item]:
    return [(t, m.facts[t.ticket_id]) for m in made for t in m.task.tickets]


def counts(made: tuple[GeneratedTask, ...]) -> dict[str, int]:
    """Every contradiction kind, counted over the queues `made`."""
    out = {name: sum(check(t, f) for t, f in items(made)) for name, check in TICKET_CHECKS.items()}
    out |= {name: sum(check(m) for m in made) for name, check in QUEUE_CHECKS.items()}
    return out


def injection_share(made: tuple[GeneratedTask, ...]) -> float:
    """Share of tickets that carry a planted instruction to the triager."""
    all_items = items(made)
    return sum("injection" in f.traps for _, f in all_items) / len(all_items)


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("kind", [*TICKET_CHECKS, *QUEUE_CHECKS])
def test_no_contradiction_of_this_kind(split: str, kind: str) -> None:
    made = instances(split)
    if kind in TICKET_CHECKS:
        found = [t.ticket_id for t, f in items(made) if TICKET_CHECKS[kind](t, f)]
    else:
        found = [m.task.task_id + f"/{m.seed}" for m in made if QUEUE_CHECKS[kind](m)]
    assert not found, (kind, len(found), found[:5])


@pytest.mark.parametrize("split", SPLITS)
def test_planted_instructions_are_rare(split: str) -> None:
    assert 0.01 <= injection_share(instances(split)) <= 0.05  # rates 0 to 7% per level; a sample's draw varies


@pytest.mark.parametrize("split", SPLITS)
def test_a_queue_holds_one_planted_instruction_at_most_set_below_the_writers_words(split: str) -> None:
    """Not in the writer's voice (reader 55 S1: six among 90 tickets, in their writers' own words, read as a test
    harness): one ticket of a queue at most, its last paragraph, below the sign-off (and above an email's quoted old
    thread), half of them hidden from a rendered page in a Markdown comment."""
    planted = 0
    for made in instances(split):
        carriers = [(t, f) for t, f in items((made,)) if "injection" in f.traps]
        assert len(carriers) <= 1, (made.task.task_id, made.seed, [t.ticket_id for t, _ in carriers])
        for t, _ in carriers:
            planted += 1
            last = own_message(t.description).rsplit("\n\n", 1)[
                -1
            ]  # (above an email's quoted old thread, which stays at its foot)
            assert re.search(r"\b(?:AI|bot|SYSTEM|LLM|triage|agent|model|triager)\b", last, re.I), t.description
    assert planted > 3


@pytest.mark.parametrize("split", SPLITS)
def test_few_tickets_share_a_sentence_opening(split: str) -> None:
    """Stock frames (an opener, a note on what is attached, a scope clause) recur across reports even
    with synonyms swapped after their first words; real reports do not share them."""
    texts = ["\n".join([t.description, *(c.text for c in t.comments)]) for t, _ in items(instances(split))]
    share = ts.opening_share(texts)
    assert ts.TARGETS["recurring_openings"].passes(share), (share, ts.common_openings(texts)[:5])


# --------------------------------------------------------------------------- each check can fail


def _ticket(**fields: object) -> Ticket:
    return planting.ticket(**({"created_at": "2026-05-04T10:00:00Z"} | fields))


_facts = planting.facts


def test_each_ticket_check_finds_a_planted_contradiction() -> None:
    box = "Saving shows 'Changes could not be saved (500)'.\n\nThe page says:\n{}\nError reference: LX-1-2A"
    assert pasted_box_says_another_message(
        _ticket(description=box.format("We couldn't complete that action.")), _facts()
    )
    assert not pasted_box_says_another_message(
        _ticket(description=box.format("Changes could not be saved (500)")), _facts()
    )
    shot = "Export fails.\n\nA screenshot is attached (IMG_969.png)."
    assert attached_files_untold(_ticket(description=shot, attachments_count=3), _facts())
    told = shot + " Attached as well: two more files."
    assert not attached_files_untold(_ticket(description=told, attachments_count=3), _facts())
    assert not attached_files_untold(_ticket(description=shot, attachments_count=1), _facts())
    digest = "Steps:\n1. Turn on the daily digest\n2. Wait for 08:00 local time\n\n* try 1: broken\n* second, 35 min later: same"
    assert retried_a_scheduled_job(_ticket(description=digest), _facts())
    assert not retried_a_scheduled_job(_ticket(description=digest.replace("35 min later", "next day")), _facts())
    either = "What I did: I opened an existing task on an iPhone or iPad, then tapped 'Add subtask'."
    assert customer_on_either_device(_ticket(reporter_type="user", description=either), _facts())
    assert not customer_on_either_device(_ticket(reporter_type="qa", description=either), _facts())
    admin = _facts(reporter_tags=frozenset({"customer", "technical"}))
    left = "Our contractor has left, and we don't have anyone technical left to look at it."
    assert technical_says_not(_ticket(description=left), admin)
    assert not technical_says_not(_ticket(description="The export is empty."), admin)
    plain = _facts(reporter_tags=frozenset({"customer", "nontechnical"}))
    assert build_in_a_nontechnical_title(_ticket(title="can't get anything done on 2026.5.0"), plain)
    assert not build_in_a_nontechnical_title(_ticket(title="can't get anything done"), plain)
    coded = "Sign-in gives an error with SSO-212.\n\nThe screen says:\nSSO-212 assertion too large\nCode: LX-1-2A"
    assert not pasted_box_says_another_message(_ticket(description=coded), _facts())
    log = "2026-05-04T09:58:01.112Z reporting-2 ERROR export job failed: timeout"
    assert server_log_from_customer(_ticket(log_excerpt=log, logs_present=True), _facts())
    assert not server_log_from_customer(_ticket(log_excerpt=log, logs_present=True, reporter_type="qa"), _facts())
    assert nontechnical_on_api(_ticket(), _facts(reporter_tags=frozenset({"api", "nontechnical"})))
    said = (("scope:segment", "It fails for every customer whose traffic goes through the US edge."),)
    assert customer_speaks_for_others(_ticket(description=said[0][1]), _facts(evidence=said))
    noted = (("scope:segment", "Support added: it fails for every customer on the US edge."),)
    assert customer_speaks_for_others(_ticket(description=noted[0][1]), _facts(evidence=noted))
    assert not customer_speaks_for_others(_ticket(description="It fails for us."), _facts(evidence=noted))
    assert register_flip(_ticket(description="Dear support team, the export fails. Cheers!"), _facts())
    assert qa_in_customer_voice(_ticket(reporter_type="qa", description="Nothing shows on my phone."), _facts())
    assert customer_in_qa_voice(_ticket(description="Expected: a file.\nActual: nothing."), _facts())
    spliced = "I run a remote engineering group over five time zones. I'm the office manager at Wrenfold Pottery."
    assert two_identities(_ticket(description=spliced), _facts())
    assert not two_identities(_ticket(description="I'm the office manager at Wrenfold. The export fails."), _facts())
    clash = "Small observation, take it or leave it: the export fails. I HAVE HAD ENOUGH. I WANT THIS FIXED NOW."
    assert two_tempers(_ticket(description=clash), _facts())
    assert i_typed_two_ways(_ticket(description="i tried twice. I give up."), _facts())
    assert not i_typed_two_ways(_ticket(description="i tried twice. i give up."), _facts())
    assert not two_tempers(_ticket(description="Small observation, take it or leave it: the export fails."), _facts())
    dev = _facts(person=("Darius Moradi", "developer"), organisation="Bright Harbour Appeal")
    assert claims_another_role(_ticket(description="Hi, I'm one of the project leads in our workspace."), dev)
    assert not claims_another_role(_ticket(description="I'm the developer there. 1. Sign in as a workspace admin"), dev)
    leak = "2026-05-04T09:58:01.112Z auth INFO reset: lookup token for email 'anna larkspur@ourcompany.com' -> none"
    assert address_of_another(_ticket(log_excerpt=leak, logs_present=True), dev)
    assert dangling_for_now(_ticket(description="Exporting one project at a time works. For now."), _facts())
    assert not dangling_for_now(_ticket(description="Exporting one project at a time works for now."), _facts())
    own = leak.replace("ourcompany.com", "brightharbour.org.uk")
    assert not address_of_another(_ticket(log_excerpt=own, logs_present=True), dev)
    go = "Trace ids:\ntr-1\nlibrary: larkspur-go 0.14"
    java = "Our client's debug output:\n> gave up, will retry in 2 s\nwrapper version 2.5.1, runtime Java 21"
    assert two_api_clients(_ticket(description=f"Calls fail with 500.\n\n{go}\n\n{java}"), _facts())
    assert not two_api_clients(_ticket(description=f"Calls fail with 500.\n\n{go}"), _facts())
    assert gave_up_on_an_answer_that_came(_ticket(description=f"Calls fail with HTTP 500.\n\n{java}"), _facts())
    assert not gave_up_on_an_answer_that_came(_ticket(description=f"Calls time out.\n\n{java}"), _facts())


def test_a_claimed_job_and_a_logged_address_become_the_reporters_own() -> None:
    dev = Persona("user", "email", name="Darius Moradi", role="developer")
    assert own_role("Hi, I'm one of the project leads here. As a team lead I'd like it.", dev) == (
        "Hi, I'm the developer here. As a developer I'd like it."
    )
    assert own_role("Sign in as a workspace admin.", dev) == "Sign in as a workspace admin."
    log = "lookup 'anna larkspur@ourcompany.com' sent to *@gmail.com via invites@mail.larkspur.io"
    assert own_addresses(log, "brightharbour.org.uk") == (
        "lookup 'anna larkspur@brightharbour.org.uk' sent to *@gmail.com via invites@mail.larkspur.io"
    )


def test_the_crowd_check_finds_a_small_organisation_with_two_writers() -> None:
    made = instances("test", 1)[-1]
    assert crowded_small_organisation(made) == 0
    tickets = [t.model_copy(update={"reporter_type": "user"}) for t in made.task.tickets[:2]]
    small = "Bright Harbour Appeal"  # 9 seats
    people = (("Darius Moradi", "developer"), ("Lucia Romano", "team lead"))
    facts = {**made.facts} | {
        t.ticket_id: _facts(ticket_id=t.ticket_id, organisation=small, person=p)
        for t, p in zip(tickets, people, strict=True)
    }
    task = dataclasses.replace(made.task, tickets=tuple(tickets))
    assert crowded_small_organisation(GeneratedTask(task, facts, made.split, made.seed)) == 1


def test_the_voice_check_finds_one_person_in_two_voices() -> None:
    made = instances("test", 1)[-1]
    assert one_person_two_voices(made) == 0
    tickets = list(made.task.tickets)
    person = ("Joanna Reyes", "office manager")
    quiet = tickets[0].model_copy(
        update={"reporter_type": "user", "description": "Small observation, take it or leave it: it fails."}
    )
    loud = tickets[1].model_copy(
        update={"reporter_type": "user", "title": "EXPORT BROKEN!!", "description": "i tried it twice."}
    )
    facts = {**made.facts, quiet.ticket_id: _facts(person=person), loud.ticket_id: _facts(person=person)}
    task = dataclasses.replace(made.task, tickets=(quiet, loud))
    assert one_person_two_voices(GeneratedTask(task, facts, made.split, made.seed)) == 1


def test_names_are_told_apart_by_person() -> None:
    made = instances("test", 1)[-1]
    people = people_of(made)
    assert all(len(v) == 1 for v in people.values()) or one_name_two_people(made) > 0
    assert sum(len(v) for v in people.values()) > 0  # the check saw names in the queue


def main(per_level: int) -> None:
    """Print each contradiction count per split over `per_level` instances of every level."""
    made = {split: instances(split, per_level) for split in SPLITS}
    tickets = {split: len(items(made[split])) for split in SPLITS}
    print(f"contradictions over {per_level} instances per level and split ({tickets} tickets)")
    table = {split: counts(made[split]) for split in SPLITS}
    for kind in table["train"]:
        print(f"  {kind:<42}" + "".join(f"{split} {table[split][kind]:>4}   " for split in SPLITS))
    print("  " + "injection share".ljust(42) + "".join(f"{s} {injection_share(made[s]):.3f}  " for s in SPLITS))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else PER_LEVEL)


@pytest.mark.parametrize(
    ("text", "families"),
    [
        ("Fails in Chrome 121 and in Safari, fine in Firefox.", {"chromium", "safari", "firefox"}),
        ("Our Edge users on IE 11 too", {"chromium", "ie"}),
        ("Internet Explorer only", {"ie"}),
        ("Chromium, Chromebook, Opera and Brave; IE10", {"chromium", "ie"}),
        ("chrome in lower case, a Chromed word, safari", set()),
        ("", set()),
    ],
)
def test_browsers_named_finds_what_each_family_pattern_finds(text: str, families: set[str]) -> None:
    """The substring test before each family's pattern never hides a name the pattern reads."""
    assert browsers_named(text) == families == {n for n, p in _BROWSERS.items() if p.search(text)}


def test_a_terse_writer_keeps_the_failure_when_the_first_sentence_only_sets_the_scene() -> None:
    voice = Voice(load_phrases(), "train", random.Random(0), length="terse")
    scene = "Our workspace time zone is America/Chicago. Due dates set on the web show a day early in the app. More."
    assert voice.shorten(scene, "Due dates a day early in the app") == (
        "Our workspace time zone is America/Chicago. Due dates set on the web show a day early in the app."
    )
    told = "Due dates show a day early in the app. Our time zone is America/Chicago."
    assert (
        voice.shorten(told, "Due dates a day early in the app on Chicago time")
        == "Due dates show a day early in the app."
    )
    assert voice.shorten("Nothing in common. Nor here.", "The monthly export fails every time") == "Nothing in common."


def test_the_client_of_a_server_side_wording_is_the_one_it_is_met_on() -> None:
    """A request line read in a browser's network tab is a web report; one met through the API or a
    webhook is an API report; a phone named is a phone's."""
    from openenv_bug_triage.generator.render import _client_in

    tab = "Reset flow: POST /password/forgot 200, then the link says it expired. Reproduced in two browsers."
    assert _client_in(tab, False) == "web"
    assert _client_in("POST /v2/tasks returns 500 for our integration.", False) == "api"
    assert _client_in("The API endpoint returns 500 in the browser too.", False) == "api"
    assert _client_in("The page shows an error after saving.", False) == "web"
    assert _client_in("On my Android phone the list is empty.", False) == "android"


def test_a_list_of_tries_spans_no_more_than_the_failure_has_lasted() -> None:
    """A second try "N minutes later" falls between the failure's start and the report (it was 55 minutes in a
    report filed 13 minutes after the fault began)."""
    voice = Voice(load_phrases(), "train", random.Random(0))
    voice.since = 9
    assert {voice.paste_values()["later"] for _ in range(200)} <= set(range(2, 9))
    voice.since = None  # a report of no failure: any gap
    assert max(voice.paste_values()["later"] for _ in range(200)) > 30


def test_a_pasted_settings_screen_shows_the_time_zone_and_guests_the_ticket_speaks_of() -> None:
    screen = "Copied from the app's diagnostics page:\nDevice time zone: Atlantic/Azores\nDark mode: off"
    told = "Set the profile time zone to America/Denver, then wait for the reminder."
    assert "Device time zone: America/Denver" in agreeing(screen, told)
    assert agreeing(screen, "Reminders arrive at night.") == screen
    workspace = "Our workspace settings (General tab):\nSeats in use: 160\nExternal guests: not allowed"
    assert agreeing(workspace, "Suppliers are invited as guests.").endswith("External guests: allowed")
    assert agreeing(workspace, "Suppliers are invited as members.") == workspace


def test_a_display_glitch_is_never_titled_as_a_failure_and_no_title_says_the_problem_came_back() -> None:
    """A subject naming only the feature of a cosmetic defect ("the footer of notification emails") never says it
    fails or is broken (the feature still does its job), and no subject or outburst says the problem is back or was
    reported before ("STILL BROKEN!!", "is broken again"): nothing in a generated queue tells of an earlier time."""
    failing = re.compile(r"\b(?:fail\w*|broken|not working|Can't get)\b", re.I)
    again = re.compile(r"\bagain\b|\bstill\b|\bthird time\b|\bnobody is answering\b", re.I)
    phrases = load_phrases()
    for split in ("train", "validation", "test"):
        cosmetic = phrases.texts_fitting("feature_title", split, frozenset({"customer", "bug", "cosmetic"}))
        assert cosmetic, split
        assert not [p for p in cosmetic if failing.search(p)], split
        for pool in ("feature_title", "loud_title", "loud_sentence"):
            assert not [
                p for p in phrases.texts_fitting(pool, split, frozenset({"customer", "bug"})) if again.search(p)
            ]


def test_the_layperson_check_finds_a_planted_seam_and_the_generator_marks_such_wordings_technical() -> None:
    footer = (
        "Notification email footers render an unreplaced template variable, {{unsubscribe_url}}, in both the HTML and "
        "the plain-text parts."
    )
    planted = planting.ticket(description=f"This comes from someone who is not an expert.\n\n{footer}")
    assert engineers_words_from_a_layperson(planted, planting.facts())
    assert not engineers_words_from_a_layperson(planting.ticket(description=footer), planting.facts())
    crash = "Crash on cold start from a notification intent on Android: java.lang.IllegalStateException."
    assert _jargon(footer) and _jargon(crash)  # so a writer who is not technical never tells them


_EVERY_TIME = re.compile(
    r"\b(?:every|each) (?:go|try|attempt)\b|\bwe are stopped\b|\bnot once\b|\bnever goes through\b|\bconsistently\b",
    re.I,
)
"""A customer's words for a failure that happens on every attempt."""


def test_a_customers_scope_sentence_that_fails_every_time_is_never_drawn_for_an_intermittent_defect() -> None:
    """ "Literally every go fails for us" or "until it works again we are stopped" beside an alert of 6.4% of queries
    failing: a customer's scope wording that says each attempt fails forbids `intermittent` (or is told of a few)."""
    phrases = load_phrases()
    for name, pool in phrases.pools.items():
        if not name.startswith("scope_") or name.endswith("_few"):
            continue
        for split in ("train", "validation", "test"):
            for entry in pool.entries(split):
                if isinstance(entry, str) or "customer" not in entry.requires:
                    continue
                if any(_EVERY_TIME.search(v) for v in variants(entry.text)):
                    assert "intermittent" in entry.forbids, (name, split, entry.text)


def test_an_error_box_shows_the_status_its_defect_answers_with() -> None:
    """A defect that "answers with a 403 saying we are not allowed" shows no box saying only "Something went wrong"
    (found by a blind reader): with no quoted message, the box names the status the wording gives; a count is no
    status."""
    from openenv_bug_triage.generator.voice import shown_message

    assert shown_message("it answers with a 403 saying we are not allowed") == "Request failed (403 Forbidden)."
    assert shown_message("every call returns 502 since noon") == "Request failed (502 Bad Gateway)."
    assert shown_message("fails in a workspace with 500 members") == "Something went wrong."
    assert shown_message("the page says 'Could not save' and a 500 error", "'Could not save'") == "Could not save"
    # a button's name is no error message: the box of a failure "with error SSO-212" shows that code
    sso = "clicked 'Sign in with SSO' and it fails with error SSO-212"
    assert shown_message(sso, "'Sign in with SSO'") == "Something went wrong (SSO-212)."
    # as when the wording says it "is rejected with SSO-212" or shows "the SSO-212 error"; an invoice is no code
    rejected = "pressed 'Sign in with SSO'; the SAML response is rejected with SSO-212"
    assert shown_message(rejected, "'Sign in with SSO'") == "Something went wrong (SSO-212)."
    assert shown_message("pressed 'Sign in with SSO' and saw the SSO-212 error") == "Something went wrong (SSO-212)."
    assert shown_message("the PDF with INV-2026-119002 on 'Download invoice'") == "Download invoice"


def test_a_greeting_and_an_aside_fit_the_hour_they_are_written_at() -> None:
    assert daytime("Good afternoon. I'm at my desk all afternoon.", 1) == "Hello. I'm at my desk all day."
    assert daytime("Good afternoon. I'm at my desk all afternoon.", 9) == "Good morning. I'm at my desk all afternoon."
    assert daytime("Good morning, a demo this afternoon.", 20) == "Good evening, a demo today."
    assert daytime("It took my morning.", 3) == "It took my day."
    assert daytime("It took my morning.", 14) == "It took my morning."
    spent = "This has taken up more of my afternoon than I would like."
    assert daytime(spent, 8) == "This has taken up more of my morning than I would like."  # none spent yet
    assert daytime(spent, 15) == spent


def test_a_customer_greets_by_the_hour_of_the_ticket() -> None:
    greeted = 0
    for level, split in itertools.product(("generated_medium", "generated_hard", "generated_expert"), SPLITS):
        for seed in range(20):
            for t in generate(level, seed, split).task.tickets:
                found = re.search(r"\bGood (morning|afternoon|evening)\b", t.description)
                if t.reporter_type != "user" or not found:
                    continue
                greeted += 1
                hour = t.created_at.hour
                want = "morning" if 5 <= hour < 12 else "afternoon" if 12 <= hour < 18 else "evening"
                assert found[1] == want and hour < 23, (t.ticket_id, hour, found[0])
    assert greeted >= 5


def test_a_tester_names_the_case_a_run_covers_not_the_customers_it_hits() -> None:
    cases = {
        "every customer hosted in the Sydney region": "a workspace hosted in the Sydney region",
        "every integration that connects from Java clients": "connecting from Java clients",
        "every team that co-edits documents": "co-editing documents",
        "every team renamed after joining projects": "a team renamed after joining projects",
        "every integration asking for pages over 100 tasks": "an integration asking for pages over 100 tasks",
        "everyone downloading attachments through the EU servers": "downloading attachments through the EU servers",
        "all users of Microsoft Edge 120": "Microsoft Edge 120",
        "everyone who signs in with a password": "signing in with a password",
        "everyone whose password has letters beyond ASCII": "an account whose password has letters beyond ASCII",
        "the Android app": "the Android app",
        "every customer on a Mac who works in Safari": "a user on a Mac who works in Safari",  # (a person, reader 48)
    }
    for who, case in cases.items():
        assert as_configuration(who) == case


@pytest.mark.parametrize("split", ["train", "validation", "test"])
def test_an_aside_that_ends_a_message_comes_after_the_problem(split: str) -> None:
    """Where to reach the writer, an offer to test or thanks in advance close a message: a long writer does not stack
    them with greetings and apologies before the problem (readers quoted four-sentence preambles)."""
    before = after = 0
    for made in instances(split):
        for t in made.task.tickets:
            f = made.facts[t.ticket_id]
            starts = [t.description.find(text) for _, text in f.evidence if text and text in t.description]
            if t.reporter_type != "user" or not starts or min(starts) <= 0:
                continue
            for m in CLOSING_ASIDE.finditer(t.description):
                if m.start() < min(starts):
                    before += 1
                else:
                    after += 1
    assert before == 0 and after > 20, (before, after)


def test_no_lead_in_with_a_colon_runs_into_a_problem_told_by_who_writes_it() -> None:
    """A quiet opener that leads into the problem ("I could use a hand with this:") ends in a full stop when the
    problem opens with the writer saying who they are ("I'm the workspace admin and ..."), in a terse ticket too
    (found by the seam check `lead_into_intro`)."""
    from openenv_bug_triage.generator.personas import Persona

    body = "I'm the workspace admin and I handle our subscription, but something about our billing seems wrong."
    terse = 0
    for seed in range(40):
        voice = Voice(load_phrases(), "train", random.Random(seed))
        voice.cast(Persona(reporter="user", channel="email", name="Jens Keller", role="workspace admin"), set())
        drawn = voice.length
        text = voice.wrap(body, [], "I could use a hand with this:", 0)
        assert "with this: I'm" not in text, text
        if drawn == "terse":
            terse += 1
            assert text.startswith("I could use a hand with this. I'm the workspace admin"), text
    assert terse


def test_a_paste_of_api_calls_shows_the_client_library_the_ticket_names() -> None:
    """Step 1 "Use the official Python SDK, version 3.2" beside a paste whose client was "larkspur-connector 1.7 (node
    20)" (found by a blind reader): a paste names the library, and the version, that the ticket's words name."""
    from openenv_bug_triage.catalogue import load_phrases
    from openenv_bug_triage.generator.settings import client_library

    rng = random.Random(0)
    assert client_library("Use the official Python SDK, version 3.2", rng).startswith("larkspur-python 3.2.")
    assert client_library("our Node.js service calls it", rng).startswith("larkspur-node 4.")
    assert client_library("a shell script with curl", rng).startswith("larkspur-go 0.1")
    for split in ("train", "validation", "test"):
        for phrase in load_phrases().texts_fitting("pasted_output", split, frozenset({"api_calls", "bug"})):
            clients = re.findall(r"^(?:User agent|library|client): (.*)$", phrase, re.M)
            assert all(c == "{library}" for c in clients), (split, clients)


def test_no_paste_of_a_current_app_build_on_an_unsupported_os() -> None:
    """ "My iPhone 8 is still on iOS 15.1" over "Installed version: 5.17.1 (#4137)" (blind reader 46): a report from
    an OS the app no longer supports pastes no screen of a current build, whatever else its ticket is."""
    from openenv_bug_triage.catalogue import load_phrases

    tags = frozenset({"bug", "customer", "mobile", "phone_app", "unsupported", "long", "technical", "admin"})
    for split in ("train", "validation", "test"):
        for phrase in load_phrases().texts_fitting("pasted_output", split, tags):
            assert "{app_version}" not in phrase and "{build}" not in phrase, (split, phrase[:60])


def test_one_app_release_shows_one_build_number_in_every_paste() -> None:
    """iOS 5.18.0 as "App version 5.18.0 (4564)" in one ticket and "Build 4368 of 5.18.0" in another (blind reader
    48): an app's screen shows one build number per release, growing with the release."""
    from openenv_bug_triage.generator.voice import store_build

    shown = re.compile(r"\b(\d\.\d+\.\d+)\D{1,12}?\b(4\d{3})\b|\bBuild (4\d{3}) of (\d\.\d+\.\d+)")
    builds: dict[str, set[str]] = {}
    for split in SPLITS:
        for t, _ in items(instances(split)):
            for m in shown.finditer(t.description):
                version, build = (m[1], m[2]) if m[1] else (m[4], m[3])
                builds.setdefault(version, set()).add(build)
    assert len(builds) >= 5, builds
    assert all(len(b) == 1 for b in builds.values()), {v: b for v, b in builds.items() if len(b) > 1}
    assert store_build("5.18.0", 0) < store_build("5.18.1", 0) < store_build("5.19.0", 0) < store_build("6.0.0", 0)
