#!/bin/sh
# Starts a throwaway MariaDB (Debian's mariadb-server) in a temp directory
# under MySQL 8's default sql_mode, listening on the socket $1
# (default /tmp/mysqlref/sock), for gen.py to take expected values from.
set -e
dir=$(dirname "${1:-/tmp/mysqlref/sock}")
mkdir -p "$dir"
mariadb-install-db --no-defaults --datadir="$dir/data" --auth-root-authentication-method=normal --user="$(whoami)" >"$dir/install.log" 2>&1
nohup mariadbd --no-defaults --datadir="$dir/data" --socket="${1:-$dir/sock}" --skip-networking --user="$(whoami)" \
  --sql-mode=ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION \
  >"$dir/server.log" 2>&1 &
sleep 3
