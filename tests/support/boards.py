"""Reading a board as it is once current: after a published run the first reader may be given the previous board,
marked X-Board-Updating, while it is recomputed (stale-while-revalidate: leaderboard/core/cache_generation.py)."""


def current(client, url, params=None):
    """GET url; once more when the answer was a board being recomputed, which then must be current."""
    response = client.get(url, params or {})
    if response.get("X-Board-Updating"):
        response = client.get(url, params or {})
        assert not response.get("X-Board-Updating"), f"{url} is still being recomputed after a second read"
    return response
