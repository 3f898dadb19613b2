"""The admin of auth's User: Django's, with a change form that refuses a user name another account holds in any case
(its add form already does). Registered again over auth's own, on whatever class admin.site is."""
from django.contrib import admin
from django.contrib.auth import admin as auth_admin
from django.contrib.auth import get_user_model

from .forms import UserAdminChangeForm


class UserAdmin(auth_admin.UserAdmin):
    form = UserAdminChangeForm


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), UserAdmin)
