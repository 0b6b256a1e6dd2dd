"""Settings split cookiecutter-django style: base, local (default), test, production."""
