# ohhell serve in a container (compose.yaml runs two of these behind nginx,
# on one PostgreSQL and one Redis; docs/hosting.md).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
RUN python3 -m pip install --no-cache-dir '.[cluster]'
RUN useradd --create-home ohhell
USER ohhell
EXPOSE 8000
# Each container is one server process; add containers (or --workers) to grow.
CMD ["ohhell", "serve", "--host", "0.0.0.0", "--port", "8000"]
