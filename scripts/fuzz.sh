#!/usr/bin/env bash
# fuzz.sh TIME: fuzzes every fuzz target (func Fuzz… in a _test.go file)
# for TIME each. Go fuzzes one target per run, and `go test -fuzz` links a
# fresh instrumented test binary for every run; this builds one per
# package (go test -c -fuzz=.) and runs each of its targets from it, which
# is most of what a short fuzz costs.
#
# A failing input is written to the package's testdata/fuzz/, where it
# stays as a regression test once fixed. Minimizing a new input is capped
# at 5s, or one worker can spend most of a run on it. Go 1.26 may fail a
# run that reaches -fuzztime with a bare "context deadline exceeded"
# (go.dev/issue/75804, fixed in Go 1.27): that, with no failing input
# written, is not a finding.
set -euo pipefail
time=${1:?usage: fuzz.sh TIME}
go=${GO:-go}
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache=$($go env GOCACHE)/fuzz

git ls-files -co --exclude-standard '*_test.go' | xargs grep -Ho '^func Fuzz[A-Za-z0-9_]*' |
	sed -E 's|^(.*)/[^/]*:func |\1 |' | sort -u >"$work/targets"

for dir in $(cut -d' ' -f1 "$work/targets" | uniq); do
	pkg=$(cd "$dir" && $go list .)
	bin="$work/$(echo "$dir" | tr / _).test"
	echo "fuzz: building $pkg"
	$go test -c -fuzz=. -o "$bin" "./$dir"
	for target in $(awk -v d="$dir" '$1 == d { print $2 }' "$work/targets"); do
		echo "fuzz $target in ./$dir for $time"
		log="$work/log"
		set +e
		(cd "$root/$dir" && "$bin" -test.run '^$' -test.fuzz "^$target\$" -test.fuzztime "$time" \
			-test.fuzzminimizetime 5s -test.fuzzcachedir "$cache/$pkg") 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
		set -e
		if [ "$rc" -ne 0 ]; then
			if grep -q 'Failing input written' "$log" || ! grep -qx '    context deadline exceeded' "$log"; then
				exit 1
			fi
			echo "(go.dev/issue/75804: the end of -fuzztime reported as a failure; ignored)"
		fi
	done
done
