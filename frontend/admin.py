"""The admin of auth's User: Django's, with add and change forms that refuse a user name whose canonical form another
account holds (submissions.identity) and a new name off the hub's rules. Registered again over auth's own, on
whatever class admin.site is."""
from django.contrib import admin
from django.contrib.auth import admin as auth_admin
from django.contrib.auth import get_user_model

from .forms import UserAdminChangeForm, UserAdminCreationForm


class UserAdmin(auth_admin.UserAdmin):
    form = UserAdminChangeForm
    add_form = UserAdminCreationForm


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), UserAdmin)
