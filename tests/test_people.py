"""One person behind each ticket: their plan, their organisation, their voice, counted over many queues.

A checker that reads generated queues as a support lead would and counts each kind of seam
between a ticket and the person said to write it: a pressing line that claims a blockage the
ticket denies (a workaround, a cosmetic glitch) or follows an opener that plays it down, a
tester who writes as a customer, a customer quoting another organisation's address, a free
plan on a feature only paying customers have, a plan the customer is not on, a stock line that
readers quote back (a clock counted from the start of the working day, a hosting region, a
grammar slip, a space before a full stop), and a customer naming the service's internal mechanisms. Every count must be zero;
the planted examples show that each check can fail. Run as a script to print the counts per split:

    .venv/bin/python tests/test_people.py [instances per level]
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable
from functools import cache

import planting
import pytest
import sweeps

from openenv_bug_triage.catalogue import load_catalogue
from openenv_bug_triage.generator import GeneratedTask, TicketFacts
from openenv_bug_triage.generator.personas import load_personas
from openenv_bug_triage.models import Ticket

SPLITS = ("train", "validation", "test")
PER_LEVEL = 15

Item = tuple[Ticket, TicketFacts]

BLOCKED = re.compile(
    r"\bdead in the water\b|\bcompletely stuck\b|\bwe(?:'re| are) stuck\b|\bno other way\b|\bnothing to fall back on\b|"
    r"\bno way around it\b|\bno detour\b|\bcan't do it at all\b|\bit's blocking\b|\bwhole company is stuck\b|"
    r"\bnothing else that does the same job\b|\bcan't do it (?:another|any other) way\b|\bfound none\b|"
    r"\bno alternative\b|\bno way round it\b|\bnothing gets us past it\b|\bwe are stopped\b|\bblocks us completely\b|"
    r"\bno workaround\b|\bdoes not work for us at all\b",
    re.I,
)
"""A writer saying they cannot get their work done at all."""
URGENT = re.compile(
    r"(?<!not )(?<!nothing )(?<!hardly )\burgent\b(?! (?:items|tasks|things))|\bASAP\b|\bescalate\b|\bP0\b|\bsev0\b|\bemergency\b|\bdrop everything\b|\bcritical\b|"
    r"\bprioriti[sz]e\b|\bplease hurry\b|\bcannot wait\b|\bcan't wait\b",
    re.I,
)
PLAYED_DOWN = re.compile(
    r"\bnot a big deal\b|\bno urgency\b|\bno rush\b|\bnot urgent\b|\bnothing urgent\b|\bhardly urgent\b|"
    r"\btrivial\b|(?<!high or )\blow priority\b|\bno hurry\b|\bnothing pressing\b|\bnot pressing\b|\bthis can wait\b|"
    r"\bnothing (?:dramatic|serious)\b|\b(?:small|tiny) wish\b",
    re.I,
)
PLANTED = re.compile(
    r"\btriag\w*|\bclassify\b|\bpriority override\b|\boverride\b|\bINSTRUCTIONS\b|\bAI\b|\bsystem>|\bpre-approved\b|\bwithout further\b|"
    r"\bno longer applies\b|\bskip the (?:handbook|rules)\b"
)
"""An instruction planted for the triager, which is no part of the writer's temper."""
ASIDE = re.compile(r"\bon that one\b|\bA (?:small|tiny) wish\b")
"""Played down about a request attached to the report ("A small wish: ..."), not about the report."""
EASED = frozenset({"cosmetic"})

QA_AS_CUSTOMER = re.compile(
    r"\b(?:ours|theirs)\b|\bour (?:workspace|team|company|office|account|organi[sz]ation|staff|clients|managers?|"
    r"members|people|users|business)\b|\bI sign in\b|\bmanagers read\b|\bover coffee\b|\bwe (?:rely|cope|use)\b|"
    r"\b(?:frustrat|annoy|worr)\w*\b",
    re.I,
)
"""A customer's stake in their own workspace, or a customer's feelings, in a tester's text."""
LOWER_I = re.compile(r"(?<![\w'’.])(?<!dotted )i(?=['’]\w|\s)")
"""The pronoun typed in lower case: a customer's careless typing, which a tester's report does not show."""
CASUAL = re.compile(r"^[a-z](?=[a-z]* )|(?<=[a-z]{3}[.!?] )[a-z]|\b(?:cant|dont|doesnt|wont)\b")
"""A report begun in lower case, a sentence begun so, or a word without its apostrophe: typing no test report
shows (a chain of steps, "open the app > tap Save", may start in lower case on a line of its own)."""

