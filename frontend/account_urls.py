"""/accounts/: sign-in, sign-out, sign-up with e-mail confirmation, password reset and change, in the site's templates.
Django's auth views under their usual names (LOGIN_URL, the reset e-mail's link); the admin app's registration
templates would win over ours by app order, so each view names its template. Sign-in failures are counted by
django-axes (its backend and middleware, settings AXES_*); sign-up, reset and confirmation by frontend/throttles.py."""
from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from .forms import ResetPasswordForm
from .views import accounts, hub_signin


def _t(name):
    return f"frontend/accounts/{name}.html"


urlpatterns = [
    path("login/", auth_views.LoginView.as_view(template_name="registration/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("signup/", accounts.signup, name="signup"),
    path("signup/resend/", accounts.signup_resend, name="signup-resend"),
    path("hf/", hub_signin.start, name="hub-signin"),
    path("hf/callback/", hub_signin.callback, name="hub-signin-callback"),
    path("signup/confirm/<uidb64>/<token>/", accounts.signup_confirm, name="signup-confirm"),
    path("password_reset/", accounts.PasswordReset.as_view(
        template_name=_t("password_reset_form"), email_template_name="frontend/accounts/password_reset_email.txt",
        subject_template_name="frontend/accounts/password_reset_subject.txt"), name="password_reset"),
    path("password_reset/done/", auth_views.PasswordResetDoneView.as_view(template_name=_t("password_reset_done")),
         name="password_reset_done"),
    path("reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(
        template_name=_t("password_reset_confirm"), form_class=ResetPasswordForm,
        success_url=reverse_lazy("password_reset_complete")),
        name="password_reset_confirm"),
    path("reset/done/", auth_views.PasswordResetCompleteView.as_view(template_name=_t("password_reset_complete")),
         name="password_reset_complete"),
    path("password_change/", auth_views.PasswordChangeView.as_view(template_name=_t("password_change_form")),
         name="password_change"),
    path("password_change/done/", auth_views.PasswordChangeDoneView.as_view(
        template_name=_t("password_change_done")), name="password_change_done"),
]
