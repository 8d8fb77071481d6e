#!/usr/bin/env bash
# Prove the test suite does not flake when it is not alone on the machine.
#
#   scripts/stress_suite.sh [--rev REV] [--repo PATH] [--out DIR] [--skip-a] [--skip-b] [--skip-c]
#
# Every run is the README's test command, in a fresh clone of REV (default: HEAD of this
# checkout), started in the background of a non-interactive shell (so SIGINT is ignored
# by inheritance, as in most CI runners and `make -j`):
#   (a) three runs in a row while a CPU-bound process spins on one core;
#   (b) two clones' suites at once;
#   (c) one CI-like run: a minimal environment (no TERM, no HOME config, CI=true,
#       stdin from /dev/null, its own TMPDIR).
# Prints PASS/FAIL and the duration of each run; the logs stay in the output directory.
# Exit status 0 only when every run passed.

set -u

here=$(cd "$(dirname "$0")/.." && pwd)
repo=$here
rev=HEAD
out=""
run_a=1 run_b=1 run_c=1
while [ $# -gt 0 ]; do
    case "$1" in
        --rev) rev=$2; shift 2 ;;
        --repo) repo=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --skip-a) run_a=0; shift ;;
        --skip-b) run_b=0; shift ;;
        --skip-c) run_c=0; shift ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "stress_suite: unknown argument $1" >&2; exit 2 ;;
    esac
done

commit=$(git -C "$repo" rev-parse --verify "$rev^{commit}") || exit 2
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/swetui-stress.XXXXXX")}
mkdir -p "$out"
echo "stress_suite: commit $commit, logs in $out"

hog_pid=""
cleanup() {
    if [ -n "$hog_pid" ]; then kill "$hog_pid" 2>/dev/null; fi
}
trap cleanup EXIT INT TERM

summary="$out/summary.txt"
: > "$summary"

# clone NAME: a fresh clone of the commit under $out/NAME
clone() {
    local dir="$out/$1"
    rm -rf "$dir"
    git clone --quiet --no-checkout "$repo" "$dir" && git -C "$dir" checkout --quiet "$commit"
}

# suite NAME [ENV...]: the README's test command in $out/NAME; records duration and status
suite() {
    local name=$1; shift
    local dir="$out/$name" log="$out/$name.log" start end status
    start=$(date +%s)
    (
        cd "$dir" || exit 2
        # The README's command, verbatim: python3 -m venv .venv && .venv/bin/pip install -q
        # -e '.[test]' && .venv/bin/python -m pytest (the install is timed separately).
        python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' >/dev/null 2>&1 \
            || { echo "stress_suite: install failed"; exit 3; }
        echo "installed after $(( $(date +%s) - start )) s"
        t0=$(date +%s)
        # --durations only adds the slowest tests to the log (PYTEST_ADDOPTS, so the command
        # itself stays the README's).
        env "$@" PYTEST_ADDOPTS="${PYTEST_ADDOPTS:-} --durations=25" \
            .venv/bin/python -m pytest </dev/null
        status=$?
        echo "pytest took $(( $(date +%s) - t0 )) s"
        exit $status
    ) > "$log" 2>&1
    status=$?
    end=$(date +%s)
    local pytest_s
    pytest_s=$(sed -n 's/^pytest took \([0-9]*\) s$/\1/p' "$log")
    local tail_line
    tail_line=$(grep -E '^(FAILED|ERROR) |[0-9]+ (passed|failed)' "$log" | tail -n 12 | tr '\n' ';')
    if [ "$status" -eq 0 ]; then
        printf 'PASS  %-12s total %4ss  pytest %4ss  %s\n' "$name" $((end - start)) \
            "${pytest_s:-?}" "$tail_line" | tee -a "$summary"
    else
        printf 'FAIL  %-12s total %4ss  pytest %4ss  exit %s  %s\n' "$name" $((end - start)) \
            "${pytest_s:-?}" "$status" "$tail_line" | tee -a "$summary"
    fi
    return "$status"
}

if [ "$run_a" = 1 ]; then
    echo "(a) three runs in a row, one core kept busy by a CPU-bound process"
    python3 -c 'while True: pass' &
    hog_pid=$!
    for n in 1 2 3; do
        clone "a$n" || exit 2
        suite "a$n" &
        wait $!
    done
    kill "$hog_pid" 2>/dev/null; wait "$hog_pid" 2>/dev/null; hog_pid=""
fi

if [ "$run_b" = 1 ]; then
    echo "(b) two clones' suites at once"
    clone b1 || exit 2
    clone b2 || exit 2
    suite b1 & p1=$!
    suite b2 & p2=$!
    wait $p1; wait $p2
fi

if [ "$run_c" = 1 ]; then
    echo "(c) a CI-like run: minimal environment, no terminal"
    clone c1 || exit 2
    mkdir -p "$out/c1-tmp" "$out/c1-home"
    suite c1 -i PATH="$PATH" HOME="$out/c1-home" TMPDIR="$out/c1-tmp" CI=true LANG=C.UTF-8 &
    wait $!
fi

failed=$(grep -c '^FAIL' "$summary")
echo "stress_suite: $(grep -c '^PASS' "$summary") passed, $failed failed (details in $out)"
[ "$failed" -eq 0 ]