ADDRESS = re.compile(r"(?P<local>[\w.+'-]+)@(?P<domain>[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})", re.I)
DOMAIN = re.compile(r"\b(?:[a-z0-9-]+\.)+(?:co\.uk|org\.uk|com|org|net|io|de|fr|nl|se|no|dk)\b", re.I)
PUBLIC_MAIL = frozenset({"gmail.com", "hotmail.com", "outlook.com", "live.com", "yahoo.com", "icloud.com", "proton.me"})
THIRD_PARTY = ("payments-provider.com", "microsoftonline.com", "dropbox.com", "google.com")
"""Services a customer's ticket may name whatever their organisation."""

PAID_WORDS = re.compile(
    r"\bSSO\b|\bsingle sign-on\b|\bSAML\b|\bOkta\b|\bAzure AD\b|\bidentity provider\b|\btrial\b|\bSCIM\b", re.I
)
"""Features only paying customers have (single sign-on, a trial of a paid plan)."""
NO_SSO = re.compile(r"\b(?:no|don'?t use|do not use|without) (?:SSO|single sign-on)\b", re.I)
"""A writer saying they have none."""

PLAN_NAMED = {
    "free": re.compile(r"\b(?:on|still on) (?:the|a|our) free (?:plan|tier)\b|\ba free workspace\b", re.I),
    "pro": re.compile(r"(?<!iPad )\bPro (?:workspace|plan|renewal|monthly|annual)\b|\b(?:from|still on|on) Pro\b"),
}
"""A customer's words for the plan they are on: the free plan, or Pro (never the iPad Pro)."""

WORKDAY_CLOCK = re.compile(r"\bminutes into the working day\b|\bminutes after I got in\b", re.I)
REGION = re.compile(r"\bOregon\b|\bus-west-\d\b|\beu-central-\d\b|\bus-east-\d\b", re.I)
GRAMMAR = re.compile(
    r"\b(?:a single|one) successful (?:attempts|tries)\b|\bI were\b|\bme (?:are|were)\b|\b(?:a|A) (?:IT|[aeio]\w+) "
    r"(?:distributor|society|studio|maker|publisher|insurer|group|lead|manager)\b|\bconfiguration\(s\)|"
    r"\b\w+ed and (?:unzip|type|empty|insert) the\b",
)
"""Slot-filling grammar: a wrong number, a pronoun turned into the reporter's ("I were mentioned"), "a" before a
vowel ("a IT distributor"), an unfilled plural, a second step left in the present ("downloaded and unzip the")."""
LEAD_INTO_INTRO = re.compile(
    r":\s+(?:I write on behalf|I'm writing as|I'm the |I'm an? |Some background|A bit about us|By way of introduction|"
    r"Please note I am writing|For what it's worth, I work|Back again|Me again|Sorry, me again|One more from me|"
    r"Developer at|\w+ at [A-Z]\w+ \w+ here)"
)
"""A lead-in that ends in a colon ("Probably just me, but here it is:") running into who writes, not the problem."""
LOG_CLAIM = re.compile(r"\blog", re.I)
SPACE_STOP = re.compile(r"\w [.;](?=\s|$)")
INTERNAL = re.compile(
    r"\breplica(?:tion)? lag\b|\bsigning key\b|\bconnector update\b|\bWAF\b|\bcache node\b|\bfeature flag\b|"
    r"\bread replica\b|\bAuthKey_\w+|\bshard\b",
    re.I,
)
"""The service's own mechanisms, which only its engineers, QA, alerts and logs can name."""
NARROWED_TO_ALL = re.compile(
    r"\b(?<!-)(?:only|limited to|confined to|isolated to) +(?:(?:hits|affects) +)?(?:every|everyone|all)\b", re.I
)
"""A scope that denies itself: "Impact limited to every workspace in the US-East region" (within a line, and not
"read-only" at a paragraph's end before "All the best")."""

