"""The HTTP face of the service, which server.py wires into one app: its typed state (state.py),
the JSON answers (responses.py), one middleware per concern (middlewares.py), the routes
(routes.py) and the in-browser query page (query_page.py). Nothing below the HTTP layer imports it."""
