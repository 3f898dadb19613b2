from django.core.management.base import BaseCommand, CommandError

from leaderboard.benchmarks.crypto import SealedKeyError
from leaderboard.benchmarks.services import sealed_hashes_rekey


class Command(BaseCommand):
    help = ("Replace the unkeyed sha256 that sealed (test) splits were labelled with before by the keyed hash, on "
            "every benchmark version and the runs that carry it; after a key rotation (SEALED_ANSWER_KEYS=new,old), "
            "key again the hashes and encrypt again the answers made under the old key with the new one, after "
            "which the old key can be removed. Only labels and ciphertext change (the stored content must hash to "
            "the old label exactly). Needs SEALED_ANSWER_KEYS (web or default worker). Idempotent.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", help="one benchmark slug (default: all)")

    def handle(self, *args, **options):
        try:
            lines = sealed_hashes_rekey(benchmark_slug=options["benchmark"])
        except SealedKeyError as exc:
            raise CommandError(str(exc), returncode=2) from None
        for line in lines or ["no sealed split is imported; nothing to do"]:
            self.stdout.write(line)