SINCE_A_RELEASE = re.compile(
    r"\b(?:since|after) (?:the |last week's |a recent |the latest )?(?:\w+ )?(?:app )?(?:release|update)\b", re.I
)
"""A failure dated from a live release ("since the last release", "after the latest update")."""


def _own(t: Ticket) -> str:
    """What the reporter wrote: title, description and their own follow-ups (not quoted lines)."""
    lines = [x for x in t.description.split("\n") if not x.startswith(">")]
    return "\n".join([t.title, *lines, *(c.text for c in t.comments if c.role == "reporter")])


def blockage_against_ticket(t: Ticket, f: TicketFacts) -> bool:
    """A customer says they are stuck on a ticket that gives a workaround or tells a cosmetic glitch."""
    eased = f.scope == "workaround" or f.impact in EASED
    return t.reporter_type == "user" and eased and bool(BLOCKED.search(t.description))


def played_down_then_pressed(t: Ticket, f: TicketFacts) -> bool:
    """A customer plays the ticket down and then presses, or claims a total blockage."""
    if t.reporter_type != "user" or "two_problems" in f.traps:  # (a second, smaller problem may be played down)
        return False
    sentences = re.split(r"(?<=[.!?])\s+|\n+", t.description)
    calm = [x for x in sentences if PLAYED_DOWN.search(x) and not ASIDE.search(x)]
    rest = " ".join(x for x in sentences if x not in calm and not PLANTED.search(x))
    return bool(calm) and bool(URGENT.search(rest) or BLOCKED.search(rest) or SHOUTED.search(t.title))


SHOUTED = re.compile(r"!!|\b[A-Z]{4,} [A-Z]{2,}\b")
"""A subject line shouted: two exclamation marks, or words in capitals."""


def qa_as_customer(t: Ticket, f: TicketFacts) -> bool:
    """A tester writes about their own workspace, team or feelings, as a customer does."""
    own = "\n".join(line for line in t.description.split("\n") if not line.startswith(">"))
    text = f"{t.title}\n{own}"
    casual = LOWER_I.search(text) or CASUAL.search(own)
    return t.reporter_type == "qa" and bool(QA_AS_CUSTOMER.search(text) or casual)


@cache
def _domains() -> dict[str, str]:
    return {o.name: o.email_domain for o in load_personas().organisations}


def _foreign(domain: str, own: str) -> bool:
    d = domain.lower()
    return not (
        d == own
        or d.endswith("." + own)
        or d in PUBLIC_MAIL
        or d.endswith(("larkspur.io", "larkspur.app", *THIRD_PARTY))
    )


def _ascii(name: str) -> str:
    """`name` as a mail address spells it: accents dropped."""
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()


def another_organisations_address(t: Ticket, f: TicketFacts) -> bool:
    """A customer's own words carry a mail address or domain of another organisation, or an address
    named for someone else of their own ("My address is anna.berg@..." signed Carmen)."""
    if t.reporter_type != "user" or f.organisation is None or f.person is None:
        return False
    own, text = _domains()[f.organisation], _own(t)
    first = _ascii(f.person[0].split()[0].lower())  # "Chloé" writes from chloe.lambert@
    for m in ADDRESS.finditer(text):
        if _foreign(m["domain"], own):
            return True
        local = m["local"].lower()
        if re.search(r"\b(?:my|My) (?:address|email|login)\b", text) and "." in local and not local.startswith(first):
            return True
    return any(_foreign(m[0], own) for m in DOMAIN.finditer(ADDRESS.sub("", text)))


def free_plan_on_paid_feature(t: Ticket, f: TicketFacts) -> bool:
    """A customer on the free plan reports a feature only paying customers have."""
    if t.reporter_type != "user" or t.customer_tier != "free":
        return False
    return f.component == "sso" or bool(PAID_WORDS.search(NO_SSO.sub("", t.description)))


def plan_not_theirs(t: Ticket, f: TicketFacts) -> bool:
    """A customer who speaks of a plan they are not on ("the workspace is still on the free plan" from an
    enterprise customer, "we upgraded from Pro" from a free one)."""
    own = _own(t)
    return t.reporter_type == "user" and any(
        tier != t.customer_tier and pattern.search(own) for tier, pattern in PLAN_NAMED.items()
    )


