#!/bin/sh
# Writes text where the hello's frame is due.
echo "garbage.sh: about to print text" >&2
echo "this is not a frame"
exec cat > /dev/null
