"""Device speed reports (issue 25) in headless Chromium at 1280 and 390 px: a GGUF file's model page draws generation
speed by device (each report, the confirmed figures, the outliers left out; unconfirmed devices apart) after the server's cost profile, and its device
table reads on a phone, with the figures a phone user feels (issue 33: time to first token derived, the sustained
change over ten repetitions, the fit in an app's share of RAM, medians per llama.cpp build), each labelled; "what runs well on my phone" draws accuracy against a device's speed with its frontier; the
upload page works signed in. No console error, no serious axe violation. Screenshots go to var/screenshots/
(device-reports-<width>.png, device-board-<width>.png)."""
import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from tests.browser.harness import (OVERFLOW_TOLERANCE_PX, PHONE, WIDTHS, axe_violations, horizontal_overflow,
                                   needs_chromium, new_page, screenshot_dir, session_cookie_for, table_problems,
                                   wait_for_charts)

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
def reported(demo_loaded):
    """The On-device world with the measured file, and reports from three phones by three people: Pixel 8 and Galaxy
    S23 confirmed by two people each (and an outlier on the Pixel), Redmi Note 12 unconfirmed (one person)."""
    from leaderboard.devices.services import report_create
    from tests.devices import world

    world.build()
    user, second, third = (User.objects.create_user(name) for name in ("tester", "second", "third"))
    s23 = {"make": "Samsung", "model": "Galaxy S23 Ultra (SM-S918B)", "chip": "Snapdragon 8 Gen 2", "ram_gb": 12}
    redmi = {"make": "Xiaomi", "model": "Redmi Note 12", "chip": "Snapdragon 4 Gen 1", "ram_gb": 4}
    from leaderboard.submissions.models import Submission

    submission = Submission.objects.get(model__hub_id=world.HUB)  # GGUF intake's KV facts of the file's header
    submission.gguf_facts = {**submission.gguf_facts, "kv": {"block_count": 2, "embedding_length": 64,
                                                             "head_count": 4}}
    submission.save(update_fields=["gguf_facts"])
    for who, tg, device in ((user, 20.0, {}), (second, 24.0, {}), (third, 90.0, {}), (user, 9.5, s23),
                            (second, 9.5, s23), (third, 4.2, redmi)):
        bench = world.with_speeds(tg, pp=300.0)
        bench[1]["samples_ts"] = [tg * (1 - 0.02 * i) for i in range(10)]  # -r 10, 18% slower at the end
        report_create(user=who, llama_bench=bench, device={**world.DEVICE, **device})
    return user


def check(page, problems, width, name):
    """This change's tables (the file page's on-device variants table is another check's), axe, overflow, console."""
    page.screenshot(path=screenshot_dir() / f"{name}-{width}.png", full_page=True, scale="css")
    failures = axe_violations(page) + [p for p in table_problems(page, phone=width <= PHONE) if "'device-" in p]
    if width <= PHONE and horizontal_overflow(page) > OVERFLOW_TOLERANCE_PX:
        failures.append(f"the page is {horizontal_overflow(page)} px wider than the phone's screen")
    wide = page.evaluate("() => document.documentElement.scrollWidth") - width  # a phone's viewport widens to fit
    if width <= PHONE and wide > OVERFLOW_TOLERANCE_PX:
        failures.append(f"the page is {wide} px wider than the phone's {width} px")
    return failures + problems.items


