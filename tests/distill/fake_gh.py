"""A fake `gh` for tests: PR state in a JSON file, answers in GitHub's real JSON shapes.

It accepts only the flags gh 2.23 has for the subcommands kbkit uses, and refuses anything
else, so a typo'd or newer flag fails the test. State file ($FAKE_GH_STATE):
{"repos": {"owner/name": "/path/to/bare.git"}, "prs": [...], "fail": {"pr create": "msg"}}
"""

import json
import os
import subprocess
import sys

FLAGS = {
    ("pr", "list"): {"--repo", "--head", "--state", "--limit", "--json"},
    ("pr", "create"): {"--repo", "--head", "--base", "--title", "--body-file"},
    ("pr", "view"): {"--repo", "--json"},
    ("pr", "comment"): {"--repo", "--body-file"},
    ("pr", "edit"): {"--repo", "--body-file"},
}


def tip(path: str, branch: str) -> str | None:
    out = subprocess.run(
        ["git", "-C", path, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return out or None


def main() -> int:
    state_file = os.environ["FAKE_GH_STATE"]
    with open(state_file) as handle:
        state = json.load(handle)
    args = sys.argv[1:]
    command = tuple(args[:2])
    if command not in FLAGS:
        print(f"unknown command {' '.join(command)!r}", file=sys.stderr)
        return 1
    positional, flags = [], {}
    rest = args[2:]
    i = 0
    while i < len(rest):
        if rest[i].startswith("--"):
            if rest[i] not in FLAGS[command]:
                print(f"unknown flag: {rest[i]}", file=sys.stderr)
                return 1
            flags[rest[i]] = rest[i + 1]
            i += 2
        else:
            positional.append(rest[i])
            i += 1
    failure = state.get("fail", {}).get(" ".join(command))
    if failure:
        print(failure, file=sys.stderr)
        return 1
    repo = flags["--repo"]
    prs = [pr for pr in state["prs"] if pr["repo"] == repo]
    if command == ("pr", "list"):
        found = []
        for pr in prs:
            if pr["headRefName"] != flags["--head"]:
                continue
            if flags.get("--state", "open") != "all" and pr["state"] != "OPEN":
                continue
            shown = dict(pr)
            if pr["state"] == "OPEN":  # an open PR follows its head branch
                shown["headRefOid"] = tip(state["repos"][pr["headRepo"]], pr["headRefName"])
            found.append({field: shown.get(field) for field in flags["--json"].split(",")})
        print(json.dumps(sorted(found, key=lambda p: -p["number"])))
        return 0
    if command == ("pr", "create"):
        owner, _, branch = flags["--head"].partition(":")
        head_repo = next((s for s in state["repos"] if s.split("/")[0] == owner), None)
        if head_repo is None or tip(state["repos"][head_repo], branch) is None:
            print(f"pull request create failed: Head sha can't be blank, Head ref {branch!r} is invalid", file=sys.stderr)  # fmt: skip
            return 1
        if any(p["state"] == "OPEN" and p["headRefName"] == branch for p in prs):
            print(f'a pull request for branch "{flags["--head"]}" into branch "{flags["--base"]}" already exists', file=sys.stderr)  # fmt: skip
            return 1
        number = len(state["prs"]) + 1
        with open(flags["--body-file"]) as handle:
            body = handle.read()
        url = f"https://github.com/{repo}/pull/{number}"
        state["prs"].append(
            {
                "repo": repo,
                "number": number,
                "url": url,
                "state": "OPEN",
                "title": flags["--title"],
                "body": body,
                "baseRefName": flags["--base"],
                "headRefName": branch,
                "headRepo": head_repo,
                "headRefOid": None,
                "headRepositoryOwner": {"id": "U_1", "login": owner},
                "createdAt": "2026-11-30T06:00:00Z",
                "comments": [],
            }
        )
        print(url)
    elif command == ("pr", "view"):
        pr = next(p for p in prs if p["number"] == int(positional[0]))
        print(json.dumps({f: pr.get(f) for f in flags["--json"].split(",")}))
        return 0
    elif command == ("pr", "edit"):
        pr = next(p for p in prs if p["number"] == int(positional[0]))
        with open(flags["--body-file"]) as handle:
            pr["body"] = handle.read()
        print(pr["url"])
    elif command == ("pr", "comment"):
        pr = next(p for p in prs if p["number"] == int(positional[0]))
        with open(flags["--body-file"]) as handle:
            pr["comments"].append({"author": {"login": "bot"}, "body": handle.read()})
        print(f"{pr['url']}#issuecomment-{len(pr['comments'])}")
    with open(state_file, "w") as handle:
        json.dump(state, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
