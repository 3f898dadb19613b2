"""HTML pages, one module per page. Thin: data comes from selectors via frontend.payloads."""
