"""``audit demo``: build the synthetic demo benchmark."""
from __future__ import annotations

import typer

from audit.cli._common import DbOption, echo


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    app.command("demo")(demo)


def demo(
    db: DbOption = None,
    seed: int = typer.Option(0, help="Random seed of the generator (same seed, same data)."),
) -> None:
    """Build a demo database: 300 synthetic items in Tibetan, Chinese, Uyghur, Kazakh and
    Mongolian, 8 simulated models of 5 families and injected wrong keys, then analyse it.
    When the database has no account yet, demo accounts are added (printed; see README)."""
    from audit.demo import make_demo

    s = make_demo(db, seed=seed)
    made = s.accounts
    if made:
        echo("demo accounts (name / password, for the demo only): "
             + ", ".join(f"{n} / {p} ({r})" for n, r, p in made))
    if not s.created:
        echo(f"{s.db_path} already has the demo benchmark ({s.n_questions} items); nothing changed")
        return
    tiers = ", ".join(f"{k} = {v}" for k, v in sorted(s.tier_counts.items()))
    echo(
        f"demo database {s.db_path}: {s.n_questions} items, {s.n_models} models, "
        f"{s.n_predictions} predictions, {s.n_injected_key_errors} injected wrong keys\n"
        f"tiers: {tiers}\n"
        "next: streamlit run workbench/app.py"
    )
