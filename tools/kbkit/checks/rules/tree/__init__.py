"""The tree family: structure and registration, links, size, sensitive and dangerous text,
incidents, duplicates and the entry page (`kb check-knowledge-tree`).

Each rule of the family is declared here, once; the modules beside this one hold the checks
that report them (`structure`, `links`, `size`, `secrets`, `danger`, `incidents`, `repo`).
The declarations import nothing of the checks, so any module can name a rule.
"""

from __future__ import annotations

from kbkit.rulebook.findings import ERROR, WARNING
from kbkit.rulebook.rule import Rule

ROOT_MISSING = Rule(
    "tree/root-missing",
    ERROR,
    "a configured root folder is missing",
    why="the policy promises these root folders; a fresh clone must have them",
    fix="create the root folder with an _index.md (git does not keep empty folders)",
    example="policy.yaml: `roots: [general, repos]`, and `knowledge/repos/` does not exist",
)
INDEX_MISSING = Rule(
    "tree/index-missing",
    ERROR,
    "a folder with pages has no _index.md",
    why="every folder with pages is entered through its _index.md",
    fix="add an _index.md that links each page and sub-folder of the folder",
    example="knowledge/ops/deploy.md exists, knowledge/ops/_index.md does not",
)
PAGE_UNREGISTERED = Rule(
    "tree/page-unregistered",
    ERROR,
    "a page is not registered: not linked from its folder's _index.md, or not listed in the site's navigation",
    why="a page its folder's index does not link is invisible from the top",
    fix="add one link to the page in its folder's _index.md",
    example="knowledge/ops/deploy.md, while knowledge/ops/_index.md has no link to deploy.md",
    fixable=True,
)
PAGE_REGISTERED_TWICE = Rule(
    "tree/page-registered-twice",
    ERROR,
    "a page is linked more than once from its _index.md",
    why="an index lists each page once",
    fix="remove the extra link (the finding names its line)",
    example="- [Deploy](deploy.md)\n- [Deploying](deploy.md)",
)
CHILD_UNREGISTERED = Rule(
    "tree/child-unregistered",
    ERROR,
    "a sub-folder's _index.md is not linked from the parent index",
    why="a sub-folder its parent does not link is invisible from the top",
    fix="link `child/_index.md` from the parent folder's _index.md",
    example="knowledge/ops/db/_index.md, while knowledge/ops/_index.md has no link to db/_index.md",
    fixable=True,
)
CHILD_REGISTERED_TWICE = Rule(
    "tree/child-registered-twice",
    ERROR,
    "a sub-folder's _index.md is linked more than once",
    why="an index lists each sub-folder once so the tree reads as a tree",
    fix="remove the extra link to the sub-folder's _index.md",
    example="- [Databases](db/_index.md)\n- [DB](db/_index.md)",
)
TOO_MANY_PAGES = Rule(
    "tree/too-many-pages",
    WARNING,
    "an ordinary folder holds more pages than the fan-out limit",
    why="a folder with too many pages stops being browsable",
    fix="group the pages into sub-folders",
    example="a plain folder holding more pages than `limits.fanout`",
)
GROUP_TOO_LARGE = Rule(
    "tree/group-too-large",
    ERROR,
    "a group folder holds more pages than its limit",
    why="a group folder past its limit stops being browsable",
    fix="split the folder into sub-folders",
    example="a group folder holding more pages than its group limit",
)
OWNER_NESTED = Rule(
    "tree/owner-nested",
    ERROR,
    "an owner axis folder is nested too deep",
    why="owner axes sit directly under repos/<repo>/ so ownership has one place",
    fix="move the folder up to repos/<repo>/",
    example="knowledge/repos/app/components/api/models/  (an owner axis below another owner axis)",
)
OWNER_GUIDES = Rule(
    "tree/owner-guides",
    ERROR,
    "an owner folder holds guides",
    why="owner folders hold rules and architecture; guides live under work topics",
    fix="move the folder to the repository's topic guides",
    example="knowledge/repos/app/components/api/guides/",
)

LINK_ABSOLUTE = Rule(
    "tree/link-absolute",
    ERROR,
    "a link uses an absolute path",
    why="absolute paths break in every other checkout",
    fix="write the link relative to the page",
    example="See [deploy](/home/ann/kb/ops/deploy.md).",
)
LINK_BROKEN = Rule(
    "tree/link-broken",
    ERROR,
    "a relative link points to nothing",
    why="a broken link is a dead end for readers and agents (and for a fresh clone)",
    fix="fix the path, add (and stage) the missing page, or remove the link",
    example="See [deploy](../ops/deploy.md).  (no such page)",
)
LINK_ANCHOR = Rule(
    "tree/link-anchor",
    ERROR,
    "a link's #fragment names no heading of its page",
    why="a link to a heading that no longer exists lands readers at the top of a long page",
    fix="link an existing heading (GitHub slug: lowercase, punctuation dropped, spaces to `-`) or add an anchor",
    example="See [rollback](deploy.md#rolling-back).  (deploy.md has no such heading)",
)

PAGE_TOO_LARGE = Rule(
    "tree/page-too-large",
    ERROR,
    "a page is past the split limit",
    why="long pages are skimmed, not read, and cost prompt budget",
    fix="split the page by topic and link the parts from the index",
    example="a page longer than `limits.split_lines` lines or `limits.split_bytes` bytes",
)
PAGE_NEAR_LIMIT = Rule(
    "tree/page-near-limit",
    WARNING,
    "a page is close to the split limit",
    why="a page close to the split limit will soon need splitting",
    fix="plan a split, or mark the page with the policy's no-split marker in its index",
    example="a page within a few lines of the split limit",
)

