"""HTTP episodes held in one process, keyed by `episode_id`, guarded by a secret, capped and evicted when idle.

Each session owns a `BugTriageEnv`, a lock and its `secret` (`secrets.token_urlsafe`), made when
the session is. The id names an episode; only the secret reaches it: every call after the reset
that made it (a step, the state, the grade, a reset reusing the id) must give the secret, else
`EpisodeSecretError`. The secret is checked before the session is touched, so a stranger who
knows the id can neither use the episode nor keep it alive. A new session takes a free slot, else the
slot of an expired session, else that of the least recently used finished episode; when
every slot holds a live, unfinished episode, `SessionsFullError`.

A request without an episode id is served only when it cannot reach someone else's
episode by accident: when exactly one unfinished episode is held (or, with none unfinished,
exactly one episode at all), and still only with that episode's secret. Otherwise `EpisodeIdRequiredError`.
"""

from __future__ import annotations

import hmac
import logging
import re
import secrets
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from openenv_bug_triage import BugTriageEnv
from openenv_bug_triage.contract import EPISODE_SECRET_HEADER

from .sealing import SealedFeedback

LOG = logging.getLogger("bug_triage.sessions")
EPISODE_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
"""What a client-chosen `episode_id` may look like (server-made ids are uuid4 hex)."""
SECRET_HEADER = EPISODE_SECRET_HEADER
SECRET_BYTES = 32
"""Random bytes in an episode secret (43 URL-safe characters)."""


class SessionError(Exception):
    """Base of the session errors; the message says what to do next."""


class SessionNotFoundError(SessionError):
    """The episode id names no live session (never created, expired or evicted)."""


class NoSessionError(SessionError):
    """No episode id was given and no episode has been reset yet."""


class EpisodeIdRequiredError(SessionError):
    """No episode id was given and more than one episode is held, so which one is meant is unknown."""


class EpisodeSecretError(SessionError):
    """The episode exists but the request did not give its secret, or gave another one."""


class EpisodeSecretMissingError(EpisodeSecretError):
    """The request named an existing episode (or reached the lone one) without a secret."""


class EpisodeSecretWrongError(EpisodeSecretError):
    """The request's secret is not the episode's."""


class SessionsFullError(SessionError):
    """Every slot holds a live, unfinished episode."""


class InvalidEpisodeIdError(SessionError, ValueError):
    """A client-chosen episode id does not match `EPISODE_ID_PATTERN`."""


class InvalidResetError(SessionError, ValueError):
    """`reset` got a parameter it does not know."""


class SessionClosedError(SessionError, RuntimeError):
    """The session was closed (idle timeout or shutdown); reconnect to start a new one."""


@dataclass
class Session:
    """One episode's environment, its lock, and when it was last used (monotonic seconds)."""

    episode_id: str
    env: BugTriageEnv
    last_used: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(SECRET_BYTES), repr=False)
    """What every call after the creating reset must carry (`X-Episode-Secret`)."""
    done: bool = False
    task_id: str | None = None
    """The task of the episode's latest reset; a reset that names no task restarts this one."""
    seal: SealedFeedback | None = None
    """The sealed feedback of a sealed episode (see `server.sealing`); None when the episode is not sealed."""


def is_valid_episode_id(episode_id: str) -> bool:
    """True when `episode_id` could name a session."""
    return EPISODE_ID_PATTERN.fullmatch(episode_id) is not None


def _check_episode_id(episode_id: str | None, hint: str) -> None:
    if episode_id is not None and not is_valid_episode_id(episode_id):
        raise InvalidEpisodeIdError(
            f"episode_id must be 1 to 128 letters, digits or ._:- starting with a letter or digit; {hint}"
        )


def _check_secret(session: Session, secret: str | None, named: bool) -> None:
    """Raise `EpisodeSecretError` unless `secret` is the session's (compared in constant time).

    The message names the episode only when the request did (`named`): an id-less request learns no id.
    """
    episode = f"episode {_shown(session.episode_id)}" if named else "the episode this server holds"
    if secret is None:
        raise EpisodeSecretMissingError(
            f"{episode} is guarded by the episode_secret its POST /reset returned; send it as the {SECRET_HEADER} header"
        )
    if not hmac.compare_digest(secret.encode("utf-8", "surrogatepass"), session.secret.encode()):
        raise EpisodeSecretWrongError(
            f"the {SECRET_HEADER} header is not the secret of {episode}; send the episode_secret the POST /reset "
            "that made it returned, or reset without an episode_id to start your own"
        )


