"""Command line: ``python -m tools.classroom {checks,assign,grade,exam} ...`` (see the package docstring)."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.classroom", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("checks", help="compare (or --write) the chapters' check cells with exercises/chNN.py")
    p.add_argument("notebooks", nargs="*", help="chapters/NN_x.ipynb (default: every chapter with a spec)")
    p.add_argument("--write", action="store_true", help="rewrite the check cells that differ")

    p = sub.add_parser("assign", help="per-student assignment notebooks, grader manifest, rubric, solutions")
    p.add_argument("chapters", nargs="+", help="02, ch02 or chapters/02_laplace.ipynb")
    p.add_argument("--roster", required=True, help="CSV with student_id,name[,email]")
    p.add_argument("--out", required=True, help="assignment folder (teacher side)")
    p.add_argument("--key-file", default=None,
                   help="the course key (random secret; created with mode 0600 on first use; default "
                        "OUT/../.classroom_key beside the assignment folder)")
    p.add_argument("--no-solutions", action="store_true", help="do not write solutions/<id>.ipynb")

    p = sub.add_parser("grade", help="grade a folder of submitted notebooks in a sandbox")
    p.add_argument("submissions", help="folder of <student_id>.ipynb (see --pattern)")
    p.add_argument("--assignment", required=True, help="the folder written by assign")
    p.add_argument("--out", default=None, help="output folder (default SUBMISSIONS_DIR/../graded)")
    p.add_argument("--jobs", type=int, default=2, help="submissions graded in parallel (default 2)")
    p.add_argument("--pattern", default=r"(?P<id>[^/]+)\.ipynb",
                   help="regular expression on the file name with a group 'id' (LMS exports rename files; "
                        r"Moodle: '.*_assignsubmission_file_(?P<id>[^_/]+)\.ipynb')")
    p.add_argument("--timeout", type=float, default=60.0, help="wall-clock seconds per submission")
    p.add_argument("--cpu", type=int, default=30, help="CPU seconds per submission")
    p.add_argument("--memory", type=int, default=1024, help="MiB of address space above the baseline")
    p.add_argument("--no-sandbox", action="store_true",
                   help="grade without Landlock (only where the kernel has none; the student's code can then "
                        "read every file the grader can)")

    p = sub.add_parser("exam", help="the exam bank of every specification (Moodle XML or QTI 1.2)")
    p.add_argument("--format", choices=["moodle", "qti"], default="moodle")
    p.add_argument("--out", required=True)
    p.add_argument("chapters", nargs="*", help="only these chapters (default: all with a spec)")

    args = parser.parse_args(argv)
    if args.command == "checks":
        from tools.classroom import checks

        return checks.main(args.notebooks, write=args.write)
    if args.command == "assign":
        from tools.classroom import assign

        return assign.main(args)
    if args.command == "grade":
        from tools.classroom import grade

        return grade.main(args)
    from tools.classroom import exam

    return exam.main(args)


if __name__ == "__main__":
    sys.exit(main())
