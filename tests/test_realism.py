"""Realism of generated queues: one person's report at one time about one product state."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from functools import cache

from openenv_bug_triage import chronology
from openenv_bug_triage.catalogue import load_catalogue, load_phrases
from openenv_bug_triage.chronology import ISO
from openenv_bug_triage.generator import GeneratedTask, generate
from openenv_bug_triage.generator.comments import LOG_NOTE_EARLIEST, LOG_NOTE_WITHIN, SUPPORT_NOTE_WITHIN
from openenv_bug_triage.generator.facts import PLATFORM_OF
from openenv_bug_triage.generator.files import FILE_NAME, desktop_said
from openenv_bug_triage.generator.levels import partition_of
from openenv_bug_triage.generator.personas import load_personas
from openenv_bug_triage.generator.phrasing import pattern
from openenv_bug_triage.generator.plan import ALERT_LAG, INCIDENT_SPAN
from openenv_bug_triage.generator.render import casual_title, weekday_bound
from openenv_bug_triage.generator.voice import own_message
from openenv_bug_triage.models import Ticket

SEEDS = range(10)


@cache
def queues() -> list[GeneratedTask]:
    return [
        generate(task_id, seed, split)
        for split in ("train", "validation", "test")
        for task_id in ("generated_hard", "generated_expert")
        for seed in SEEDS
    ]


def stamps(log: str) -> list[datetime]:
    return [
        datetime.fromisoformat(f"{m['y']}-{m['m']}-{m['d']}T{m['H']}:{m['M']}").replace(tzinfo=UTC)
        for m in ISO.finditer(log)
        if m["H"] is not None
    ]


def test_support_answers_customers_only() -> None:
    for g in queues():
        for t in g.task.tickets:
            if t.reporter_type != "user":
                assert not any(c.role == "support" for c in t.comments), t.ticket_id


def test_a_retold_duplicate_is_filed_at_least_a_day_after_its_original() -> None:
    seen = 0
    for g in queues():
        by_id = {t.ticket_id: t for t in g.task.tickets}
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if "retold" in f.traps:
                assert f.duplicate_of is not None
                assert t.created_at - by_id[f.duplicate_of].created_at >= timedelta(days=1), t.ticket_id
                seen += 1
    assert seen >= len(queues())


def test_every_report_of_an_outage_is_filed_within_its_span_and_none_is_retold() -> None:
    """A failure of the whole service that hits everyone in production is fixed in hours: its reports all come within
    `INCIDENT_SPAN` of the first, none re-told days later (a report two days after "won't save anything" showed the
    disk filling up that evening, after the first report and support's reply on it)."""
    global_ = {d.id for d in load_catalogue().defects if d.global_ and not d.past}
    seen = 0
    for g in queues():
        by_id = {t.ticket_id: t for t in g.task.tickets}
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            first = g.facts.get(f.duplicate_of or "")
            if first is None or first.scenario not in global_ or first.scope != "everyone":
                continue
            if first.environment == "production":
                assert "retold" not in f.traps, t.ticket_id
                gap = t.created_at - by_id[first.ticket_id].created_at
                assert gap <= timedelta(minutes=INCIDENT_SPAN), (t.ticket_id, gap)
                seen += 1
    assert seen >= 10, seen


def test_nobody_files_a_duplicate_of_their_own_report() -> None:
    """A customer who has reported a failure writes again on their ticket, not in a new one that reads as someone
    else's ("Sorry if this was already reported", signed by the reporter of the original three days before)."""
    seen = 0
    for g in queues():
        for f in g.facts.values():
            first = g.facts.get(f.duplicate_of or "")
            if first is not None and f.person is not None and first.person is not None:
                assert f.person[0] != first.person[0], (f.ticket_id, f.person)
                seen += 1
    assert seen >= 30, seen


def test_a_test_build_is_never_told_or_logged_against_the_production_api() -> None:
    """A staging or development build answers on its own host: neither its steps nor its log name the production API
    (a local development run's log read "not mapped for host api.larkspur.app")."""
    seen = 0
    more = [generate("generated_expert", seed, "train") for seed in range(20, 30)]  # test builds' logs name hosts
    for g in [*queues(), *more]:
        for t in g.task.tickets:
            if t.environment == "production":
                continue
            text = f"{t.description}\n{t.log_excerpt or ''}"
            assert not re.search(r"(?<![\w.])api\.larkspur\.app\b", text), t.ticket_id
            seen += "api.staging.larkspur.app" in text or "localhost:8080" in text
    assert seen >= 3, seen  # (the check reads test builds' own hosts: not vacuous)


def test_a_tester_files_a_subject_as_a_tester_writes_one() -> None:
    """A tester's subject is none of a customer's typed ones ("Api sends html on errors??", "Stuck at the 2fa screen
    forever") while its defect has a plainer one left: at most a few testers, whose defects have none, use one."""
    qa = [t.title for g in queues() for t in g.task.tickets if t.reporter_type == "qa"]
    casual = [x for x in qa if casual_title(x)]
    assert len(qa) > 200 and len(casual) / len(qa) < 0.04, (len(casual), len(qa), casual[:5])


_PRE = re.compile(r"(?P<track>(?:web|iOS app|Android app|API v2 build) [\d.]+)-(?P<kind>rc|dev)\.(?P<n>\d+)")


def test_pre_release_build_numbers_only_grow_with_time() -> None:
    checked = 0
    for g in queues():
        tracks: dict[tuple[str, str], list[tuple[datetime, int]]] = {}
        for t in g.task.tickets:
            for m in _PRE.finditer(f"{t.description} {t.version or ''}"):
                tracks.setdefault((m["track"], m["kind"]), []).append((t.created_at, int(m["n"])))
        for seen in tracks.values():
            numbers = [n for _, n in sorted(seen)]
            assert numbers == sorted(numbers), seen
            checked += len(seen) > 1
    assert checked


def test_a_reports_build_is_of_the_client_it_speaks_of() -> None:
    for g in queues():
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if t.version is None or f.kind != "defect":
                continue
            if t.reporter_type == "monitoring" and f.component not in PLATFORM_OF:  # an alert on the service
                assert t.version.startswith("API v2 build"), (t.ticket_id, t.version)
            elif f.component == "push-notifications":
                assert t.version.startswith(("iOS app", "Android app")), (t.ticket_id, t.version)
            elif f.component in PLATFORM_OF:
                want = {"web": "web", "ios": "iOS app", "android": "Android app", "api": "API v2 build"}
                assert t.version.startswith(want[PLATFORM_OF[f.component]]), (t.ticket_id, t.version)


def test_an_upgrade_is_credited_only_for_a_client_it_ships() -> None:
    resolved = [g.facts[t.ticket_id] for g in queues() for t in g.task.tickets if g.facts[t.ticket_id].fixed_in_current]
    assert resolved and all(f.component in PLATFORM_OF for f in resolved)


def test_logs_are_written_before_the_report_near_the_failures_start_and_never_pasted_twice() -> None:
    """A log ends before its ticket was filed, within a couple of hours of the first report of the
    failure (it shows the failure begin, shortly before that report)."""
    for g in queues():
        first: dict[str, datetime] = {}
        for t in g.task.tickets:
            root = g.facts[t.ticket_id].duplicate_of or t.ticket_id
            first[root] = min(first.get(root, t.created_at), t.created_at)
        pasted: Counter[str] = Counter()
        for t in g.task.tickets:
            if t.log_excerpt is None:
                continue
            found = stamps(t.log_excerpt)
            if found:
                began = first[g.facts[t.ticket_id].duplicate_of or t.ticket_id]
                assert timedelta(0) < t.created_at - max(found), t.ticket_id
                # a log that names the next day (a task due tomorrow) was written the day before
                ahead = any(d > max(found).date() for d in chronology.plain_dates(t.log_excerpt))
                # (one that names a weekday moves by whole weeks: up to a week and a day before)
                near = timedelta(days=8) if weekday_bound(t.log_excerpt) else timedelta(hours=24 if ahead else 2)
                assert began - max(found) <= near, t.ticket_id
            if t.reporter_type != "monitoring":
                pasted[ISO.sub("", t.log_excerpt)] += 1
        assert all(n == 1 for n in pasted.values())


FAULT = re.compile(r"\b(?:ERROR|WARN|FATAL|error|fail\w*|timeout|impaired|denied)\b")


def test_an_alerts_log_shows_the_failure_begin_by_the_onset_it_states() -> None:
    """The first failing line of an alert's log is at or before the time the alert says it fired."""
    checked = 0
    for g in queues():
        for t in g.task.tickets:
            onset = re.search(r"\b(\d\d):(\d\d) UTC", t.description)
            if t.reporter_type != "monitoring" or onset is None or not t.log_excerpt:
                continue
            faults = [at for line in t.log_excerpt.split("\n") if FAULT.search(line) for at in stamps(line)[:1]]
            if not faults:
                continue
            at = t.created_at.replace(hour=int(onset[1]), minute=int(onset[2]))
            at -= timedelta(days=1) if at > t.created_at else timedelta(0)
            assert min(faults) <= at, t.ticket_id
            checked += 1
    assert checked


def test_an_alert_on_a_reported_failure_fires_soon_after_the_report_and_states_a_recent_onset() -> None:
    """An alert duplicating a user's report is filed within `ALERT_LAG` of it and its metric's span; its onset (the first
    report's, at most 90 minutes before it) is hours, never days, before the alert."""
    checked = 0
    for g in queues():
        by_id = {t.ticket_id: t for t in g.task.tickets}
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if t.reporter_type != "monitoring" or f.duplicate_of is None or "retold" in f.traps:
                continue
            lag = t.created_at - by_id[f.duplicate_of].created_at
            span = _SPAN.search(t.description)
            minutes = 0 if span is None else int(span[1]) if span[2] is None else 60
            assert timedelta(0) <= lag <= timedelta(minutes=minutes + ALERT_LAG), (t.ticket_id, lag)
            onset = re.search(r"\b(\d\d):(\d\d) UTC", t.description)
            assert onset is not None, t.ticket_id
            at = t.created_at.replace(hour=int(onset[1]), minute=int(onset[2]))
            at -= timedelta(days=1) if at > t.created_at else timedelta(0)
            assert t.created_at - at <= timedelta(minutes=minutes + ALERT_LAG + 90), (t.ticket_id, at)
            checked += 1
    assert checked >= 10


_SPAN = re.compile(r"\b(?:over|for|in) (\d+) min\b|\b(?:over|in) (1) h\b")
_ERROR_LINE = re.compile(r"\b(?:ERROR|FATAL)\b")


def test_an_alert_fires_a_metric_span_after_its_first_error_and_after_the_report_it_follows() -> None:
    """An alert measured "over 10 min" fires about ten minutes after the first error line of its own log, not twenty
    minutes later (it would have fired sooner), and an alert filed after a customer's report of the same failure fired
    after that report (the report came first because the customer saw it first, not because the alert was late)."""
    checked = after = 0
    for g in queues():
        by_id = {t.ticket_id: t for t in g.task.tickets}
        for t in g.task.tickets:
            fired_at = re.search(r"\b(\d\d):(\d\d) UTC", t.description)
            if t.reporter_type != "monitoring" or fired_at is None:
                continue
            fired = t.created_at.replace(hour=int(fired_at[1]), minute=int(fired_at[2]), second=59)
            fired -= timedelta(days=1) if fired > t.created_at + timedelta(minutes=1) else timedelta(0)
            first = g.facts[t.ticket_id].duplicate_of
            if first is not None and "retold" not in g.facts[t.ticket_id].traps:
                assert fired >= by_id[first].created_at, (t.ticket_id, fired, by_id[first].created_at)
                after += 1
            span = _SPAN.search(t.description)
            lines = (t.log_excerpt or "").split("\n")
            errors = [at for line in lines if _ERROR_LINE.search(line) for at in stamps(line)[:1]]
            if span is None or not errors:
                continue
            minutes = int(span[1]) if span[2] is None else 60
            assert fired - min(errors) <= timedelta(minutes=minutes + 8), (t.ticket_id, fired, min(errors), minutes)
            checked += 1
    assert checked >= 10 and after >= 5, (checked, after)


_CUSTOMER_DAY = re.compile(r"\b[Ww]e(?:'ve| have| had)? (?!have\b|had\b|entered\b)\w+ed\b|\b[Uu]s\b|^(?:He|She) ")
"""A customer's own day in a report ("We archived two client projects on Friday", "a freelancer sent us a
screenshot"), or a sentence left leaning on such a one ("He opened it from an old link")."""


def test_a_tester_on_a_prerelease_build_tells_no_customers_day() -> None:
    """No customer reaches a staging or development build, so its report is a tester's: none of its sentences tells
    what happened to a customer's own projects or people (that made a development defect read as production data
    loss), even when the defect's only wordings left to a second tester are customers' stories."""
    checked = 0
    for g in queues():
        for t in g.task.tickets:
            if t.reporter_type != "qa" or t.environment == "production":
                continue
            own = [line for line in t.description.split("\n") if not line.startswith(">")]
            told = [x for line in own for x in re.split(r"(?<=[.!?])\s+", line) if _CUSTOMER_DAY.search(x)]
            assert not told, (t.ticket_id, told)
            checked += 1
    assert checked >= 100, checked


def test_a_retold_duplicate_keeps_every_step_of_its_defect() -> None:
    """A second reporter words the steps their own way but leaves none out: a step left out was often the one that
    sets the failure off ("Choose 'Archive project' and confirm") or one a later step leans on."""
    from openenv_bug_triage.catalogue import load_catalogue
    from openenv_bug_triage.generator import compose

    steps = {d.id: d.retold_steps or d.steps for d in load_catalogue().defects}  # (a duplicate's own words)
    checked = 0
    for g in queues():
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if "retold" not in f.traps or not f.repro or f.noisy:  # (a noisy writer's typos reach the steps too)
                continue
            made = compose.named(f.scenario)
            found = steps.get(f.scenario) or (made.retold_steps or made.steps if made else None)
            assert found, f.scenario
            last = found[-1]
            words = last.rstrip(".").split()
            dated = [i for i, w in enumerate(words) if any(c.isdigit() for c in w)]  # (dates and counts move)
            after = words[dated[-1] + 1 :] if dated else words
            tail = " ".join(after[-2:] if len(after) >= 2 else words[: dated[-1]][-2:]).lower()  # in any style
            # (a step told as the writer's own doing says "my own" for the catalogue's "your own", and told in prose,
            # "and saw" for "and see")
            own = {"your": "(?:your|my)", "yours": "(?:yours|mine)", "you": "(?:you|i)", "see": "(?:see|saw)"}
            told = r"\s+".join(own.get(w, re.escape(w)) for w in tail.split())
            assert re.search(told, t.description.lower()), (t.ticket_id, tail)
            checked += 1
    assert checked >= 20, checked


def test_a_glitch_in_looks_only_is_never_said_to_fail_again_and_nobody_chases_within_hours() -> None:
    from openenv_bug_triage.catalogue import load_phrases
    from openenv_bug_triage.generator.comments import CHASE_AFTER, CHASING, FAILING
    from openenv_bug_triage.generator.phrasing import variants

    pool = load_phrases().pools["comment_still_reporter"]
    stills = {v for p in ("train", "validation", "test") for frame in pool.of(p) for v in variants(frame)}
    chased = 0
    for g in queues():
        for t in g.task.tickets:
            for c in t.comments:
                if c.role != "reporter" or c.text not in stills:
                    continue
                if CHASING.search(c.text):
                    assert c.time - t.created_at >= timedelta(minutes=CHASE_AFTER), (t.ticket_id, c.text)
                    chased += 1
                if g.facts[t.ticket_id].impact == "cosmetic":
                    assert not FAILING.search(c.text), (t.ticket_id, c.text)
    assert chased >= 5, chased


_SAYS_BROKEN = re.compile(r"^(?:not working|doesn't work|broken\?|something broke|urgent issue)$", re.I)
_PRAISE = re.compile(r"\b(?:clear write-up|clear report|the write-up|all the (?:detail|info)|for the detail)\b", re.I)


def test_a_title_that_says_nothing_does_not_say_broken_of_a_glitch_and_support_praises_no_terse_report() -> None:
    """ "Doesn't work" over a report that says everything still works reads as two people; "thanks a lot for all the
    info" under two sentences reads as a form letter."""
    titled = praised = 0
    for g in queues():
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if f.impact == "cosmetic":
                assert not _SAYS_BROKEN.match(t.title.strip()), (t.ticket_id, t.title)
                titled += 1
            for c in t.comments:
                if c.role == "support" and _PRAISE.search(c.text):
                    assert f.length != "terse", (t.ticket_id, c.text)
                    praised += 1
    assert titled >= 20 and praised >= 3, (titled, praised)


def test_a_writer_who_found_the_fault_on_their_side_does_not_shout_in_the_subject() -> None:
    """ "401 from the api SINCE monday?!" over "an admin had deleted the token; nothing is wrong on your side" reads as
    two writers (found by a blind reader): a report that is the writer's own slip gets no loud subject line."""
    slips = 0
    for g in queues():
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if f.kind == "invalid" and t.reporter_type == "user":
                assert "loud" not in f.traps, (t.ticket_id, t.title)
                slips += 1
    assert slips >= 20, slips


def test_a_subject_shouts_over_a_fault_only_with_a_body_that_does() -> None:
    """ "THIS IS COSTING US TIME!!" over a body opening "FYI:" read as two writers (realism reader 42): a loud subject
    line over a fault comes only with an outburst in the body (a request or a glitch in looks, which draws no anger in
    its body, may still be shouted in its subject, as often: a loud subject says nothing of what the ticket is)."""
    loud = 0
    for g in queues():
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if "loud" in f.traps and f.kind != "feature" and f.impact != "cosmetic":
                assert "outburst" in f.traps, (t.ticket_id, t.title, t.description)
                loud += 1
    assert loud >= 10, loud


def test_most_customers_say_nothing_of_who_they_are() -> None:
    """A blurb of who writes and what their organisation does sat atop 34 of 61 customer tickets (realism reader 42's
    most quoted slot); real reports mostly start with the problem. At most three in ten customer tickets carry one."""
    personas, phrases = load_personas(), load_phrases()
    said = customers = 0
    for g in queues():
        part = partition_of(g.split)
        blurbs = [pattern(x) for x in phrases.pool("self_intro", part)]
        blurbs += [pattern(o.about) for o in personas.organisations if o.partition == part]
        for t in g.task.tickets:
            if t.reporter_type == "user" and g.facts[t.ticket_id].kind not in ("spam",):
                customers += 1
                said += any(p.search(t.description) for p in blurbs)
    assert customers >= 300 and said / customers <= 0.3, (said, customers)


_PLAN_SAID = re.compile(
    r"\b(?:on the|each on the) (Free|Pro|Enterprise) plan\b|\b(Free|Pro|Enterprise)-plan QA\b"
    r"|\b(?:QA-owned|QA team's|our own) (Free|Pro|Enterprise) (?:test )?workspace\b|\bseparate (Free|Pro|Enterprise) customers\b"
)
"""Where a test run's set-up line names the plan of the workspace it ran on."""


def test_an_alert_or_a_test_run_says_whose_plan_the_tracker_stamped() -> None:
    """The same QA workspace stamped free, pro and enterprise, or an alert on a whole region stamped free, read as
    random (found by a blind reader): an alert that names the account of its first failing request names its plan
    too (half do; reader 48 read every alert naming it as the handbook's filing rule told), a test run that names its
    workspace names its plan, and either is the ticket's `customer_tier`."""
    from openenv_bug_triage.generator.personas import PLAN_NAMES, load_personas

    orgs = {o.name: o.tier for o in load_personas().organisations}
    alerts = unnamed = runs = 0
    for g in queues():
        for t in g.task.tickets:
            if t.reporter_type == "monitoring" and g.facts[t.ticket_id].kind == "defect":
                named = [name for name in orgs if name in t.description]
                assert all(orgs[n] == t.customer_tier for n in named), (t.ticket_id, named, t.customer_tier)
                alerts += bool(named)
                unnamed += not named
            if t.reporter_type == "qa":
                said = {next(x for x in m.groups() if x) for m in _PLAN_SAID.finditer(t.description)}
                if said:
                    assert said == {PLAN_NAMES[t.customer_tier]}, (t.ticket_id, said, t.customer_tier)
                    runs += 1
    assert alerts >= 10 and unnamed >= 10 and runs >= 20, (alerts, unnamed, runs)


def _platform_of(t: Ticket) -> str:
    """The client a ticket's version field names (`web`, `ios`, `android`, `api`)."""
    version = (t.version or "web").lower()
    return next((p for p in ("ios", "android", "api") if version.startswith(p)), "web")


def _series(a: str, b: str) -> bool:
    """True when `b` is a file taken after `a` on the same device: the same name with a later time or number."""
    return (re.sub(r"\d", "#", a) == re.sub(r"\d", "#", b) and a < b) or b == re.sub(r"(\.\w+)$", r" (1)\1", a)


def test_the_files_a_report_names_are_its_attachments_and_a_second_is_named_off_the_same_device() -> None:
    """ "Screenshot: IMG_2305.png (and one more file)" in eleven tickets read as padding (found by a blind reader):
    the next files are often named as the device named them ("IMG_2305.png and IMG_2306.png"), and a report never
    names more files than it has attached."""
    following = 0
    for g in queues():
        for t in g.task.tickets:
            if t.reporter_type != "user":
                continue
            names = list(dict.fromkeys(FILE_NAME.findall(t.description)))
            assert len(names) <= t.attachments_count, (t.ticket_id, names, t.attachments_count)
            following += any(_series(a, b) for a, b in itertools.pairwise(names))
    assert following >= 20, following


def test_files_are_named_the_way_the_reporters_device_names_them_and_taken_before_the_ticket() -> None:
    """ "Screenshot_5062.png, Screenshot_5063.png" is no device's name (a blind reader): an iPhone writes
    IMG_4821.PNG, a Mac "Screenshot 2026-02-24 at 14.31.07.png", a Pixel "Screenshot_20260224-143107.png", and a
    file's time is before the ticket was filed."""
    stamped = windows = 0
    mac_names = re.compile(r"\bScreen(?:shot| Recording) \d{4}-\d\d-\d\d at |\bArchive \d\d-")
    for g in queues():
        for t in g.task.tickets:
            if (
                desktop_said(t.description) == "windows" and _platform_of(t) == "web"
            ):  # (IE 11 on a Mac: blind reader 51)
                windows += 1
                assert not mac_names.search(t.description), t.ticket_id
            if t.reporter_type == "monitoring":  # an alert attaches its dashboard's graphs, not a desktop's screen
                # (numbered renders, not a browser's re-download names: "alert-graph (1).png", realism reader 57)
                assert all(re.match(r"alert-graph-\d_", n) for n in FILE_NAME.findall(t.description)), t.ticket_id
            for name in FILE_NAME.findall(t.description):
                assert not re.match(r"(?:Screenshot_|capture|screen-|recording-|clip)\d{1,4}\.", name), name
                if m := re.search(r"(\d{4})-?(\d\d)-?(\d\d)(?: at |[ _-])(\d\d)[.-]?(\d\d)[.-]?(\d\d)", name):
                    taken = datetime(*map(int, m.groups()), tzinfo=UTC)
                    assert taken <= t.created_at, (t.ticket_id, name, t.created_at)
                    stamped += 1
    assert stamped >= 20 and windows >= 3, (stamped, windows)


def test_every_queue_tells_one_product_history() -> None:
    """Read side by side, queues agree: an app version ships in about the same month in each (no 5.12.0 in February
    in one and in June in another), and a later queue's tickets have higher numbers."""
    levels = ("generated_easy", "generated_hard", "generated_live_expert")
    made = [generate(level, seed, split) for level in levels for split in ("train", "test") for seed in range(8)]
    shipped: dict[tuple[str, str], list[datetime]] = {}
    for m in made:
        for r in m.task.releases:
            if r.platform in ("ios", "android") and r.version.endswith(".0"):
                shipped.setdefault((r.platform, r.version), []).append(r.released_at)
    assert len(shipped) >= 10
    for (platform, version), dates in shipped.items():
        assert max(dates) - min(dates) <= timedelta(days=62), (platform, version, min(dates), max(dates))
    for m in made:  # and no minor version is skipped
        for platform in ("ios", "android"):
            minors = [int(r.version.split(".")[1]) for r in m.task.releases if r.platform == platform]
            assert sorted(set(minors)) == list(range(min(minors), max(minors) + 1)), (platform, minors)
    firsts = sorted((min(t.created_at for t in m.task.tickets), m.task.tickets) for m in made)
    for (early, a), (late, b) in itertools.pairwise(firsts):
        if late - early > timedelta(days=4):
            assert max(int(t.ticket_id[4:]) for t in a) < min(int(t.ticket_id[4:]) for t in b), (early, late)


def test_no_steady_glitch_in_looks_is_closed_on_a_clean_retest() -> None:
    """A misspelt column header shows the same on every load: a clean retest on the same build does not settle it."""
    from openenv_bug_triage.catalogue import load_catalogue
    from openenv_bug_triage.generator import compose

    defects = {d.id: d for d in load_catalogue().defects}
    closed = 0
    for g in queues():
        for t in g.task.tickets:
            if g.task.truth[t.ticket_id].disposition != "close_cannot_reproduce":
                continue
            f = g.facts[t.ticket_id]
            d = defects.get(f.scenario) or compose.named(f.scenario)
            assert d is not None, f.scenario
            closed += 1
            assert d.impact != "cosmetic" or d.intermittent, (t.ticket_id, f.scenario)
    assert closed >= 10, closed


def test_a_test_run_always_records_the_build_under_test() -> None:
    runs = [t for g in queues() for t in g.task.tickets if t.reporter_type == "qa"]
    assert len(runs) >= 50
    assert all(t.version for t in runs), [t.ticket_id for t in runs if not t.version][:5]


def test_an_alert_keeps_the_letter_case_its_rule_names_it_in() -> None:
    """An alerting tool titles its alert as the rule names it ("sso-service OIDC no_account rejections for Google"),
    never as a person might retype it ("Sso-service OIDC no_account rejections for google", found on a duplicate)."""
    from openenv_bug_triage.catalogue import load_catalogue
    from openenv_bug_triage.generator import compose
    from openenv_bug_triage.generator.titles import alert_title

    defects = {d.id: d for d in load_catalogue().defects}
    checked = 0
    for g in queues():
        for t in g.task.tickets:
            if t.reporter_type != "monitoring":
                continue
            f = g.facts[t.ticket_id]
            d = defects.get(f.scenario) or compose.named(f.scenario)
            rule = alert_title(d.alert.title)
            if t.title.lower() == rule.lower():
                assert t.title == rule, (t.ticket_id, t.title, rule)
                checked += 1
    assert checked >= 20, checked


def test_an_alert_on_one_group_says_the_rest_is_healthy() -> None:
    """ "Affected: every customer who edits task descriptions in the web app" read as everyone to a blind reader
    (sev0 for the key's sev1): an alert on one group says that the others pass, in every partition."""
    from openenv_bug_triage.catalogue import load_phrases

    rest = re.compile(r"\b(?:other|others|rest|remaining|else|confined to one)\b", re.I)
    for split in ("train", "validation", "test"):
        for phrase in load_phrases().texts_fitting("alert_segment", split, frozenset({"monitoring"})):
            assert rest.search(phrase), (split, phrase)


def test_an_alerts_log_shows_its_first_error_by_the_onset_after_the_warnings_before_it() -> None:
    """A customer quoted 'No space left on device' at 21:45 while the alert on it logged that error first at 21:48,
    after a line at 21:37 that the archiver failed (found by a blind reader): an alert's log is set in time by its
    first line logged as an error, so the failure shows by the onset and the warnings come before it."""
    from openenv_bug_triage.generator.render import retime

    log = (
        "2026-11-02T10:00:05.237Z pg-primary-1 LOG:  archiver: archive command failed with exit code 255\n"
        "2026-11-02T10:11:43.125Z pg-primary-1 ERROR:  could not extend file: No space left on device\n"
        "2026-11-02T10:11:44.209Z doc-service ERROR autosave failed: SQLSTATE 53100"
    )
    onset = datetime(2026, 7, 19, 21, 40, tzinfo=UTC)
    timed = retime(log, onset + timedelta(minutes=9), onset, alert=True)
    first = datetime.fromisoformat(ISO_ERROR.search(timed)[1]).replace(tzinfo=UTC)  # type: ignore[index]
    assert first <= onset, timed


ISO_ERROR = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?Z? .*\b(?:ERROR|FATAL|CRIT\w*)\b", re.M)


def test_no_report_of_an_incident_comes_before_the_first_error_its_alert_logged() -> None:
    """A customer quoted 'No space left on device' at 21:45 while the alert on it logged that error first at 21:48,
    after a warning at 21:37 that the archiver failed (found by a blind reader): an alert's log shows its first
    error by the time the first report of its failure was filed, its warnings before."""
    checked = 0
    for g in queues():
        tickets = {t.ticket_id: t for t in g.task.tickets}
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if t.reporter_type != "monitoring" or not t.log_excerpt or not (m := ISO_ERROR.search(t.log_excerpt)):
                continue
            group = [f.duplicate_of] if f.duplicate_of else []
            group += [o.ticket_id for o in g.task.tickets if g.facts[o.ticket_id].duplicate_of in (t.ticket_id, *group)]
            reports = [tickets[i] for i in group if i in tickets and tickets[i].reporter_type == "user"]
            if not reports:
                continue
            first = datetime.fromisoformat(m[1]).replace(tzinfo=UTC)
            earliest = min(r.created_at for r in reports)
            assert first <= earliest, (t.ticket_id, first, earliest)
            checked += 1
    assert checked >= 10, checked


def test_a_test_run_states_no_set_up_of_its_own_beside_a_set_up_step() -> None:
    """ "Two test users with different roles" beside step 1 "Use a workspace with more than 500 members" (found by a
    blind reader): a run whose steps set up its workspace states no other set-up."""
    from openenv_bug_triage.catalogue import load_phrases
    from openenv_bug_triage.generator.levels import partition_of
    from openenv_bug_triage.generator.phrasing import literal_parts

    probes = {
        split: [max(literal_parts(p), key=len).strip() for p in load_phrases().pool("qa_setup", split)]
        for split in ("train", "validation", "test")
    }
    checked = 0
    for g in queues():
        for t in g.task.tickets:
            if t.reporter_type == "qa" and re.search(
                r"^\d+\. (?:Use|Create) an? (?:workspace|organisation)", t.description, re.M
            ):
                checked += 1
                said = [p for p in probes[partition_of(g.split)] if len(p) > 12 and p in t.description]
                assert not said, (t.ticket_id, said)
    assert checked >= 10, checked


def test_a_test_build_report_names_its_build_once() -> None:
    """ "Red check in the nightly run on web 2026.10.2-dev.146" and then "Seen in the local development setup on web
    2026.10.2-dev.146" (found by a blind reader): a report on a staging or development build says where it ran and
    on which build once."""
    checked = 0
    for g in queues():
        for t in g.task.tickets:
            if t.reporter_type == "qa" and t.environment != "production" and t.version:
                checked += 1
                assert t.description.count(t.version.split()[-1]) <= 1, (t.ticket_id, t.description)
    assert checked >= 20, checked


def test_a_regression_began_after_the_update_it_blames_shipped() -> None:
    """ "We started counting at 11:21 UTC ... Before 18 October's update this worked every time" where that update
    shipped at 11:36 (found by a blind reader in the last queue): a regression began after its reporter's build
    shipped."""
    checked = 0
    for g in [*queues(), generate("generated_expert", 58, "test")]:
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if f.case == "regression" and f.duplicate_of is None:
                assert f.began is not None and f.shipped is not None, t.ticket_id
                assert f.began > f.shipped, (t.ticket_id, f.began, f.shipped)
                checked += 1
    assert checked >= 20, checked


def test_support_names_the_group_hit_as_english_reads() -> None:
    """ "Every report on this one comes from every workspace stored on database shard eu-2" and "they're all from
    everybody on Firefox ESR 140" (found by a blind reader): the group hit is named "every workspace ..." or
    "everybody on ...", so support's notes never put it after "from", "match" or "like" (nor "staff accounts that match
    every integration calling the API from a browser", read in a test queue)."""
    from openenv_bug_triage.catalogue import load_phrases

    for split in ("train", "validation", "test"):
        for phrase in load_phrases().pool("support_scope_segment", split):
            text = phrase if isinstance(phrase, str) else phrase.text
            assert not re.search(r"\b(?:from|match(?:es)?|like) \{who\}", text), (split, text)


def test_a_duplicate_gives_its_steps_in_its_own_words() -> None:
    """Two customers of one defect listed the same steps word for word ("open a project with tasks in several
    statuses > export it as CSV > open the file and read the Status column", three times in one queue: every blind
    realism reader quoted such pairs): a duplicate's reporter gives the catalogue's retold steps, so no run of eight
    words of its original's steps (outside what they quote) is in it."""
    k = 8  # (six words such as "a task in the Android app" two people write alike)
    from openenv_bug_triage.catalogue import load_catalogue
    from openenv_bug_triage.generator import compose

    quoted = re.compile(r"'[^']+'|\"[^\"]+\"|\S*[/>]\S*")

    def runs(text: str) -> set[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for chunk in quoted.sub(" | ", text.lower()).split("|"):
            words = re.findall(r"[\w'-]+", chunk)
            found |= {tuple(words[i : i + k]) for i in range(len(words) - k + 1)}
        return found

    defects = {d.id: d for d in load_catalogue().defects}
    checked = 0
    for g in queues():
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            d = defects.get(f.scenario) or compose.named(f.scenario)
            if d is None or f.duplicate_of is None or not f.repro or f.noisy:
                continue
            own = set().union(*(runs(x) for x in (*d.retold_steps, *d.symptoms, *d.titles)))
            copied = set().union(*(runs(step) for step in d.steps)) - own
            checked += 1
            assert not copied & runs(t.description), (t.ticket_id, sorted(copied & runs(t.description))[:2])
    assert checked >= 30, checked


def test_support_never_says_it_merged_a_report() -> None:
    """ "I've merged your ticket into the main one for this problem" on a ticket still open, the first of its defect
    (found by a blind reader): support's note says how far a failure reaches, never that a ticket was merged, which
    would tell the agent a duplicate that is not one."""
    from openenv_bug_triage.catalogue import load_phrases

    for name, pool in load_phrases().pools.items():
        if name.startswith("support"):
            for split in ("train", "validation", "test"):
                for phrase in pool.entries(split):
                    text = phrase if isinstance(phrase, str) else phrase.text
                    assert not re.search(r"\bmerg\w*|\bmain (?:one|case|ticket)\b", text, re.I), (name, text)


def test_a_customer_tells_what_they_saw_not_what_to_observe() -> None:
    """Six customers ended their steps with a tester's "4. Observe ..." or "> observe ..." (found by a blind
    reader): a customer's steps say what they saw ("See the banner"); testers keep "Observe"."""
    observe = re.compile(r"(?:^\d+\. |[>→] |^[-*] )[Oo]bserve\b", re.M)
    told = [(t.ticket_id, t.reporter_type) for g in queues() for t in g.task.tickets if observe.search(t.description)]
    assert told and all(reporter == "qa" for _, reporter in told), [x for x in told if x[1] != "qa"][:5]


def test_a_tester_titles_no_change_as_made_on_the_vendors_side() -> None:
    """A test run titled "broken since a recent update on your side" (found by a blind reader): a tester works for
    the vendor, so a customer's subject they take keeps no "on your side"."""
    from openenv_bug_triage.generator.render import _neutral_title

    assert _neutral_title("Export broken since a recent update on your side") == "Export broken since a recent update"
    qa = [t.title for g in queues() for t in g.task.tickets if t.reporter_type == "qa"]
    assert qa and not [x for x in qa if "your side" in x.lower()]


def test_a_regression_names_no_day_its_failure_came_on() -> None:
    """ "Our monthly subscription renewed on the 14th ... No trouble with this before the 27 December update" (found
    by a blind reader): a report that blames an update tells no day of the failure, which could come before it."""
    day = re.compile(r"\bthe \d{1,2}(?:st|nd|rd|th)\b")
    told = []
    for g in queues():
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if f.case != "regression":
                continue
            # (a file's name dates when it was taken, and an old thread quoted below when it was sent: not the failure)
            text = FILE_NAME.sub("", own_message(t.description))
            for rule, sentence in f.evidence:
                if rule == "case:regression":  # (the update it blames is named by its day)
                    text = text.replace(sentence, "")
            if day.search(text) or chronology.names_dates(text):
                told.append(t.ticket_id)
    assert not told, told


def test_a_tester_words_the_way_round_without_we_where_the_defect_can() -> None:
    """ "Downloading the file ... and putting it into Drive ourselves works" in a test run (found by a blind reader):
    a tester gives the way round a failure in the defect's wording with the fewest first-person words."""
    from openenv_bug_triage.generator import compose

    own = re.compile(r"\b(?:we|us|our|ourselves|I|my|me)\b", re.I)
    defects = {d.id: d for d in load_catalogue().defects}
    checked = 0
    for g in queues():
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if t.reporter_type != "qa" or f.scope != "workaround" or f.duplicate_of:  # (a duplicate: one unsaid)
                continue
            d = defects.get(f.scenario) or compose.named(f.scenario)
            plain = [w for w in d.workaround if not own.search(w)]
            if plain:
                checked += 1
                told = [w for w in d.workaround if w in t.description]
                assert not told or told[0] in plain, (t.ticket_id, told)
    assert checked >= 20, checked


def test_some_test_build_reports_leave_where_they_ran_to_the_fields() -> None:
    """All ten staging and development reports of three queues restated "only on staging" in a stock line (found by
    a blind reader): most say where they ran, the rest leave it to the ticket's environment and build fields."""
    told = [
        any(rule == "environment" for rule, _ in g.facts[t.ticket_id].evidence)
        for g in queues()
        for t in g.task.tickets
        if t.environment != "production"
    ]
    assert len(told) > 40 and 0.45 <= sum(told) / len(told) <= 0.75, (sum(told), len(told))


def test_releases_ship_on_working_days() -> None:
    """21 of 66 releases of three queues were on a Saturday or a Sunday (found by a blind reader): a release ships in
    working hours of a working day."""
    releases = [x.released_at for g in queues() for x in g.task.releases]
    assert len(releases) > 500
    assert not [x for x in releases if x.weekday() >= 5 or not 8 <= x.hour < 17]


def test_an_alerts_log_shows_the_site_and_addresses_of_the_account_it_is_filed_on() -> None:
    """An alert filed under Lanternfield Festival whose first failing requests came from "origin=https://portal.
    brightlane.co", another customer's site (found by a blind reader): a customer origin or address in an alert's log
    is the account's own, at its mail domain."""
    from openenv_bug_triage.generator.personas import load_personas

    domains = {o.name: o.email_domain for o in load_personas().organisations}
    site = re.compile(r"\b[Oo]rigin[=:] ?https?://(?![\w.-]*(?:larkspur|localhost|example))([\w.-]+)")
    checked = 0
    for g in [generate("generated_expert", seed, "test") for seed in (39, 45, 46)]:  # alerts on CORS failures
        for t in g.task.tickets:
            if t.reporter_type != "monitoring" or not t.log_excerpt:
                continue
            account = g.facts[t.ticket_id].organisation  # (named in its text or not)
            for host in site.findall(t.log_excerpt):
                checked += 1
                assert account and host.endswith(domains[account]), (t.ticket_id, host, account)
    assert checked >= 3, checked


def test_every_queue_dates_a_release_as_every_other_does() -> None:
    """Ticket numbers rise with time across queues, so a reader compares them as one tracker: ios 5.12.0 came out on
    16, 23 and 27 April in three queues (realism reader 44). Every queue's calendar is a stretch of one product
    history, so a release named by two queues has one date."""
    dated: dict[tuple[str, str], datetime] = {}
    compared = 0
    for g in queues():
        for r in g.task.releases:
            key = (r.platform, r.version)
            if key in dated:
                assert dated[key] == r.released_at, (key, dated[key], r.released_at)
                compared += 1
            dated[key] = r.released_at
    assert compared >= 100, compared


def test_support_notes_the_log_a_report_carries_within_the_hour_after_it_was_filed() -> None:
    """Support "attached" a log hours or days after the ticket showed it (realism reader 44, eight tickets), and then a
    minute after filing (reader 56: "I went digging in our server logs" one minute after the report came in): its note
    on the log is the thread's first comment, once support has read the report and within the hour."""
    phrases, noted, read_first = load_phrases(), 0, 0
    for g in queues():
        part = partition_of(g.split)
        notes = [pattern(x) for pool in ("comment_log_support", "comment_log_client") for x in phrases.pool(pool, part)]
        for t in g.task.tickets:
            for i, c in enumerate(t.comments):
                if c.role == "support" and any(p.search(c.text) for p in notes):
                    assert i == 0 and c.time - t.created_at <= timedelta(minutes=LOG_NOTE_WITHIN), (t.ticket_id, c)
                    noted += 1
                    read_first += c.time - t.created_at >= timedelta(minutes=LOG_NOTE_EARLIEST)
    assert noted >= 50, noted
    assert read_first >= 0.8 * noted, (read_first, noted)  # (the rest: filed minutes before the queue was read)


def test_support_says_who_is_hit_within_hours_of_the_report() -> None:
    """Support called a global outage live for every customer 34 and 38 hours after the report (realism reader 57):
    its note on who is hit, on a way round it or on the data behind a glitch comes within `SUPPORT_NOTE_WITHIN`."""
    noted = 0
    for g in queues():
        for t in g.task.tickets:
            told = {
                text for rule, text in g.facts[t.ticket_id].evidence if rule.startswith("scope:") or rule == "intact"
            }
            for c in t.comments:
                if c.role == "support" and c.text in told:
                    assert c.time - t.created_at <= timedelta(minutes=SUPPORT_NOTE_WITHIN), (t.ticket_id, c)
                    noted += 1
    assert noted >= 30, noted


def test_a_customer_who_saw_another_companys_data_reports_that_alone_and_does_not_play_it_down() -> None:
    """ "Unrelated: any chance of a Gantt view?" after another organisation's data in a backup file, "Probably
    something I'm doing, but here it is:" before a workspace of another company (blind reader 46): one who saw
    what was not theirs tells that alone, without a wish or a second glitch beside it, and is not offhand."""
    exposures = 0
    for g in queues():
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if f.exposure and t.reporter_type == "user":
                exposures += 1
                assert f.case is None, (t.ticket_id, f.case)
                assert "quiet" not in f.traps, t.ticket_id
    assert exposures >= 20


def test_a_problem_run_on_after_a_lead_in_keeps_no_sentence_capital() -> None:
    """ "Nothing urgent on our end: The iOS app removes..." (blind reader 48): after a lead-in's colon the problem runs
    on in lower case where it opens with a common word ("Heads up: the export..."); a name keeps its capital."""
    phrases = load_phrases()
    lowered = 0
    for part in ("train", "validation", "test"):
        leads = [
            pattern(x)
            for pool in ("quiet_opener", "opener_user", "opener_user_terse")
            for x in phrases.pool(pool, part)
            if x.endswith(":")
        ]
        for g in queues():
            if partition_of(g.split) != part:
                continue
            for t in g.task.tickets:
                for lead in leads:
                    for m in re.finditer(lead.pattern + r" (\w+) ", t.description):
                        assert m[1] not in ("The", "A", "My", "Our", "Every", "When", "This", "It"), (t.ticket_id, m[0])
                        lowered += m[1] in ("the", "a", "my", "our", "every", "when", "this", "it")
    assert lowered >= 10, lowered


def test_a_terse_body_is_not_its_subject_again() -> None:
    """ "Search down everywhere while the rest of the app works." under the same subject (blind reader 48; 5.9% of
    customer tickets opened with their subject): a terse writer's one line is another wording of the headline."""

    def plain(text: str) -> str:
        return re.sub(r"[^a-z0-9 ]", "", text.lower()).strip()

    customers = echoed = 0
    for g in queues():
        for t in g.task.tickets:
            if t.reporter_type == "user":
                customers += 1
                text = re.sub(r"^[^\n]{1,25},\n", "", t.description.strip())  # after a greeting's line ("Hi,")
                first = re.split(r"(?<=[.!?])\s|\n", text, maxsplit=1)[0]
                echoed += plain(first) == plain(t.title)
    assert customers > 500 and echoed / customers < 0.01, (echoed, customers)


def test_a_tester_often_gives_the_way_round_a_failure_with_no_stock_tail() -> None:
    """ "Tried that way on a rerun, and it goes through." closed a dozen QA reports of one queue (blind reader 50):
    most testers give the way round as it is, some with a line on how it went."""
    frames = [
        pattern(p)
        for part in ("train", "validation", "test")
        for p in load_phrases().pool("scope_workaround", part)
        if "{workaround}" in p and p != "{workaround}"  # (a frame of the way round alone is no tail)
    ]
    bare = framed = 0
    for g in queues():
        for t in g.task.tickets:
            f = g.facts[t.ticket_id]
            if t.reporter_type != "qa" or f.scope != "workaround" or f.environment != "production":
                continue
            said = [text for rule, text in f.evidence if rule == "scope:workaround"]
            if not said:
                continue
            if any(p.search(said[0]) for p in frames):
                framed += 1
            else:
                bare += 1
    assert bare >= 5 and framed >= 2, (bare, framed)
    assert 0.4 <= bare / (bare + framed) <= 0.8, (bare, framed)
