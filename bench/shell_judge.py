"""How long judging a shell line takes: hooks-approval's verdict (strict reading, rules, read-only list) and
tool-bash's deny list (wide reading), for typical and worst-case lines. Prints a table; asserts nothing.

    python bench/shell_judge.py           # 21 samples per line
    python bench/shell_judge.py --quick   # 5 samples
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for module in ("hooks-approval", "tool-bash"):
    sys.path.insert(0, str(ROOT / "modules" / module))

from amplifier_module_hooks_approval.rules import Places, Rule, RuleBook  # noqa: E402
from amplifier_module_tool_bash.policy import CommandPolicy  # noqa: E402

LINES = {
    "typical: cat README.md": "cat README.md",
    "typical: git log | grep | head": "git log --oneline -n 50 | grep -i fix | head -n 5",
    "typical: 5 commands && ;": "cd src && ls -la; grep -rn TODO . | wc -l && git status --short",
    "typical: heredoc": "cat <<'EOF' > notes.md\nit's a note\nEOF",
    "typical: sh -c + find -exec": "sh -c 'find . -name \"*.py\" -exec grep -l TODO {} +'",
    "worst: 30 KB word": "echo " + "a" * 30_000,
    "worst: 30 KB quoted, 10k parts": "echo '" + "a'b" * 10_000 + "'",
    "worst: 500-deep $( )": "echo " + "$(" * 500 + "ls" + ")" * 500,
    "worst: 500-deep ( )": "(" * 500 + "ls" + ")" * 500,
    "worst: 5000 commands ;": "ls;" * 5000,
    "worst: 2000-stage pipeline": "ls|" * 2000 + "ls",
    "worst: 3000 unterminated $(": "echo " + "$(" * 3000,
    "worst: sh -c nested 5 deep": "sh -c " + "'sh -c \"sh -c ls\"'",
}


def _timed(function, line: str, samples: int) -> float:
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        function(line)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    samples = 5 if "--quick" in sys.argv else 21
    book = RuleBook(rules=[Rule(tool="bash", command=["git *"])], ask_tools=["bash"], default_action="allow",
                    shell_tools=["bash"], read_only_commands=[])
    places = Places(str(ROOT), str(ROOT))
    policy = CommandPolicy()
    book.judge("bash", {"command": "ls"}, places)  # first parse loads tree-sitter: not part of any figure
    print(f"{'line':34} {'chars':>7} {'approval ms':>12} {'deny list ms':>13}  verdict / decision")
    for name, line in LINES.items():
        approval = _timed(lambda text: book.judge("bash", {"command": text}, places), line, samples)
        deny = _timed(policy.check, line, samples)
        verdict = book.judge("bash", {"command": line}, places).action
        decision = policy.check(line)
        print(f"{name:34} {len(line):>7} {approval:>12.2f} {deny:>13.2f}  {verdict} / "
              f"{'runs' if decision.allowed else 'refused: ' + decision.rule}")


if __name__ == "__main__":
    main()
