"""Keeps AccountName (a user name's canonical form, unique) in step with every save of a user, whatever made it:
sign-up, a hub sign-in, the admin, createsuperuser, a management command. Connected in SubmissionsConfig.ready.

Before a save, a name whose canonical form another account holds is refused with an IntegrityError naming both, as
the unique index would; after it, the row is written. Both are in the caller's transaction where there is one (every
page and the admin); a save in autocommit (a shell, createsuperuser) that loses a race to the index has its new user
removed again, so no account is left without its name."""
from django.db import IntegrityError, transaction

from .identity import canonical_name
from .models import AccountName


def _name_changes(instance, update_fields) -> bool:
    return update_fields is None or "username" in update_fields


def refuse_taken(sender, instance, update_fields=None, **kwargs):
    """pre_save: the clear refusal (the index is the guarantee)."""
    if not _name_changes(instance, update_fields):
        return
    key = canonical_name(instance.username)
    holder = AccountName.objects.filter(canonical=key).exclude(user_id=instance.pk).first()
    if holder is not None:
        raise IntegrityError(f"the user name {instance.username!r} is taken: its canonical form {key!r} is "
                             f"{holder.username!r}'s (id {holder.user_id})")


def keep_in_step(sender, instance, created, update_fields=None, **kwargs):
    """post_save: the canonical form of the name just saved, unique in the database."""
    if not _name_changes(instance, update_fields):
        return
    connection = transaction.get_connection(instance._state.db)
    autocommit = not connection.in_atomic_block
    try:
        with transaction.atomic(using=instance._state.db):
            AccountName.objects.update_or_create(user_id=instance.pk, defaults={
                "canonical": canonical_name(instance.username), "username": instance.username})
    except IntegrityError:
        if created and autocommit:  # the user row is committed already: take it back
            type(instance)._base_manager.filter(pk=instance.pk).delete()
        raise
