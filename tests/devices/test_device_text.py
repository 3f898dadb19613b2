"""Invisible characters make no look-alike device (issue 38, finding 9): `Ac\u200bme` and `Tiny\u00a0PP` made a second
"Acme Tiny PP". Format characters (Unicode Cf) and the other default-ignorable ones are taken out of the device's
fields and its key, odd spaces become one plain space; bidirectional controls, which reorder what a page shows, are
still refused."""
import importlib
import sys
import unicodedata

import pytest

from leaderboard.devices.device_fields import device_key, invisible, parse_device
from leaderboard.devices.models import DeviceReport
from leaderboard.devices.refusals import BIDI_CONTROLS, MALFORMED
from tests.devices.test_pages import upload

PLAIN = {"make": "Acme", "model": "Tiny PP", "chip": "A1", "ram_gb": 8, "os_version": "Android 14", "charging": False}


def parsed(**fields):
    problems = {}
    return parse_device({**PLAIN, **fields}, problems), problems


@pytest.mark.django_db
def test_invisible_characters_make_no_second_device(files, post, accounts):
    (other,) = accounts(1)
    upload(post, 20.0, make="Acme", model="Tiny PP")
    made = upload(post, 22.0, client=other, make="Ac\u200bme", model="Tiny\u00a0PP", chip="A\u00ad1")
    assert set(DeviceReport.objects.values_list("device_key", flat=True)) == {"acme tiny pp"}
    report = DeviceReport.objects.get(pk=made["id"])
    assert (report.make, report.device_model, report.chip) == ("Acme", "Tiny PP", "A1")  # nothing invisible stored


def _format_characters():
    return [chr(c) for c in range(0x10000) if unicodedata.category(chr(c)) == "Cf"]


def test_every_format_character_of_the_bmp_is_folded_out_or_refused():
    format_characters = _format_characters()
    assert len(format_characters) > 40 and all(map(invisible, format_characters))
    wrong = []
    for char in format_characters:
        device, problems = parsed(make=f"Ac{char}me", model=f"{char}Tiny{char} PP", chip=f"A{char}1",
                                  os_version=f"Android{char} 14")
        if unicodedata.bidirectional(char) in BIDI_CONTROLS:
            if MALFORMED not in problems:
                wrong.append(f"U+{ord(char):04X} (a bidi control) was not refused")
        elif problems or (device.make, device.model, device.chip, device.os_version) != (
                "Acme", "Tiny PP", "A1", "Android 14") or device.key != "acme tiny pp":
            wrong.append(f"U+{ord(char):04X} {unicodedata.name(char, '?')}: {problems or device}")
        if device_key(f"Ac{char}me", f"Tiny{char} PP") != "acme tiny pp":  # bidi controls too: the key is a key
            wrong.append(f"U+{ord(char):04X} stays in the device key")
    assert not wrong, wrong


@pytest.mark.parametrize("char", ["\u034f", "\u115f", "\u1160", "\u17b4", "\u180b", "\u3164", "\ufe0f", "\uffa0",
                                  "\U000e0041", "\U000e0100"])
def test_other_default_ignorable_characters_are_folded_out(char):
    device, problems = parsed(make=f"Ac{char}me")
    assert not problems and device.make == "Acme" and device.key == "acme tiny pp"


def test_odd_spaces_are_one_plain_space():
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Zs"]
    for space in spaces:
        device, problems = parsed(model=f"Tiny{space}{space}PP", chip=f" A1{space}")
        assert not problems and (device.model, device.chip, device.key) == ("Tiny PP", "A1", "acme tiny pp"), \
            f"U+{ord(space):04X}"


@pytest.mark.django_db
def test_the_migration_joins_a_look_alike_device_stored_before_the_fold(files, post, accounts):
    """A report stored by the old intake, "Ac\u200bme Tiny\u00a0PP" under its own key, stood as a second device with
    one person each, so neither device had a confirmed figure. The migration cleans and re-keys it, and the joined
    device is judged again: two people agree, and its figure is confirmed."""
    from django.apps import apps as django_apps
    from django.db import connection

    from tests.devices.test_consensus_recompute import speeds

    (other,) = accounts(1)
    upload(post, 20.0, make="Acme", model="Tiny PP")
    old = upload(post, 22.0, client=other, make="Acme", model="Tiny PP")
    old_key = " ".join(unicodedata.normalize("NFKC", "Ac\u200bme Tiny\u00a0PP").casefold().split())  # the old fold
    DeviceReport.objects.filter(pk=old["id"]).update(make="Ac\u200bme", device_model="Tiny\u00a0PP", chip="A\u00ad1",
                                                     device_key=old_key, status="counted")
    DeviceReport.objects.exclude(pk=old["id"]).update(status="counted")
    assert not any(row["confirmed"] for row in speeds())  # two devices of one person each

    migration = importlib.import_module("leaderboard.devices.migrations.0006_rekey_invisible_characters")
    with connection.schema_editor() as editor:
        migration.rekey(django_apps, editor)

    report = DeviceReport.objects.get(pk=old["id"])
    assert (report.make, report.device_model, report.chip, report.device_key) == ("Acme", "Tiny PP", "A1",
                                                                                 "acme tiny pp")
    row, = speeds()
    assert (row["confirmed"], row["confirmed_by"], row["tg_median"]) == (True, 2, 21.0), row
