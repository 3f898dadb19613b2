"""The compare page with On-device variants: GGUF files compared with their 16-bit model and with each other, their
topics side by side, and the On-device columns (size, change vs 16-bit, flip rate, speeds, peak memory, the profile's
label) where the chosen models have them."""
import re

import pytest
from django.urls import reverse

from tests.boards import ondevice_world as world
from tests.frontend.conftest import page_data, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def files(demo_loaded):
    return world.build()


def compare(client, *hub_ids):
    response = client.get(reverse("compare"), {"models": ",".join(hub_ids)})
    assert response.status_code == 200
    return response


def section(body, table_id):
    match = re.search(rf'<table class="data" id="{table_id}">.*?</table>', body, re.S)
    return match.group(0) if match else ""


def test_files_compared_with_each_other(client, files):
    q4, q8 = world.hub_of("Q4_K_M"), world.hub_of("Q8_0")
    response = compare(client, q4, q8)
    body = text(response)
    assert re.findall(r'<tr data-hub-id="([^"]+)"', section(body, "compare-models")) == [q4, q8]
    assert page_data(response)["heatmap"]["models"] == [q4, q8]
    ondevice = section(body, "compare-ondevice")
    assert re.findall(r'<tr data-hub-id="([^"]+)"', ondevice) == [q4, q8]
    row = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.search(rf'<tr data-hub-id="{q4}".*?</tr>', ondevice,
                                                                 re.S).group(0)))
    for figure in ("tiny-Q4_K_M.gguf", "Q4_K_M", "0.60", "-4.17", "4.2", "260.0", "35.0", "0.600", "0.80", world.LABEL):
        assert f" {figure} " in row, (figure, row)
    assert "compare with it" in ondevice  # the 16-bit model is not among the chosen: a link adds it


def test_a_file_with_its_16_bit_model(client, files):
    q4 = world.hub_of("Q4_K_M")
    body = text(compare(client, q4, world.BASE, world.MADE))
    assert re.findall(r'<tr data-hub-id="([^"]+)"', section(body, "compare-models")) == [q4, world.BASE, world.MADE]
    ondevice = section(body, "compare-ondevice")
    assert re.findall(r'<tr data-hub-id="([^"]+)"', ondevice) == [q4, world.MADE]  # the 16-bit model is no file
    assert "compare with it" not in ondevice and "no cost profile yet" in ondevice


def test_no_on_device_section_without_a_file(client, files):
    body = text(compare(client, world.BASE))
    assert 'id="compare-ondevice"' not in body
