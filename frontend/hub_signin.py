"""Sign in with Hugging Face: OAuth 2 with the hub (authorization code with PKCE), through Authlib's Django client.
What the hub's userinfo says is stored by leaderboard.submissions.hub_accounts, which makes the account own its hub
user name and the organisations where it may write. On only when HF_OAUTH_CLIENT_ID is set (an OAuth app made in the
hub's settings, with this site's /accounts/hf/callback/ as its redirect URL)."""
from authlib.integrations.django_client import OAuth
from django.conf import settings

def enabled() -> bool:
    return bool(settings.HF_OAUTH_CLIENT_ID)


def client():
    """The hub's OAuth client, made from the settings on each use (cheap; tests point them at a fake hub)."""
    endpoint = settings.HF_OAUTH_ENDPOINT.rstrip("/")
    return OAuth().register(
        "huggingface", client_id=settings.HF_OAUTH_CLIENT_ID, client_secret=settings.HF_OAUTH_CLIENT_SECRET,
        authorize_url=f"{endpoint}/oauth/authorize", access_token_url=f"{endpoint}/oauth/token",
        userinfo_endpoint=f"{endpoint}/oauth/userinfo",
        client_kwargs={"scope": "openid profile", "code_challenge_method": "S256", "timeout": 10})
