"""The ASGI edge: Django's handler in one thread hop, and the site beacon answered before Django."""