SECRET_IP = Rule(
    "tree/secret-ip",
    ERROR,
    "an IP address that is not loopback",
    why="the tree is shared and copied into prompts: machine details leak with it",
    fix="replace the address with a placeholder or a documentation range (192.0.2.0/24)",
    example="The build host is 10.20.30.40.",
)
SECRET_WINDOWS_HOME = Rule(
    "tree/secret-windows-home",
    ERROR,
    "a Windows or macOS home folder path",
    why="the tree is shared and copied into prompts: machine details leak with it",
    fix="write `C:\\Users\\<name>` (a placeholder) or a relative path",
    example="Logs are in C:\\Users\\ann\\AppData\\Local\\build.",
)
SECRET_REMOTE_HOME = Rule(
    "tree/secret-remote-home",
    ERROR,
    "a /home/<user> or /data/<user> path",
    why="the tree is shared and copied into prompts: machine details leak with it",
    fix="write `/home/<user>` or a path relative to the project",
    example="Copy the model from /home/ann/models/.",
)
SECRET_PRIVATE_KEY = Rule(
    "tree/secret-private-key",
    ERROR,
    "a private key block",
    why="the tree is shared and copied into prompts: machine details leak with it",
    fix="delete the key from the page and rotate it: it is in the git history now",
    example="-----BEGIN OPENSSH PRIVATE KEY-----",
)
SECRET_TOKEN = Rule(
    "tree/secret-token",
    ERROR,
    "a credential token (GitHub, AWS, Stripe, Slack, ...: the families lessons are redacted for)",
    why="a token in a page is a live credential for anyone who reads or clones the tree",
    fix="remove the token, then revoke or rotate it (it stays in the git history); write a stand-in such as `ghp_EXAMPLE` or `<your-token>` in documentation",
    example="export GITHUB_TOKEN=ghp_<36 letters and digits>",
)

DANGER_TEXT = Rule(
    "tree/danger-text",
    ERROR,
    "a dangerous operation named in text",
    why="the tree must not teach unsafe practice (disabled host checks, grabbing all GPUs)",
    fix="remove the instruction, or state it as a prohibition in a must-not bullet",
    example="If the host key changed, set StrictHostKeyChecking=no.",
)
DANGER_CODE = Rule(
    "tree/danger-code",
    ERROR,
    "a dangerous command inside code",
    why="readers copy and run code blocks; a mass kill or forced recursive delete does damage",
    fix="name the exact process or path, or move the command into a must-not bullet",
    example="```sh\nsudo rm -rf --no-preserve-root /\n```",
)

INCIDENT_NAME = Rule(
    "tree/incident-name",
    ERROR,
    "an incident page name is not YYYY-MM-DD-name.md",
    why="incident pages sort by date in their name",
    fix="rename the page to YYYY-MM-DD-<slug>.md with a real date",
    example="knowledge/incidents/deploy-outage.md  (no YYYY-MM-DD- prefix)",
)
INCIDENT_FIELD = Rule(
    "tree/incident-field",
    ERROR,
    "an incident page lacks a required field",
    why="incident pages are evidence; their fields are read mechanically",
    fix="add the field as an exact bullet line with a value",
    example="- ID: `inc-a`\n- Owner:\n- State: verified  (Owner has no value; Scope and Search terms are missing)",
)
INCIDENT_STATE = Rule(
    "tree/incident-state",
    ERROR,
    "an incident state is not one of the allowed states",
    why="incident states are compared exactly",
    fix="use exactly one of the policy's incident states",
    example="- State: kinda-fixed",
)
INCIDENT_ID_DUPLICATE = Rule(
    "tree/incident-id-duplicate",
    ERROR,
    "two incident pages share an id",
    why="incident ids are cited as evidence; one id must mean one incident",
    fix="give the later incident a new id",
    example="two incident pages that both say - ID: `inc-7`",
)

DUPLICATE_PAGE = Rule(
    "tree/duplicate-page",
    ERROR,
    "two pages have the same text",
    why="two copies of a page drift apart; readers cannot tell which is true",
    fix="keep one page and link to it from the other place",
    example="knowledge/ops/deploy.md and knowledge/old/deploy-copy.md with the same text",
)
LOCAL_TRACKED = Rule(
    "tree/local-tracked",
    ERROR,
    "a file under local/ is tracked by git",
    why="local/ holds machine-specific notes that must never be committed",
    fix="`git rm --cached` the file and keep it untracked",
    example="knowledge/local/my-notes.md committed to git",
)
ENTRY_TOO_LONG = Rule(
    "tree/entry-too-long",
    ERROR,
    "the contributor entry page is too long",
    why="the entry page is read first by every contributor and agent; it must stay short",
    fix="move detail into linked pages",
    example="an entry page (the contributor's first read) longer than its limit",
)

RULES = (
    ROOT_MISSING,
    INDEX_MISSING,
    PAGE_UNREGISTERED,
    PAGE_REGISTERED_TWICE,
    CHILD_UNREGISTERED,
    CHILD_REGISTERED_TWICE,
    TOO_MANY_PAGES,
    GROUP_TOO_LARGE,
    OWNER_NESTED,
    OWNER_GUIDES,
    LINK_ABSOLUTE,
    LINK_BROKEN,
    LINK_ANCHOR,
    PAGE_TOO_LARGE,
    PAGE_NEAR_LIMIT,
    SECRET_IP,
    SECRET_WINDOWS_HOME,
    SECRET_REMOTE_HOME,
    SECRET_PRIVATE_KEY,
    SECRET_TOKEN,
    DANGER_TEXT,
    DANGER_CODE,
    INCIDENT_NAME,
    INCIDENT_FIELD,
    INCIDENT_STATE,
    INCIDENT_ID_DUPLICATE,
    DUPLICATE_PAGE,
    LOCAL_TRACKED,
    ENTRY_TOO_LONG,
)
