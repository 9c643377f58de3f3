"""`porter comment`: create or update porter's one sticky comment on a pull or merge request."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

import porter.cli.options as options
from porter.cli.base import EXIT_OK, PlainHelp, app, err, run_command
from porter.cli.output import outside_actions_wrapper, write_output
from porter import contain
from porter.errors import UsageError
from porter.render.safe import literal


@app.command("comment", cls=PlainHelp)
def comment_cmd(
    body_file: Path = typer.Argument(..., metavar="BODY", help="The comment body (e.g. from `porter scan --new-since BASE -f markdown`); '-' reads stdin."),
    pr: Optional[int] = typer.Option(None, "--pr", metavar="N", help="Pull / merge request number (default: from $GITHUB_EVENT_PATH, or $CI_MERGE_REQUEST_IID with --gitlab)."),
    gitlab: bool = typer.Option(False, "--gitlab", metavar="", help="Post a GitLab merge-request note ($CI_API_V4_URL, $CI_PROJECT_ID) instead."),
    token_env: str = typer.Option("PORTER_GITLAB_TOKEN", "--token-env", metavar="VAR", help="With --gitlab: the variable that holds the API token."),
    head_sha: Optional[str] = typer.Option(None, "--head-sha", metavar="SHA", help="GitHub: post only if the PR's head is this commit (for a workflow_run job)."),
    bot_login: Optional[str] = typer.Option(None, "--bot-login", metavar="NAME", help="The login the token posts as, when it cannot call GET /user (a GitHub App: my-app[bot]); only a marked comment by it is edited."),
    dry_run: bool = typer.Option(False, "--dry-run", metavar="", help="Print the body exactly as it would be posted (marker added, mentions, images and foreign links made inert) and send nothing: no token, network or PR number needed."),
    verbose: bool = options.verbose(),
) -> None:
    """Create or update porter's one sticky comment on a pull request (GitHub) or merge request (GitLab)."""

    def body() -> int:
        from porter.comment import post_github, post_gitlab

        from porter.render.pr_comment import LIMIT

        # The body may be an untrusted job's artifact (the fork-safe workflow): read no more than a body GitHub could
        # take (LIMIT characters of up to 4 UTF-8 bytes) can hold, so a huge file or /dev/zero cannot exhaust memory.
        most = 4 * LIMIT
        try:
            if str(body_file) == "-":
                data = sys.stdin.buffer.read(most + 1)
                if len(data) > most:
                    raise UsageError(f"-: the comment body is over {most} bytes, more than the {LIMIT} characters "
                                     "GitHub accepts")
            else:  # a regular file (a device or pipe could be endless), checked for size before it is read
                data = contain.read_named(body_file, most, "the comment body")
            # Inside a workflow step `porter scan ... | porter comment -` carries the wrapper that keeps the runner
            # from reading the report as commands; it belongs to the log, not to the comment.
            text = outside_actions_wrapper(data).decode("utf-8")
        except contain.Refused as e:
            raise UsageError(str(e)) from None
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"{body_file}: cannot read the comment body: {e}") from None
        if gitlab and head_sha is not None:
            raise UsageError("--head-sha is for GitHub pull requests")
        if bot_login is not None and not bot_login.strip():
            raise UsageError("--bot-login must name a login")
        if dry_run:
            import os

            from porter.comment import with_marker
            from porter.render.pr_comment import github_server

            # The same body post_github / post_gitlab would send: on GitHub the PR's own line links are kept.
            repo = os.environ.get("GITHUB_REPOSITORY", "")
            own = (f"{github_server(os.environ)}/{repo}/blob/"
                   if not gitlab and repo.count("/") == 1 and all(repo.split("/")) else None)
            # Through the one stdout writer: the body may come from an untrusted job's artifact, and its ESC or
            # `::error::` lines would otherwise steer a terminal or the Actions runner.
            write_output(with_marker(text, own).encode("utf-8", "surrogateescape"), None)
            err().print("comment not posted (--dry-run)")
            return EXIT_OK
        outcome = (post_gitlab(text, pr, token_variable=token_env, bot_login=bot_login) if gitlab
                   else post_github(text, pr, head_sha=head_sha, bot_login=bot_login))
        if outcome.action == "skipped":
            err().print("comment skipped: ", literal(outcome.reason), sep="", soft_wrap=True)  # one line for a log
            return EXIT_OK
        err().print(f"comment {outcome.action}", *((" ", literal(outcome.url)) if outcome.url else ()), sep="")
        return EXIT_OK

    run_command(body, verbose)
