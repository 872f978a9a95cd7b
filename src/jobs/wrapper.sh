#!/bin/sh
# The gpuo job wrapper: runs the job's command, ships the tail of its output while it runs, keeps its exit code
# and reports both once to the service with the attempt's token, retrying while the service cannot be reached.
# Inputs (environment): GPUO_JOB_COMMAND, GPUO_EXIT_URL, GPUO_EXIT_TOKEN; optional GPUO_TAIL_BYTES (4096),
# GPUO_TAIL_URL (where the tail goes while the command runs; none: only the exit report carries it),
# GPUO_TAIL_INTERVAL (seconds between two shipped tails, 30), GPUO_REPORT_WINDOW (seconds to keep trying, 900),
# GPUO_REPORT_RETRY_MAX (longest wait between tries, 30).
# Exits with the command's exit code.
log="$(mktemp "${TMPDIR:-/tmp}/gpuo-job.XXXXXX")" || log="${TMPDIR:-/tmp}/gpuo-job.$$"
codefile="$log.code"

# The tail of the log as a JSON string: control characters dropped, backslash, quote, tab and CR escaped, lines
# joined by \n.
tail_json() {
  tail -c "${GPUO_TAIL_BYTES:-4096}" "$log" | tr -d '\000-\010\013\014\016-\037' | sed 's/\\/\\\\/g; s/"/\\"/g' | awk '
    BEGIN { ORS = "" }
    { gsub(/\t/, "\\t"); gsub(/\r/, "\\r"); if (NR > 1) print "\\n"; print }'
}

# POSTs the JSON file $1 to $2; prints the HTTP status, 000 when there was no answer, none without curl or wget.
post() {
  if command -v curl >/dev/null 2>&1; then
    curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST -H 'Content-Type: application/json' \
      --data-binary "@$1" "$2" 2>/dev/null || echo 000
  elif command -v wget >/dev/null 2>&1; then
    # wget prints the status line on stderr; 2xx is all that matters.
    if wget -q -O /dev/null -T 10 --header='Content-Type: application/json' --post-file="$1" "$2" 2>/dev/null; then echo 200; else echo 000; fi
  else
    echo none
  fi
}

# While the command runs, its tail goes to GPUO_TAIL_URL every GPUO_TAIL_INTERVAL seconds: one try each, and only
# when it changed. A refusal (a wrong token, or the attempt reported or ended) stops it. Its output goes nowhere,
# so nothing it does reaches the command's log, the console or the exit code.
shipper=
if [ -n "$GPUO_TAIL_URL" ]; then
  interval="${GPUO_TAIL_INTERVAL:-30}"
  case "$interval" in ''|*[!0-9]*|0) interval=30 ;; esac
  (
    while sleep "$interval"; do
      [ -s "$log" ] || continue
      printf '{"token":"%s","tail":"%s"}' "$GPUO_EXIT_TOKEN" "$(tail_json)" >"$log.tail"
      cmp -s "$log.tail" "$log.shipped" && continue
      case "$(post "$log.tail" "$GPUO_TAIL_URL")" in
        2??) mv -f "$log.tail" "$log.shipped" ;;
        400|401|403|404|409|422|none) break ;;
      esac
    done
  ) </dev/null >/dev/null 2>&1 &
  shipper=$!
fi

# The command's output goes to the console as usual and to the log whose tail is shipped and reported.
{ sh -c "$GPUO_JOB_COMMAND"; echo "$?" >"$codefile"; } 2>&1 | tee "$log"
code="$(cat "$codefile" 2>/dev/null)"
case "$code" in ''|*[!0-9]*) code=255 ;; esac
# No tail after the exit: the report carries the last one (the service refuses a tail once the exit is in).
if [ -n "$shipper" ]; then kill "$shipper" 2>/dev/null; wait "$shipper" 2>/dev/null; fi

body="{\"token\":\"$GPUO_EXIT_TOKEN\",\"exit_code\":$code,\"tail\":\"$(tail_json)\"}"
printf '%s' "$body" >"$log.body"

deadline=$(( $(date +%s) + ${GPUO_REPORT_WINDOW:-900} ))
wait=1
while :; do
  status="$(post "$log.body" "$GPUO_EXIT_URL")"
  case "$status" in
    2??) break ;;
    # The service refused this report for good (wrong, used or expired token; a bad body): trying again changes nothing.
    400|401|403|404|409|422) echo "gpuo: the exit report was refused ($status)" >&2; break ;;
    none) echo "gpuo: neither curl nor wget is installed: the exit cannot be reported" >&2; break ;;
  esac
  if [ "$(date +%s)" -ge "$deadline" ]; then echo "gpuo: the exit report could not be delivered" >&2; break; fi
  sleep "$wait"
  wait=$(( wait * 2 )); [ "$wait" -gt "${GPUO_REPORT_RETRY_MAX:-30}" ] && wait="${GPUO_REPORT_RETRY_MAX:-30}"
done
rm -f "$log" "$codefile" "$log.body" "$log.tail" "$log.shipped"
exit "$code"
