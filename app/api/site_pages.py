"""The site's own pages: the home page (open a table) and the rules."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.api.routing import get_and_head
from app.pages.rendering import templates

router = APIRouter()


@get_and_head(router, "/", response_class=HTMLResponse, name="home")
async def home(request: Request) -> Response:
    """The home page: open a table with a name and rules."""
    return templates.TemplateResponse(request, "home.html", {})


@get_and_head(router, "/rules", response_class=HTMLResponse, name="rules_page")
async def rules_page(request: Request) -> Response:
    """The house rules and every variant, in plain words, with the worked example."""
    return templates.TemplateResponse(request, "rules.html", {})
