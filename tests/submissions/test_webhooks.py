"""The submitter's webhook cannot turn the trusted worker into a proxy (server-side request forgery): https://
only, checked at submit; every address the host resolves to is checked when it is sent, and the request goes to
that checked address with TLS verified against the host name; no redirects; a bounded answer."""
import ssl

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.evaluations import notices
from leaderboard.evaluations.models import EvaluationRun, RunStatus
from leaderboard.evaluations.notices import WebhookRefused, run_notify, webhook_address_blocked, webhook_post
from leaderboard.submissions.models import Submission


@pytest.fixture
def no_connection(monkeypatch):
    """Records every connection the webhook sender opens (there must be none)."""
    opened = []
    monkeypatch.setattr(notices._PinnedHTTPSConnection, "connect", lambda self: opened.append(self.address))
    return opened


# --- at submit -----------------------------------------------------------------------------------

@pytest.mark.django_db
@pytest.mark.parametrize("url,named", [  # named: the offending part the message must show ("": none to show)
    ("http://hooks.example.com/done", "http://"),
    ("ftp://hooks.example.com/done", "ftp://"),
    ("https://localhost/done", "localhost"),
    ("https://127.0.0.1:8000/done", "127.0.0.1"),
    ("https://10.0.0.5/done", "10.0.0.5"),
    ("https://169.254.169.254/latest/meta-data/", "169.254.169.254"),
    ("https://[::1]/done", "::1"),
    ("https://[fd00:ec2::254]/", "fd00:ec2::254"),
    ("https://user:secret@hooks.example.com/done", ""),
])
def test_it_refuses_a_webhook_that_is_not_https_to_a_public_host_at_submit(client, demo_loaded, fake_hub, snapshot,
                                                                           url, named):
    client.force_login(User.objects.create_user("author", "author@example.com", "pw"))
    before, requests_before = snapshot(), len(fake_hub.requests)
    response = client.post(reverse("api-submissions"), {"hub_id": "demo-org/tiny", "webhook_url": url},
                           content_type="application/json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "INVALID_WEBHOOK" and body["field"] == "webhook_url"
    assert named in body["detail"] and "secret" not in body["detail"]  # a password is never repeated
    assert len(fake_hub.requests) == requests_before and snapshot() == before  # refused before the hub


@pytest.mark.parametrize("url", ["https://2130706433/", "https://0x7f.1/", "https://127.1/"])
def test_ipv4_addresses_in_the_forms_resolvers_accept_are_checked_too(url):
    assert "not a public address" in notices.webhook_url_problem(url)


@pytest.mark.django_db
def test_it_accepts_an_https_webhook(client, demo_loaded, hub_model):
    client.force_login(User.objects.create_user("author", "author@example.com", "pw"))
    response = client.post(reverse("api-submissions"), {"hub_id": "demo-org/tiny",
                                                        "webhook_url": "https://hooks.example.com/done?x=1"},
                           content_type="application/json")
    assert response.status_code == 201, response.content
    assert Submission.objects.get().webhook_url == "https://hooks.example.com/done?x=1"


# --- at send -------------------------------------------------------------------------------------

@pytest.mark.parametrize("address", [
    "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "100.100.100.200",
    "0.0.0.0", "224.0.0.1", "240.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fd00:ec2::254", "fc00::1",
    "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "2002:a00:1::1",
])
def test_non_public_addresses_are_blocked(address):
    assert webhook_address_blocked(address)


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8",
                                     "64:ff9b::808:808"])
def test_public_addresses_are_not(address):
    assert not webhook_address_blocked(address)


def test_a_host_resolving_to_loopback_is_refused_without_a_connection(no_connection):
    with pytest.raises(WebhookRefused, match="not a public host"):
        webhook_post("https://localhost:8443/hook", {"x": 1})  # refused by name before resolving
    assert no_connection == []


