#!/usr/bin/env bash
# Builds the PostgreSQL image `workbook-postgres:15` offline, from Debian packages
# only: for machines where no image registry answers (CI here). Learners with a
# registry use the official postgres:15-alpine and never need this.
#
#   docker/build-image.sh [NAME:TAG]        (`just docker-image`)
#
# Needs root, mmdebstrap (apt-get install mmdebstrap) and the machine's apt
# sources, which mmdebstrap uses when no mirror is given. The image carries a hash
# of this script and the entrypoint: when they have not changed, nothing is rebuilt.
# Use it with WORKBOOK_PG_IMAGE=workbook-postgres:15.
set -euo pipefail
cd "$(dirname "$0")"
image=${1:-workbook-postgres:15}
docker=${DOCKER:-docker}
label=idempotency-workbook.recipe
recipe=$(cat build-image.sh entrypoint.sh | sha256sum | cut -c1-16)
built=$("$docker" image inspect --format "{{ index .Config.Labels \"$label\" }}" "$image" 2>/dev/null || true)
if [ "$built" = "$recipe" ]; then
    echo "$image is up to date (recipe $recipe)"
    exit 0
fi
command -v mmdebstrap >/dev/null || { echo "mmdebstrap is missing: apt-get install mmdebstrap" >&2; exit 1; }

# minbase: essential packages plus PostgreSQL 15 and what it depends on. Docs, man
# pages and translations are never unpacked; the cluster Debian's package creates
# on install, apt's lists and caches are removed.
# The tar goes straight from mmdebstrap into `docker import`: no temporary file.
mmdebstrap --variant=minbase --include=postgresql-15 \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --customize-hook='upload entrypoint.sh /usr/local/bin/entrypoint.sh' \
    --customize-hook='chmod 755 "$1/usr/local/bin/entrypoint.sh"' \
    --customize-hook='rm -rf "$1"/var/lib/postgresql/15 "$1"/etc/postgresql/15 "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
    bookworm - |
    "$docker" import \
        --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV PGDATA=/var/lib/postgresql/data' \
        --change 'EXPOSE 5432' \
        --change "LABEL $label=$recipe" \
        --change 'ENTRYPOINT ["/usr/local/bin/entrypoint.sh"]' \
        --change 'CMD ["postgres"]' \
        - "$image" >/dev/null
"$docker" image inspect --format "$image: {{ .Size }} bytes, recipe {{ index .Config.Labels \"$label\" }}" "$image"