@pytest.mark.parametrize("width", WIDTHS)
def test_the_model_page_draws_speed_by_device(browser, live_server, reported, width):
    from tests.devices import world

    page, problems = new_page(browser, live_server.url, width)
    try:
        page.goto(reverse("model-detail", args=[world.HUB]), wait_until="load")
        wait_for_charts(page)
        traces = page.eval_on_selector("#chart-device-speeds", """el => el.data.map(t => ({name: t.name,
            x: Array.from(t.x), y: Array.from(t.y)}))""")
        assert [t["name"] for t in traces] == ["a report", "confirmed figure: median of the people who agree",
                                               "outlier or not agreeing, left out"]
        assert sorted(traces[0]["x"]) == [9.5, 9.5, 20.0, 24.0] and traces[2]["x"] == [90.0]
        assert traces[1]["x"] == [22.0, 9.5]  # confirmed figures only, fastest device first
        assert "Xiaomi Redmi Note 12" in page.inner_text("#device-table-unconfirmed")  # apart, labelled
        box = page.locator("#device-reports").bounding_box()
        assert box and page.locator("#cost-profile").bounding_box()["y"] < box["y"]  # after the server's profile
        assert "people measuring on their own devices" in page.inner_text("#device-reports-label")
        feel = page.inner_text("#device-feel-table")  # the felt figures, each labelled, visible on both widths
        assert page.locator("#device-feel-table").is_visible() and page.locator("#device-builds-table").is_visible()
        assert "1.44 s derived (from prompt 300.0 tokens/s)" in feel  # 431 tokens (the profile's) / 300 tokens/s
        assert "−18% first → last repetition (2 people)" in feel and "fits: 2 MiB of 4.00 GiB (50% of 8 GB)" in feel
        assert "0c1e570" in page.inner_text("#device-builds-table")
        notes = page.inner_text("#device-feel-notes")
        assert "derived" in notes and "assumed: a phone leaves one app about half its RAM" in notes
        page.screenshot(path=screenshot_dir() / f"device-reports-section-{width}.png", full_page=True, scale="css",
                        clip={"x": 0, "y": box["y"] - 250, "width": width, "height": 1300})
        failures = check(page, problems, width, "device-reports")
        assert not failures, "\n".join(failures)
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_what_runs_well_on_my_phone_draws_the_frontier(browser, live_server, reported, width):
    page, problems = new_page(browser, live_server.url, width)
    try:
        page.goto(reverse("leaderboard-on-device"), wait_until="load")
        page.click("#device-board-link")
        page.select_option("#device-filters select[name=device]", "google pixel 8")
        page.click("#device-filters button[type=submit]")
        page.wait_for_url("**device=google+pixel+8**")
        wait_for_charts(page)
        traces = page.eval_on_selector("#chart-device-board", """el => el.data.map(t => ({name: t.name,
            x: Array.from(t.x)}))""")
        assert traces[0]["x"] == [22.0] and traces[1]["name"].replace("<br>", " ").startswith("Pareto frontier")
        assert "1 file measured on Google Pixel 8" in page.inner_text("#device-board-count")
        row = page.inner_text("#device-board-table tbody tr")
        assert "1.44 s derived" in row and "−18%" in row and "fits (2 MiB of 8 GB)" in row
        failures = check(page, problems, width, "device-board")
        assert not failures, "\n".join(failures)
    finally:
        page.context.close()


def test_the_upload_page_signed_in_on_a_phone(browser, live_server, reported):
    from tests.devices import world

    page, problems = new_page(browser, live_server.url, PHONE, session_cookie=session_cookie_for(reported))
    try:
        page.goto(reverse("device-report-upload") + f"?hub_id={world.HUB}&sha256={world.SHA256}", wait_until="load")
        page.fill("#id_llama_bench", world.CAPTURED_JSON.read_text())
        for name, value in (("make", "Fairphone"), ("model", "5"), ("chip", "QCM6490"), ("ram_gb", "8"),
                            ("os_version", "Android 13")):
            page.fill(f"#id_{name}", value)
        page.click("#device-report-form button[type=submit]")
        page.wait_for_url("**#device-reports")
        assert "Fairphone 5" in page.inner_text("#device-table-unconfirmed")  # one person: not confirmed yet
        failures = check(page, problems, PHONE, "device-report-uploaded")
        assert not failures, "\n".join(failures)
    finally:
        page.context.close()
