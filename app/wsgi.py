"""The WSGI entry: gunicorn (`app.wsgi:app`) locally and Zappa's `app_function` on Lambda."""

import gc

from app import create_app, tune_gc

gc.disable()  # until tune_gc(): building the app makes only long-lived objects
app = create_app()
tune_gc()
