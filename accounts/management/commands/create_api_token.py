from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.models import ApiToken, TokenScope


class Command(BaseCommand):
    help = "Create an API token for a user and print it once."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="cli")
        parser.add_argument(
            "--send-only",
            action="store_true",
            help="A token that may only send traces, logs and feedback (for an agent).",
        )

    def handle(self, *args, username, name, send_only, **options):
        try:
            user = get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist:
            raise CommandError(f"No user named {username!r}.") from None
        scope = TokenScope.SEND if send_only else TokenScope.FULL
        _, raw = ApiToken.generate(user, name, scope)
        self.stdout.write(raw)
