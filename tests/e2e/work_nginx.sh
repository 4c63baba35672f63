# nginx, the real server, under a short wrk run: serving a static page
# does not grow memory, so the verdict must be stable, with the work
# counted from nginx's access log via --work-log (the rotation-following
# log reader on a real log) and connections via --conn-port on the
# master and its worker (--children).
. "$E2E_LIB"
need nginx wrk
PORT=$(free_port)
mkdir -p "$T/nginx/logs" "$T/nginx/html"
echo "hello from memtrend's test" > "$T/nginx/html/index.html"
cat > "$T/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $T/nginx/nginx.pid;
error_log $T/nginx/logs/error.log;
events { worker_connections 256; }
http {
    access_log $T/nginx/logs/access.log;
    client_body_temp_path $T/nginx/tmp-body;
    proxy_temp_path $T/nginx/tmp-proxy;
    fastcgi_temp_path $T/nginx/tmp-fastcgi;
    uwsgi_temp_path $T/nginx/tmp-uwsgi;
    scgi_temp_path $T/nginx/tmp-scgi;
    server {
        listen 127.0.0.1:$PORT;
        root $T/nginx/html;
    }
}
CONF
bg nginx -e stderr -p "$T/nginx" -c "$T/nginx/nginx.conf"
N=$LAST_BG
wait_port "$PORT" 10
# Warm the worker up first: its first requests allocate once.
wrk -t1 -c4 -d1s "http://127.0.0.1:$PORT/" >/dev/null || fail "wrk warm-up failed"
bg "$MEMTREND" record -q -o "$T/run.db" -p "$N" --children -i 200ms \
	--work-log "$T/nginx/logs/access.log" --match '"GET / HTTP' --conn-port "$PORT"
REC=$LAST_BG
sleep 1
wrk -t2 -c8 -d10s "http://127.0.0.1:$PORT/" > "$T/wrk.txt" || fail "wrk failed"
cat "$T/wrk.txt"
# Stopped by a signal once the scenario is over (not by --duration: on a
# loaded machine the scenario takes longer than planned); exit 0 on TERM.
kill -TERM "$REC"; wait "$REC" || fail "record exited $?"
"$MEMTREND" report "$T/run.db" --json > "$T/r.json" || fail "report exited $?"
"$MEMTREND" report "$T/run.db" > "$T/r.txt" || fail "text report exited $?"
cat "$T/r.txt"
# Requests wrk completed (its own count) against what the log reader saw.
served=$(sed -n 's/^ *\([0-9][0-9]*\) requests in.*/\1/p' "$T/wrk.txt")
tree=$(jget "$T/r.json" '[i for i,t in enumerate(d["targets"]) if t["name"].endswith("(with children)")][0]')
reqs=$(jget "$T/r.json" "d['targets'][$tree]['per_request']['requests']")
verdict=$(jget "$T/r.json" "d['targets'][$tree]['verdict']")
echo "wrk served $served; memtrend counted $reqs; verdict $verdict"
# The log is read each sample: requests logged after the last sample are
# not in the window (allow 10 %); nginx also logs the few requests wrk had
# in flight when it stopped (at most one per connection).
within "$reqs" "$((served * 9 / 10))" "$((served + 8))" || fail "counted $reqs requests, wrk served $served"
[ "$verdict" = stable ] || fail "verdict $verdict, expected stable"
maxc=$(sql "$T/run.db" "SELECT max(value) FROM source_sample JOIN source ON source.id = source_id WHERE role = 'connections'")
within "$maxc" 6 8 || fail "max connections $maxc, expected wrk's 8"
ok "nginx under wrk: stable over $reqs requests"
