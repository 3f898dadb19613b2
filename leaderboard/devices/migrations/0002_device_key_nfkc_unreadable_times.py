"""Issue 31: device keys are NFKC-folded before casefold (device_fields.device_key), and reports whose times no
Python datetime can hold are removed.

Before this, intake stored a test_time before year 1 or after 9999 in UTC (0001-01-01T00:00:00+01:00): PostgreSQL
keeps it, but Django cannot read it back, and every page and API listing device reports answered 500, the admin
included. Such a report is deleted in SQL (the ORM would read it first); intake refuses those times now. Nothing is
done on SQLite, which keeps times as text and has no such rows from PostgreSQL."""
import unicodedata

from django.db import migrations

UNREADABLE = ("< '0001-01-01 00:00:00+00'", "> '9999-12-31 23:59:59.999999+00'")


def _key(make: str, model: str) -> str:  # device_fields.device_key as of this migration
    return " ".join(unicodedata.normalize("NFKC", f"{make} {model}").casefold().split())[:110]


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        where = " OR ".join(f"{column} {bound}" for column in ("r.measured_at", "t.test_time") for bound in UNREADABLE)
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("SELECT DISTINCT r.id FROM devices_devicereport r LEFT JOIN devices_devicetest t ON "
                           f"t.report_id = r.id WHERE {where}")
            ids = [row[0] for row in cursor.fetchall()]
            if ids:
                cursor.execute("DELETE FROM devices_devicetest WHERE report_id = ANY(%s)", [ids])
                cursor.execute("DELETE FROM devices_devicereport WHERE id = ANY(%s)", [ids])
    DeviceReport = apps.get_model("devices", "DeviceReport")
    for report in DeviceReport.objects.only("pk", "make", "device_model", "device_key").iterator():
        key = _key(report.make, report.device_model)
        if key != report.device_key:
            DeviceReport.objects.filter(pk=report.pk).update(device_key=key)


class Migration(migrations.Migration):

    dependencies = [("devices", "0001_device_reports")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
