"""Models submitted to the leaderboard and the submissions that evaluate them."""
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from leaderboard.hub.precisions import PRECISIONS

from .identity import canonical_name


class ModelType(models.TextChoices):
    PRETRAINED = "pretrained"
    INSTRUCT = "instruct", "instruct / chat"
    REASONING = "reasoning"


# The hub checks' precision catalogue as choices, one member per entry (BFLOAT16 = "bfloat16", GPTQ_4BIT =
# "gptq-4bit", ...): the labels Django derives from the member names are those the field always had.
Precision = models.TextChoices(
    "Precision", [(name.upper().replace("-", "_"), name) for name in PRECISIONS], module=__name__)


def size_class(params: int | None) -> str | None:
    """Mini < 5B ≤ Small < 13B ≤ Medium < 50B ≤ Large (ARCHITECTURE §4)."""
    if params is None:
        return None
    billions = params / 1e9
    return "mini" if billions < 5 else "small" if billions < 13 else "medium" if billions < 50 else "large"


VARIANT_SEPARATOR = "@"  # between a 16-bit model's hub id and a made variant's quantization


def hub_namespace(hub_id: str) -> str:
    """The namespace of a hub id in its canonical form (identity.canonical_name: a valid hub namespace's is its
    lower case): the hub compares ids case-insensitively, and so do quotas and ownership."""
    return canonical_name(hub_id.split("/")[0])


# A stored namespace is a hub namespace in its canonical form: ASCII lower case (the hub's characters).
CANONICAL_NAMESPACE = r"^[a-z0-9._-]+$"


class ModelEntry(models.Model):
    """One model on the board. Its hub id is unique case-insensitively: ``DEMO/x`` is the entry ``demo/x`` (looked
    up with ``hub_id__iexact``, stored in the spelling of its first submission).

    A GGUF file submitted on its own is a model of its own, one entry per file: its hub id is the repository's id
    and the file's path (``org/model-GGUF/model-Q4_K_M.gguf``), ``gguf_file`` that path and ``quantization`` the
    file's type. Two files of one repository are two models; the runs' ``model_ref`` is this id. A file this server
    made from a 16-bit model is one too (``made_from``; ``org/model@Q4_K_M``)."""

    hub_id = models.CharField(max_length=200, unique=True)
    namespace = models.CharField(max_length=100, db_index=True, help_text="canonical (lower-case)")
    params = models.BigIntegerField(null=True, blank=True)
    license = models.CharField(max_length=100, blank=True)
    architecture = models.CharField(max_length=100, blank=True)
    model_type = models.CharField(max_length=20, choices=ModelType.choices, default=ModelType.PRETRAINED)
    gguf_file = models.CharField(max_length=200, blank=True,
                                 help_text="a GGUF file's path in its repository; blank for a safetensors checkpoint")
    quantization = models.CharField(max_length=30, blank=True, help_text="a GGUF file's type, e.g. Q4_K_M")
    # An on-device variant this server made from a 16-bit model (submissions/ondevice_variants.py): its hub id is
    # "<the 16-bit model's hub id>@<QUANT>" (no hub id holds "@": it names no repository), its file the one made.
    made_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="made_variants",
                                  help_text="the 16-bit model this server made this GGUF file from")
    hidden = models.BooleanField(default=False)
    flagged = models.BooleanField(default=False)
    flag_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["hub_id"]
        verbose_name = "model"
        constraints = [models.UniqueConstraint(Lower("hub_id"), name="unique_model_hub_id_case_insensitive")]

    def __str__(self):
        return self.hub_id

    @property
    def size_class(self):
        return size_class(self.params)

    @property
    def repo_id(self) -> str:
        """The hub repository the model's files are in (the hub id, less a GGUF entry's file path; a made variant's
        checkpoint is its 16-bit model's)."""
        if self.made_from_id:
            return self.hub_id.rsplit(VARIANT_SEPARATOR, 1)[0]
        return self.hub_id[:-len(self.gguf_file) - 1] if self.gguf_file else self.hub_id


class CustomCodeAllowance(models.Model):
    """An admin's permission for one exact revision of a model that needs custom code."""

    hub_id = models.CharField(max_length=200)
    revision_sha = models.CharField(max_length=40)
    granted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["hub_id", "revision_sha"], name="unique_allowance")]


