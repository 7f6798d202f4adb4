"""Scripts the Makefile runs: checks of the project's own documents."""
