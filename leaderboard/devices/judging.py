"""Judging a file's reports on one device again, whole (consensus.py): on each new report and each admin's hide or
accept, inside the transaction that holds the file's lock. Reads what each voter's account cost to make, stores
each report's weight and its status as the outcome (an admin's accept and hide stay as the admin set them)."""
import re
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from . import consensus, selectors
from .models import COUNTED_STATUSES, DeviceReport


def mailbox(email: str) -> str:
    """The mailbox an address reaches: lower case, without a +tag (name+x@host is name@host's)."""
    local, _, domain = email.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"


def _email_confirmed(user) -> bool:
    """An active account with an address: confirmed by our link (a sign-up stays inactive until it is opened) or
    verified by the hub (a hub sign-in stores only a verified one). One account per mailbox: the first to hold it."""
    if not (user.is_active and user.email and "@" in user.email):
        return False
    local, _, domain = mailbox(user.email).rpartition("@")
    same = get_user_model().objects.filter(is_active=True, email__iregex=rf"^{re.escape(local)}(\+[^@]*)?@"
                                                                          rf"{re.escape(domain)}$")
    return not same.filter(Q(date_joined__lt=user.date_joined) | Q(date_joined=user.date_joined, pk__lt=user.pk)
                           ).exists()


def _agreed_before(owner_ids, *, model_id, sha256, device_key, since) -> set:
    """The accounts with a counted report made before `since` on another file or device, within OUTLIER_FACTOR of a
    counted report of another account there."""
    factor = consensus.OUTLIER_FACTOR
    agreeing = DeviceReport.objects.filter(
        model_id=OuterRef("model_id"), file_sha256=OuterRef("file_sha256"), device_key=OuterRef("device_key"),
        hidden=False, status__in=COUNTED_STATUSES, tg_tokens_per_s__gte=OuterRef("tg_tokens_per_s") / factor,
        tg_tokens_per_s__lte=OuterRef("tg_tokens_per_s") * factor).exclude(owner_id=OuterRef("owner_id"))
    return set(DeviceReport.objects.filter(owner_id__in=owner_ids, hidden=False, status__in=COUNTED_STATUSES,
                                           created_at__lte=since)
               .exclude(model_id=model_id, file_sha256=sha256, device_key=device_key)
               .filter(Exists(agreeing)).values_list("owner_id", flat=True).distinct())


def weights(owners, *, model_id, sha256, device_key) -> dict:
    """account id -> its vote's weight now (consensus.weight)."""
    since = timezone.now() - timedelta(days=consensus.SETTLED_DAYS)
    agreed = _agreed_before([u.pk for u in owners], model_id=model_id, sha256=sha256, device_key=device_key,
                            since=since)
    return {u.pk: consensus.weight(email_confirmed=_email_confirmed(u), settled=u.date_joined <= since,
                                   agreed_before=u.pk in agreed) for u in owners}


def rejudge(*, model_id: int, sha256: str, device_key: str) -> None:
    """Judge every vote of one file on one device again and store each report's weight and status."""
    # the reports the readers count (selectors.SANE: a figure stored before intake refused it is no vote)
    reports = list(DeviceReport.objects.filter(selectors.SANE, model_id=model_id, file_sha256=sha256,
                                               device_key=device_key, hidden=False).select_related("owner"))
    if not reports:
        return
    now = weights({r.owner for r in reports}, model_id=model_id, sha256=sha256, device_key=device_key)
    verdict = consensus.judge(consensus.ballots(reports, now))
    changed = []
    for report in reports:
        status, weight = consensus.status_after(report, verdict), now[report.owner_id]
        if (status, weight) != (report.status, report.weight):
            report.status, report.weight = status, weight
            changed.append(report)
    DeviceReport.objects.bulk_update(changed, ["status", "weight"])
