"""The adversary suite's tools (ARCHITECTURE §6): counterfactual worlds that differ only in a sealed count, the
crawl an adversary makes of each, and the assertions that compare them. The method is described in
tests/contamination/test_adversary.py; the scored runs and the people who crawl are fixtures of conftest.py."""
import html
import re

from django.core.cache import cache
from django.db import connection, transaction
from django.urls import reverse

from leaderboard.benchmarks.sealed_grid import publish
from leaderboard.contamination.models import LadderDecision

BENCH = "mobile-mmlu"
N_TEST = 480  # the demo's sealed split: a 2-point grid, 9 or 10 counts per published value
C0 = 316  # the victim's true sealed count: 65.83 %, published as 66 (counts 312–321)
VICTIM = "victim-org/model"


# --- worlds -------------------------------------------------------------------------------------------------------

class Worlds:
    """Builds worlds in savepoints of the test's transaction and rolls each back, resetting every sequence to the
    state it had before the first world, so each world gets the same primary keys."""

    def __init__(self):
        with connection.cursor() as cursor:
            cursor.execute("SELECT schemaname, sequencename, last_value FROM pg_sequences "
                           "WHERE schemaname = 'public'")
            self.sequences = cursor.fetchall()
        assert self.sequences, "no sequence read: the worlds would not get the same ids"

    def _restore(self):
        with connection.cursor() as cursor:
            for schema, name, last in self.sequences:
                qualified = f'"{schema}"."{name}"'
                if last is None:
                    cursor.execute("SELECT setval(%s::regclass, 1, false)", [qualified])
                else:
                    cursor.execute("SELECT setval(%s::regclass, %s, true)", [qualified, last])

    def observe(self, build, crawl):
        """crawl(build()) in a world of its own: the board's response cache (Redis, outside the transaction) is
        emptied first, and the world's rows and sequence values are gone afterwards."""
        cache.clear()
        try:
            with transaction.atomic():
                context = build()
                seen = crawl(context)
                transaction.set_rollback(True)
        finally:
            self._restore()
        return seen


_VOLATILE = [  # (pattern, replacement): what differs between two builds of the same world, and nothing else
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"), "<timestamp>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "<date>"),
    # the `when` filter: "24 Nov 2026, 14:05 UTC" / "24 Nov 2026"
    (re.compile(r"\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}(?:, \d{2}:\d{2} UTC)?"),
     "<when>"),
    # Django admin: "Nov. 24, 2026, 12:03 p.m.", "May 4, 2026, noon"
    (re.compile(r"\b(?:Jan\.|Feb\.|March|April|May|June|July|Aug\.|Sept\.|Oct\.|Nov\.|Dec\.) \d{1,2}, \d{4}"
                r"(?:, (?:\d{1,2}(?::\d{2})?\s[ap]\.m\.|noon|midnight))?"), "<admin-date>"),
    # relative times: "2\xa0minutes ago", "1\xa0hour, 3\xa0minutes ago", "just now"
    (re.compile(r"\b\d+(?:\s|&nbsp;)(?:year|month|week|day|hour|minute|second)s?"
                r"(?:,(?:\s|&nbsp;)\d+(?:\s|&nbsp;)\w+)?(?:\s|&nbsp;)ago\b"), "<ago>"),
    (re.compile(r"\bjust now\b"), "<ago>"),
    (re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*'), r"\1<csrf>"),
    # lm-eval's results JSON: the scoring time as a Unix timestamp, and the run's duration
    (re.compile(r'("date":\s*)-?\d+(?:\.\d+)?(?:e[+-]?\d+)?'), r"\1<timestamp>"),
    (re.compile(r'("total_evaluation_time_seconds":\s*)"[^"]*"'), r"\1<duration>"),
]


def normalise(text: str) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def _body(response) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode("utf-8", "replace")
    return response.content.decode("utf-8", "replace")


def _get(client, role, url) -> tuple[tuple, str]:
    """What the adversary sees of one fetch, and the raw body (its links)."""
    response = client.get(url)
    assert response.status_code < 500, (role, url, response.status_code)
    body = _body(response)
    return (response.status_code, response.get("Content-Type", ""), response.get("Content-Disposition", ""),
            normalise(body)), body


def fetch(clients, urls) -> dict:
    """(role, url) -> (status, content type, content disposition, normalised body): all the adversary sees."""
    cache.clear()  # the board's cached responses and page data: this world's only
    return {(role, url): _get(clients[role], role, url)[0] for role, url in urls}


_LINK = re.compile(r'href="(/[^"#]*)')


