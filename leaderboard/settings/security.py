"""Settings of accounts (sign-up, throttles, sign-in lockouts) and of the security headers every response carries.
Imported by base.py (everything here is part of every environment's settings)."""
from datetime import timedelta

from .env import env_int, env_rate

# Content-Security-Policy (django-csp 4: Django 5.2 has no CSP support of its own; docs/operations.md). The pages run
# only our static scripts: no inline script, no event-handler attribute, no javascript: URL (JSON data sits in
# <script type="application/json">, which is never run). style-src allows inline styles because Plotly and Swagger UI
# set style attributes and inject <style> elements as they draw; a style runs no code and, under default-src and
# img-src, loads nothing from another site.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],  # Plotly's and Swagger UI's icons are data: URLs
        "object-src": ["'none'"],
        "frame-ancestors": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
    },
}
# Permissions-Policy (core/middleware.py): no page uses a device sensor, the camera, the microphone or payments.
PERMISSIONS_POLICY = {feature: [] for feature in (
    "accelerometer", "camera", "geolocation", "gyroscope", "magnetometer", "microphone", "payment", "usb")}

# --- Accounts (ARCHITECTURE §9) -------------------------------------------------
# An unconfirmed sign-up's link works this long; then beat removes the account, freeing its name and address.
SIGNUP_CONFIRM_DAYS = env_int("SIGNUP_CONFIRM_DAYS", 3, minimum=1)
# Sign-up, password reset and confirmation (frontend/throttles.py): requests per e-mail address (or the account a link
# names) and per client, "N/second|minute|hour|day". A refused request gets 429 and sends no e-mail.
ACCOUNT_THROTTLE_PER_ADDRESS = env_rate("ACCOUNT_THROTTLE_PER_ADDRESS", "3/hour")
ACCOUNT_THROTTLE_PER_CLIENT = env_rate("ACCOUNT_THROTTLE_PER_CLIENT", "20/hour")
# Sign-in (the site's and the admin's), django-axes with frontend/sign_in_throttle.py: LOGIN_FAILURE_LIMIT failures for
# one (user name, client) pair lock that pair out for LOGIN_LOCKOUT_MINUTES after its last counted failure (attempts
# refused meanwhile are not counted). A user name's failures from all clients, and a client's for all names, have a
# budget a minute (above the pair's limit: only a guess from many clients spends one); once spent, clients that never
# signed in as that name are asked to retry in seconds. Known clients never are. docs/operations.md: the trade-off.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # a refused attempt is not a failure: it extends nothing
AXES_HANDLER = "frontend.sign_in_throttle.SignInHandler"
AXES_USERNAME_CALLABLE = "frontend.sign_in_throttle.username_of"  # counted by the name's canonical form
AXES_CLIENT_IP_CALLABLE = "frontend.throttles.client_ip"
AXES_LOCKOUT_CALLABLE = "frontend.views.accounts.locked_out"
LOGIN_SLOWDOWN_PER_NAME = env_rate("LOGIN_SLOWDOWN_PER_NAME", "20/minute")
LOGIN_SLOWDOWN_PER_CLIENT = env_rate("LOGIN_SLOWDOWN_PER_CLIENT", "30/minute")
AXES_DISABLE_ACCESS_LOG = True  # no table of every successful sign-in: failures are what is counted
# Masked in the failed attempts' form data that axes keeps (its admin shows them): no password or CSRF token.
AXES_SENSITIVE_PARAMETERS = ["username", "ip_address", "password", "csrfmiddlewaretoken"]
