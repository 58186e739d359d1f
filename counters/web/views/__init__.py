"""Views: the pages, the JSON and CSV API, badges, rooms and the operators' endpoints."""