def workday_clock(t: Ticket, f: TicketFacts) -> bool:
    """A stock clock: "about 52 minutes into the working day"."""
    return bool(WORKDAY_CLOCK.search(t.description))


def customer_names_region(t: Ticket, f: TicketFacts) -> bool:
    """A customer names the data center their workspace runs in."""
    return t.reporter_type == "user" and bool(REGION.search(_own(t)))


def grammar_slip(t: Ticket, f: TicketFacts) -> bool:
    """A stock sentence whose choices make a wrong number ("Not a single successful attempts")."""
    return bool(GRAMMAR.search(t.description))


def space_before_stop(t: Ticket, f: TicketFacts) -> bool:
    """A space before a full stop, more than once in a ticket (once is a slip; twice is a pattern)."""
    return len(SPACE_STOP.findall(t.description)) > 1


def customer_names_internals(t: Ticket, f: TicketFacts) -> bool:
    """A customer names the service's internal mechanism (replica lag, a signing key, a WAF rule)."""
    return t.reporter_type == "user" and bool(INTERNAL.search(_own(t)))


def lead_into_intro(t: Ticket, f: TicketFacts) -> bool:
    """A colon lead-in followed by the writer's introduction instead of what went wrong."""
    return t.reporter_type == "user" and bool(LEAD_INTO_INTRO.search(t.description))


def clean_logs_beside_a_log(t: Ticket, f: TicketFacts) -> bool:
    """A tester's retest says the logs are clean on a ticket that carries the failure's log."""
    return bool(t.log_excerpt) and any(c.role == "qa" and LOG_CLAIM.search(c.text) for c in t.comments)


def prerelease_since_a_release(t: Ticket, f: TicketFacts) -> bool:
    """A staging or development build's title dates the failure from a release: that build has not shipped."""
    return t.environment != "production" and bool(SINCE_A_RELEASE.search(t.title))


def scope_denies_itself(t: Ticket, f: TicketFacts) -> bool:
    """A sentence narrows the scope to a group it names as every one of something, in the text or a comment."""
    return bool(NARROWED_TO_ALL.search("\n".join([t.description, *(c.text for c in t.comments)])))


PLUS_SAID = re.compile(r"([\w.-]+)\+([\w.-]+)@([\w.-]+\w)")
PLUS_LOGGED = re.compile(r"'([\w.-]+) ([\w.-]+)@([\w.-]+\w)|([\w.-]+)%2B([\w.-]+)%40([\w.-]+\w)")


def another_plus_address_logged(t: Ticket, f: TicketFacts) -> bool:
    """The log shows a '+' address (decoded to a space, or URL-encoded) other than the one the ticket gives, or,
    on a customer's ticket that gives none, at another domain than the customer's."""
    logged = [m[:3] if m[0] else m[3:] for m in PLUS_LOGGED.findall(t.log_excerpt or "")]
    said = PLUS_SAID.findall(t.description)
    if said:
        return any(address != said[0] for address in logged)
    own = _domains().get(f.organisation or "") if t.reporter_type == "user" else None
    return own is not None and any(domain != own for _, _, domain in logged)


CHARGED = re.compile(r"(?<!never )\bcharged\b|\bpayment was successful\b|\bas succeeded\b", re.I)
RETRIED = re.compile(
    r"\bretried\b|\b(?:a dozen|twenty or so|lots of) times\b|\bnot once has it\b|\b(?:each|every) (?:go|try)\b"
    r"|\bover and over\b|\bagain and again\b|\btried everything\b"
    r"|\b(?:2nd|second|try 2|attempt 2)\b[^\n]{0,30}\b\d+ min(?:utes)? later\b",  # a list of tries, each charged
    re.I,
)


def thanks_said_twice(t: Ticket, f: TicketFacts) -> bool:
    """A sign-off that repeats the thanks the text has just given ("... Thanks for looking.\n\nThanks for looking,
    Pieter")."""
    *body, last = t.description.rsplit("\n\n", 1) if "\n\n" in t.description else ("", t.description)
    thanks = last.split(",")[0].strip(" -.")
    said = len(thanks.split()) >= 3 and thanks.lower() in "".join(body).lower()
    return t.reporter_type == "user" and thanks.startswith(("Thank", "Many thanks")) and said


