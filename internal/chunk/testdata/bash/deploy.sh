#!/usr/bin/env bash
# Deploys the service to the given environment.
set -euo pipefail
source ./lib/common.sh
. "$HOME/.deployrc"

ENV="${1:-staging}"

# Prints a message with a timestamp.
log() {
  echo "[$(date +%T)] $*"
}

build() {
  log "building"
  docker build -t "app:$ENV" .
}

function push {
  log "pushing"
  docker push "app:$ENV"
}

build
push
log "done"
