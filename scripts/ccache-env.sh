# Sourced by .ci/run before `npm ci` and by scripts/node-lts.sh: native addons compile through
# ccache when it is installed (CI installs it), so better-sqlite3's build for Node 22 and 24 takes
# SQLite's C from the build `npm ci` made for the machine's Node: the amalgamation is most of a
# build and does not depend on the Node it is for (measured: 76 s of CPU for the first build, 5 s
# for the next). Every build sits under the checkout (node-lts.sh builds in node_modules/.cache),
# so paths are made relative to it and the build folder is left out of the hash.
#   . scripts/ccache-env.sh ROOT
if command -v ccache > /dev/null; then
  case "${CC:-}" in ccache\ *) ;; *) export CC="ccache ${CC:-gcc}" CXX="ccache ${CXX:-g++}" ;; esac
  export CCACHE_DIR="$1/node_modules/.cache/berth/ccache" CCACHE_BASEDIR="$1" CCACHE_NOHASHDIR=1
fi
