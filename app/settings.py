"""Server settings, read once from the environment (and a ``.env`` file).

Every variable is ``CUCUMBER_<NAME>`` except ``DATABASE_URL``; tests build
their own :class:`Settings` and pass it to the app.
"""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Configuration of one server process.

    Times are in seconds, sizes in bytes. ``database_url`` is a SQLAlchemy
    URL: ``sqlite:///path/to/file.db`` (the default, created on first run)
    or ``postgresql+psycopg://user:password@host:5432/dbname``.
    """

    model_config = SettingsConfigDict(env_prefix="CUCUMBER_", env_file=".env", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    database_url: str = Field(
        default="sqlite:///cucumber.db",
        validation_alias=AliasChoices("DATABASE_URL", "CUCUMBER_DATABASE_URL"),
    )
    public_url: str | None = None
    """Base URL people use to reach the server (e.g. ``https://cards.example.org``);
    used for room links and the WebSocket Origin check behind a proxy."""
    allowed_origins: list[str] = []
    """Extra Origins allowed to open WebSockets, besides the server's own."""
    room_idle_seconds: float = Field(default=3600.0, gt=0)
    """A room with nobody connected and no change for this long is removed from memory."""
    max_message_bytes: int = Field(default=4096, ge=256)
    max_rooms: int = Field(default=1000, ge=1)
    """Rooms one process holds at most; opening another is refused until some close."""
    max_connections_per_room: int = Field(default=100, ge=2)
    """Live connections (players' tabs and spectators) one room accepts at most."""
    send_queue_size: int = Field(default=64, ge=1)
    """Messages waiting for one connection; a connection whose queue is full is dropped."""
    bot_delay_seconds: float = Field(default=0.8, ge=0)
    away_grace_seconds: float = Field(default=60.0, ge=0)
    """A seated player with no connection for this long is played by a bot until they return."""
    heartbeat_seconds: float = Field(default=10.0, gt=0)
    """How often an open table page says it is still looked at (more often when the away grace is short)."""
    deal_pause_seconds: float = Field(default=4.0, ge=0)
    """Pause after a deal, so everyone can read its summary, before the next deal."""
    hard_bot_budget_seconds: float = Field(default=0.15, gt=0)
    log_level: str = "info"
