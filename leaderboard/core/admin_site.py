"""The admin site of the project (ARCHITECTURE §9): every model admin registered on it, ours and the libraries' alike,
answers only the list lookups it declares.

Django's admin lets a changelist's query string filter on any of a model's own fields, whatever the admin shows:
`?correct_t=127` against `?correct_t=128` on a list of Δ points, or `?auth_token__key__startswith=4` on the user
list, tells view-only staff a hidden value one guess at a time (`exclude` hides a field on the page, not from the
query string). Here a lookup is allowed only when it is what a declared `list_filter` (or `date_hierarchy`) sends;
anything else is refused before the query runs, with the same 400 whatever the field or the guess.
"""
from django.contrib import admin
from django.contrib.admin import widgets
from django.contrib.admin.apps import AdminConfig
from django.contrib.admin.filters import ListFilter
from django.contrib.admin.utils import NotRelationField, get_fields_from_path
from django.core.exceptions import FieldDoesNotExist
from django.db.models.constants import LOOKUP_SEP

# What Django's own list filters and date hierarchy put after a declared field path (`?status__exact=...`,
# `?created_at__gte=...`, `?created_at__year=...`); a related field may name its target first (`?benchmark__id__exact`).
FILTER_LOOKUPS = frozenset({"exact", "isnull", "isempty", "in", "gte", "gt", "lte", "lt", "year", "month", "day"})


def _declared(model_admin, request):
    """(parameters a custom list filter owns, field paths a field filter or the date hierarchy covers)."""
    params, paths = set(), {model_admin.date_hierarchy} - {None}
    for item in model_admin.get_list_filter(request):
        if isinstance(item, type) and issubclass(item, ListFilter):
            params.add(getattr(item, "parameter_name", None))
        else:
            paths.add(item[0] if isinstance(item, (list, tuple)) else item)
    return params, paths


def _follows_path(model, path, lookup) -> bool:
    """Whether `lookup` is `path` itself or `path` followed by what a list filter sends (no further field)."""
    if lookup == path:
        return True
    if not lookup.startswith(path + LOOKUP_SEP):
        return False
    rest = lookup[len(path) + len(LOOKUP_SEP):].split(LOOKUP_SEP)
    try:
        field = get_fields_from_path(model, path)[-1]
    except (FieldDoesNotExist, NotRelationField):
        return False
    if field.is_relation and field.related_model is not None:
        target = getattr(field, "target_field", None) or field.related_model._meta.pk
        if rest[0] in {target.name, "pk", field.related_model._meta.pk.name}:
            rest = rest[1:]
    return len(rest) <= 1 and all(part in FILTER_LOOKUPS for part in rest)


class DeclaredLookupsOnly(admin.ModelAdmin):
    """Refuses every changelist lookup but those of the admin's declared filters (and the raw-id popups' own
    `limit_choices_to`, which the model declares)."""

    def lookup_allowed(self, lookup, value, request=None):
        params, paths = _declared(self, request)
        if lookup in params or any(_follows_path(self.model, path, lookup) for path in paths):
            return True
        for fk_lookup in self.model._meta.related_fkey_lookups:
            fk_lookup = fk_lookup() if callable(fk_lookup) else fk_lookup
            if (lookup, value) in widgets.url_params_from_lookup_dict(fk_lookup).items():
                return True
        return False


class LeaderboardAdminSite(admin.AdminSite):
    """The default admin site: each registered admin class gets `DeclaredLookupsOnly` first in its bases, so an admin
    added later (or by a library: auth, knox, axes) cannot forget it."""

    def register(self, model_or_iterable, admin_class=None, **options):
        admin_class = admin_class or admin.ModelAdmin
        if not issubclass(admin_class, DeclaredLookupsOnly):
            admin_class = type(admin_class.__name__, (DeclaredLookupsOnly, admin_class),
                               {"__module__": admin_class.__module__, "__doc__": admin_class.__doc__})
        super().register(model_or_iterable, admin_class, **options)


class LeaderboardAdminConfig(AdminConfig):
    """`django.contrib.admin` with `LeaderboardAdminSite` as `admin.site` (INSTALLED_APPS names this class)."""

    default_site = "leaderboard.core.admin_site.LeaderboardAdminSite"
