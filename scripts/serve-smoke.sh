#!/usr/bin/env bash
# Smoke test of `panamax serve` with curl: starts the server on a free port with the demo model,
# waits for /health, calls /v1/models, a chat completion and a streamed completion, then sends
# SIGTERM and expects a clean exit (0). Run after ./dev build:
#   scripts/serve-smoke.sh [LAUNCHER] [PORT]     (defaults: ./panamax, a free port)
# The app module's ServeSmokeIT runs it against dist/bin/panamax.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
launcher="${1:-$root/panamax}"
key="sk-smoke"
port="${2:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
base="http://127.0.0.1:$port"
log="$(mktemp)"
fail() { echo "FAIL: $*" >&2; echo "--- server log:" >&2; cat "$log" >&2; kill "$pid" 2>/dev/null || true; exit 1; }

"$launcher" serve --port "$port" --api-key "$key" --served-model-name demo 2>"$log" >/dev/null &
pid=$!
echo "started panamax serve (pid $pid) on port $port"

for _ in $(seq 1 240); do
  code="$(curl -s -o /dev/null -w '%{http_code}' "$base/health" || true)"
  [ "$code" = 200 ] && break
  kill -0 "$pid" 2>/dev/null || fail "the server exited before /health said ok"
  sleep 0.5
done
[ "$code" = 200 ] || fail "/health never said ok (last status $code)"
echo "health: $(curl -s "$base/health")"

auth=(-H "Authorization: Bearer $key" -H "Content-Type: application/json")
models="$(curl -sf "${auth[@]}" "$base/v1/models")" || fail "/v1/models"
echo "models: $models"
grep -q '"id":"demo"' <<<"$models" || fail "/v1/models does not list 'demo'"

code="$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/models")"
[ "$code" = 401 ] || fail "a call without the key got $code, expected 401"

chat="$(curl -sf "${auth[@]}" "$base/v1/chat/completions" \
  -d '{"model":"demo","messages":[{"role":"user","content":"Say hello."}],"max_tokens":12,"seed":1}')" || fail "chat completion"
echo "chat: $chat"
grep -q '"object":"chat.completion"' <<<"$chat" || fail "not a chat.completion"
grep -q '"finish_reason":"\(stop\|length\)"' <<<"$chat" || fail "no finish reason"
grep -q '"prompt_tokens":[1-9]' <<<"$chat" || fail "no prompt tokens in usage"

stream="$(curl -sfN "${auth[@]}" "$base/v1/completions" \
  -d '{"model":"demo","prompt":"Once upon a time","max_tokens":8,"stream":true,"stream_options":{"include_usage":true}}')" || fail "streamed completion"
echo "stream:"; sed 's/^/  /' <<<"$stream"
[ "$(grep -c '^data: ' <<<"$stream")" -ge 3 ] || fail "too few events"
grep -q '"usage":{"prompt_tokens"' <<<"$stream" || fail "no usage chunk"
[ "$(grep '^data: ' <<<"$stream" | tail -1)" = "data: [DONE]" ] || fail "the stream does not end with data: [DONE]"

kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
echo "--- server log:"; cat "$log"
[ "$rc" = 0 ] || { echo "FAIL: exit code $rc after SIGTERM, expected 0" >&2; exit 1; }
echo "OK: exit code 0 after SIGTERM"
rm -f "$log"