def crawl(clients, seeds, follow, *, depth=2, limit=600) -> dict:
    """fetch() of `seeds` and of the site's pages they link to, as each role follows the links it is shown: a link
    found `depth` or fewer hops from a seed is fetched (once per role) when follow(url, hops) says so. So a view
    added later (a new board, its CSV and API links) is reached through its links without being named here."""
    cache.clear()
    seen, frontier = {}, list(dict.fromkeys(seeds))
    for hops in range(depth + 1):
        found = []
        for role, url in frontier:
            if (role, url) in seen:
                continue
            assert len(seen) < limit, f"the crawl passed {limit} fetches: narrow what it follows"
            seen[(role, url)], body = _get(clients[role], role, url)
            if hops < depth and "html" in seen[(role, url)][1]:
                found += [(role, link) for link in map(html.unescape, _LINK.findall(body))
                          if follow(link, hops + 1)]
        frontier = sorted(set(found) - set(seen))  # the same order in every world with the same links
    return seen


def difference(a: dict, b: dict) -> str:
    """Where two crawls differ: the first few fetches, each with the text around its first difference."""
    out = []
    for key in [k for k in a if a[k] != b.get(k)][:3]:
        (sa, ta, da, ba), (sb, tb, db, bb) = a[key], b.get(key, (None, "", "", ""))
        at = next((i for i, (x, y) in enumerate(zip(ba, bb)) if x != y), min(len(ba), len(bb)))
        out.append(f"{key}: status {sa}/{sb}, {ta}/{tb}, {da}/{db}\n"
                   f"  - …{ba[max(0, at - 150):at + 100]}…\n  + …{bb[max(0, at - 150):at + 100]}…")
    return "\n".join(out)


def consistent_set(observe, counts, truth) -> tuple[set, dict]:
    """The candidate counts whose crawl equals the true world's (the world where the count is `truth`)."""
    seen = {c: observe(c) for c in counts}
    return {c for c, crawl in seen.items() if crawl == seen[truth]}, seen


def assert_indistinguishable(seen: dict):
    """Every crawl in `seen` (count -> crawl) equals the first: the adversary cannot tell the counts apart."""
    first, *others = seen
    for c in others:
        assert seen[c] == seen[first], (f"sealed counts {first} and {c} can be told apart:\n"
                                        + difference(seen[first], seen[c]))


def assert_bin_hidden(observe, *, c0=C0, n=N_TEST, keys=None):
    """(a) the published figure's counts (its ends and c0) are all consistent with the crawl; (b) the counts just
    outside are not. `keys`: also check (b) on this part of the crawl alone (what a route adds)."""
    allowed = publish(c0, n).counts()
    inside = sorted({allowed[0], c0, allowed[-1]})
    outside = [allowed[0] - 1, allowed[-1] + 1]
    assert len(allowed) >= 5 and publish(outside[0], n) != publish(c0, n) != publish(outside[1], n)
    consistent, seen = consistent_set(observe, inside + outside, c0)
    for c in inside:
        assert c in consistent, (f"count {c} publishes as c0 = {c0} does, yet the adversary can tell them apart:\n"
                                 + difference(seen[c0], seen[c]))
    assert not consistent & set(outside), (
        f"the crawl does not see the published figure: counts {sorted(consistent & set(outside))} outside the bin "
        f"{allowed[0]}–{allowed[-1]} look like {c0}")
    if keys is not None:
        for c in outside:
            part = {k: v for k, v in seen[c].items() if k in keys}
            assert part != {k: v for k, v in seen[c0].items() if k in keys}, (
                f"count {c}, outside the bin, is not visible in the route's own views {sorted(keys)}")
    return seen


def _q(url, **params):
    return url + "?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else url


def board_urls():
    """The boards everyone can fetch, JSON and CSV."""
    urls = []
    for split in ("test", "validation"):
        base = _q(reverse("api-leaderboard"), benchmark=BENCH, split=split)
        urls += [base, base + "&format=csv"]
    for name in ("api-contamination", "api-contamination-history"):
        base = _q(reverse(name), benchmark=BENCH)
        urls += [base, base + "&format=csv"]
    return urls


def model_urls(hub_id, run_ids=()):
    """A model's API views (JSON and CSV), its contamination, its runs' lm-eval exports and its page."""
    urls = []
    for name in ("api-model-detail", "api-model-history"):
        base = reverse(name, args=[hub_id])
        urls += [base, base + "?format=csv"]
    urls.append(reverse("api-contamination-model", args=[hub_id]))
    urls += [reverse("api-run-lm-eval", args=[pk]) for pk in run_ids]
    urls.append(reverse("model-detail", args=[hub_id]))
    urls += [_q(reverse("model-detail", args=[hub_id]), run=pk) for pk in run_ids]
    return urls


def page_urls(models=()):
    """The pages: home, both boards, the contamination page, and a comparison of the given models."""
    urls = [reverse("home"), _q(reverse("contamination"), benchmark=BENCH)]
    urls += [_q(reverse("leaderboard"), benchmark=BENCH, split=split) for split in ("test", "validation")]
    if models:
        urls.append(_q(reverse("compare"), models=",".join(models)))
    return urls


def ladder_reason(run_id) -> str:
    """Why the Ladder rule published a sealed run or not: first, gain, no-gain or budget."""
    return LadderDecision.objects.get(candidate_run_id=run_id).reason
