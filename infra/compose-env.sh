#!/bin/sh
# Writes the secrets docker-compose.yml requires into .env (which compose reads by itself): an admin API key and
# the Postgres and Redis passwords, each 32 random bytes as hex. A value already in .env is kept, so running it
# again changes nothing; the file is readable by its owner only. Usage: sh infra/compose-env.sh [path/to/.env]
set -eu
file=${1:-"$(dirname "$0")/../.env"}
umask 077
touch "$file"
chmod 600 "$file"
secret() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }
for name in ADMIN_API_KEY POSTGRES_PASSWORD REDIS_PASSWORD; do
  if ! grep -q "^$name=" "$file"; then
    printf '%s=%s\n' "$name" "$(secret)" >> "$file"
    echo "compose-env: wrote $name to $file"
  fi
done
