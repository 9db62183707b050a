# Cucumber server: one process, one worker, SQLite in /data unless DATABASE_URL says otherwise.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    CUCUMBER_HOST=0.0.0.0 \
    CUCUMBER_PORT=8000 \
    DATABASE_URL=sqlite:////data/cucumber.db

# A reverse proxy on the host reaches the container from the default bridge network's
# gateway, whose X-Forwarded-For/-Proto are then believed. On another network set that
# network's gateway (docker network inspect NAME). Publish the port on 127.0.0.1 only
# (-p 127.0.0.1:8000:8000), so that nothing but the proxy reaches it: Docker can hand
# other connections to the container from that same gateway address.
ENV CUCUMBER_TRUSTED_PROXIES=172.17.0.1

RUN useradd --create-home --uid 10001 cucumber \
    && mkdir -p /data && chown cucumber:cucumber /data

WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY bench ./bench
COPY migrations ./migrations
RUN pip install .

USER cucumber
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"CUCUMBER_PORT\", \"8000\")}/healthz', timeout=4)"

CMD ["cucumber", "serve"]
