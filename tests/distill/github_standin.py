"""A stateful local stand-in for GitHub, reached by the REAL `gh` CLI over HTTPS.

gh treats any GH_HOST but github.com as GitHub Enterprise: `gh api ENDPOINT` goes to
`https://HOST/api/v3/ENDPOINT` with the token from GH_ENTERPRISE_TOKEN, and the server's
self-signed certificate is trusted through SSL_CERT_FILE. This server answers the REST calls
kbkit makes, in GitHub's shapes, and keeps state the way GitHub does:

- knowledge repositories are real bare git repositories: a pull request's head is the live
  tip of its branch in the fork while it is open and is frozen when it closes; opening one
  refuses a head branch that does not exist, one that adds no commit, and a second open PR
  for the same head ("A pull request already exists");
- `merge()` is what a reviewer's button does (a merge commit, a squash or a rebase, made with
  git on the upstream repository, refused when the head conflicts); a closed PR stays listed;
- the watched team repository's pull requests are data the test adds (`add_team_pull`):
  listed newest updated first, 100 a page with `Link` headers, with a `files` endpoint;
- issue comments are kept per issue, with `author_association`;
- faults: `fault(method, path)` may fail a request with a 5xx (nothing done): an error
  object, or the front end's HTML page or empty body, which gh prints as `gh: HTTP 502`; or
  answer it only after a delay (done, then the answer arrives late: the client has given up).

- a team PR's reviews and inline review comments (REST, paged) and its review threads
  (`POST /api/graphql`: the one query kbkit sends, `reviewThreads`, 100 a page), when the
  test gives them.

Not modelled: GraphQL beyond that one query, permissions and tokens beyond one shared
token, rate limits, reviews on knowledge PRs, checks, `mergeable` computed lazily,
refs/pull/N/head, repository renames and forks created through the API.
"""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

TOKEN = "ghp_standintoken0000"
API = "/api/v3/"


def git(repo: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {repo}: {done.stderr.strip()}")
    return done.stdout


def tip(repo: Path, branch: str) -> str | None:
    out = git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False)
    return out.strip() or None


@dataclass
class Fault:
    kind: str  # "fail": an error object, nothing done; "late": done, answered after `delay`
    status: int = 502
    delay: float = 0.0
    page: str = "json"  # a failure's body: GitHub's error object, its front end's "html" or
    # "empty"; "rate": the error object of a primary rate limit (403 with its headers)

    @property
    def message(self) -> str:
        if self.status == 429 or (self.status == 403 and self.page == "rate"):
            return (
                "You have exceeded a secondary rate limit. Please wait a few minutes before "
                "you try again."
                if self.status == 429
                else "API rate limit exceeded for user ID 1."
            )
        return "Server Error" if self.status >= 500 else "Validation Failed"

    @property
    def headers(self) -> dict[str, str]:
        """GitHub's rate-limit headers on a primary limit (403), `retry-after` on 429."""
        if self.status == 429:
            return {"retry-after": "60"}
        if self.status == 403 and self.page == "rate":
            return {"x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0",
                    "x-ratelimit-reset": "4102444800", "x-ratelimit-resource": "core"}  # fmt: skip
        return {}


@dataclass
class PullState:
    number: int
    repo: str
    title: str
    body: str
    head_owner: str
    head_repo: str
    head_ref: str
    base_ref: str
    created_at: str
    state: str = "open"
    merged_at: str | None = None
    closed_at: str | None = None
    frozen_head: str | None = None  # the head's sha once closed
    method: str | None = None  # merge, squash or rebase (merged PRs)
    maintainer_can_modify: bool = True


@dataclass
class TeamPull:
    """A pull request of the watched team repository: data, not git (its reviews, inline
    review comments and review threads too; its conversation is its issue's comments)."""

    item: dict[str, Any]
    files: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    review_comments: list[dict[str, Any]] = field(default_factory=list)
    threads: list[dict[str, Any]] = field(default_factory=list)  # root id, isResolved, ...