@pytest.mark.parametrize("addresses", [
    ["127.0.0.1"], ["10.0.0.7"], ["169.254.169.254"], ["::1"], ["fd00:ec2::254"], ["100.64.12.1"],
    ["93.184.215.14", "10.0.0.7"],  # one bad address among good ones is enough: the name could pick either
])
def test_a_name_resolving_to_a_non_public_address_is_refused_at_send(monkeypatch, no_connection, addresses):
    monkeypatch.setattr(notices, "_resolve", lambda host, port: addresses)
    with pytest.raises(WebhookRefused, match="not a public address"):
        webhook_post("https://hooks.example.com/done", {"x": 1})
    assert no_connection == []


def test_localhost_really_resolving_to_loopback_is_refused_at_send(monkeypatch, no_connection):
    """Past the submit-time check (say the name's addresses changed since), the resolved addresses decide."""
    monkeypatch.setattr(notices, "webhook_url_problem", lambda url: None)
    with pytest.raises(WebhookRefused, match="127.0.0.1|::1"):
        webhook_post("https://localhost/done", {"x": 1})
    assert no_connection == []


@pytest.mark.django_db
def test_run_notify_logs_a_refused_webhook_and_carries_on(author_with_submission, monkeypatch, no_connection,
                                                          caplog):
    submission = author_with_submission
    Submission.objects.filter(pk=submission.pk).update(webhook_url="https://rebound.example.com/hook")
    monkeypatch.setattr(notices, "_resolve", lambda host, port: ["169.254.169.254"])
    EvaluationRun.objects.filter(submission=submission).update(status=RunStatus.SUCCEEDED)
    run_notify(run_id=submission.runs.first().pk)
    assert no_connection == [] and "refused" in caplog.text and "169.254.169.254" in caplog.text


@pytest.fixture
def author_with_submission(demo_loaded, hub_model):
    from leaderboard.hub.ids import ModelRef
    from leaderboard.submissions.services import submission_create

    author = User.objects.create_user("author", "author@example.com", "pw")
    return submission_create(user=author, ref=ModelRef("demo-org/tiny"))


# --- the request itself, against a local TLS server -------------------------------------------

def test_it_posts_to_the_checked_address_with_the_host_name_for_tls_and_host(tls_webhook):
    assert webhook_post(tls_webhook.url("/hook?token=abc"), {"status": "finished"}) == 204
    (request,) = tls_webhook.received
    assert request["path"] == "/hook?token=abc" and request["json"] == {"status": "finished"}
    assert request["headers"]["Host"] == f"{tls_webhook.HOST}:{tls_webhook.port}"
    assert request["headers"]["Content-Type"] == "application/json"
    assert tls_webhook.server_names == [tls_webhook.HOST]  # SNI: the name, though the socket went to 127.0.0.1


def test_it_verifies_the_certificate_against_the_host_name(tls_webhook):
    with pytest.raises(ssl.SSLCertVerificationError):  # the server's certificate is for hooks.example.test
        webhook_post(tls_webhook.url(host="other.example.test"), {"x": 1})
    assert tls_webhook.received == []


def test_it_does_not_follow_a_redirect(tls_webhook):
    tls_webhook.answers["/hook"] = (302, {"Location": tls_webhook.url("/elsewhere")}, b"")
    assert webhook_post(tls_webhook.url("/hook"), {"x": 1}) == 302
    assert [r["path"] for r in tls_webhook.received] == ["/hook"]


def test_it_reads_a_bounded_part_of_the_answer(tls_webhook, monkeypatch):
    read = []
    real_read1 = notices.http.client.HTTPResponse.read1
    monkeypatch.setattr(notices.http.client.HTTPResponse, "read1",
                        lambda self, n=-1: read.append(chunk := real_read1(self, n)) or chunk)
    tls_webhook.answers["/hook"] = (200, {}, b"x" * (1024 * 1024))
    assert webhook_post(tls_webhook.url("/hook"), {"x": 1}) == 200
    assert sum(map(len, read)) == notices.WEBHOOK_MAX_RESPONSE_BYTES


def test_the_sender_waits_at_most_a_few_seconds():
    assert notices.WEBHOOK_TIMEOUT <= 5
