"""The ``parlor`` subcommands that evaluate, train and measure: ``list``, ``demo``, ``eval``,
``train``, ``shield``, ``convert`` and ``bench``, one module each (``add_arguments(parser)``
and ``run(args) -> int``). The entry point and the commands that need only the core install
(``play``, ``replay``, ``soak``) are in :mod:`parlor.cli`, which dispatches to these."""
