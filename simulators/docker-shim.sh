#!/bin/sh
# The `docker` the Lambda simulator puts on a VM's PATH (simulators/containers.ts). Only the container runtime is
# simulated: `docker run` runs the container's command for real, in the current directory (the VM's scratch
# directory), with the env a container would get: what `-e NAME=VALUE` gives, what `-e NAME` takes from this
# environment, and PATH, HOME and TMPDIR. Nothing is isolated and nothing is pulled: the image is named on stderr
# as Docker names a first pull. An image listed in GPUO_SIM_DOCKER_UNPULLABLE (one a line) fails its pull as
# Docker does, with 125. `docker info` answers that the daemon is up.
# Options: --rm, -i, --gpus, --network, --name, -e/--env, --entrypoint, then `--` or the image, then its command.

case "$1" in
  info) echo 'Server Version: gpuo-sim'; exit 0 ;;
  run) shift ;;
  *) echo "docker: '$1' is not a command the simulator's docker knows." >&2; exit 125 ;;
esac

fail() {
  echo "docker: $1" >&2
  echo "See 'docker run --help'." >&2
  exit 125
}

# "$@" is rebuilt in place: each original argument is taken from the front, and what `env -i` needs (assignments,
# then the command) is added at the back.
left=$#
set -- "$@" "PATH=$PATH" "HOME=$PWD" "TMPDIR=${TMPDIR:-/tmp}"
image=
entrypoint=
in_options=yes
has_command=
while [ "$left" -gt 0 ]; do
  arg=$1
  shift
  left=$((left - 1))
  if [ -z "$in_options" ]; then
    set -- "$@" "$arg"
    has_command=yes
    continue
  fi
  value=
  case "$arg" in
    --rm|-i|--interactive) continue ;;
    --gpus=*|--network=*|--name=*|--env=*|--entrypoint=*) value=${arg#*=}; arg=${arg%%=*} ;;
    --gpus|--network|--name|-e|--env|--entrypoint)
      [ "$left" -gt 0 ] || fail "flag needs an argument: $arg"
      value=$1
      shift
      left=$((left - 1))
      ;;
    --)
      [ "$left" -gt 0 ] || fail '"docker run" requires at least 1 argument.'
      arg=$1
      shift
      left=$((left - 1))
      image=$arg
      ;;
    -*) fail "unknown flag: $arg" ;;
    *) image=$arg ;;
  esac
  if [ -n "$image" ]; then
    in_options=
    if [ -n "$entrypoint" ]; then set -- "$@" "$entrypoint"; has_command=yes; fi
    continue
  fi
  case "$arg" in
    -e|--env)
      case "$value" in
        *=*) set -- "$@" "$value" ;;
        ''|[0-9]*|*[!A-Za-z0-9_]*) fail "invalid environment variable: $value" ;;
        # A name only: its value here, if it has one (the name is checked above, so eval sees only a name).
        *) eval "if [ -n \"\${$value+set}\" ]; then set -- \"\$@\" \"$value=\${$value}\"; fi" ;;
      esac
      ;;
    --entrypoint) entrypoint=$value ;;
  esac
done
[ -n "$image" ] || fail '"docker run" requires at least 1 argument.'

# Docker names the image with its tag (`:latest` when none is given) when it pulls it.
ref=$image
case "${image##*/}" in
  *:*|*@*) ;;
  *) ref="$image:latest" ;;
esac
echo "Unable to find image '$ref' locally" >&2
if [ -n "$GPUO_SIM_DOCKER_UNPULLABLE" ] && printf '%s\n' "$GPUO_SIM_DOCKER_UNPULLABLE" | grep -Fqx -e "$image"; then
  fail "Error response from daemon: pull access denied for ${image%%[:@]*}, repository does not exist or may \
require 'docker login'"
fi
echo "Status: Downloaded newer image for $ref" >&2
[ -n "$has_command" ] || fail 'the simulator runs a command given to docker run, not an image default'
exec env -i "$@" </dev/null
