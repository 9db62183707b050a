"""What people read in a browser: Jinja2 set up for whole pages and live regions, the view objects and forms
of the pages, the static files under URLs that name their content, and the installable web app."""