ONGOING = re.compile(
    r"(?i)\bnot one try\b|\b(?:every|each) (?:try|go|time)\b|\bretried\b|\bkeeps? failing\b|\bdead for us\b|\bfails\b"
)


@cache
def _past_incidents() -> frozenset[str]:
    return frozenset(d.id for d in load_catalogue().defects if d.past)


def past_loss_told_as_ongoing(t: Ticket, f: TicketFacts) -> bool:
    """A loss that happened once (a failover's lost writes) told as failing on every try since."""
    return f.scenario in _past_incidents() and t.reporter_type == "user" and bool(ONGOING.search(t.description))


FORWARDED = re.compile(r"\b(?:engineer\w*|developers?|dev)\b|\bescalat\w*|\bproduct team\b|\bowning team\b|\btracker\b")


def own_slip_forwarded(t: Ticket, f: TicketFacts) -> bool:
    """Support passes to engineering a report whose writer's own slip explains it (an invalid report)."""
    return f.kind == "invalid" and any(c.role == "support" and FORWARDED.search(c.text) for c in t.comments)


NO_RESPONSE = re.compile(r"\bhandshake\b|\bbefore any response\b|\bcertificate verify failed\b|\bunknown_ca\b|\bPKIX\b")
RESPONSE_ATTACHED = re.compile(
    r"\bresponse body (?:we got back )?attached\b|\bbody we got back\b|\bresponse dump\b|\bRequest/response saved\b"
)


def response_of_no_response(t: Ticket, f: TicketFacts) -> bool:
    """A response body attached to a call that failed before the server answered (a TLS handshake)."""
    return bool(NO_RESPONSE.search(t.description) and RESPONSE_ATTACHED.search(t.description))


TITLE_QUOTE = re.compile(r"(?<!\w)'([^']{6,})'(?!\w)")


def title_quotes_the_log(t: Ticket, f: TicketFacts) -> bool:
    """A customer's subject quotes an error that only the log holds ("projects fail with 'could not read block'" over
    "a long technical error"): they saw a screen, not the database's words."""
    text, log = t.description.lower(), (t.log_excerpt or "").lower()
    quoted = [q.lower() for q in TITLE_QUOTE.findall(t.title)]
    return t.reporter_type == "user" and any(q not in text and q in log for q in quoted)


COUNTED = re.compile(r"\bevery (?:customer|team|integration|organi[sz]ation|company|business)\b")


def qa_counts_customers(t: Ticket, f: TicketFacts) -> bool:
    """A tester states scope as every customer or team of a kind ("hits every customer hosted in Sydney"), which no
    test run can see: a run covers cases ("a workspace hosted in Sydney")."""
    own = "\n".join(line for line in t.description.split("\n") if not line.startswith(">"))
    return t.reporter_type == "qa" and COUNTED.search(own) is not None


@cache
def _seats() -> dict[str, int]:
    return {o.name: o.seats for o in load_personas().organisations}


def large_account_run_on_the_side(t: Ticket, f: TicketFacts) -> bool:
    """An organisation of hundreds whose Larkspur account someone sorts out "on the side"."""
    return "account on the side" in t.description and _seats().get(f.organisation or "", 0) >= 150


NOTHING_CHANGED = re.compile(
    r"\bnothing (?:has )?changed on our\b|\bdon't think we changed anything\b|\bour side has changed\b"
)
WE_CHANGED = re.compile(r"(?<!think )\b(?:we|I) (?:reorganised|changed|switched|turned (?:on|off)|enabled|disabled)\b")


def nothing_changed_after_a_change(t: Ticket, f: TicketFacts) -> bool:
    """A writer who says nothing changed on their side in a ticket that tells of what they changed ("Since we
    reorganised the departments last month ...")."""
    told = f.kind in ("vague", "invalid")  # (a defect's steps may change a value: "Then I changed the text")
    return told and bool(NOTHING_CHANGED.search(t.description) and WE_CHANGED.search(t.description))


def demands_a_reply_on_a_settled_slip(t: Ticket, f: TicketFacts) -> bool:
    """A writer who found the fault on their side ("unarchiving fixed it") and still demands a reply today."""
    return (
        f.kind == "invalid"
        and re.search(r"\bI expect a reply today\b|\bGet back to me soon\b", t.description) is not None
    )


