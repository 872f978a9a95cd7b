#!/bin/sh
# The gpuo job wrapper: runs the job's command, keeps its exit code and the tail of its output, and reports
# both once to the service with the attempt's token, retrying while the service cannot be reached.
# Inputs (environment): GPUO_JOB_COMMAND, GPUO_EXIT_URL, GPUO_EXIT_TOKEN; optional GPUO_TAIL_BYTES (4096),
# GPUO_REPORT_WINDOW (seconds to keep trying, 900), GPUO_REPORT_RETRY_MAX (longest wait between tries, 30).
# Exits with the command's exit code.
log="$(mktemp "${TMPDIR:-/tmp}/gpuo-job.XXXXXX")" || log="${TMPDIR:-/tmp}/gpuo-job.$$"
codefile="$log.code"
# The command's output goes to the console as usual and to the log whose tail is reported.
{ sh -c "$GPUO_JOB_COMMAND"; echo "$?" >"$codefile"; } 2>&1 | tee "$log"
code="$(cat "$codefile" 2>/dev/null)"
case "$code" in ''|*[!0-9]*) code=255 ;; esac

# The tail as a JSON string: control characters dropped, backslash, quote, tab and CR escaped, lines joined by \n.
tail_json="$(tail -c "${GPUO_TAIL_BYTES:-4096}" "$log" | tr -d '\000-\010\013\014\016-\037' | sed 's/\\/\\\\/g; s/"/\\"/g' | awk '
  BEGIN { ORS = "" }
  { gsub(/\t/, "\\t"); gsub(/\r/, "\\r"); if (NR > 1) print "\\n"; print }')"
body="{\"token\":\"$GPUO_EXIT_TOKEN\",\"exit_code\":$code,\"tail\":\"$tail_json\"}"
printf '%s' "$body" >"$log.body"

post() {
  if command -v curl >/dev/null 2>&1; then
    curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST -H 'Content-Type: application/json' \
      --data-binary "@$log.body" "$GPUO_EXIT_URL" 2>/dev/null || echo 000
  elif command -v wget >/dev/null 2>&1; then
    # wget prints the status line on stderr; 2xx is all that matters.
    if wget -q -O /dev/null -T 10 --header='Content-Type: application/json' --post-file="$log.body" "$GPUO_EXIT_URL" 2>/dev/null; then echo 200; else echo 000; fi
  else
    echo none
  fi
}

deadline=$(( $(date +%s) + ${GPUO_REPORT_WINDOW:-900} ))
wait=1
while :; do
  status="$(post)"
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
rm -f "$log" "$codefile" "$log.body"
exit "$code"
