"""The web edge, by kind: views/, input/, asgi/ and http/ (imports go views|asgi, then http, then input)."""
