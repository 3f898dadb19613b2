"""Reports stored before intake took invisible characters out (issue 38, finding 9) are cleaned and keyed as intake
keys them now: "Ac\u200bme Tiny\u00a0PP" joins "Acme Tiny PP" instead of standing as a look-alike device. Each group a
report left or joined is judged again whole (consensus.py), with the weights its reports were last judged with, as
0005 did, so that the merged device's figure counts every person once. Cached pages and APIs of the old keys are
dropped (a new results generation): they would show the look-alike until the next result."""
from django.db import migrations

TEXTS = ("make", "device_model", "chip", "os_version")
KEY_LENGTH = 110  # the column; intake refused longer keys, and folding out characters only shortens one


def rekey(apps, schema_editor):
    from leaderboard.devices import consensus  # pure: no models
    from leaderboard.devices.device_fields import device_key, without_invisible  # pure: no models

    Report = apps.get_model("devices", "DeviceReport")
    touched, changed = set(), []
    for report in Report.objects.only("model_id", "file_sha256", "device_key", *TEXTS).iterator():
        cleaned = {name: " ".join(without_invisible(getattr(report, name)).split()) or getattr(report, name)
                   for name in TEXTS}
        key = device_key(cleaned["make"], cleaned["device_model"])[:KEY_LENGTH]
        if key == report.device_key and all(cleaned[name] == getattr(report, name) for name in TEXTS):
            continue
        touched.update({(report.model_id, report.file_sha256, report.device_key),
                        (report.model_id, report.file_sha256, key)})
        for name, value in cleaned.items():
            setattr(report, name, value)
        report.device_key = key
        changed.append(report)
    Report.objects.bulk_update(changed, [*TEXTS, "device_key"], batch_size=500)

    judged = []
    for model_id, sha256, key in touched:
        judged += consensus.restatus_stored(Report.objects.filter(
            model_id=model_id, file_sha256=sha256, device_key=key, hidden=False).only(
            "owner_id", "tg_tokens_per_s", "pp_tokens_per_s", "status", "weight"))
    Report.objects.bulk_update(judged, ["status"], batch_size=500)
    if changed:
        from leaderboard.core.cache_generation import results_changed
        results_changed()


class Migration(migrations.Migration):

    dependencies = [("devices", "0005_report_weight_rejudged")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
