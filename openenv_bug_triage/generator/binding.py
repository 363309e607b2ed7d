"""A customer's words bound to the customer: example addresses and domains made their own.

Catalogue wordings name example people and organisations ("My address is anna.berg@eu.norrfield.com",
"verify a subdomain such as eu.example.com"); in a customer's ticket each becomes the writer's own
address and their organisation's domain (a subdomain's first label kept), so one ticket names one
organisation and one person. Third-party services' hosts (a payment provider, Microsoft's sign-in
page, Larkspur's own) and public mail providers stay as they are.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from ..textstats import may_hold

_ADDRESS = re.compile(r"(?P<local>[\w+*-][\w.+'*-]*)@(?P<domain>[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})", re.I)
"""A mail address; its local part starts with a letter, a digit or a sign (a quote before it is the sentence's)."""
_EXAMPLE = re.compile(
    r"\b(?:(?P<sub>[a-z0-9-]+)\.)?(?P<org>[a-z0-9-]+\.example|example\.(?:com|org|net)|ourcompany\.(?:com|io)|"
    r"ourfirm\.com|company\.com|examplecorp\.com|norrfield\.com|tallisgroup\.co\.uk|ferrowind\.com|"
    r"hollis-freight\.com|lumenbrook\.com|acme-labs\.io)\b(?![.-]\w)",
    re.I,
)
"""A domain an example organisation of the catalogue uses, with the subdomain in front of it if any."""
_EXAMPLE_WORDS = (
    "example",
    "company.",
    "ourfirm.",
    "norrfield.",
    "tallisgroup.",
    "ferrowind.",
    "hollis-freight.",
    "lumenbrook.",
    "acme-labs.",
)
"""Words every `_EXAMPLE` domain holds (`may_hold`): a plain test first spares most texts the pattern, which starts
with a class of characters tried at every position."""
_KEEP = frozenset({"gmail.com", "hotmail.com", "outlook.com", "live.com", "yahoo.com", "icloud.com", "proton.me"})
_SPECIAL_LOCAL = re.compile(r"['’]|[^\x00-\x7f]")
"""A local part with an apostrophe or a letter outside ASCII ("o'neill", "jürgen"): a wording about such an
address keeps its local part (only the domain becomes the writer's), or it would lose what it is about."""
_ROLE_LOCALS = frozenset(
    {"billing", "accounts", "accounting", "invoices", "finance", "admin", "it", "ops", "support", "noreply", "team"}
)
"""Mailboxes of a function, not a person: kept as they are at the customer's domain."""


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


@cache
def _mailbox(name: str) -> tuple[str, str]:
    """`name`'s first name and first.last, as a mailbox ("Hélène Marchand" -> helene, helene.marchand)."""
    words = [re.sub(r"[^a-z-]", "", _ascii(w)) for w in name.split()]
    return words[0], ".".join(words)


def _third_party(domain: str) -> bool:
    d = domain.lower()
    return d in _KEEP or d.endswith(("larkspur.io", "larkspur.app", "larkspur.example"))


def own_text(text: str, domain: str, name: str) -> str:
    """`text` with every example address and domain made the writer's (`name` at `domain`)."""
    if "@" not in text and "." not in text:
        return text
    first, full = _mailbox(name)

    def org(m: re.Match[str]) -> str:
        sub = m["sub"]
        return f"{sub}.{domain}" if sub and sub.lower() not in ("www",) else domain

    def address(m: re.Match[str]) -> str:
        theirs = m["domain"]
        if _third_party(theirs):
            return m[0]
        local = m["local"]
        head, plus, tag = local.partition("+")
        if head.lower() not in _ROLE_LOCALS and not _SPECIAL_LOCAL.search(head):
            mixed = head != head.lower()  # a wording about case ("Anna.Berg@...") keeps its capitals
            head = full if "." in head else first
            if mixed:
                head = ".".join(part[:1].upper() + part[1:] for part in head.split("."))
        bound = _EXAMPLE.sub(org, theirs) if _EXAMPLE.fullmatch(theirs) else domain
        return f"{head}{plus}{tag}@{bound}"

    if "@" in text:  # every address has one
        text = _ADDRESS.sub(address, text)

    def bare(m: re.Match[str]) -> str:
        at = m.start()
        return m[0] if at > 1 and text[at - 1] == "@" and not text[at - 2].isspace() else org(m)

    return _EXAMPLE.sub(bare, text) if may_hold(text, _EXAMPLE_WORDS) else text


_PLUS = re.compile(r"(?P<head>[\w.-]+)\+(?P<tag>[\w.-]+)@(?P<domain>[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})", re.I)
"""A mail address with a '+' tag, as a ticket writes it."""
_PLUS_IN_LOG = re.compile(
    r"(?<=')(?P<head>[\w.-]+) (?P<tag>[\w.-]+)@(?P<domain>[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})"
    r"|(?P<ehead>[\w.-]+)%2B(?P<etag>[\w.-]+)%40(?P<edomain>[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})",
    re.I,
)
"""A '+' address as a log shows it: decoded to a space ('anna larkspur@...') or URL-encoded (anna%2Blarkspur%40...)."""


def plus_agrees(log: str, text: str, name: str = "", domain: str = "") -> str:
    """`log` with each '+' address it shows (decoded or encoded) as the ticket's `text` writes its '+' address,
    or, when the text writes none, as the writer's own (`name` at `domain`), so a log pulled for the reporter
    names them."""
    if "@" not in log and "%40" not in log:
        return log
    said = _PLUS.search(text)

    def agreed(m: re.Match[str]) -> str:
        encoded = m["ehead"] is not None
        head, tag, domain_ = (m["ehead"], m["etag"], m["edomain"]) if encoded else (m["head"], m["tag"], m["domain"])
        if said is not None:
            head, tag, domain_ = said["head"], said["tag"], said["domain"]
        elif name:
            head, domain_ = _mailbox(name)[0], domain or domain_
        return f"{head}%2B{tag}%40{domain_}" if encoded else f"{head} {tag}@{domain_}"

    return _PLUS_IN_LOG.sub(agreed, log)
