"""A local GitLab for the tests: an HTTP server in a thread that keeps state (projects, merge
requests, notes, diffs) and answers the REST API v4 the way gitlab.com does.

Shapes follow GitLab's API documentation (merge_requests.md, notes.md): a merge request has
`id`, `iid`, `project_id`, `title`, `description`, `state`, `merged_at`, `updated_at`,
`web_url`, `author.username`, `merge_commit_sha`, `source_branch`, `target_branch`, `labels`
(names), `references.full` (`group/sub/project!N`); a note has `id`, `type` (null,
`DiscussionNote`, `DiffNote` with a `position`), `body`, `author`, `system`, `created_at`,
`resolvable`/`resolved`. Errors come as GitLab sends them: `{"message": "401 Unauthorized"}`,
`{"message": "404 Project Not Found"}`, a 429 with `Retry-After`, 5xx as an HTML page.
Pages carry `X-Page`, `X-Per-Page`, `X-Next-Page` (empty on the last), `X-Total`,
`X-Total-Pages` and a `Link` header.
"""

from __future__ import annotations

import json
import re
import threading
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

TOKEN = "glpat-standin-0123456789"
WEB = "https://gitlab.example"
_ROUTE = re.compile(r"^/api/v4/projects/([^/]+)(?:/merge_requests(?:/(\d+)/(notes|diffs))?)?$")


