import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from leaderboard.submissions import services
from leaderboard.core.cli import refusal_of, refused
from leaderboard.core.errors import DomainError
from leaderboard.hub.ids import model_ref
from leaderboard.submissions.serializers import SubmissionOutputSerializer
from leaderboard.submissions.models import ModelType, Precision


class Command(BaseCommand):
    help = "Submit a Hugging Face model for evaluation on behalf of a user (same checks and quota as the API)."

    def add_arguments(self, parser):
        parser.add_argument("hub_id", help="namespace/name")
        parser.add_argument("--user", required=True, help="username the submission is made for")
        parser.add_argument("--revision", default="main")
        parser.add_argument("--precision", default=Precision.BFLOAT16, choices=Precision.values)
        parser.add_argument("--model-type", default=ModelType.PRETRAINED, choices=ModelType.values)
        chat = parser.add_mutually_exclusive_group()
        chat.add_argument("--chat-template", dest="chat", action="store_true", default=None)
        chat.add_argument("--no-chat-template", dest="chat", action="store_false")
        parser.add_argument("--benchmark", action="append", dest="benchmarks", help="repeatable; default mobile-mmlu")
        parser.add_argument("--probe", action="store_true", help="also run the memorization probe")
        variants = parser.add_mutually_exclusive_group()
        variants.add_argument("--ondevice-variants", dest="ondevice_variants", action="store_true", default=None,
                              help="make and evaluate Q8_0, Q4_K_M and Q4_0 GGUF files of the model (default: for "
                                   "models up to 8B parameters)")
        variants.add_argument("--no-ondevice-variants", dest="ondevice_variants", action="store_false")
        parser.add_argument("--gguf-file", default="", help="path of a GGUF file in the repository: evaluate that "
                                                            "file with llama.cpp (precision is then the file's)")

    def handle(self, *args, **o):
        user = get_user_model().objects.filter(username=o["user"]).first()
        if user is None:
            raise refused("NO_USER", f"no user {o['user']!r}.", "Create it with createsuperuser or the admin.")
        try:
            submission = services.submission_create(
                user=user, ref=model_ref(o["hub_id"], o["revision"]), precision=o["precision"],
                model_type=o["model_type"], use_chat_template=o["chat"], benchmarks=o["benchmarks"],
                probe=o["probe"], gguf_file=o["gguf_file"], ondevice_variants=o["ondevice_variants"])
        except DomainError as exc:
            raise refusal_of(exc) from None
        self.stdout.write(json.dumps(SubmissionOutputSerializer(submission).data, indent=2))
