"""The engines: one package per question, each with a single entry function."""