class NamespaceGrant(models.Model):
    """An admin's permission for an account to upload predictions under a namespace other than its username
    (an organisation's). Ownership is decided by ``selectors.owns_namespace`` alone."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="namespace_grants")
    namespace = models.CharField(max_length=100, help_text="the hub namespace, stored in its canonical form")
    granted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["namespace", "user_id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "namespace"], name="unique_namespace_grant"),
            models.CheckConstraint(condition=Q(namespace__regex=CANONICAL_NAMESPACE), name="namespace_grant_canonical"),
        ]

    def __str__(self):
        return f"{self.user} may upload as {self.namespace}"

    def save(self, *args, **kwargs):
        self.namespace = canonical_name(self.namespace)
        super().save(*args, **kwargs)


class SubmissionKind(models.TextChoices):
    MODEL = "model", "model evaluated by us"
    PREDICTIONS = "predictions", "submitted predictions"


class Submission(models.Model):
    kind = models.CharField(max_length=12, choices=SubmissionKind.choices, default=SubmissionKind.MODEL)
    submitter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="submissions")
    model = models.ForeignKey(ModelEntry, on_delete=models.PROTECT, related_name="submissions")
    revision = models.CharField(max_length=100, default="main", help_text="as asked: branch, tag or sha")
    revision_sha = models.CharField(max_length=40, blank=True)
    precision = models.CharField(max_length=12, choices=Precision.choices, default=Precision.BFLOAT16)
    model_type = models.CharField(max_length=20, choices=ModelType.choices, default=ModelType.PRETRAINED)
    use_chat_template = models.BooleanField(default=False)
    probe = models.BooleanField(default=False, help_text="also run the memorization probe (on the validation split: "
                                                         "the sealed split is never probed)")
    # A GGUF submission (precision "gguf"): the file, pinned to its sha256 (the LFS object id of the hub's listing,
    # checked again after the worker downloads it) and what its header said (hub.gguf_checks.GGUFFacts).
    gguf_file = models.CharField(max_length=200, blank=True, help_text="path of the GGUF file in the repository")
    gguf_sha256 = models.CharField(max_length=64, blank=True, db_index=True)
    gguf_facts = models.JSONField(default=dict, blank=True)
    ondevice_variants = models.BooleanField(
        default=False, help_text="this server also makes and evaluates Q8_0, Q4_K_M and Q4_0 GGUF files of the model "
                                 "(open split only)")
    benchmarks = models.JSONField(default=list)
    hidden = models.BooleanField(default=False)
    webhook_url = models.URLField(blank=True)
    notified_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"submission {self.pk}: {self.model} @ {self.revision_sha[:10] or self.revision}"

    @property
    def settings_key(self):
        return {"precision": self.precision, "model_type": self.model_type, "chat": self.use_chat_template,
                "benchmarks": sorted(self.benchmarks)}


class HubAccount(models.Model):
    """The Hugging Face account an account signed in with (OAuth, frontend/hub_signin.py): the hub's user id (`sub`,
    stable across renames) and user name as the hub last said. Its HubNamespace rows are the namespaces it may act
    for; ownership is decided by ``selectors.owns_namespace`` alone."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hub_account")
    sub = models.CharField(max_length=100, unique=True)
    username = models.CharField(max_length=100)
    refreshed_at = models.DateTimeField(auto_now=True, help_text="the last sign-in, when the hub's word was read")

    def __str__(self):
        return f"{self.user} is {self.username} on the hub"


class HubNamespace(models.Model):
    """A namespace the hub vouches for at sign-in: the user's own name, or an organisation where the user may write
    (roleInOrg admin or write). Replaced at each sign-in, so leaving an organisation ends it."""

    account = models.ForeignKey(HubAccount, on_delete=models.CASCADE, related_name="namespaces")
    namespace = models.CharField(max_length=100, help_text="stored in its canonical form")
    role = models.CharField(max_length=20, help_text="user, or the role in the organisation")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "namespace"], name="unique_hub_namespace"),
            models.CheckConstraint(condition=Q(namespace__regex=CANONICAL_NAMESPACE), name="hub_namespace_canonical"),
        ]
        indexes = [models.Index(fields=["namespace"])]

    def __str__(self):
        return f"{self.account.user} may act as {self.namespace} ({self.role})"


class AccountName(models.Model):
    """The canonical form of an account's user name (identity.canonical_name), unique: the one key of a name's
    identity, whatever its spelling, and so of the namespace it owns. Kept in step with every save of a user
    (account_names.py); a sign-up, a hub sign-in and the admin's forms save both in one transaction, so of two
    concurrent sign-ups for one name the database lets one win."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
                                related_name="account_name")
    canonical = models.TextField(unique=True)  # NFKC may lengthen a name (one character can become 18)
    username = models.CharField(max_length=150, help_text="the user name it was computed from")

    def __str__(self):
        return f"{self.username} ({self.canonical})"
