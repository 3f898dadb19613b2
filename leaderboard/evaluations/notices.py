"""Tell the submitter when their submission has finished or failed: e-mail, and a webhook if they gave one.

The webhook is sent from the trusted worker, which reaches the database, the broker and maybe a cloud metadata
service: a URL the submitter chose must not make it a proxy into those (server-side request forgery). So a
webhook is https:// only (checked at submit, submissions/services.py); when it is sent, its host is resolved
and every address it resolves to must be public (webhook_address_blocked); the request then goes to that
checked address (the name is not looked up again), with the hostname as the TLS server name, whose certificate
is verified against it, and as the Host header. One POST, no redirects followed, 5 s per network operation, at
most 64 KB of the answer read.
"""
import http.client
import ipaddress
import json
import logging
import socket
import ssl
import time
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import send_mail
from django.utils import timezone

from leaderboard.submissions.models import Submission

from .models import TERMINAL_STATUSES, EvaluationRun, RunStatus

log = logging.getLogger(__name__)
WEBHOOK_TIMEOUT = 5  # seconds, for each of: connect, TLS handshake, send, each read; and the whole answer
WEBHOOK_MAX_RESPONSE_BYTES = 64 * 1024
WEBHOOK_USER_AGENT = "Mobile-MMLU-Leaderboard-webhook/1"

# Besides what ipaddress calls private, loopback, link-local, multicast, reserved or unspecified (and not
# global): ranges that are not the public internet, cloud metadata endpoints among them.
_BLOCKED_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10",  # 100.64/10: carrier-grade NAT (Alibaba's metadata, 100.100.100.200)
    "127.0.0.0/8", "169.254.0.0/16",  # link-local: 169.254.169.254, the AWS/GCP/Azure metadata service
    "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
    "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
    "::/128", "::1/128", "::/96",  # ::a.b.c.d, the deprecated IPv4-compatible form
    "100::/64", "2001::/23", "2001:db8::/32", "fc00::/7",  # fc00::/7 holds fd00:ec2::254, AWS's IPv6 metadata
    "fe80::/10", "fec0::/10", "ff00::/8", "64:ff9b:1::/48",
))
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # a public IPv4 address reached through NAT64: judged by that


class WebhookRefused(Exception):
    """The webhook URL, or an address its host resolves to, may not be called."""


