"""A fake `gh api` for tests, answering as gh 2.23 does.

Success: the pages of the endpoint printed back to back (`--paginate` concatenates arrays as
`[...][...]`), exit 0. An HTTP error: GitHub's error object on stdout, `gh: MESSAGE (HTTP N)`
on stderr, exit 1 — after the pages already fetched were printed, as gh does when a later
page fails. Only the flags kbkit uses are accepted. State file ($FAKE_GH_STATE):
{"routes": {"ENDPOINT": {"pages": [[...], ...], "fail_after": N, "status": 502,
 "message": "..."}}, "rate_limit_reset": 1796000000, "posted": [], "calls": []}

A route may instead hold a whole list (`{"items": [...]}`): then `ENDPOINT?per_page=P&page=N`
answers that page of it, as GitHub does (an empty array past the end), and a route with
`status` answers every page with that error. `gh api graphql` answers the review-threads
query from {"threads": {"OWNER/NAME#N": [{"root": ID, "isResolved": B, "isOutdated": B}]}},
100 a page with `endCursor`/`after`, in GitHub's response shape; a PR it does not hold is
GraphQL's NOT_FOUND error (exit 1, `gh: Could not resolve ...`).
"""

import json
import os
import sys

SINGLE = {"--paginate"}
VALUED = {"-H", "-X", "-f", "-F", "--method"}


def main() -> int:
    state_file = os.environ["FAKE_GH_STATE"]
    with open(state_file) as handle:
        state = json.load(handle)
    args = sys.argv[1:]
    if args[:1] != ["api"]:
        print(f"unknown command {' '.join(args[:2])!r}", file=sys.stderr)
        return 1
    flags, fields, positional = set(), {}, []
    i = 1
    while i < len(args):
        if args[i] in SINGLE:
            flags.add(args[i])
            i += 1
        elif args[i] in VALUED:
            if args[i] in ("-f", "-F"):
                name, _, value = args[i + 1].partition("=")
                fields[name] = int(value) if args[i] == "-F" and value.isdigit() else value
            elif args[i] in ("-X", "--method"):
                flags.add(f"method={args[i + 1]}")
            i += 2
        elif args[i].startswith("-"):
            print(f"unknown flag: {args[i]}", file=sys.stderr)
            return 1
        else:
            positional.append(args[i])
            i += 1
    endpoint = positional[0]
    if endpoint == "graphql":
        variables = sorted((k, v) for k, v in fields.items() if k != "query")
        state.setdefault("calls", []).append(
            "graphql?" + "&".join(f"{k}={v}" for k, v in variables)
        )
    else:
        state.setdefault("calls", []).append(endpoint)
    try:
        return answer(state, endpoint, flags, fields)
    finally:
        with open(state_file, "w") as handle:
            json.dump(state, handle, indent=1)


def answer(state: dict, endpoint: str, flags: set, fields: dict) -> int:
    if endpoint == "rate_limit":
        reset = state.get("rate_limit_reset", 1796000000)
        print(json.dumps({"resources": {"core": {"limit": 5000, "remaining": 0, "reset": reset}}}))
        return 0
    if endpoint == "graphql":
        return graphql(state, fields)
    if "method=POST" in flags:
        state.setdefault("posted", []).append({"endpoint": endpoint, **fields})
        print(json.dumps({"id": len(state["posted"]), "body": fields.get("body", "")}))
        return 0
    route = state["routes"].get(endpoint)
    base, _, query = endpoint.partition("?")
    params = dict(part.partition("=")[::2] for part in query.split("&") if part)
    if route is None and "page" in params:
        listed = state["routes"].get(base)
        if listed is not None and "items" in listed:
            if "status" in listed:
                route = listed
            else:
                size, number = int(params.get("per_page", 30)), int(params["page"])
                page = listed["items"][(number - 1) * size : number * size]
                sys.stdout.write(json.dumps(page) + "\n")
                return 0
    if route is None:
        print(
            json.dumps(
                {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}
            )
        )
        print("gh: Not Found (HTTP 404)", file=sys.stderr)
        return 1
    pages = route.get("pages", [])
    if "--paginate" not in flags:
        pages = pages[:1]
    fail_after = route.get("fail_after", 0 if "status" in route else None)
    shown = pages if fail_after is None else pages[:fail_after]
    for page in shown:
        sys.stdout.write(json.dumps(page) if not isinstance(page, str) else page)
    if fail_after is not None:
        message = route.get("message", "Server Error")
        sys.stdout.write(
            json.dumps({"message": message, "documentation_url": "https://docs.github.com/rest"})
        )
        print(f"gh: {message} (HTTP {route.get('status', 502)})", file=sys.stderr)
        return 1
    sys.stdout.write("\n")
    return 0


def graphql(state: dict, fields: dict) -> int:
    """GitHub's answer to the review-threads query (the only GraphQL kbkit sends)."""
    if "reviewThreads" not in fields.get("query", ""):
        print(json.dumps({"errors": [{"message": "unknown query"}]}))
        print("gh: unknown query", file=sys.stderr)
        return 1
    key = f"{fields['owner']}/{fields['name']}#{fields['number']}"
    threads = state.get("threads", {}).get(key)
    if threads is None:
        message = f"Could not resolve to a PullRequest with the number of {fields['number']}."
        print(json.dumps({"data": {"repository": {"pullRequest": None}},
                          "errors": [{"type": "NOT_FOUND", "path": ["repository", "pullRequest"],
                                      "message": message}]}))  # fmt: skip
        print(f"gh: {message}", file=sys.stderr)
        return 1
    start = int(str(fields.get("after") or "cursor:0").split(":")[1])
    page = threads[start : start + 100]
    nodes = [
        {"isResolved": t["isResolved"], "isOutdated": t.get("isOutdated", False),
         "comments": {"nodes": [{"databaseId": t["root"]}] if t.get("root") else []}}
        for t in page
    ]  # fmt: skip
    info = {"hasNextPage": start + 100 < len(threads), "endCursor": f"cursor:{start + len(page)}"}
    answer = {"data": {"repository": {"pullRequest": {"reviewThreads": {"pageInfo": info,
                                                                         "nodes": nodes}}}}}  # fmt: skip
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
