#!/bin/sh
# spec/bench_peers.sh — `make bench-peers`: installs the peers when they are missing (as root, from
# Debian: pcp, libpcp3-dev, prometheus-node-exporter), starts pmcd for the run when it does not answer
# (and stops it again), then builds and runs spec/bench_peers. Anything it cannot get is skipped
# with a message by the bench itself. MISH_PEERS=fetch,summary,scrape runs only the parts it names.
set -u
CC=${CC:-cc}
have() { [ -f /usr/include/pcp/pmapi.h ] && [ -x /usr/bin/pmlogsummary ] && [ -x /usr/bin/prometheus-node-exporter ]; }
if ! have && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  echo "bench-peers: installing pcp, libpcp3-dev, prometheus-node-exporter (apt-get)"
  # pcp's postinst runs `systemctl start pmcd`, which fails where systemd is not PID 1 (a
  # container): a systemctl that does nothing, first in PATH for this install only
  shim=$(mktemp -d)
  printf '#!/bin/sh\nexit 0\n' > "$shim/systemctl"; chmod +x "$shim/systemctl"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get install -y --no-install-recommends pcp libpcp3-dev prometheus-node-exporter ||
    { apt-get update && apt-get install -y --no-install-recommends pcp libpcp3-dev prometheus-node-exporter; }; } \
    </dev/null >/dev/null 2>&1 || PATH="$shim:$PATH" dpkg --configure -a >/dev/null 2>&1 || true
  PATH="$shim:$PATH" dpkg --configure -a >/dev/null 2>&1 || true
  rm -rf "$shim"
fi
if [ ! -f /usr/include/pcp/pmapi.h ]; then
  echo "bench-peers: PCP (libpcp3-dev) is not installed: skipped"
  exit 0
fi
started=
if command -v pminfo >/dev/null && ! pminfo -h local: -f hinv.ncpu >/dev/null 2>&1 && [ -x /etc/init.d/pmcd ] && [ "$(id -u)" -eq 0 ]; then
  echo "bench-peers: starting pmcd for this run (/etc/init.d/pmcd start)"
  /etc/init.d/pmcd start >/dev/null 2>&1 && started=1
  sleep 2
fi
$CC $CFLAGS -Icore spec/bench_peers.c core/libmi.a -lpcp $LDLIBS -o spec/bench_peers && ./spec/bench_peers
rc=$?
[ -n "$started" ] && /etc/init.d/pmcd stop >/dev/null 2>&1
exit $rc
