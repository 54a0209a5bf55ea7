# Sourced by the project's scripts: exports JAVA_HOME pointing at a JDK >= 25.
# Order: JAVA_HOME when it is already >= 25, else the newest /usr/lib/jvm/*25* (or later) JDK,
# else `java` on the PATH when it is >= 25. Fails with a message naming what it looked at.
panamax_java_feature() { # prints the feature version of the java binary $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n1
}
panamax_find_jdk() {
  local candidate v
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    v=$(panamax_java_feature "$JAVA_HOME/bin/java")
    if [ -n "$v" ] && [ "$v" -ge 25 ]; then echo "$JAVA_HOME"; return 0; fi
  fi
  for candidate in $(ls -d /usr/lib/jvm/*2[5-9]* /usr/lib/jvm/*3[0-9]* /Library/Java/JavaVirtualMachines/*/Contents/Home 2>/dev/null | sort -r); do
    [ -x "$candidate/bin/java" ] || continue
    v=$(panamax_java_feature "$candidate/bin/java")
    if [ -n "$v" ] && [ "$v" -ge 25 ]; then echo "$candidate"; return 0; fi
  done
  if command -v java >/dev/null 2>&1; then
    v=$(panamax_java_feature java)
    if [ -n "$v" ] && [ "$v" -ge 25 ]; then
      dirname "$(dirname "$(readlink -f "$(command -v java)")")"; return 0
    fi
  fi
  return 1
}
if ! PANAMAX_JDK=$(panamax_find_jdk); then
  echo "panamax needs JDK 25 or later: JAVA_HOME=${JAVA_HOME:-<unset>} is older or missing, and no JDK >= 25 was found under /usr/lib/jvm. Install one (e.g. Temurin 25) and set JAVA_HOME." >&2
  exit 3
fi
export JAVA_HOME="$PANAMAX_JDK"
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
