"""Each text measure on crafted tickets: one set that misses its target, one that keeps it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from openenv_bug_triage import chronology
from openenv_bug_triage import textstats as ts
from openenv_bug_triage.models import Release

T = ts.TARGETS
CREATED = datetime(2026, 3, 18, 10, 11, tzinfo=UTC)  # a Wednesday
ROOT = Path(__file__).resolve().parents[1]

VARIED = [
    "The export button spins forever on large boards. I waited ten minutes.",
    "Search returns nothing for words with accents. Plain words work fine.",
    "My invoice shows the old company address. We changed it in January.",
    "Push notifications stopped on my phone after the update. Email still arrives.",
]
STOCK = "I am not very technical so bear with me on the wording."


def test_sentences_split_lines_and_stops_and_drop_list_markers_and_fragments() -> None:
    text = "Hi,\nSteps:\n1. Open the board and click Export\n2. Wait. It spins forever!\nThanks!"
    assert ts.sentences(text) == ["open the board and click export", "it spins forever"]


def test_within_queue_reuse_fails_on_a_stock_sentence_and_passes_on_varied_text() -> None:
    padded = [f"{STOCK} {text}" for text in VARIED]
    reuse = ts.within_queue_reuse([padded])
    assert reuse == 4 / 12  # the stock sentence in four tickets, beside two own sentences each
    assert not T["within_queue_reuse"].passes(reuse)
    assert ts.within_queue_reuse([VARIED]) == 0.0
    assert T["within_queue_reuse"].passes(0.0)
    # the same sentence in two different queues is not reuse within a queue
    assert ts.within_queue_reuse([[padded[0], VARIED[1]], [padded[2], VARIED[3]]]) == 0.0


def test_common_sentences_lists_long_sentences_over_the_share_only() -> None:
    unique = [f"Ticket number {i} has its own sentence about board {i}." for i in range(40)]
    texts = [*unique, *(f"{STOCK} Thanks a lot." for _ in range(3))]  # 43 tickets: 3 is over 3%
    found = ts.common_sentences(texts)
    assert found == [("i am not very technical so bear with me on the wording", 3 / 43)]  # "thanks a lot" is short
    assert not T["common_sentences"].passes(len(found))
    many = [f"Board {i} lost its column order after the import." for i in range(98)]
    assert ts.common_sentences([*many, STOCK, STOCK]) == []  # 2 of 100 tickets is under 3%
    assert ts.common_sentences(unique) == []
    assert T["common_sentences"].passes(0)


def test_openings_are_first_content_words_so_a_frame_recurs_whatever_follows() -> None:
    assert ts.openings("Each time I try to export board 12, it fails.") == {"each time try"}
    assert ts.openings("Only an FYI, not pressing: the export of 2026.4.1 fails.") == {"fyi pressing export"}
    assert ts.openings("Hi. It fails.") == set()  # too few content words to have an opening
    framed = [
        f"Each time I try to {verb} the {noun}, nothing happens."
        for verb in ["open", "move", "copy"]
        for noun in ["board", "card", "list", "task"]
    ]
    names = [a + b + "x" for a in "abcdefghij" for b in "klmnopqrst"]  # a hundred boards, each its own name
    own = [f"Board {name} lost its column order overnight." for name in names]
    texts = [*own, *framed]
    assert ts.common_openings(texts) == [("each time try", 12 / len(texts))]
    assert ts.opening_share(texts) == 12 / len(texts)
    assert ts.opening_share(own) == 0.0  # "board akx lost", "board alx lost": each opening in one ticket
    assert not T["recurring_openings"].passes(ts.opening_share(framed)) and T["recurring_openings"].passes(0.0)


def test_self_descriptions_find_each_way_a_writer_says_who_they_are() -> None:
    spliced = (
        "I run a remote engineering group over five time zones. The export fails. "
        "I'm systems administrator at Garnet Lettings.\nMy mother uses big letters on her phone."
    )
    assert len(ts.self_descriptions(spliced)) == 3
    assert ts.self_descriptions("I'm around all afternoon if you need me. I am at my desk.") == []


def test_boilerplate_share_counts_instances_of_widely_shared_sentences() -> None:
    own = [f"Board {i} lost its column order. Card {i} moved itself." for i in range(100)]
    assert ts.boilerplate_share(own) == 0.0
    shared = [f"{STOCK} {text}" for text in own]
    share = ts.boilerplate_share(shared)
    assert share == 100 / 300
    assert not T["boilerplate_share"].passes(share)
    assert T["boilerplate_share"].passes(ts.boilerplate_share(own))


def test_anachronisms_find_later_stamps_and_releases_but_not_earlier_ones() -> None:
    late = (
        "Seen on web 2026.11.1.\n"
        "2026-11-09T11:17:45.210Z files-api ERROR boom\n"
        "It started on 2026-03-19.\n"
        "2026-03-18 12:00:00+02:00 local clock"  # 10:00 UTC: before creation
    )
    found = ts.anachronisms(late, CREATED)
    assert [(f.kind, f.text) for f in found] == [
        ("time", "2026-11-09T11:17:45.210Z"),
        ("time", "2026-03-19"),
        ("release", "2026.11.1"),
    ]
    early = "Seen on web 2026.3.2 and 2026.2.9.\n2026-03-18T10:11:45Z api INFO same minute\nSince 2026-03-17."
    assert ts.anachronisms(early, CREATED) == []
    assert ts.anachronisms("Not a date: 2026-13-45, build 2026.14.2", CREATED) == []
    assert T["anachronisms"].passes(0)
    assert not T["anachronisms"].passes(1)


def test_anachronisms_with_a_calendar_allow_builds_ahead_of_production_and_refuse_unreleased_versions() -> None:
    releases = [
        Release(platform="web", version="2026.3.0", released_at=datetime(2026, 3, 2, 10, tzinfo=UTC)),
        Release(platform="web", version="2026.3.1", released_at=datetime(2026, 3, 25, 10, tzinfo=UTC)),
    ]
    ahead = "Found during the smoke test of web 2026.3.1-rc.2; also on web 2026.4.0-dev.17 and web 2026.3.0."
    assert ts.anachronisms(ahead, CREATED, releases) == []
    assert chronology.problems(ahead, CREATED, releases) == []  # the loader agrees
    unreleased = "Seen on web 2026.3.1 in production."
    assert [f.text for f in ts.anachronisms(unreleased, CREATED, releases)] == ["2026.3.1"]
    assert chronology.problems(unreleased, CREATED, releases) == [
        "version '2026.3.1' was released after the ticket was filed"
    ]
    assert [f.text for f in ts.anachronisms("deploy doc-service 2026.03.21-1 (writer)", CREATED)] == ["2026.03.21"]


def test_weekday_mismatches_check_weekdays_against_their_dates_and_today() -> None:
    wrong = (
        "2026-11-16T09:00:00Z cron INFO run for send_date=2026-11-16 (Sunday)\n"
        "It broke on Tuesday, 10 March.\n"
        "This morning (Tuesday) it failed again."
    )
    assert ts.weekday_mismatches(wrong, CREATED) == [
        "Sunday with 2026-11-16, a Monday",
        "Tuesday with 2026-03-18, a Wednesday",  # "this morning" is the creation day; 10 March was a Tuesday
    ]
    right = (
        "2026-11-16 (Monday) was the first failure.\n"
        "It broke on Tue 10 Mar and again yesterday, Tuesday.\n"
        "We sat down on Sunday to look at it."  # no date beside it: not checked
        "\nUntil Wednesday, the 'Due today' widget was fine."  # a quoted name is not "today"
        "\nTHE CHARTS HAVEN'T MOVED SINCE TUESDAY -- urgent, today"  # a day of its own, not today's name
        "\nokta login error every monday morning, PLEASE FIX THIS TODAY!!!"  # a day that recurs, not today's
    )
    assert ts.weekday_mismatches(right, CREATED) == []


def test_stock_affixes_are_found_across_groups_and_not_within_one() -> None:
    groups = ["export", "search", "login", "invoice", "push", "sso"]
    plain = [(f"{g} fails on board {g}{i}", g) for g in groups for i in range(10)]
    decorated = [(f"Re: {title} - please advise", g) for title, g in plain[::2]]
    titles = plain[1::2] + decorated
    affixes = ts.stock_affixes(titles)
    shown = [(a.side, a.text) for a in ts.distinct_affixes(affixes)]
    assert shown == [("prefix", "re:"), ("suffix", "- please advise")]  # "please advise" is part of the longer one
    share = ts.titles_with_affix([t for t, _ in titles], affixes) / len(titles)
    assert share == 0.5
    assert not T["stock_title_affixes"].passes(share)
    # one group's own wording is not stock, nor a lone word that starts titles about anything
    own = [(f"Export to CSV drops column {i}", "export") for i in range(30)]
    own += [
        (f"Cannot {verb} anything", g) for verb, g in zip(["find", "open", "pay", "see", "sign"], groups, strict=False)
    ]
    own += plain
    assert ts.stock_affixes(own) == []
    assert T["stock_title_affixes"].passes(0.0)


def test_a_contracted_word_or_a_whole_stock_title_is_no_affix_but_a_mark_still_is() -> None:
    groups = ["export", "search", "login", "invoice", "push", "sso"]
    verbs = ["find", "open", "pay", "see", "sign", "save"]
    # "Can't" starting titles about anything is language, as "Cannot" is
    contracted = [(f"Can't {g}{i} today", g) for g in groups for i in range(6)]
    assert ts.stock_affixes(contracted) == []
    # a whole title many reporters give alike: the words beside "can you" never change
    same = [("Can you check?", g) for g in groups for _ in range(5)]
    assert ts.stock_affixes(same + contracted) == []
    # but the same words riding on titles about different things are stock, and so is a marked token
    riding = [(f"Can you check {g} {verb}?", g) for g in groups for verb in verbs]
    assert ("prefix", "can you check") in {(a.side, a.text) for a in ts.stock_affixes(riding)}
    marked = [(f"{g} {verb} fails!!!", g) for g in groups for verb in verbs]
    assert ("suffix", "fails!!!") in {(a.side, a.text) for a in ts.stock_affixes(marked)}


def test_deciles_by_nearest_rank_and_the_length_targets() -> None:
    flat = [100] * 20
    assert ts.bottom_decile(flat) == 100 and ts.top_decile(flat) == 100
    assert not T["customer_words_p10"].passes(ts.bottom_decile(flat))
    assert not T["customer_words_p90"].passes(ts.top_decile(flat))
    spread = [12, 20] + [100] * 16 + [200, 260]  # a tenth short, a tenth long
    assert ts.bottom_decile(spread) == 20 and ts.top_decile(spread) == 200
    assert T["customer_words_p10"].passes(ts.bottom_decile(spread))
    assert T["customer_words_p90"].passes(ts.top_decile(spread))
    assert ts.word_count("Search  is\nbroken again.") == 4


def test_mentions_attachment_reads_what_is_attached_not_the_word_attachment() -> None:
    said = ["Screenshot attached.", "I've attached the HAR file.", "See the recording of my screen.", "console.png"]
    unsaid = ["Attachment file names are garbled on download.", "It fails in Safari.", "We attach importance to it."]
    assert all(ts.mentions_attachment(t) for t in said)
    assert not any(ts.mentions_attachment(t) for t in unsaid)
    assert T["attachments_mentioned"].passes(0.5) and not T["attachments_mentioned"].passes(0.49)


def test_partition_overlap_counts_long_held_out_sentences_seen_elsewhere() -> None:
    train = ["The export button spins forever on large boards.", "It still happens."]
    test = [
        "The export button spins forever on large boards.",
        "It still happens.",
        "Search misses every accented word today.",
    ]
    share = ts.partition_overlap(test, train)
    assert share == 0.5  # two long sentences, one seen in train; the short one does not count
    assert not T["overlap_test_in_train"].passes(share)
    assert ts.partition_overlap(test[2:], train) == 0.0
    # an image pasted into an email is a file name, not writing: two taken the same second are no shared sentence
    shot = "See below.\n\n[image: Screenshot from 2026-08-06 04-14-02.png]"
    assert ts.partition_overlap([shot], [shot]) == 0.0


def test_generator_stats_json_has_every_target_and_check_sets_the_exit_code() -> None:
    args = [sys.executable, str(ROOT / "scripts" / "generator_stats.py"), "--instances", "1", "--timing-runs", "2"]
    out = subprocess.run([*args, "--json"], capture_output=True, text=True, check=True, cwd=ROOT)
    report = json.loads(out.stdout)
    assert {f["key"] for f in report["figures"]} == set(ts.TARGETS)
    assert report["passed"] == all(f["passed"] for f in report["figures"])
    checked = subprocess.run([*args, "--check"], capture_output=True, text=True, cwd=ROOT)
    assert checked.returncode == (0 if report["passed"] else 1)
    assert "PASS" in checked.stdout or "FAIL" in checked.stdout


def test_carries_none_counts_texts_without_any_pattern() -> None:
    padding = [re.compile(r"hope (?:you are|you're) well"), re.compile(r"long[- ]time user", re.I)]
    texts = [
        "Hi, hope you're well. Export fails.",
        "Export fails.",
        "Long-time user here. Search hangs.",
        "Search hangs.",
    ]
    assert ts.carries_none(texts, padding) == 0.5
    assert ts.carries_none([], padding) == 0.0
    assert T["customer_unpadded"].passes(0.5) and not T["customer_unpadded"].passes(0.3)


# --------------------------------------------------------------------------- duplicates and hard cases


def test_duplicate_copies_finds_a_copied_long_sentence_and_not_a_retelling() -> None:
    original = "Export spins forever on big boards.\n1. Open a board with five hundred tasks in it\n2. Click Export"
    copied = "Same here, export never ends.\n1. Open a board with five hundred tasks in it"
    retold = "What I did: I opened our biggest board, about five hundred tasks, and clicked Export."
    assert ts.duplicate_copies(original, copied) == ["open a board with five hundred tasks in it"]
    assert ts.duplicate_copies(original, retold) == []
    assert ts.duplicate_copies("Click Export now.", "Click Export now.") == []  # too short to read as copied


def test_titled_alike_sees_through_builds_case_and_brackets_but_not_other_words() -> None:
    assert ts.titled_alike("5.17.0: Ticking off checklist items", "[5.17.0] ticking off checklist items")
    assert ts.titled_alike("Export spins forever (2026.3.1)", "Re: export spins forever v2026.4.0")
    assert not ts.titled_alike("Export spins forever", "Board export never finishes for big projects")


def test_marker_phrases_find_a_stock_line_of_a_kind_and_not_varied_wording() -> None:
    stock = "It worked fine before the update."
    marked = [f"{text} {stock}" for text in VARIED]
    markers = ts.marker_phrases(marked, VARIED)
    assert ("it worked fine before the update", 1.0) in markers
    assert ts.marked_share(marked, [m for m, _ in markers]) == 1.0
    assert not T["hard_cases_marked"].passes(1.0)
    own = [
        f"{VARIED[0]} Until Tuesday exporting was quick.",
        f"{VARIED[1]} Since the last release accents broke.",
        f"{VARIED[2]} This began after your new version went out.",
        f"{VARIED[3]} Never had it before last week.",
    ]
    assert ts.marker_phrases(own, VARIED) == []
    assert ts.marked_share(own, []) == 0.0


def test_a_phrase_common_everywhere_marks_no_kind() -> None:
    common = "Thanks for looking into this."
    kind = [f"{text} {common}" for text in VARIED]
    others = [f"{text} {common}" for text in reversed(VARIED)]
    assert ts.marker_phrases(kind, others) == []


def test_hard_case_markers_report_each_kind_against_the_rest() -> None:
    stock = "It worked fine before the update."
    regression = [f"{VARIED[0]} {stock}", f"{VARIED[1]} {stock}"]
    texts = [*regression, VARIED[2], VARIED[3]]
    found = {m.kind: m for m in ts.hard_case_markers({"regression": regression, "quiet": [VARIED[2]]}, texts)}
    assert found["regression"].marked == 1.0 and found["regression"].tickets == 2
    assert found["quiet"].marked == 0.0  # one ticket shares nothing


def test_may_match_never_spares_a_case_blind_match() -> None:
    """Of every letter outside ASCII, only the four case twins match an ASCII letter when case is ignored, and a text
    that a case-blind pattern with ASCII literals matches is never told it cannot hold the pattern's words."""
    ascii_letter = re.compile("[a-z]", re.I)
    assert {chr(c) for c in range(0x80, 0x110000) if ascii_letter.fullmatch(chr(c))} == set(ts._CASE_TWINS)
    pattern, words = re.compile(r"\b(?:sign(?:ing)? in|hangs?)\b", re.I), ("sign", "hang")
    for text in ("Signing in fails", "It HANGS – again’", "It hangs’", "SİGNING IN", "ſign in", "nothing here’", "é"):
        assert ts.may_match(text, words) or not pattern.search(text), text
    assert not ts.may_match("nothing here – again’", words)
