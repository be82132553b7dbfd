#!/bin/sh
# Start one framework's capture server on loopback, wait for its port, run its capture.py, stop the server.
# Usage: scripts/capture/serve.sh laravel|rails|drf|fastapi   (see README.md)
set -eu
export PYTHONDONTWRITEBYTECODE=1
here=$(cd "$(dirname "$0")" && pwd)
fw=${1:?usage: serve.sh laravel|rails|drf|fastapi}
log=${TMPDIR:-/tmp}/capture-$fw.log
cd "$here/$fw"
case $fw in
  laravel) port=8301; rm -rf "${TMPDIR:-/tmp}/laravel-capture"; php -S 127.0.0.1:$port -t public public/index.php >"$log" 2>&1 & ;;
  rails)   port=8302; RAILS_ENV=production rackup -s webrick -o 127.0.0.1 -p $port config.ru >"$log" 2>&1 & ;;
  drf)     port=8303; /usr/bin/python3 manage.py runserver 127.0.0.1:$port --noreload >"$log" 2>&1 & ;;
  fastapi) port=8304; /usr/bin/python3 -m uvicorn app:app --host 127.0.0.1 --port $port >"$log" 2>&1 & ;;
  *) echo "unknown framework: $fw" >&2; exit 2 ;;
esac
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT INT TERM
i=0
until /usr/bin/python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
  i=$((i + 1)); [ $i -le 60 ] || { echo "$fw did not start, see $log" >&2; cat "$log" >&2; exit 1; }
  sleep 0.5
done
/usr/bin/python3 capture.py
