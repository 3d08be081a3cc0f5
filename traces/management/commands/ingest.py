from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.command_errors import application_errors_as_command_errors
from traces.ingest.jsonl import traces_import_jsonl
from traces.projects import project_resolve


class Command(BaseCommand):
    help = (
        "Ingest traces from JSONL files (one span-tree or transcript per line) or JSON files "
        "(one trace). Bad lines are reported by number; the others still land."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path)
        parser.add_argument("--project", help="Project slug (default: 'default').")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar.")

    def handle(self, *args, files, project, no_progress, **options):
        with application_errors_as_command_errors():
            target = project_resolve(named=project)
        failed = 0
        for path in files:
            if not path.is_file():
                raise CommandError(f"{path}: no such file.")
            with path.open("rb") as handle:
                # A .json file is one trace; read it whole as a single line.
                lines = [handle.read().replace(b"\n", b" ")] if path.suffix == ".json" else handle
                bar = tqdm(
                    desc=path.name, unit=" lines", disable=no_progress, file=self.stderr._out
                )
                with bar:
                    report = traces_import_jsonl(
                        target, lines, on_line=lambda _line, bar=bar: bar.update(1)
                    )
            stored, bad = report.created, len(report.errors)
            self.stdout.write(f"{path}: {stored} traces stored, {bad} failed.")
            for error in report.errors:
                self.stderr.write(f"{path}:{error.line}: {error.message}")
            failed += len(report.errors)
        if failed:
            raise CommandError(f"{failed} lines failed; the other lines were stored.")