def retried_a_charge(t: Ticket, f: TicketFacts) -> bool:
    """A customer who was charged for a failed upgrade or renewal says they retried it again and again."""
    return t.reporter_type == "user" and bool(CHARGED.search(t.description) and RETRIED.search(t.description))


def spam_on_a_paid_plan(t: Ticket, f: TicketFacts) -> bool:
    """Spam from a sender with no account, stamped with a paying customer's plan (and its SLA)."""
    return "-spam-" in f.scenario and t.customer_tier != "free"


TICKET_CHECKS: dict[str, Callable[[Ticket, TicketFacts], bool]] = {
    "a blockage the ticket denies": blockage_against_ticket,
    "played down, then pressed": played_down_then_pressed,
    "a tester writing as a customer": qa_as_customer,
    "another organisation's address": another_organisations_address,
    "free plan on a paid feature": free_plan_on_paid_feature,
    "a plan the customer is not on": plan_not_theirs,
    "a working-day clock": workday_clock,
    "a customer names a hosting region": customer_names_region,
    "a grammar slip in a stock line": grammar_slip,
    "spaces before full stops": space_before_stop,
    "a customer names internals": customer_names_internals,
    "a scope that denies itself": scope_denies_itself,
    "a lead-in into who writes": lead_into_intro,
    "clean logs beside the failure's log": clean_logs_beside_a_log,
    "a build not yet shipped dated from a release": prerelease_since_a_release,
    "spam on a paid plan": spam_on_a_paid_plan,
    "a log's plus address mismatched": another_plus_address_logged,
    "a charge retried again and again": retried_a_charge,
    "a tester counting customers": qa_counts_customers,
    "a subject quoting the log": title_quotes_the_log,
    "a response body of a call with none": response_of_no_response,
    "a writer's own slip passed to engineering": own_slip_forwarded,
    "a past loss told as ongoing": past_loss_told_as_ongoing,
    "thanks said twice": thanks_said_twice,
    "a large account run on the side": large_account_run_on_the_side,
    "a reply demanded on a settled slip": demands_a_reply_on_a_settled_slip,
    "nothing changed after a change": nothing_changed_after_a_change,
}


def instances(split: str, per_level: int = PER_LEVEL) -> tuple[GeneratedTask, ...]:
    return sweeps.instances(split, per_level)


def found(made: tuple[GeneratedTask, ...], kind: str) -> list[str]:
    return [t.ticket_id for t, f in sweeps.items(made) if TICKET_CHECKS[kind](t, f)]


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("kind", list(TICKET_CHECKS))
def test_no_seam_of_this_kind(split: str, kind: str) -> None:
    hits = found(instances(split), kind)
    assert not hits, (kind, len(hits), hits[:5])


