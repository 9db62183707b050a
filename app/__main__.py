"""``python -m app …`` runs the ``cucumber`` command."""

from app.cli import main

raise SystemExit(main())
