"""The only module that talks to GitLab: its REST API v4, JSON over HTTPS, through urllib.

`KBKIT_GITLAB_URL` names the instance (default https://gitlab.com; plain http only for this
machine, so a token never crosses a network unencrypted); `KBKIT_GITLAB_TOKEN`, when set,
travels in the `PRIVATE-TOKEN` header (a token with the `read_api` scope is enough). A
project is named by its full path, URL-encoded as one path segment (`group%2Fsub%2Fproject`).

Lists are read one page at a time (`per_page=100`, GitLab's maximum) and followed by the
`X-Next-Page` header, or the `Link` header's `rel="next"` when a proxy dropped the other.
What GitLab says on failure is classified as the environment's, exit 4: bad or missing
credentials (401, 403), a project the token cannot see (404: GitLab answers so for a private
project too), a rate limit (429, retried after its `Retry-After`), a server error (5xx, often
an HTML page: retried, then reported by its status) and no answer at all. A GET changes
nothing, so it is safely sent again; a caller's cursor moves only after its whole scan.
"""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from email.message import Message
from typing import Any, NamedTuple
from urllib.parse import quote, urlencode, urlsplit

from kbkit.infra import settings
from kbkit.infra.errors import KbkitError, UsageError
from kbkit.infra.json_input import loads

TOKEN_VARIABLE = "KBKIT_GITLAB_TOKEN"
URL_VARIABLE = "KBKIT_GITLAB_URL"
DEFAULT_URL = "https://gitlab.com"
PER_PAGE = 100  # GitLab's maximum
TIMEOUT = 60.0  # seconds for one request
RETRIES = 2  # a 429, a 5xx or no answer is sent again this many times
FIRST_PAUSE = 1.0  # seconds before the first retry, doubled for the next
MAX_RETRY_AFTER = 60.0  # a longer Retry-After is not waited out: exit 4, rerun later
MAX_BODY = 32 << 20  # one page of 100 merge requests or notes is a few hundred KiB
_LOOPBACK = ("localhost", "127.0.0.1", "::1")
_LINK = re.compile(r"<([^>]*)>;\s*rel=\"(\w+)\"")


class GitLabError(KbkitError):
    """GitLab refused a request or answered with something that is not its API: exit 1."""


class GitLabUnavailable(GitLabError):
    """The environment: credentials, a project the token cannot see, a rate limit, a server
    error, no answer (exit 4). Nothing was recorded past the last complete step."""

    exit_code = 4


class Page(NamedTuple):
    """One page of a list endpoint: its decoded JSON and the number of the next page."""

    items: list[Any]
    next_page: int | None


def project_id(path: str) -> str:
    """A project's full path as GitLab's `:id` (`group/sub/project` -> `group%2Fsub%2Fproject`)."""
    return quote(path, safe="")


def base_url(env: Mapping[str, str] | None = None) -> str:
    """The instance's URL from KBKIT_GITLAB_URL (no trailing slash); a UsageError when it is
    not an https URL (or http on this machine)."""
    text = (settings.value(URL_VARIABLE, env) or DEFAULT_URL).strip().rstrip("/")
    parts = urlsplit(text)
    local = (parts.hostname or "") in _LOOPBACK
    if parts.scheme not in ("https", "http") or not parts.hostname or parts.query:
        raise UsageError(f"{URL_VARIABLE}={text[:200]!r} is not a URL; write https://HOST")
    if parts.scheme == "http" and not local:
        raise UsageError(
            f"{URL_VARIABLE}={text[:200]!r}: the token would travel unencrypted; use https"
        )
    return text


