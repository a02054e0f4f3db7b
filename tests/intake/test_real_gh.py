"""End to end with the REAL `gh` CLI against a local HTTPS server speaking GitHub REST shapes.

gh treats any GH_HOST but github.com as GitHub Enterprise (API under /api/v3/, token from
GH_ENTERPRISE_TOKEN); the server's self-signed certificate is trusted through SSL_CERT_FILE.
This checks that the flags, the Link-header pagination and the error output kbkit relies on
are the ones gh really has.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from intake_factories import SLUG, make_pr
from tests.distill.github_standin import certificate

from kbkit.__main__ import main
from kbkit.intake.ledger import load_events
from kbkit.intake.merged_prs import CURSOR_FILE, read_cursor

pytestmark = [
    pytest.mark.slow,  # make test-all: the real gh CLI against a local HTTPS stand-in
    pytest.mark.skipif(
        shutil.which("gh") is None or shutil.which("openssl") is None,
        reason="the real gh CLI (or openssl) is not installed: `apt-get install -y gh` "
        "(.ci/run installs it when missing)",
    ),
]

TOKEN = "ghp_localtesttoken"
REVIEWS = Path(__file__).with_name("fixtures") / "reviews"


def recorded(name: str) -> Any:
    return json.loads((REVIEWS / name).read_text(encoding="utf-8"))


PATCH = "@@ -1 +1 @@\n-a = 1\n+a = 2\n"
# The shape of the page GitHub's front end serves with a 502 (styles and all: braces that
# are not JSON), not its text.
UNICORN = (
    b'<!DOCTYPE html>\n<html><head><meta http-equiv="Content-Type" content="text/html; '
    b'charset=utf-8"><title>Unicorn! &middot; GitHub</title><style type="text/css" '
    b'media="screen">body { background-color: #f1f1f1; margin: 0; } .container { margin: 50px '
    b'auto 40px auto; width: 600px; }</style></head><body><div class="container"><p><strong>'
    b"We had issues producing the response to your request.</strong></p><p>Sorry about that. "
    b"Please try refreshing and contact us if the problem persists.</p></div></body></html>\n"
)

# GitHub's rate-limit answers (docs.github.com, "Rate limits for the REST API"): the hour's
# quota spent (403, x-ratelimit-remaining: 0), and a secondary limit (429 or 403, often with
# retry-after), which asks the client to wait and try again.
RATE_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
RATE_LIMITS = {
    "primary": (
        403,
        "API rate limit exceeded for user ID 1.",
        {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1893456000"},
    ),  # fmt: skip
    "secondary": (
        429,
        "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
        {"retry-after": "60"},
    ),  # fmt: skip
    "secondary-403": (
        403,
        "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
        {},
    ),  # fmt: skip
}


class GitHub(BaseHTTPRequestHandler):
    """Answers /api/v3/... like GitHub: pages linked by `Link: rel="next"`, error objects."""

    fail_page: int | None = None  # answer this page of the pulls list with HTTP 502
    fail_shape = "json"  # how: GitHub's JSON error object, its HTML error page, or no body
    fail_times = 1_000  # only the first N requests for that page fail
    seen: list[str] = []
    comments: list[dict[str, Any]] = []  # the mailbox issue's comments (POST appends)

    def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
        if self.headers.get("Authorization") != f"token {TOKEN}":
            return self.reply(401, {"message": "Bad credentials", "documentation_url": "x"})
        if self.path == "/api/graphql":  # GitHub Enterprise's GraphQL endpoint
            return self.graphql(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        if self.path != f"/api/v3/repos/{SLUG}/issues/3/comments":
            return self.reply(404, {"message": "Not Found", "documentation_url": "x"})
        sent = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        made = {"id": 100 + len(self.comments), "body": sent["body"], "user": {"login": "bot"},
                "author_association": "MEMBER"}  # fmt: skip
        self.comments.append(made)
        return self.reply(201, made)

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        self.seen.append(self.path)
        port = self.server.server_address[1]  # type: ignore[index]  # (host, port) on TCP
        path, _, query = self.path.partition("?")
        if self.headers.get("Authorization") != f"token {TOKEN}":
            return self.reply(401, {"message": "Bad credentials", "documentation_url": "x"})
        page = 2 if "page=2" in query else 1
        if path == f"/api/v3/repos/{SLUG}/pulls":
            if page == self.fail_page and self.failed() <= self.fail_times:
                return self.error_page(self.fail_shape)
            if page == 1:
                nxt = f"https://localhost:{port}/api/v3/repos/{SLUG}/pulls?{query}&page=2"
                items = [make_pr(3, updated_at="2026-11-29T12:00:00Z"), make_pr(2, merged=False)]
                return self.reply(200, items, link=f'<{nxt}>; rel="next"')
            return self.reply(200, [make_pr(1, updated_at="2026-11-28T09:00:00Z")])
        if path == f"/api/v3/repos/{SLUG}/issues/3/comments":
            return self.reply(200, self.comments)
        if path.startswith(f"/api/v3/repos/{SLUG}/pulls/") and path.endswith("/files"):
            if path == f"/api/v3/repos/{SLUG}/pulls/57/files":
                return self.reply(200, recorded("pr57-files.json"))
            files = [{"filename": "src/app.py", "status": "modified", "patch": PATCH}]
            return self.reply(200, files)
        listed = self.discussion.get(path.removeprefix(f"/api/v3/repos/{SLUG}/"))
        if listed is not None or path.endswith(("/reviews", "/comments")):
            params = dict(part.partition("=")[::2] for part in query.split("&") if part)
            size, number = int(params.get("per_page", 30)), int(params.get("page", 1))
            return self.reply(200, (listed or [])[(number - 1) * size : number * size])
        return self.reply(404, {"message": "Not Found", "documentation_url": "x"})

    discussion: dict[str, list[dict[str, Any]]] = {}  # "pulls/N/reviews" etc. -> the whole list
    graphql_seen: list[dict[str, Any]] = []

    def graphql(self, request: dict[str, Any]) -> None:
        """The review-threads query, answered from the recorded response; typed variables
        checked as GitHub checks them (`$number: Int!`)."""
        self.graphql_seen.append(request)
        variables = request.get("variables", {})
        if (
            "reviewThreads" not in request.get("query", "")
            or type(variables.get("number")) is not int
        ):
            return self.reply(200, {"errors": [{"message": "Variable $number of type Int! was "
                                                "provided invalid value"}]})  # fmt: skip
        return self.reply(200, recorded("pr57-review-threads.json"))

    def failed(self) -> int:
        """How many requests this page has failed, this one included."""
        self.seen.append("FAILED")
        return self.seen.count("FAILED")

    def error_page(self, shape: str) -> None:
        """A 5xx as GitHub answers it: a JSON error object from the API, or from its front
        end an HTML page (a 502's "Unicorn!") or an empty 503/504."""
        if shape == "json":
            return self.reply(502, {"message": "Server Error"})
        if shape in RATE_LIMITS:
            code, message, headers = RATE_LIMITS[shape]
            return self.reply(code, {"message": message, "documentation_url": RATE_DOCS}, headers=headers)  # fmt: skip
        code, data, kind = {
            "html": (502, UNICORN, "text/html; charset=utf-8"),
            "empty": (504, b"", "text/plain"),
        }[shape]
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def reply(
        self, code: int, body: Any, link: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        if link:
            self.send_header("Link", link)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[type[GitHub]]:
    import ssl

    cert, key = certificate(tmp_path)
    handler = type("Handler", (GitHub,), {"seen": [], "fail_page": None, "comments": [],
                                          "fail_shape": "json", "fail_times": 1_000,
                                          "discussion": {}, "graphql_seen": []})  # fmt: skip
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    monkeypatch.setenv("GH_HOST", f"localhost:{httpd.server_address[1]}")
    monkeypatch.setenv("GH_ENTERPRISE_TOKEN", TOKEN)
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    monkeypatch.setenv("GH_CONFIG_DIR", str(tmp_path / "gh-config"))
    monkeypatch.setenv("KBKIT_GH_RETRY_PAUSE", "0.05")
    try:
        yield handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_real_gh_paginates_records_and_moves_the_cursor(
    tmp_path: Path, server: type[GitHub]
) -> None:
    assert main(["intake", "record-prs", "--repo", SLUG]) == 0
    events = load_events(tmp_path / "intake")
    assert sorted(key[1] for key in events) == [f"{SLUG}#1", f"{SLUG}#3"]  # both pages
    assert "src/app.py" in events[("merged_pr", f"{SLUG}#1")]["diff_excerpt"]
    assert read_cursor(tmp_path / "intake") == {SLUG: "2026-11-29T12:00:00Z"}
    assert any("page=2" in seen for seen in server.seen)


def test_real_gh_failing_second_page_keeps_the_cursor(
    tmp_path: Path, server: type[GitHub], capsys: pytest.CaptureFixture[str]
) -> None:
    server.fail_page = 2
    assert main(["intake", "record-prs", "--repo", SLUG]) == 4
    assert "HTTP 502" in capsys.readouterr().err
    assert not (tmp_path / "intake" / CURSOR_FILE).exists()
    assert load_events(tmp_path / "intake") == {}


@pytest.mark.parametrize("shape", ["html", "empty"])
def test_real_gh_error_pages_are_retried_and_exit_4(
    tmp_path: Path, server: type[GitHub], capsys: pytest.CaptureFixture[str], shape: str
) -> None:
    """GitHub's front end answers many 5xx with an HTML page or no body, which gh prints as
    `gh: HTTP 502`: the environment's (exit 4), retried within the run, the cursor kept."""
    server.fail_page, server.fail_shape = 2, shape
    assert main(["intake", "record-prs", "--repo", SLUG]) == 4
    err = capsys.readouterr().err
    assert "GitHub failed" in err and "(HTTP 50" in err and "<" not in err
    assert server.seen.count("FAILED") == 3  # the first try and two retries
    assert not (tmp_path / "intake" / CURSOR_FILE).exists()
    assert load_events(tmp_path / "intake") == {}


def test_real_gh_one_error_page_is_passed_by_a_retry(tmp_path: Path, server: type[GitHub]) -> None:
    server.fail_page, server.fail_shape, server.fail_times = 2, "html", 1
    assert main(["intake", "record-prs", "--repo", SLUG]) == 0
    assert sorted(key[1] for key in load_events(tmp_path / "intake")) == [f"{SLUG}#1", f"{SLUG}#3"]
    assert read_cursor(tmp_path / "intake") == {SLUG: "2026-11-29T12:00:00Z"}


@pytest.mark.parametrize("shape", ["secondary", "secondary-403"])
def test_real_gh_a_secondary_rate_limit_is_waited_out_once(
    tmp_path: Path, server: type[GitHub], shape: str
) -> None:
    """GitHub asks the client to slow down: kbkit waits (a minute of retry pauses) and asks
    once more, within the run."""
    server.fail_page, server.fail_shape, server.fail_times = 2, shape, 1
    assert main(["intake", "record-prs", "--repo", SLUG]) == 0
    assert server.seen.count("FAILED") == 2  # the limited request, then the one that passed
    assert read_cursor(tmp_path / "intake") == {SLUG: "2026-11-29T12:00:00Z"}


@pytest.mark.parametrize("shape", ["primary", "secondary"])
def test_real_gh_a_rate_limit_that_holds_stops_the_run_exit_4(
    tmp_path: Path, server: type[GitHub], capsys: pytest.CaptureFixture[str], shape: str
) -> None:
    """The hour's quota spent is not retried (the next run goes on); a secondary limit that
    holds after the wait stops the run too; the cursor is kept either way."""
    server.fail_page, server.fail_shape = 2, shape
    assert main(["intake", "record-prs", "--repo", SLUG]) == 4
    assert "rate limit" in capsys.readouterr().err
    assert server.seen.count("FAILED") == (1 if shape == "primary" else 2)
    assert not (tmp_path / "intake" / CURSOR_FILE).exists()


def test_real_gh_unreachable_github_is_exit_4(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    with socket.socket() as closed:  # a port nothing listens on: the connection is refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("GH_HOST", f"localhost:{port}")
    monkeypatch.setenv("GH_ENTERPRISE_TOKEN", TOKEN)
    monkeypatch.setenv("GH_CONFIG_DIR", str(tmp_path / "gh-config"))
    monkeypatch.setenv("KBKIT_GH_RETRY_PAUSE", "0.05")
    assert main(["intake", "record-prs", "--repo", SLUG]) == 4
    assert "GitHub could not be reached" in capsys.readouterr().err
    assert load_events(tmp_path / "intake") == {}


def test_real_gh_bad_credentials(
    tmp_path: Path, server: type[GitHub], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("GH_ENTERPRISE_TOKEN", "wrong")
    monkeypatch.setenv("GH_TOKEN", "wrong")
    assert main(["intake", "record-prs", "--repo", SLUG]) == 4
    assert "GitHub said: Bad credentials (HTTP 401);" in capsys.readouterr().err


def test_real_gh_posts_the_record_and_the_mailbox_reads_it_back(
    tmp_path: Path, server: type[GitHub], monkeypatch: pytest.MonkeyPatch
) -> None:
    fixtures = Path(__file__).with_name("fixtures")
    (tmp_path / "run.json").write_bytes((fixtures / "producer_run.json").read_bytes())
    monkeypatch.setenv("KBKIT_ALLOW_POST", "1")
    argv = ["intake", "drop", "--run", "run.json", "--mailbox", f"{SLUG}#3", "--strict"]
    assert main(argv) == 0
    assert len(server.comments) == 1 and "```json" in server.comments[0]["body"]
    assert main(["intake", "mailbox", "--issue", f"{SLUG}#3"]) == 0
    assert [key[0] for key in load_events(tmp_path / "intake")] == ["bugfix_run"]


def test_real_gh_reads_the_review_discussion_page_by_page_and_the_threads_by_graphql(
    tmp_path: Path, server: type[GitHub], monkeypatch: pytest.MonkeyPatch
) -> None:
    """gh without --paginate reads exactly the page asked for, and `-F number=57` reaches
    GitHub as an Int (the query declares `$number: Int!`)."""
    filler = recorded("pr57-review-comments.json")[-1]
    comments = recorded("pr57-review-comments.json") + [
        {**filler, "id": 1874030000 + n, "body": f"nit {n}: a longer remark about naming here"}
        for n in range(120)
    ]
    server.discussion.update({"pulls/57/reviews": recorded("pr57-reviews.json"),
                              "pulls/57/comments": comments,
                              "issues/57/comments": recorded("pr57-issue-comments.json")})  # fmt: skip
    pulls = [make_pr(57, updated_at="2026-11-29T12:00:00Z")]
    monkeypatch.setattr(GitHub, "do_GET", _only_pr(GitHub.do_GET, pulls))
    assert main(["intake", "record-prs", "--repo", SLUG]) == 0
    row = load_events(tmp_path / "intake")[("merged_pr", f"{SLUG}#57")]
    ids = [note["id"] for note in row["discussion"]["notes"]]
    assert ids[0] == f"{SLUG}#57:discussion_r1874021301"  # the accepted suggestion first
    assert row["discussion"]["notes"][0]["accepted"] == "suggestion"
    assert row["discussion"]["notes"][0]["resolved"] is True  # from GraphQL
    comment_pages = [p for p in server.seen if "/pulls/57/comments" in p]
    assert comment_pages == [f"/api/v3/repos/{SLUG}/pulls/57/comments?per_page=100&page={n}"
                             for n in (1, 2)]  # fmt: skip
    [request] = server.graphql_seen
    assert request["variables"] == {"owner": "kbkit-dev", "name": "kbkit", "number": 57}


def _only_pr(get: Any, pulls: list[dict[str, Any]]) -> Any:
    """The server's GET, with the pulls list replaced by `pulls`."""

    def do_get(self: GitHub) -> None:
        if self.path.startswith(f"/api/v3/repos/{SLUG}/pulls?"):
            self.seen.append(self.path)
            return self.reply(200, pulls)
        return get(self)

    return do_get