def _user(username: str, ident: int = 7) -> dict[str, Any]:
    return {
        "id": ident,
        "username": username,
        "name": username.title(),
        "state": "active",
        "locked": False,
        "avatar_url": f"{WEB}/uploads/-/system/user/avatar/{ident}/avatar.png",
        "web_url": f"{WEB}/{username}",
    }


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class StandIn:
    """The server's state; `url` is what KBKIT_GITLAB_URL points at."""

    def __init__(self) -> None:
        self.projects: dict[str, dict[str, Any]] = {}
        self.failures: list[tuple[str, int, dict[str, str], bytes]] = []
        self.requests: list[tuple[str, dict[str, str]]] = []  # path, headers (lower-case names)
        self.link_only = False  # leave out X-Next-Page: the client must follow `Link`
        self.token = TOKEN
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                stand_in.handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # state ---------------------------------------------------------------------------

    def project(self, path: str) -> dict[str, Any]:
        return self.projects.setdefault(
            path, {"id": 1000 + len(self.projects), "mrs": [], "notes": {}, "diffs": {}}
        )

    def merge_request(self, path: str, iid: int, **fields: Any) -> dict[str, Any]:
        """A merged merge request of `path` (override any field, e.g. `state="closed"`)."""
        project = self.project(path)
        updated = fields.pop("updated_at", "2026-11-29T10:00:00.000Z")
        item: dict[str, Any] = {
            "id": 90000 + iid,
            "iid": iid,
            "project_id": project["id"],
            "title": f"Fix the parser, part {iid}",
            "description": f"Closes #{iid * 10}.\n\nThe parser dropped trailing commas.",
            "state": "merged",
            "created_at": "2026-11-20T09:00:00.000Z",
            "updated_at": updated,
            "merged_by": _user("maintainer", 3),
            "merge_user": _user("maintainer", 3),
            "merged_at": updated,
            "closed_by": None,
            "closed_at": None,
            "target_branch": "main",
            "source_branch": f"fix-{iid}",
            "user_notes_count": 0,
            "upvotes": 0,
            "downvotes": 0,
            "author": _user("alice", 11),
            "assignees": [],
            "assignee": None,
            "reviewers": [_user("bob", 12)],
            "source_project_id": project["id"],
            "target_project_id": project["id"],
            "labels": ["bug", "parser"],
            "draft": False,
            "work_in_progress": False,
            "milestone": None,
            "merge_when_pipeline_succeeds": False,
            "merge_status": "can_be_merged",
            "detailed_merge_status": "not_open",
            "sha": f"{iid:02d}" + "a" * 38,
            "merge_commit_sha": f"{iid:02d}" + "b" * 38,
            "squash_commit_sha": None,
            "discussion_locked": None,
            "should_remove_source_branch": True,
            "force_remove_source_branch": True,
            "reference": f"!{iid}",
            "references": {"short": f"!{iid}", "relative": f"!{iid}", "full": f"{path}!{iid}"},
            "web_url": f"{WEB}/{path}/-/merge_requests/{iid}",
            "time_stats": {"time_estimate": 0, "total_time_spent": 0},
            "squash": False,
            "task_completion_status": {"count": 0, "completed_count": 0},
            "has_conflicts": False,
            "blocking_discussions_resolved": True,
        }
        item.update(fields)
        project["mrs"].append(item)
        project["notes"].setdefault(iid, [])
        project["diffs"].setdefault(
            iid,
            [
                {
                    "old_path": "src/parser.py",
                    "new_path": "src/parser.py",
                    "a_mode": "100644",
                    "b_mode": "100644",
                    "diff": "@@ -1,2 +1,2 @@\n-items = text.split(',')\n+items = [x for x in text.split(',') if x]\n context\n",
                    "new_file": False,
                    "renamed_file": False,
                    "deleted_file": False,
                    "generated_file": False,
                }
            ],
        )
        return item

    def note(self, path: str, iid: int, ident: int, body: str, **fields: Any) -> dict[str, Any]:
        project = self.project(path)
        item: dict[str, Any] = {
            "id": ident,
            "type": None,
            "body": body,
            "attachment": None,
            "author": _user(fields.pop("username", "bob"), 12),
            "created_at": fields.pop("created_at", "2026-11-28T10:00:00.000Z"),
            "updated_at": "2026-11-28T10:00:00.000Z",
            "system": False,
            "noteable_id": 90000 + iid,
            "noteable_type": "MergeRequest",
            "project_id": project["id"],
            "resolvable": False,
            "confidential": False,
            "internal": False,
            "noteable_iid": iid,
            "commands_changes": {},
        }
        item.update(fields)
        project["notes"].setdefault(iid, []).append(item)
        return item

    def fail(
        self,
        route: str,
        status: int,
        body: bytes,
        times: int = 1,
        headers: dict[str, str] | None = None,
    ) -> None:
        """The next `times` requests whose path contains `route` get this answer."""
        self.failures += [(route, status, headers or {}, body)] * times

    # the API -------------------------------------------------------------------------

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(request.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.requests.append((request.path, {k.lower(): v for k, v in request.headers.items()}))
        for index, (route, status, headers, body) in enumerate(self.failures):
            if route in parts.path:
                del self.failures[index]
                return self.send(request, status, body, headers)
        if request.headers.get("PRIVATE-TOKEN") != self.token:
            return self.send_json(request, 401, {"message": "401 Unauthorized"})
        found = _ROUTE.match(parts.path)
        if not found:
            return self.send_json(request, 404, {"error": "404 Not Found"})
        project = self.projects.get(unquote(found.group(1)))
        if project is None:
            return self.send_json(request, 404, {"message": "404 Project Not Found"})
        iid, what = found.group(2), found.group(3)
        if what is None and not parts.path.endswith("/merge_requests"):
            return self.send_json(request, 200, {"id": project["id"]})
        if what is None:
            items = [m for m in project["mrs"] if m["state"] == query.get("state", m["state"])]
            if "updated_after" in query:
                after = _moment(query["updated_after"])
                items = [m for m in items if _moment(m["updated_at"]) >= after]
            items.sort(key=lambda m: m["updated_at"], reverse=query.get("sort") != "asc")
        elif int(iid) not in project["notes"]:
            return self.send_json(request, 404, {"message": "404 Not found"})
        elif what == "notes":
            items = sorted(project["notes"][int(iid)], key=lambda n: (n["created_at"], n["id"]))
        else:
            items = project["diffs"][int(iid)]
        self.send_page(request, parts.path, query, items)

    def send_page(
        self, request: BaseHTTPRequestHandler, path: str, query: dict[str, str], items: list[Any]
    ) -> None:
        per_page = min(int(query.get("per_page", 20)), 100)
        page = int(query.get("page", 1))
        total_pages = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        following = str(page + 1) if page < total_pages else ""

        def link(number: int) -> str:
            return f"<{self.url}{path}?{urlencode({**query, 'page': number})}>"

        links = [f'{link(page + 1)}; rel="next"'] if following else []
        links += [f'{link(1)}; rel="first"', f'{link(total_pages)}; rel="last"']
        headers = {
            "X-Page": str(page),
            "X-Per-Page": str(per_page),
            "X-Prev-Page": str(page - 1) if page > 1 else "",
            "X-Total": str(len(items)),
            "X-Total-Pages": str(total_pages),
            "Link": ", ".join(links),
        }
        if not self.link_only:
            headers["X-Next-Page"] = following
        self.send(request, 200, json.dumps(chunk).encode(), headers)

    def send_json(self, request: BaseHTTPRequestHandler, status: int, data: Any) -> None:
        self.send(request, status, json.dumps(data).encode(), {})

    def send(
        self, request: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str]
    ) -> None:
        request.send_response(status)
        kind = "text/html" if body.startswith(b"<") else "application/json"
        request.send_header("Content-Type", kind)
        request.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            request.send_header(name, value)
        request.end_headers()
        request.wfile.write(body)