def _shown(episode_id: str) -> str:
    """The id, quoted, when it is safe to echo; else a placeholder."""
    return f"'{episode_id}'" if is_valid_episode_id(episode_id) else "(malformed id)"


class SessionStore:
    """Sessions by episode id, least recently used first."""

    def __init__(self, max_sessions: int, ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_sessions = max_sessions
        self.ttl_s = ttl_s
        self._clock = clock
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._mutex = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def open(self, episode_id: str | None, secret: str | None = None) -> Session:
        """The session to reset: the live one named `episode_id` (given its `secret`), else a new one with that
        id (or a fresh id) and a fresh secret."""
        _check_episode_id(episode_id, "omit it to get a server-made id")
        with self._mutex:
            now = self._clock()
            self._evict_expired(now)
            session = self._sessions.get(episode_id) if episode_id is not None else None
            if session is not None:
                _check_secret(session, secret, named=True)
            else:
                self._make_room()
                session = Session(episode_id or uuid.uuid4().hex, BugTriageEnv(), now)
                self._sessions[session.episode_id] = session
            self._touch(session, now)
            return session

    def get(self, episode_id: str | None, secret: str | None) -> Session:
        """The live session named `episode_id`; when it is None, the only episode held (see the module doc).

        Either way `secret` must be the session's, else `EpisodeSecretError`."""
        _check_episode_id(episode_id, "use the id POST /reset returned")
        with self._mutex:
            now = self._clock()
            self._evict_expired(now)
            if episode_id is None:
                session = self._only_session()
            else:
                found = self._sessions.get(episode_id)
                if found is None:
                    raise SessionNotFoundError(
                        f"unknown episode_id {_shown(episode_id)}: it was never started, or it expired after "
                        f"{self.ttl_s:g} s idle, or its slot was reused after it finished; call POST /reset"
                    )
                session = found
            _check_secret(session, secret, named=episode_id is not None)
            self._touch(session, now)
            return session

    def has(self, episode_id: str) -> bool:
        """True when a live session is named `episode_id`."""
        with self._mutex:
            return episode_id in self._sessions

    def discard(self, session: Session) -> None:
        """Forget `session` (a reset that failed on a new session leaves no empty slot behind)."""
        with self._mutex:
            if self._sessions.get(session.episode_id) is session:
                del self._sessions[session.episode_id]

    def _only_session(self) -> Session:
        if not self._sessions:
            raise NoSessionError("no episode is running (none started, or it expired); call POST /reset first")
        unfinished = [s for s in self._sessions.values() if not s.done]
        if len(unfinished) == 1:
            return unfinished[0]
        if not unfinished and len(self._sessions) == 1:
            return next(iter(self._sessions.values()))
        raise EpisodeIdRequiredError(
            f"this server holds {len(self._sessions)} episodes ({len(unfinished)} unfinished), so a request "
            "without an episode_id could reach someone else's; pass the episode_id that POST /reset returned "
            "(in the JSON body of /step, as ?episode_id= on /state and /grader)"
        )

    def _touch(self, session: Session, now: float) -> None:
        session.last_used = now
        self._sessions.move_to_end(session.episode_id)

    def _evict_expired(self, now: float) -> None:
        while self._sessions:
            oldest = next(iter(self._sessions.values()))
            if now - oldest.last_used <= self.ttl_s:
                return
            del self._sessions[oldest.episode_id]

    def _make_room(self) -> None:
        if len(self._sessions) < self.max_sessions:
            return
        finished = next((s for s in self._sessions.values() if s.done and not s.lock.locked()), None)
        if finished is None:
            LOG.warning(
                "refused a new episode: all %d session slots hold unfinished episodes used within %g s",
                self.max_sessions,
                self.ttl_s,
            )
            raise SessionsFullError(
                f"all {self.max_sessions} session slots (MAX_SESSIONS) hold unfinished episodes; finish one, "
                f"reuse your episode_id on POST /reset, or retry later: an episode idle for {self.ttl_s:g} s "
                "(SESSION_TTL_S) is evicted"
            )
        del self._sessions[finished.episode_id]
