# Bug Triage OpenEnv server image, for `docker run -p 7860:7860` and Hugging Face Docker Spaces.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOST=0.0.0.0 \
    PORT=7860

# Hugging Face Spaces run containers as uid 1000.
RUN useradd --create-home --uid 1000 user

WORKDIR /app

COPY requirements.txt ./
RUN pip install -r requirements.txt

COPY --chown=user openenv_bug_triage ./openenv_bug_triage
COPY --chown=user server ./server
COPY --chown=user data ./data
COPY --chown=user README.md openenv.yaml pyproject.toml ./

USER user

EXPOSE 7860

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('PORT', '7860'), timeout=4)"]

CMD ["python", "-m", "server.app"]
