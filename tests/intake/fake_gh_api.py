"""A fake `gh api` for tests, answering as gh 2.23 does.

Success: the pages of the endpoint printed back to back (`--paginate` concatenates arrays as
`[...][...]`), exit 0. An endpoint ending in `page=N` answers page N alone; with `-i` the
answer starts with the status line and a `Link` header naming the next and last pages, as
GitHub sends it. An HTTP error: GitHub's error object on stdout, `gh: MESSAGE (HTTP N)`
on stderr, exit 1 — after the pages already fetched were printed, as gh does when a later
page fails. Only the flags kbkit uses are accepted. State file ($FAKE_GH_STATE):
{"routes": {"ENDPOINT": {"pages": [[...], ...], "fail_after": N, "status": 502,
 "message": "..."}}, "rate_limit_reset": 1796000000, "posted": [], "calls": []}
"""

import json
import os
import sys

SINGLE = {"--paginate", "-i", "--include"}
VALUED = {"-H", "-X", "-f", "--method"}


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
            if args[i] == "-f":
                name, _, value = args[i + 1].partition("=")
                fields[name] = value
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
    if "method=POST" in flags:
        state.setdefault("posted", []).append({"endpoint": endpoint, **fields})
        print(json.dumps({"id": len(state["posted"]), "body": fields.get("body", "")}))
        return 0
    base, _, number = endpoint.rpartition("&page=")
    page_number = int(number) if base and number.isdigit() else None
    route = state["routes"].get(base if page_number else endpoint)
    if route is None and base.endswith("per_page=1") and page_number:  # one item a page
        every = state["routes"].get(base[: -len("1")] + "100")
        if every is not None:
            items = [item for page in every.get("pages", []) for item in page]
            print("HTTP/2.0 200 OK")
            if len(items) > 1:
                print(f'Link: <https://api.github.com/{base}&page=2>; rel="next", '
                      f'<https://api.github.com/{base}&page={len(items)}>; rel="last"')  # fmt: skip
            print()
            print(json.dumps(items[:1]))
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
    if page_number is not None:
        every = pages
        pages = pages[page_number - 1 : page_number] or [[]]
        failing = "status" in route and route.get("fail_after", 0) < page_number
        if failing:
            pages, route = [], {**route, "fail_after": 0}  # this page is the failing one
        else:
            route = {k: v for k, v in route.items() if k not in ("status", "fail_after")}
        if ("-i" in flags or "--include" in flags) and not failing:
            print("HTTP/2.0 200 OK")
            links = []
            if page_number < len(every):
                links.append(f'<https://api.github.com/{base}&page={page_number + 1}>; rel="next"')
                links.append(f'<https://api.github.com/{base}&page={len(every)}>; rel="last"')
            if links:
                print("Link: " + ", ".join(links))
            print("Content-Type: application/json; charset=utf-8")
            print()
    elif "--paginate" not in flags:
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


if __name__ == "__main__":
    raise SystemExit(main())
