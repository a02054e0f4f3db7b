"""End to end with the REAL `gh` CLI against a local HTTPS server speaking GitHub REST shapes.

gh treats any GH_HOST but github.com as GitHub Enterprise (API under /api/v3/, token from
GH_ENTERPRISE_TOKEN); the server's self-signed certificate is trusted through SSL_CERT_FILE.
This checks that the flags, the Link-header pagination and the error output kbkit relies on
are the ones gh really has.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from intake_factories import SLUG, make_pr

from kbkit.__main__ import main
from kbkit.intake.ledger import load_events
from kbkit.intake.merged_prs import CURSOR_FILE, read_cursor

pytestmark = pytest.mark.skipif(
    shutil.which("gh") is None or shutil.which("openssl") is None,
    reason="the real gh CLI (or openssl) is not installed: `apt-get install -y gh` "
    "(.ci/run installs it when missing)",
)

TOKEN = "ghp_localtesttoken"
PATCH = "@@ -1 +1 @@\n-a = 1\n+a = 2\n"


class GitHub(BaseHTTPRequestHandler):
    """Answers /api/v3/... like GitHub: pages linked by `Link: rel="next"`, error objects."""

    fail_page: int | None = None  # answer this page of the pulls list with HTTP 502
    seen: list[str] = []
    comments: list[dict[str, Any]] = []  # the mailbox issue's comments (POST appends)

    def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
        if self.headers.get("Authorization") != f"token {TOKEN}":
            return self.reply(401, {"message": "Bad credentials", "documentation_url": "x"})
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
            if page == self.fail_page:
                return self.reply(502, {"message": "Server Error"})
            if page == 1:
                nxt = f"https://localhost:{port}/api/v3/repos/{SLUG}/pulls?{query}&page=2"
                items = [make_pr(3, updated_at="2026-11-29T12:00:00Z"), make_pr(2, merged=False)]
                return self.reply(200, items, link=f'<{nxt}>; rel="next"')
            return self.reply(200, [make_pr(1, updated_at="2026-11-28T09:00:00Z")])
        if path == f"/api/v3/repos/{SLUG}/issues/3/comments":
            return self.reply(200, self.comments)
        if path.startswith(f"/api/v3/repos/{SLUG}/pulls/") and path.endswith("/files"):
            files = [{"filename": "src/app.py", "status": "modified", "patch": PATCH}]
            return self.reply(200, files)
        return self.reply(404, {"message": "Not Found", "documentation_url": "x"})

    def reply(self, code: int, body: Any, link: str | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        if link:
            self.send_header("Link", link)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[type[GitHub]]:
    import ssl

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    handler = type("Handler", (GitHub,), {"seen": [], "fail_page": None, "comments": []})
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
