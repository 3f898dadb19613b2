"""Import problems that name the file, row and column, and say what to do."""
from dataclasses import dataclass

from leaderboard.core.errors import DomainError

MAX_REPORTED = 50


@dataclass(frozen=True)
class ImportProblem:
    file: str
    message: str
    row: int | None = None  # 1-based line/row as an editor shows it (CSV header is row 1)
    column: str | None = None
    hint: str = ""

    def __str__(self):
        where = self.file
        if self.row is not None:
            where += f", row {self.row}"
        if self.column:
            where += f", column {self.column!r}"
        text = f"{where}: {self.message}"
        return f"{text} — {self.hint}" if self.hint else text


class BenchmarkImportError(DomainError):
    """Raised with every problem found; the import wrote nothing. Each problem carries its own hint."""

    code = "IMPORT_REFUSED"

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__(None, self.render())

    def render(self):
        shown = self.problems[:MAX_REPORTED]
        lines = [f"Import refused ({len(self.problems)} problem{'s' * (len(self.problems) != 1)}); "
                 "nothing was written:"]
        lines += [f"  - {problem}" for problem in shown]
        if len(self.problems) > len(shown):
            lines.append(f"  ... and {len(self.problems) - len(shown)} more")
        return "\n".join(lines)


class ProblemCollector:
    """Accumulates problems so one run reports them all, not one per attempt."""

    def __init__(self):
        self.problems: list[ImportProblem] = []

    def add(self, file, message, *, row=None, column=None, hint=""):
        self.problems.append(ImportProblem(str(file), message, row, column, hint))

    def raise_if_any(self):
        if self.problems:
            raise BenchmarkImportError(self.problems)
