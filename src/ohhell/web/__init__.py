"""Play in the browser: ``ohhell serve`` (the ``web`` extra). See docs/web.md."""
