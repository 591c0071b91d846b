# Sourced by the CLI tests: check NAME WANT_STATUS WANT_SUBSTRING COMMAND...
# runs COMMAND and counts a failure in $fails when its exit status or its
# output (stdout and stderr) is not what the test wants.
fails=0
check() {
  local name=$1 want_status=$2 want_text=$3; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want_status || "$out" != *"$want_text"* ]]; then
    echo "FAIL $name: status $status (want $want_status), output:"; echo "$out"
    fails=$((fails + 1))
  fi
}
