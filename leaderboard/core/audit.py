from .models import AuditRecord


def audit_record(*, actor, action: str, target, reason: str, **details) -> AuditRecord:
    return AuditRecord.objects.create(actor=actor, action=action, target_type=target._meta.model_name,
                                      target_id=str(target.pk), reason=reason, details=details)
