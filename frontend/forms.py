from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import (
    AdminUserCreationForm,
    PasswordResetForm,
    SetPasswordForm,
    UserChangeForm,
    UserCreationForm,
)

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.submissions import identity
from leaderboard.submissions import selectors as submission_selectors
from leaderboard.submissions.models import ModelType, Precision

from . import accounts


class SubmissionForm(forms.Form):
    hub_id = forms.CharField(label="Hugging Face model id", max_length=200, strip=False,
                             widget=forms.TextInput(attrs={"placeholder": "org/model", "autocomplete": "off"}))
    revision = forms.CharField(max_length=100, initial="main", strip=False, help_text="branch, tag or commit sha")
    gguf_file = forms.CharField(label="GGUF file (optional)", max_length=200, required=False, strip=False,
                                widget=forms.TextInput(attrs={"placeholder": "model-Q4_K_M.gguf", "autocomplete": "off"}),
                                help_text="to evaluate one GGUF file of the repository with llama.cpp (the file a "
                                          "phone runs): its path as 'Files and versions' shows it, the first part "
                                          "of a split file; precision is then the file's own")
    precision = forms.ChoiceField(initial=Precision.BFLOAT16)  # what this deployment's backend runs (__init__)
    model_type = forms.ChoiceField(choices=ModelType.choices, initial=ModelType.PRETRAINED)
    use_chat_template = forms.BooleanField(required=False, label="Use the tokenizer's chat template",
                                           help_text="on for instruct and reasoning models")
    probe = forms.BooleanField(required=False, label="Also run the memorization probe",
                               help_text="on validation: one short generation per question")
    ondevice_variants = forms.BooleanField(
        required=False, initial=True, label="Also make and evaluate on-device variants (models up to 8B)",
        help_text="Q8_0, Q4_K_M and Q4_0 GGUF files made here with llama.cpp's converter and quantizer (no importance "
                  "matrix), each evaluated on the validation split beside the 16-bit model, with its cost profile")
    benchmarks = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple, initial=["mobile-mmlu"])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["benchmarks"].choices = [(b.slug, b.name) for b in bench_selectors.benchmark_list()]
        self.fields["precision"].choices = submission_selectors.precisions_offered()


class SignupForm(UserCreationForm):
    email = forms.EmailField(label="E-mail address", help_text="we send a link to confirm it; nothing else")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_username(self):
        # An account owns the hub namespace of its user name (it may upload predictions under it): the name follows
        # the hub's rules, and one that is already a namespace on the board, an admin's grant or the hub's word for
        # another account cannot be taken by signing up. Whether an account holds the name (in its canonical form) is
        # checked in clean(), once the address is known.
        username = _hub_rules(self.cleaned_data["username"])
        if submission_selectors.namespace_in_use(username):
            raise forms.ValidationError(
                f"'{username}' is the namespace of models on this board or of an organisation an account acts for: "
                "choose another user name. To act for that "
                "organisation (upload its predictions), sign up under your own name and ask an admin to grant it.")
        return username

    def clean(self):
        # No check of the address here: sign-up answers the same whether or not it has an account (frontend/accounts).
        cleaned = super().clean()
        username = cleaned.get("username")
        if username and accounts.username_taken(username, replacing_email=cleaned.get("email")):
            self.add_error("username", self.instance.unique_error_message(self._meta.model, ["username"]))
        return cleaned

    def validate_unique(self):
        # The model's own check compares the exact spelling and counts the unconfirmed account this sign-up replaces:
        # the user name is checked in clean() instead, in its canonical form (backed by AccountName's unique index).
        exclude = self._get_validation_exclusions() | {"username"}
        try:
            self.instance.validate_unique(exclude=exclude)
        except forms.ValidationError as error:
            self._update_errors(error)


def _hub_rules(username: str) -> str:
    try:
        return identity.validate_username(username)
    except identity.UsernameRefused as refused:
        raise forms.ValidationError(f"{refused.message} {refused.hint}") from None


def _name_holder_check(form, username: str) -> str:
    """The admin's forms: the user name is refused when another account holds its canonical form (Django's own checks
    compare the exact spelling, or UPPER() in the database). A new or changed name follows the hub's rules."""
    if username != form.initial.get("username"):
        username = _hub_rules(username)
    if submission_selectors.name_holders(username).exclude(pk=form.instance.pk).exists():
        raise forms.ValidationError(form.instance.unique_error_message(form._meta.model, ["username"]))
    return username


class PasswordResetRequestForm(PasswordResetForm):
    """Django's reset form, reaching an address whose only account is unconfirmed too: a sign-up made with someone
    else's address never locks its owner out (choosing the password through the link confirms the account)."""

    def get_users(self, email):
        active = list(super().get_users(email))
        if active or get_user_model().objects.filter(email__iexact=email, is_active=True).exists():
            return active
        return [user for user in accounts.unconfirmed().filter(email__iexact=email) if user.has_usable_password()]

    def save(self, **kwargs):
        """Queues the reset mail for the default worker (accounts.mail_later), one message whatever the address: the
        request takes as long for a known address as for an unknown one. The worker writes it with Django's token
        generator and the templates the view names (frontend/account_mail.py)."""
        accounts.mail_later(accounts.RESET, [user.pk for user in self.get_users(self.cleaned_data["email"])])


class ResendConfirmationForm(forms.Form):
    email = forms.EmailField(label="E-mail address", help_text="the address you signed up with")


class ResetPasswordForm(SetPasswordForm):
    """Setting a password through a reset link proves the address: an unconfirmed account becomes active."""

    def save(self, commit=True):
        user = super().save(commit=False)
        if not user.is_active and accounts.is_unconfirmed(user):
            user.is_active = True
        if commit:
            user.save()
        return user


class UserAdminChangeForm(UserChangeForm):
    """The admin's user change form: a user name in its canonical form is one account's (_name_holder_check)."""

    def clean_username(self):
        return _name_holder_check(self, self.cleaned_data["username"])


class UserAdminCreationForm(AdminUserCreationForm):
    """The admin's add form: the same rule as renaming."""

    def clean_username(self):
        return _name_holder_check(self, self.cleaned_data["username"])
