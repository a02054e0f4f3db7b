"""kbkit.vcs.gitlab against a local GitLab stand-in (tests/gitlab_stand_in.py): paths,
pagination, the token, and GitLab's error shapes as the environment's (exit 4)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kbkit.infra.errors import UsageError
from kbkit.vcs.gitlab import (
    Client,
    GitLabError,
    GitLabUnavailable,
    base_url,
    project_id,
)
from tests.gitlab_stand_in import TOKEN, StandIn

PATH = "group/subgroup/project"
MRS = f"projects/{project_id(PATH)}/merge_requests"


@pytest.fixture
def gitlab() -> Iterator[StandIn]:
    server = StandIn()
    yield server
    server.close()


def client(server: StandIn, token: str | None = TOKEN) -> tuple[Client, list[float]]:
    slept: list[float] = []
    return Client(server.url, token, pause=0.5, sleep=slept.append), slept


def test_a_nested_path_is_one_url_encoded_segment() -> None:
    assert project_id("group/subgroup/project") == "group%2Fsubgroup%2Fproject"
    assert project_id("a.b/c-d/e_f") == "a.b%2Fc-d%2Fe_f"


def test_pages_follow_x_next_page_100_at_a_time(gitlab: StandIn) -> None:
    for iid in range(1, 206):
        gitlab.merge_request(PATH, iid)
    api, _ = client(gitlab)
    items, pages, ended = api.pages(MRS, {"state": "merged"}, cap=10)
    assert (len(items), pages, ended) == (205, 3, True)
    assert sorted(item["iid"] for item in items) == list(range(1, 206))
    asked = [path for path, _ in gitlab.requests]
    assert all("per_page=100" in path and f"/{MRS}?" in path for path in asked)
    assert [path.rsplit("page=", 1)[1] for path in asked] == ["1", "2", "3"]


def test_pages_follow_the_link_header_when_x_next_page_is_missing(gitlab: StandIn) -> None:
    gitlab.link_only = True
    for iid in range(1, 151):
        gitlab.merge_request(PATH, iid)
    items, pages, ended = client(gitlab)[0].pages(MRS, {}, cap=10)
    assert (len(items), pages, ended) == (150, 2, True)


def test_a_page_cap_says_the_list_did_not_end(gitlab: StandIn) -> None:
    for iid in range(1, 206):
        gitlab.merge_request(PATH, iid)
    items, pages, ended = client(gitlab)[0].pages(MRS, {}, cap=2)
    assert (len(items), pages, ended) == (200, 2, False)


def test_the_token_travels_in_the_private_token_header(gitlab: StandIn) -> None:
    gitlab.merge_request(PATH, 1)
    client(gitlab)[0].page(MRS, {})
    headers = gitlab.requests[0][1]
    assert headers["private-token"] == TOKEN


def test_401_is_the_environment_and_names_the_token_variable(gitlab: StandIn) -> None:
    gitlab.merge_request(PATH, 1)
    api, slept = client(gitlab, token="wrong")
    with pytest.raises(GitLabUnavailable) as caught:
        api.page(MRS, {})
    assert caught.value.exit_code == 4
    assert "GitLab said: 401 Unauthorized (HTTP 401)" in str(caught.value)
    assert "KBKIT_GITLAB_TOKEN" in str(caught.value) and "wrong" not in str(caught.value)
    assert (api.calls, slept) == (1, [])  # credentials do not get better by asking again


def test_404_project_not_found_is_the_environment(gitlab: StandIn) -> None:
    api, _ = client(gitlab)
    with pytest.raises(GitLabUnavailable) as caught:
        api.page(f"projects/{project_id('nobody/nothing')}/merge_requests", {})
    assert caught.value.exit_code == 4
    assert "GitLab said: 404 Project Not Found (HTTP 404)" in str(caught.value)
    assert api.calls == 1


def test_429_waits_for_retry_after_then_reads_the_page(gitlab: StandIn) -> None:
    gitlab.merge_request(PATH, 1)
    gitlab.fail("/merge_requests", 429, b'{"message":"429 Too Many Requests"}',
                headers={"Retry-After": "3"})  # fmt: skip
    api, slept = client(gitlab)
    page = api.page(MRS, {})
    assert [item["iid"] for item in page.items] == [1]
    assert (api.calls, slept) == (2, [3.0])


def test_a_retry_after_longer_than_a_minute_is_not_waited_out(gitlab: StandIn) -> None:
    gitlab.fail("/merge_requests", 429, b'{"message":"429 Too Many Requests"}',
                headers={"Retry-After": "3600"})  # fmt: skip
    api, slept = client(gitlab)
    with pytest.raises(GitLabUnavailable, match="rate limit is exhausted"):
        api.page(MRS, {})
    assert slept == []


def test_5xx_html_pages_are_retried_then_reported_by_status(gitlab: StandIn) -> None:
    page = b"<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>"
    gitlab.fail("/merge_requests", 502, page, times=3)
    api, slept = client(gitlab)
    with pytest.raises(GitLabUnavailable) as caught:
        api.page(MRS, {})
    message = str(caught.value)
    assert caught.value.exit_code == 4
    assert "GitLab failed: HTTP 502; retry later" in message and "<" not in message
    assert (api.calls, slept) == (3, [0.5, 1.0])


def test_one_5xx_then_success_reads_the_page(gitlab: StandIn) -> None:
    gitlab.merge_request(PATH, 4)
    gitlab.fail("/merge_requests", 503, b"<html>down for maintenance</html>")
    api, _ = client(gitlab)
    assert [item["iid"] for item in api.page(MRS, {}).items] == [4]


def test_a_400_is_not_retried_and_is_not_the_environment(gitlab: StandIn) -> None:
    gitlab.fail("/merge_requests", 400, b'{"message":{"updated_after":["is invalid"]}}')
    api, slept = client(gitlab)
    with pytest.raises(GitLabError) as caught:
        api.page(MRS, {})
    assert caught.value.exit_code == 1 and "updated_after" in str(caught.value)
    assert slept == []


def test_no_answer_is_the_environment(gitlab: StandIn) -> None:
    url = gitlab.url
    gitlab.close()
    api = Client(url, TOKEN, pause=0, sleep=lambda _: None)
    with pytest.raises(GitLabUnavailable, match="could not be reached"):
        api.get(MRS)
    assert api.calls == 3


def test_the_base_url_is_https_or_this_machine() -> None:
    assert base_url({}) == "https://gitlab.com"
    assert base_url({"KBKIT_GITLAB_URL": "https://git.example.org/"}) == "https://git.example.org"
    assert base_url({"KBKIT_GITLAB_URL": "http://127.0.0.1:8080"}) == "http://127.0.0.1:8080"
    with pytest.raises(UsageError, match="unencrypted"):
        base_url({"KBKIT_GITLAB_URL": "http://git.example.org"})
    with pytest.raises(UsageError, match="not a URL"):
        base_url({"KBKIT_GITLAB_URL": "git.example.org"})