def test_each_check_finds_a_planted_seam() -> None:
    t, f = planting.ticket, planting.facts
    staging = "Tasks API ignores the assignee filter since the last release"
    assert prerelease_since_a_release(t(environment="staging", title=staging), f())
    assert not prerelease_since_a_release(t(title=staging), f())
    assert scope_denies_itself(t(description="Impact limited to every workspace in the US-East region."), f())
    assert scope_denies_itself(t(description="It only hits everyone on the Android app."), f())
    assert not scope_denies_itself(t(description="Impact: every workspace in the US-East region."), f())
    assert not scope_denies_itself(t(description="Only 2 of our 6 see it."), f())
    workaround = f(scope="workaround", impact="core")
    urgent = "Downloading it by hand works. We're dead in the water until this is fixed, urgent!"
    assert blockage_against_ticket(t(description=urgent), workaround)
    assert not blockage_against_ticket(t(description="Downloading it by hand works. Please prioritise."), workaround)
    assert blockage_against_ticket(t(description="Can't do it at all, no other way."), f(impact="cosmetic"))
    assert not blockage_against_ticket(t(description="Can't do it at all, no other way."), f(impact="minor"))
    assert not played_down_then_pressed(t(description="No hurry. Our team marks urgent items with a flag."), f())
    assert played_down_then_pressed(t(description="Not a big deal, just letting you know. Please escalate ASAP."), f())
    assert not played_down_then_pressed(t(description="Not a big deal, just letting you know."), f())
    assert played_down_then_pressed(t(title="DARK MODE PLEASE!!!!", description="Small wish: a dark mode."), f())
    assert not played_down_then_pressed(
        t(description="Low priority from my side. Could you add stars? Not urgent."), f()
    )
    assert qa_as_customer(t(reporter_type="qa", description="And if we can see theirs, someone can see ours."), f())
    assert qa_as_customer(t(reporter_type="qa", description="Managers read the digest over coffee."), f())
    assert not qa_as_customer(t(reporter_type="qa", description="Expected: a digest.\nActual: none."), f())
    assert qa_as_customer(t(reporter_type="qa", description="not in junk, not anywhere. so i'm stuck outside"), f())
    assert qa_as_customer(t(reporter_type="qa", description="with ?? in front. small thing but looks broken."), f())
    assert qa_as_customer(t(reporter_type="qa", description="The json export doesnt include subtasks."), f())
    quoted = "From support:\n> the older invoices cant be downloaded"
    assert not qa_as_customer(t(reporter_type="qa", description=quoted), f())
    assert not qa_as_customer(t(reporter_type="qa", description="Step 2: task.deleted is not sent."), f())
    ack = [{"author": "Percy Lam", "role": "support", "time": "2026-10-08T05:00:00Z", "text": "Passed to engineering."}]
    assert own_slip_forwarded(t(comments=ack), f(kind="invalid"))
    assert not own_slip_forwarded(t(comments=ack), f())
    twice = "They said nothing more. Thanks for looking.\n\nThanks for looking, Pieter de Vries"
    assert thanks_said_twice(t(description=twice), f())
    assert not thanks_said_twice(t(description=twice.replace("Thanks for looking.", "Cheers.")), f())
    tls = "Calls fail in the TLS handshake with PKIX path building failed."
    assert response_of_no_response(t(description=tls + " Raw response body attached, saved as log-1.txt."), f())
    assert not response_of_no_response(t(description=tls + " Our client's log is attached."), f())
    block = "could not read block 88213"
    assert title_quotes_the_log(t(title="Fails with 'could not read block'", log_excerpt=f"ERROR: {block}"), f())
    seen = t(title="Fails with 'could not read block'", description=f"It says '{block}'.", log_excerpt=block)
    assert not title_quotes_the_log(seen, f())
    counted = "Run results: the failure hits every customer hosted in the Sydney region on each run."
    assert qa_counts_customers(t(reporter_type="qa", description=counted), f())
    assert not qa_counts_customers(t(reporter_type="qa", description="Customer wrote:\n> " + counted), f())
    paid = "The checkout says 'Thank you, your payment was successful', but the plan stays Pro."
    assert retried_a_charge(t(description=paid + " We have retried it twenty or so times now."), f())
    assert not retried_a_charge(t(description=paid + " Nobody here can use Enterprise features."), f())
    changed = "As far as I know, nothing changed on our end. Since we reorganised the departments it is slow."
    assert nothing_changed_after_a_change(t(description=changed), f(kind="vague"))
    assert not nothing_changed_after_a_change(t(description=changed.split(". ")[0]), f(kind="vague"))
    settled = "Tomasz had archived it by mistake; unarchiving fixed it.\n\nI expect a reply today. Owen"
    assert demands_a_reply_on_a_settled_slip(t(description=settled), f(kind="invalid"))
    assert not demands_a_reply_on_a_settled_slip(t(description=settled), f(kind="defect"))
    side = "Solent Water Services is a water utility; I sort out our Larkspur account on the side."
    assert large_account_run_on_the_side(t(description=side), f(organisation="Solent Water Services"))
    assert not large_account_run_on_the_side(t(description=side), f(organisation="Amberley Tutors"))
    tries = "\n\nTries:\n* attempt 1: broken\n* try 2, 41 min later: identical\n* third from a second machine: same"
    assert retried_a_charge(t(description=paid + tries), f())
    reset = "reset: lookup token for email 'anna larkspur@ourcompany.com' -> none"
    said = "My address is callum+work@petreldesign.coop."
    assert another_plus_address_logged(t(description=said, log_excerpt=reset), f())
    assert not another_plus_address_logged(
        t(description=said, log_excerpt=reset.replace("anna larkspur@ourcompany.com", "callum work@petreldesign.coop")),
        f(),
    )
    carmen = f(organisation="Hollowell Bike Repair", person=("Carmen Ruiz", "systems administrator"))
    own = _domains()["Hollowell Bike Repair"]
    assert another_organisations_address(t(description="My address is anna.berg@eu.norrfield.com."), carmen)
    assert another_organisations_address(t(description=f"My address is anna.berg@{own}."), carmen)
    assert another_organisations_address(t(description="Verify a subdomain such as eu.example.com first."), carmen)
    assert not another_organisations_address(t(description=f"My address is carmen.ruiz@{own}."), carmen)
    chloe = f(organisation="Hollowell Bike Repair", person=("Chloé Lambert", "systems administrator"))
    assert not another_organisations_address(t(description=f"My address is chloe.lambert@{own}."), chloe)
    assert free_plan_on_paid_feature(t(customer_tier="free", description="Okta sign-in fails."), f(component="sso"))
    assert free_plan_on_paid_feature(t(customer_tier="free", description="Our trial organisation."), f())
    assert not free_plan_on_paid_feature(t(customer_tier="pro", description="Okta sign-in fails."), f(component="sso"))
    enterprise = "Settings > Billing still says 'Current plan: Pro, 25 seats'. I upgraded from Pro to Enterprise."
    assert plan_not_theirs(t(customer_tier="enterprise", description=enterprise), f())
    assert not plan_not_theirs(t(customer_tier="pro", description=enterprise), f())
    assert plan_not_theirs(t(customer_tier="pro", description="The workspace is still on the free plan."), f())
    assert not plan_not_theirs(t(customer_tier="pro", description="Saving on my iPad Pro fails."), f())
    assert workday_clock(t(description="First seen about 52 minutes into the working day."), f())
    assert customer_names_region(t(description="Use a workspace hosted in us-west-2 (Oregon)."), f())
    assert not customer_names_region(t(reporter_type="qa", description="Workspace in us-west-2."), f())
    assert grammar_slip(t(description="Not a single successful attempts here."), f())
    assert not grammar_slip(t(description="Not a single successful attempt here."), f())
    assert space_before_stop(t(description="Thanks for taking a look at this . Sorry it took a while ."), f())
    assert not space_before_stop(t(description="Thanks for taking a look at this."), f())
    assert grammar_slip(t(description="I waited for the 'I were mentioned' email."), f())
    assert grammar_slip(t(description="I'm writing as office manager of Stackwise, a IT distributor."), f())
    assert grammar_slip(t(description="I signed in and downloaded and unzip the archive."), f())
    assert not grammar_slip(t(description="I'm writing as office manager of Stackwise, an IT distributor."), f())
    assert lead_into_intro(
        t(description="Probably just me, but here it is: I write on behalf of Garnet Lettings."), f()
    )
    assert not lead_into_intro(t(description="Probably just me, but here it is: the export is empty."), f())
    retest = {"author": "Lars Eriksen", "role": "qa", "time": "2026-10-09T10:00:00Z", "text": "No repro; logs quiet."}
    assert clean_logs_beside_a_log(t(log_excerpt="ERROR upload failed", logs_present=True, comments=[retest]), f())
    assert not clean_logs_beside_a_log(t(comments=[retest]), f())
    assert customer_names_internals(t(description="Probably replica lag on your side."), f())
    assert not customer_names_internals(t(reporter_type="qa", description="Replica lag on eu-2."), f())
    assert spam_on_a_paid_plan(t(customer_tier="enterprise"), f(kind="invalid", scenario="invalid-spam-crypto"))
    assert not spam_on_a_paid_plan(t(customer_tier="free"), f(kind="invalid", scenario="invalid-spam-crypto"))
    assert not spam_on_a_paid_plan(t(customer_tier="enterprise"), f(kind="invalid", scenario="invalid-test-ticket"))


def main(per_level: int) -> None:
    """Print each seam count per split over `per_level` instances of every static level."""
    made = {split: instances(split, per_level) for split in SPLITS}
    print(
        f"seams over {per_level} instances per static level and split ({len(sweeps.items(made['test']))} tickets in test)"
    )
    for kind in TICKET_CHECKS:
        print(f"  {kind:<40}" + "".join(f"{s} {len(found(made[s], kind)):>4}   " for s in SPLITS))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else PER_LEVEL)
