"""The WSGI entry: gunicorn (`app.wsgi:app`) locally and Zappa's `app_function` on Lambda."""
from app import create_app, tune_gc

app = create_app()
tune_gc()
