"""`porter rules list` and `porter rules explain`: the rule catalogue for people."""
from __future__ import annotations

import sys
from typing import Optional

import typer

import porter.cli.options as options
from porter.cli.base import EXIT_OK, PlainHelp, rules_app, run_command, stdout_console
from porter.errors import UsageError
from porter.render.safe import literal


@rules_app.command("list", cls=PlainHelp)
def rules_list(
    format: str = options.format_("console or json.", "console"),
    category: Optional[str] = typer.Option(None, "--category", metavar="CATEGORY", help="Only this category."),
    no_color: bool = options.no_color(),
) -> None:
    """List every rule with its severity, category and fixture coverage."""

    def body() -> int:
        from porter import rulecatalog
        from porter.rules import load_rules

        if format not in ("console", "json"):
            raise UsageError(f"--format must be console or json, not {format!r}")
        rs = load_rules()
        categories = sorted({r.category for r in rs.rules})
        if category is not None and category not in categories:
            raise UsageError(f"no category {category!r}; categories: {', '.join(categories)}")
        rows = rulecatalog.catalogue(rs, category)
        if format == "json":
            from porter.render.json import render

            sys.stdout.write(render(rows))
            return EXIT_OK
        from rich.table import Table

        # From a wheel the fixtures are not installed: no column that would say "n/a" on every row.
        with_fixtures = rulecatalog.FIXTURES_DIR is not None
        out = stdout_console()
        t = Table(title=f"{len(rows['rules'])} rules", title_justify="left")
        columns = ("id", "category", "severity", "confidence", "title") + (("fixture",) if with_fixtures else ())
        for col in columns:
            t.add_column(col, no_wrap=col == "id")
        for r in rows["rules"]:
            t.add_row(literal(r["id"]), r["category"], r["severity"], r["confidence"], literal(r["title"]),
                      *(("yes" if r["fixture"] else "NO",) if with_fixtures else ()))
        out.print(t)
        c = Table(title="By category", title_justify="left")
        for col in ("category", "rules") + (("with fixture",) if with_fixtures else ()):
            c.add_column(col)
        for name, v in rows["categories"].items():
            c.add_row(name, str(v["rules"]), *((f"{v['with_fixture']}/{v['rules']}",) if with_fixtures else ()))
        out.print(c)
        if not with_fixtures:
            out.print("Fixture coverage is listed from a checkout of porter (the fixtures are not installed).",
                      soft_wrap=True)
        return EXIT_OK

    run_command(body)


def wrapped(text: str, width: int) -> str:
    """`text` wrapped to `width` at spaces only, each line's indentation kept: a URL or a name longer than the line
    stays whole (rich would cut it mid-name)."""
    import textwrap

    out = []
    for line in text.split("\n"):
        indent = line[:len(line) - len(line.lstrip(" "))]
        out += textwrap.wrap(line.lstrip(" "), width, initial_indent=indent, subsequent_indent=indent, break_long_words=False,
                             break_on_hyphens=False, drop_whitespace=True) or [""]
    return "\n".join(out)


@rules_app.command("explain", cls=PlainHelp)
def rules_explain(
    rule_id: str = typer.Argument(..., metavar="RULE", help="A rule id, e.g. DEV002."),
    no_color: bool = options.no_color(),
) -> None:
    """Show one rule's full documentation."""

    def body() -> int:
        from porter.rulecatalog import explain
        from porter.rules import load_rules

        rule = load_rules().get(rule_id.upper())
        if rule is None:
            raise UsageError(f"no rule {rule_id!r}; `porter rules list` shows them all")
        out = stdout_console()
        out.print(wrapped(explain(rule), out.width), markup=False, soft_wrap=True)
        return EXIT_OK

    run_command(body)