def webhook_address_blocked(address) -> bool:
    """True unless `address` (text or an ipaddress object) is a public unicast address. An IPv6 address that
    embeds an IPv4 one (::ffff:a.b.c.d, 6to4, NAT64) is judged by the IPv4 address too."""
    ip = ipaddress.ip_address(address.split("%", 1)[0]) if isinstance(address, str) else address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:  # ::ffff:a.b.c.d is a.b.c.d
            return webhook_address_blocked(ip.ipv4_mapped)
        if ip in _NAT64:  # DNS64 on an IPv6-only network: the IPv4 host behind the gateway
            return webhook_address_blocked(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        if ip.sixtofour is not None and webhook_address_blocked(ip.sixtofour):
            return True
    return (not ip.is_global or ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
            or ip.is_reserved or ip.is_unspecified or any(ip in network for network in _BLOCKED_NETWORKS))


def webhook_url_problem(url: str) -> str | None:
    """What is wrong with a webhook URL, without any network request (None: nothing). Refused: anything but
    https://, a user name or password, a bad port, localhost, and an IP address that is not public. A host
    name is resolved and checked when the webhook is sent (its addresses may change)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"it is not a valid URL ({exc})"
    if parts.scheme.lower() != "https":
        return f"it must start with https:// (not {parts.scheme + '://' if parts.scheme else url!r})"
    host = parts.hostname
    if not host:
        return "it names no host"
    if parts.username is not None or parts.password is not None:
        return "it must not hold a user name or password"
    if port == 0:
        return "port 0 cannot be called"
    if host == "localhost" or host.endswith((".localhost", ".localhost.")) or host == "localhost.":
        return f"{host} is this machine, not a public host"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        try:  # the forms resolvers also read as an IPv4 address: 2130706433, 0x7f.1, 127.1
            ip = ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None  # a host name
    if webhook_address_blocked(ip):
        return f"{host} is not a public address"
    return None


def _resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (tests replace this to name a local server)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(info[4][0] for info in infos))


def _tls_context() -> ssl.SSLContext:
    """The system's trusted CAs; the certificate is checked against the webhook's host name (tests replace
    this to trust their own CA)."""
    return ssl.create_default_context()


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to `address` (already checked), with `host` as the TLS server name (SNI and the name the
    certificate must match) and in the Host header: the host name is never resolved again."""

    def __init__(self, host, port, *, address, **kwargs):
        super().__init__(host, port, **kwargs)
        self.address = address

    def connect(self):
        sock = socket.create_connection((self.address, self.port), self.timeout)
        try:
            self.sock = self._context.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise


def webhook_post(url: str, payload: dict) -> int:
    """POST `payload` as JSON to the webhook once; return the answer's HTTP status (a redirect is returned
    as it is, not followed). Raises WebhookRefused before any connection if the URL or any address its host
    resolves to may not be called; OSError or http.client.HTTPException if the call fails."""
    problem = webhook_url_problem(url)
    if problem:
        raise WebhookRefused(problem)
    parts = urlsplit(url)
    host, port = parts.hostname, parts.port or 443
    deadline = time.monotonic() + WEBHOOK_TIMEOUT
    try:
        addresses = _resolve(host, port)
    except (OSError, UnicodeError) as exc:
        raise WebhookRefused(f"{host} does not resolve ({exc})") from None
    blocked = [address for address in addresses if webhook_address_blocked(address)]
    if blocked or not addresses:
        raise WebhookRefused(f"{host} resolves to {', '.join(blocked) or 'no address'}, not a public address")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    connection = _PinnedHTTPSConnection(host, port, address=addresses[0], timeout=WEBHOOK_TIMEOUT,
                                        context=_tls_context())
    try:
        connection.request("POST", path, body=json.dumps(payload).encode(), headers={
            "Content-Type": "application/json", "User-Agent": WEBHOOK_USER_AGENT, "Connection": "close"})
        response = connection.getresponse()
        left = WEBHOOK_MAX_RESPONSE_BYTES  # read a bounded part of the answer, then hang up
        while left > 0 and time.monotonic() < deadline:
            chunk = response.read1(min(left, 16 * 1024))
            if not chunk:
                break
            left -= len(chunk)
        return response.status
    finally:
        connection.close()


def run_notify(*, run_id: int):
    run = EvaluationRun.objects.select_related("submission__submitter", "submission__model").get(pk=run_id)
    submission = run.submission
    if submission is None:
        return
    runs = list(submission.runs.all())
    if any(r.status not in TERMINAL_STATUSES for r in runs):
        return  # notify once, when the whole submission is done
    # Claim the notice: exactly one task sends it even if several runs finish together.
    if not Submission.objects.filter(pk=submission.pk, notified_at__isnull=True).update(notified_at=timezone.now()):
        return
    failed = [r for r in runs if r.status != RunStatus.SUCCEEDED]
    outcome = "failed" if failed else "finished"
    url = f"{settings.SITE_URL}/submissions/{submission.pk}/"
    lines = [f"Your submission of {submission.model.hub_id} ({submission.revision_sha[:12]}) has {outcome}.", url]
    for r in failed:
        lines.append(f"- {r.get_split_display()} run {r.pk}: {r.failure_code or r.status}. {r.failure_reason}")
    if submission.submitter.email:
        send_mail(f"[Mobile-MMLU Leaderboard] {submission.model.hub_id}: {outcome}", "\n".join(lines),
                  settings.DEFAULT_FROM_EMAIL, [submission.submitter.email])
    if submission.webhook_url:
        payload = {"submission": submission.pk, "model": submission.model.hub_id, "status": outcome, "url": url,
                   "runs": [{"id": r.pk, "split": r.split, "status": r.status, "failure_code": r.failure_code}
                            for r in runs]}
        try:
            status = webhook_post(submission.webhook_url, payload)
        except WebhookRefused as exc:
            log.warning("webhook for submission %s refused: %s", submission.pk, exc)
        except (OSError, http.client.HTTPException, ValueError) as exc:  # a dead webhook must not fail the run
            log.warning("webhook for submission %s failed: %s", submission.pk, exc)
        else:
            if not 200 <= status < 300:
                log.warning("webhook for submission %s answered HTTP %s%s", submission.pk, status,
                            " (redirects are not followed)" if 300 <= status < 400 else "")