class StandIn:
    """GitHub's state; `serve()` puts it behind HTTPS for the real gh."""

    def __init__(self, now: Callable[[], str]):
        self.now = now
        self.repos: dict[str, Path] = {}  # knowledge repositories: slug -> bare repository
        self.pulls: dict[str, list[PullState]] = {}
        self.team: dict[str, list[TeamPull]] = {}
        self.comments: dict[tuple[str, int], list[dict[str, Any]]] = {}
        self.numbers: dict[str, int] = {}
        self.lock = threading.RLock()
        self.log: list[tuple[str, str, int]] = []  # (method, path, status)
        self.fault: Callable[[str, str], Fault | None] = lambda method, path: None
        self.during: Callable[[str, str], None] = lambda method, path: None  # main moves...
        self.host = ""
        self.comment_ids = 1000

    # --- what the test sets up ---------------------------------------------------------
    def add_repo(self, slug: str, bare: Path) -> None:
        self.repos[slug] = bare
        self.pulls.setdefault(slug, [])

    def add_team_pull(self, slug: str, item: dict[str, Any], files: list[dict[str, Any]]) -> None:
        with self.lock:
            self.team.setdefault(slug, []).append(TeamPull(item, files))

    def add_comment(self, slug: str, number: int, body: str, login: str, association: str) -> None:
        with self.lock:
            self._comment(slug, number, body, login, association)

    # --- what a reviewer does on GitHub --------------------------------------------------
    def open_pulls(self, slug: str) -> list[PullState]:
        return [p for p in self.pulls.get(slug, []) if p.state == "open"]

    def head_sha(self, pull: PullState) -> str | None:
        if pull.frozen_head:
            return pull.frozen_head
        return tip(self.repos[pull.head_repo], pull.head_ref)

    def close(self, slug: str, number: int) -> None:
        with self.lock:
            pull = self._pull(slug, number)
            assert pull is not None and pull.state == "open"
            pull.frozen_head = self.head_sha(pull)
            pull.state, pull.closed_at = "closed", self.now()

    def merge(
        self,
        slug: str,
        number: int,
        method: str,
        work: Path,
        check: Callable[[Path], bool] | None = None,
    ) -> bool:
        """Merge like GitHub's button (merge commit, squash, rebase); False when the head
        conflicts with the base (GitHub refuses: "This branch has conflicts") or when
        `check` (a required status check, run on the merge result) fails."""
        with self.lock:
            pull = self._pull(slug, number)
            assert pull is not None and pull.state == "open"
            upstream, fork = self.repos[slug], self.repos[pull.head_repo]
            head = self.head_sha(pull)
            assert head is not None
            if work.exists():
                shutil.rmtree(work)
            git(
                work.parent, "clone", "--quiet", "--branch", pull.base_ref, str(upstream), str(work)
            )
            ident = ["-c", "user.name=Reviewer", "-c", "user.email=reviewer@example.com"]
            git(work, "fetch", "--quiet", str(fork), f"refs/heads/{pull.head_ref}")
            message = f"{pull.title} (#{number})"
            if method == "merge":
                done = subprocess.run(
                    ["git", "-C", str(work), *ident, "merge", "--quiet", "--no-ff", "-m",
                     f"Merge pull request #{number} from {pull.head_owner}/{pull.head_ref}",
                     "FETCH_HEAD"], capture_output=True, text=True,
                )  # fmt: skip
            elif method == "squash":
                done = subprocess.run(
                    ["git", "-C", str(work), "merge", "--quiet", "--squash", "FETCH_HEAD"],
                    capture_output=True, text=True,
                )  # fmt: skip
                if done.returncode == 0:
                    done = subprocess.run(
                        ["git", "-C", str(work), *ident, "commit", "--quiet", "-m", message],
                        capture_output=True, text=True,
                    )  # fmt: skip
            else:  # rebase: the head's own commits replayed on the base, new ids
                base = git(work, "rev-parse", "HEAD").strip()
                done = subprocess.run(
                    ["git", "-C", str(work), *ident, "rebase", "--quiet", "--onto", base,
                     git(work, "merge-base", base, "FETCH_HEAD").strip(), "FETCH_HEAD"],
                    capture_output=True, text=True,
                )  # fmt: skip
                if done.returncode == 0:
                    git(work, "checkout", "--quiet", "-B", pull.base_ref)
            if done.returncode != 0 or (check is not None and not check(work)):
                shutil.rmtree(work)
                return False
            git(work, "push", "--quiet", "origin", f"HEAD:refs/heads/{pull.base_ref}")
            shutil.rmtree(work)
            pull.frozen_head = head
            pull.state, pull.merged_at, pull.closed_at = "closed", self.now(), self.now()
            pull.method = method
            return True

    # --- the REST API ---------------------------------------------------------------------
    def handle(self, method: str, target: str, body: bytes) -> tuple[int, Any, dict[str, str]]:
        parts = urlsplit(target)
        if parts.path == "/api/graphql" and method == "POST":  # GitHub Enterprise's GraphQL
            with self.lock:
                return self._graphql(json.loads(body) if body else {})
        if not parts.path.startswith(API):
            return 404, _error("Not Found"), {}
        path = parts.path[len(API) :].strip("/")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        segments = path.split("/")
        with self.lock:
            if path == "rate_limit":
                reset = 1_900_000_000
                return 200, {"resources": {"core": {"limit": 5000, "remaining": 4999, "reset": reset}}}, {}  # fmt: skip
            if len(segments) < 4 or segments[0] != "repos":
                return 404, _error("Not Found"), {}
            slug = f"{segments[1]}/{segments[2]}"
            rest = segments[3:]
            payload = json.loads(body) if body else {}
            if rest == ["pulls"] and method == "GET":
                return self._list(slug, query, target)
            if rest == ["pulls"] and method == "POST":
                return self._create(slug, payload)
            if len(rest) >= 2 and rest[0] == "pulls" and rest[1].isdigit():
                number = int(rest[1])
                if rest[2:] == ["files"] and method == "GET":
                    return self._files(slug, number, query, target)
                if rest[2:] in (["reviews"], ["comments"]) and method == "GET":
                    team = self._team_pull(slug, number)
                    if team is None:
                        return 404, _error("Not Found"), {}
                    items = team.reviews if rest[2] == "reviews" else team.review_comments
                    return self._paged(items, query, target)
                if rest[2:] == [] and method == "GET":
                    pull = self._pull(slug, number)
                    return (200, self._pull_json(pull), {}) if pull else (404, _error("Not Found"), {})  # fmt: skip
                if rest[2:] == [] and method == "PATCH":
                    return self._update(slug, number, payload)
            if len(rest) == 3 and rest[0] == "issues" and rest[2] == "comments":
                number = int(rest[1])
                if method == "GET":
                    items = self.comments.get((slug, number), [])
                    return self._paged(items, query, target)
                if method == "POST":
                    made = self._comment(slug, number, str(payload.get("body", "")), "kb-bot", "NONE")  # fmt: skip
                    return 201, made, {}
        return 404, _error("Not Found"), {}

    def _pull(self, slug: str, number: int) -> PullState | None:
        return next((p for p in self.pulls.get(slug, []) if p.number == number), None)

    def _pull_json(self, pull: PullState) -> dict[str, Any]:
        head = self.head_sha(pull) or "0" * 40
        base = tip(self.repos[pull.repo], pull.base_ref) or "0" * 40
        return {
            "number": pull.number,
            "html_url": f"https://{self.host}/{pull.repo}/pull/{pull.number}",
            "state": pull.state,
            "title": pull.title,
            "body": pull.body,
            "created_at": pull.created_at,
            "updated_at": pull.closed_at or pull.created_at,
            "closed_at": pull.closed_at,
            "merged_at": pull.merged_at,
            "draft": False,
            "user": {"login": pull.head_owner},
            "maintainer_can_modify": pull.maintainer_can_modify,
            "head": {
                "label": f"{pull.head_owner}:{pull.head_ref}",
                "ref": pull.head_ref,
                "sha": head,
                "repo": {"full_name": pull.head_repo, "owner": {"login": pull.head_owner}},
            },
            "base": {"ref": pull.base_ref, "sha": base, "repo": {"full_name": pull.repo}},
        }

    def _list(
        self, slug: str, query: dict[str, str], target: str
    ) -> tuple[int, Any, dict[str, str]]:
        if slug in self.team:
            items = [t.item for t in self.team[slug]]
            state = query.get("state", "open")
            if state != "all":
                items = [i for i in items if i["state"] == state]
            key = "updated_at" if query.get("sort") == "updated" else "created_at"
            items.sort(key=lambda i: (i[key], i["number"]), reverse=query.get("direction", "desc") == "desc")  # fmt: skip
            return self._paged(items, query, target)
        if slug not in self.repos:
            return 404, _error("Not Found"), {}
        pulls = self.pulls[slug]
        state = query.get("state", "open")
        chosen = [p for p in pulls if state == "all" or p.state == state]
        chosen.sort(key=lambda p: p.number, reverse=query.get("direction", "desc") == "desc")
        return self._paged([self._pull_json(p) for p in chosen], query, target)

    def _paged(
        self, items: list[Any], query: dict[str, str], target: str
    ) -> tuple[int, Any, dict[str, str]]:
        per_page = min(int(query.get("per_page", "30")), 100)
        page = int(query.get("page", "1"))
        last = max(1, -(-len(items) // per_page))
        shown = items[(page - 1) * per_page : page * per_page]
        parts = urlsplit(target)
        base = f"https://{self.host}{parts.path}"
        other = {k: v for k, v in query.items() if k != "page"}
        links = []
        if page < last:
            links.append(f'<{base}?{_query(other, page + 1)}>; rel="next"')
            links.append(f'<{base}?{_query(other, last)}>; rel="last"')
        return 200, shown, ({"Link": ", ".join(links)} if links else {})

    def _team_pull(self, slug: str, number: int) -> TeamPull | None:
        return next((t for t in self.team.get(slug, []) if t.item["number"] == number), None)

    def _graphql(self, request: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        """The one query kbkit sends: a pull request's review threads, 100 a page."""
        query, variables = str(request.get("query", "")), request.get("variables") or {}
        if "reviewThreads" not in query:
            return 200, {"errors": [{"message": "the stand-in answers the review-threads query only"}]}, {}  # fmt: skip
        slug = f"{variables.get('owner')}/{variables.get('name')}"
        team = self._team_pull(slug, int(variables.get("number") or 0))
        if team is None:
            error = {"type": "NOT_FOUND", "path": ["repository", "pullRequest"],
                     "message": f"Could not resolve to a PullRequest with the number of {variables.get('number')}."}  # fmt: skip
            return 200, {"data": {"repository": {"pullRequest": None}}, "errors": [error]}, {}
        start = int(str(variables.get("after") or "cursor:0").split(":")[1])
        page = team.threads[start : start + 100]
        nodes = [
            {"isResolved": t["isResolved"], "isOutdated": t.get("isOutdated", False),
             "comments": {"nodes": [{"databaseId": t["root"]}]}}
            for t in page
        ]  # fmt: skip
        info = {"hasNextPage": start + 100 < len(team.threads), "endCursor": f"cursor:{start + len(page)}"}  # fmt: skip
        threads = {"pageInfo": info, "nodes": nodes}
        return 200, {"data": {"repository": {"pullRequest": {"reviewThreads": threads}}}}, {}

    def _files(
        self, slug: str, number: int, query: dict[str, str], target: str
    ) -> tuple[int, Any, dict[str, str]]:
        found = self._team_pull(slug, number)
        if found is None:
            return 404, _error("Not Found"), {}
        return self._paged(found.files, query, target)

    def _create(self, slug: str, payload: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        if slug not in self.repos:
            return 404, _error("Not Found"), {}
        head, base = str(payload.get("head", "")), str(payload.get("base", ""))
        owner, _, branch = head.partition(":")
        fork = next((s for s in self.repos if s.split("/")[0] == owner), None)
        if fork is None or not branch or tip(self.repos[fork], branch) is None:
            return 422, _error("Validation Failed", [{"resource": "PullRequest", "field": "head", "code": "invalid"}]), {}  # fmt: skip
        for pull in self.open_pulls(slug):
            if pull.head_owner == owner and pull.head_ref == branch and pull.base_ref == base:
                return 422, _error(f"A pull request already exists for {head}."), {}
        head_sha = tip(self.repos[fork], branch)
        base_sha = tip(self.repos[slug], base)
        assert head_sha is not None
        if base_sha is None:
            return 422, _error("Validation Failed", [{"field": "base", "code": "invalid"}]), {}
        scratch = Path(tempfile.mkdtemp(prefix="standin-"))
        try:
            git(scratch, "init", "--quiet", "--bare")
            git(scratch, "fetch", "--quiet", str(self.repos[slug]), f"refs/heads/{base}:refs/b")
            git(scratch, "fetch", "--quiet", str(self.repos[fork]), f"refs/heads/{branch}:refs/h")
            ahead = git(scratch, "rev-list", "--count", "refs/h", "^refs/b").strip()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        if ahead == "0":
            return 422, _error(f"No commits between {base} and {head}"), {}
        self.numbers[slug] = self.numbers.get(slug, 0) + 1
        pull = PullState(
            self.numbers[slug], slug, str(payload.get("title", "")), str(payload.get("body") or ""),
            owner, fork, branch, base, self.now(),
            maintainer_can_modify=payload.get("maintainer_can_modify") is not False,
        )  # fmt: skip
        self.pulls[slug].append(pull)
        return 201, self._pull_json(pull), {}

    def _update(
        self, slug: str, number: int, payload: dict[str, Any]
    ) -> tuple[int, Any, dict[str, str]]:
        pull = self._pull(slug, number)
        if pull is None:
            return 404, _error("Not Found"), {}
        if "body" in payload:
            pull.body = str(payload["body"] or "")
        if "title" in payload:
            pull.title = str(payload["title"])
        if payload.get("state") == "closed" and pull.state == "open":
            pull.frozen_head = self.head_sha(pull)
            pull.state, pull.closed_at = "closed", self.now()
        return 200, self._pull_json(pull), {}

    def _comment(
        self, slug: str, number: int, body: str, login: str, association: str
    ) -> dict[str, Any]:
        self.comment_ids += 1
        made = {
            "id": self.comment_ids,
            "body": body,
            "user": {"login": login},
            "author_association": association,
            "created_at": self.now(),
            "html_url": f"https://{self.host}/{slug}/issues/{number}#issuecomment-{self.comment_ids}",
        }
        self.comments.setdefault((slug, number), []).append(made)
        return made


def _query(values: dict[str, str], page: int) -> str:
    return "&".join([*(f"{k}={v}" for k, v in values.items()), f"page={page}"])


def _error(message: str, errors: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {
        "message": message,
        "documentation_url": "https://docs.github.com/rest",
    }
    if errors:
        found["errors"] = errors
    return found


# The shape of GitHub's front-end error page (a 502's "Unicorn!"), not its text.
ERROR_PAGE = (
    b'<!DOCTYPE html>\n<html><head><title>Unicorn! &middot; GitHub</title><style type="text/css"'
    b">body { background-color: #f1f1f1; margin: 0; }</style></head><body><p><strong>We had "
    b"issues producing the response to your request.</strong></p></body></html>\n"
)


def _handler(stand_in: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if self.headers.get("Authorization") != f"token {TOKEN}":
                return self._reply(method, 401, _error("Bad credentials"), {})
            path = urlsplit(self.path).path
            fault = stand_in.fault(method, path)
            if fault is not None and fault.kind == "fail" and fault.page in ("html", "empty"):
                return self._error_page(method, fault)
            if fault is not None and fault.kind == "fail":
                return self._reply(method, fault.status, _error(fault.message), fault.headers)
            stand_in.during(method, path)
            code, answer, headers = stand_in.handle(method, self.path, body)
            if fault is not None and fault.kind == "late":
                time.sleep(fault.delay)  # done on GitHub's side; the client has given up
            self._reply(method, code, answer, headers)

        def _reply(self, method: str, code: int, answer: Any, headers: dict[str, str]) -> None:
            with stand_in.lock:
                stand_in.log.append((method, urlsplit(self.path).path, code))
            data = json.dumps(answer).encode()
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                pass  # the client gave up waiting

        def _error_page(self, method: str, fault: Fault) -> None:
            """A 5xx from GitHub's front end: an HTML page or no body at all, no JSON."""
            with stand_in.lock:
                stand_in.log.append((method, urlsplit(self.path).path, fault.status))
            data = ERROR_PAGE if fault.page == "html" else b""
            self.send_response(fault.status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
            self._serve("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._serve("POST")

        def do_PATCH(self) -> None:  # noqa: N802
            self._serve("PATCH")

    return Handler


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost (made once per folder)."""
    cert, key = folder / "standin-cert.pem", folder / "standin-key.pem"
    if not cert.exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
             "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
             "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
            check=True, capture_output=True,
        )  # fmt: skip
    return cert, key


def missing_tools() -> str | None:
    """Why the stand-in cannot run here (no gh, no openssl), or None."""
    for tool, package in (("gh", "gh"), ("openssl", "openssl")):
        if shutil.which(tool) is None:
            return f"the real {tool} is not installed: `apt-get install -y {package}` (.ci/run installs it)"  # fmt: skip
    return None


@contextmanager
def serve(stand_in: StandIn, folder: Path, certs: Path | None = None) -> Iterator[dict[str, str]]:
    """Serve `stand_in` over HTTPS on localhost; yields the environment that points the real
    gh at it (GH_HOST, the token, the certificate, an empty gh config)."""
    cert, key = certificate(certs or folder)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stand_in))
    httpd.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    stand_in.host = f"localhost:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    config = folder / "gh-config"
    config.mkdir(exist_ok=True)
    try:
        yield {
            "GH_HOST": stand_in.host,
            "GH_ENTERPRISE_TOKEN": TOKEN,
            "GH_TOKEN": TOKEN,
            "SSL_CERT_FILE": str(cert),
            "GH_CONFIG_DIR": str(config),
        }
    finally:
        httpd.shutdown()
        httpd.server_close()
