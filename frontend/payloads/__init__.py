"""What each page's script receives through json_script, built from selectors (one module per page)."""
