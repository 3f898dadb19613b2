from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.submissions import selectors as submission_selectors
from leaderboard.submissions.models import ModelType, Precision


class SubmissionForm(forms.Form):
    hub_id = forms.CharField(label="Hugging Face model id", max_length=200, strip=False,
                             widget=forms.TextInput(attrs={"placeholder": "org/model", "autocomplete": "off"}))
    revision = forms.CharField(max_length=100, initial="main", strip=False, help_text="branch, tag or commit sha")
    precision = forms.ChoiceField(initial=Precision.BFLOAT16)  # what this deployment's backend runs (__init__)
    model_type = forms.ChoiceField(choices=ModelType.choices, initial=ModelType.PRETRAINED)
    use_chat_template = forms.BooleanField(required=False, label="Use the tokenizer's chat template",
                                           help_text="on for instruct and reasoning models")
    probe = forms.BooleanField(required=False, label="Also run the memorization probe",
                               help_text="on validation: one short generation per question")
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
        # An account owns the hub namespace of its user name (it may upload predictions under it), so a name that
        # is already a namespace on the board or an admin's grant cannot be taken by signing up.
        username = self.cleaned_data["username"]
        if submission_selectors.namespace_in_use(username):
            raise forms.ValidationError(
                f"'{username}' is the namespace of models on this board: choose another user name. To act for that "
                "organisation (upload its predictions), sign up under your own name and ask an admin to grant it.")
        return username

    def clean_email(self):
        email = self.cleaned_data["email"]
        if get_user_model().objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("An account with this e-mail address exists: sign in, or reset its password.")
        return email
