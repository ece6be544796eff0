"""The classroom tool (issue 37): self-check cells, per-student assignments, a sandboxed grader, an exam bank.

    python -m tools.classroom checks [--write] [chapters/NN_x.ipynb ...]
    python -m tools.classroom assign CHAPTER... --roster roster.csv --out DIR [--key-file K]
    python -m tools.classroom grade SUBMISSIONS_DIR --assignment DIR [--out OUT] [--jobs 2]
    python -m tools.classroom exam [--format moodle|qti] --out FILE

Teacher tooling: it reads the exercise specifications in ``exercises/chNN.py`` (see ``exercises/_core.py``);
the notebooks of the book never import it. See README.md, "For teachers".
"""
