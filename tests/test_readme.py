import contextlib
import io
import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_python_example_prints_what_its_comments_say() -> None:
    code = re.search(r"```python\n(.*?)```", README, re.S)
    assert code is not None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code.group(1), {})
    expected = re.findall(r"# (.+)$", code.group(1), re.M)
    assert out.getvalue().splitlines() == expected


def test_quick_start_has_exactly_two_commands_and_ci_runs_the_test_one() -> None:
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", quick_start, re.S)
    assert len(commands) == 2
    assert all("\n" not in command for command in commands)
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines()