class _SameHost(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only on the same scheme, host and port: the token goes nowhere else."""

    def redirect_request(
        self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        old, new = urlsplit(req.full_url), urlsplit(newurl)
        if (old.scheme, old.netloc) != (new.scheme, new.netloc):
            raise GitLabError(
                f"GitLab answered {old.path[:120]} with a redirect to another host "
                f"({new.scheme}://{new.netloc[:80]}); set {URL_VARIABLE} to the instance itself"
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _words(text: str) -> str:
    return " ".join(text.split())[:300]


def _said(body: bytes) -> str | None:
    """GitLab's own words in an error body (`{"message": ...}` or `{"error": ...}`); None for
    an HTML page or anything else."""
    try:
        data = loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    said = data.get("message", data.get("error_description", data.get("error")))
    if isinstance(said, str):
        return _words(said)
    return _words(str(said)) if said is not None else None


def _failure(where: str, status: int, body: bytes) -> GitLabError:
    said = _said(body)
    told = f"GitLab said: {said} (HTTP {status})" if said else f"HTTP {status}"
    token = f"set {TOKEN_VARIABLE} to a token that can read it (scope read_api)"
    if status in (401, 403):
        return GitLabUnavailable(f"{where}: GitLab refused the credentials: {told}; {token}")
    if status == 404:
        return GitLabUnavailable(
            f"{where}: GitLab found nothing there: {told}; check the project's path, "
            f"{URL_VARIABLE}, and that {TOKEN_VARIABLE} can read a private project"
        )
    if status == 429:
        return GitLabUnavailable(f"{where}: GitLab's rate limit is exhausted: {told}; rerun later")
    if status >= 500:
        return GitLabUnavailable(f"{where}: GitLab failed: {told}; retry later")
    return GitLabError(f"{where} failed: {told}")


def _retry_after(headers: Message | None, pause: float) -> float | None:
    """Seconds to wait before sending a rate-limited request again; None: longer than we wait."""
    value = (headers.get("Retry-After") if headers is not None else None) or ""
    wait = float(value) if value.strip().isdigit() else pause
    return wait if wait <= MAX_RETRY_AFTER else None


class Client:
    """GET requests to one GitLab instance, with the token, retries and pagination."""

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        timeout: float = TIMEOUT,
        pause: float | None = None,
        sleep: Callable[[float], None] | None = None,
    ):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.pause = FIRST_PAUSE if pause is None else pause
        self.sleep = sleep or time.sleep
        self.calls = 0
        self._opener = urllib.request.build_opener(_SameHost())

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Client:
        """The instance and token of KBKIT_GITLAB_URL and KBKIT_GITLAB_TOKEN."""
        token = (settings.value(TOKEN_VARIABLE, env) or "").strip() or None
        return cls(base_url(env), token)

    def web_url(self, path: str) -> str:
        """The instance's page of `path` (a project, a merge request)."""
        return f"{self.url}/{path.lstrip('/')}"

    def _request(self, endpoint: str) -> tuple[bytes, Message]:
        """One GET of `/api/v4/ENDPOINT`, sent again after a 429, a 5xx or no answer."""
        where = f"GET /api/v4/{endpoint[:160]}"
        request = urllib.request.Request(f"{self.url}/api/v4/{endpoint}")
        request.add_header("Accept", "application/json")
        if self.token:
            request.add_header("PRIVATE-TOKEN", self.token)
        pause, tries = self.pause, 0
        while True:
            tries += 1
            self.calls += 1
            try:
                with self._opener.open(request, timeout=self.timeout) as answer:
                    body = answer.read(MAX_BODY + 1)
                    if len(body) > MAX_BODY:
                        raise GitLabError(f"{where}: the answer is over {MAX_BODY >> 20} MiB")
                    return body, answer.headers
            except urllib.error.HTTPError as exc:
                body = exc.read(64 * 1024) if exc.fp is not None else b""
                error = _failure(where, exc.code, body)
                wait = _retry_after(exc.headers, pause) if exc.code == 429 else pause
                if (exc.code != 429 and exc.code < 500) or tries > RETRIES or wait is None:
                    raise error from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                reason = getattr(exc, "reason", exc)
                if tries > RETRIES:
                    raise GitLabUnavailable(
                        f"{where}: GitLab could not be reached at {self.url[:120]}: "
                        f"{_words(str(reason))}; retry later"
                    ) from None
                wait = pause
            self.sleep(wait)
            pause *= 2

    def get(self, endpoint: str) -> Any:
        """The decoded JSON of one GET; an answer that is not JSON is the environment's (a
        proxy's or a login page), exit 4."""
        body, _ = self._request(endpoint)
        return self._decode(endpoint, body)

    def page(self, endpoint: str, params: Mapping[str, str | int], page: int = 1) -> Page:
        """Page `page` of a list endpoint, `per_page=100`, and where the next one is."""
        query = urlencode({**params, "per_page": PER_PAGE, "page": page})
        body, headers = self._request(f"{endpoint}?{query}")
        items = self._decode(endpoint, body)
        if not isinstance(items, list):
            raise GitLabError(f"GET /api/v4/{endpoint[:160]}: expected a JSON array (a list)")
        return Page(items, _next_page(headers))

    def pages(
        self, endpoint: str, params: Mapping[str, str | int], cap: int
    ) -> tuple[list[Any], int, bool]:
        """Every item of up to `cap` pages; the pages read, and whether the list ended."""
        items: list[Any] = []
        number = 1
        for read in range(1, cap + 1):
            got = self.page(endpoint, params, number)
            items += got.items
            if got.next_page is None or not got.items:
                return items, read, True
            number = got.next_page
        return items, cap, False

    def _decode(self, endpoint: str, body: bytes) -> Any:
        try:
            return loads(body)
        except ValueError:
            raise GitLabUnavailable(
                f"GET /api/v4/{endpoint[:160]}: the answer is not GitLab's JSON "
                f"({_words(body[:80].decode('utf-8', 'replace'))!r}); check {URL_VARIABLE}"
            ) from None


def _next_page(headers: Message) -> int | None:
    """The next page's number: `X-Next-Page` (empty on the last page), else `Link`."""
    value = headers.get("X-Next-Page")
    if value is not None:
        value = value.strip()
        return int(value) if value.isdigit() and int(value) > 0 else None
    for url, rel in _LINK.findall(headers.get("Link") or ""):
        if rel == "next":
            found = re.search(r"[?&]page=(\d+)", url)
            return int(found.group(1)) if found else None
    return None
