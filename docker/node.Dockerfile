# Queen KV node image. Build the jars first (mvn -DskipTests package), then from the repository root:
#   docker build -f docker/node.Dockerfile -t queen-kv-node:dev .
# or both images at once: mvn -DskipTests -Pimages package (docker/pom.xml).
#
# Runs as the non-root user 10001 and works with a read-only root file system: the node writes only
# to /data (QUEEN_KV_DATA_DIR, the PVC) and the JVM only to /tmp (java.io.tmpdir, an emptyDir in the
# operator's pods). The operator's StatefulSet sets its own command and JAVA_OPTS; it needs `sh` and
# `java` on the PATH and the jar at /app/queen-kv-node.jar.
# A glibc base: the gRPC transport loads its native epoll library, which musl (Alpine) lacks.
# JDK 25: the jar is Java 17 bytecode, but on two cores a node on 25 serves about twice the writes
# of one on 17 and reaches full speed sooner (README "Java runtime").
FROM eclipse-temurin:25-jre
RUN groupadd --system --gid 10001 queenkv \
 && useradd --system --uid 10001 --gid queenkv --home-dir /app --no-create-home --shell /usr/sbin/nologin queenkv \
 && mkdir -p /app /data \
 && chown 10001:10001 /data
COPY --chown=root:root node/target/queen-kv-node.jar /app/queen-kv-node.jar
# The CLI: the operator's scheduled backups (spec.backup) run `queen-kv backup` from this image.
COPY --chown=root:root cli/target/queen-kv-cli.jar /app/queen-kv-cli.jar
# An ahead-of-time cache (JDK 25, JEP 483/514/515) recorded from a 30 s training run of the jar
# (--train: a three-node cluster in one JVM on loopback, driven through the HTTP API): classes
# loaded and linked, and method profiles, ready at start; a fresh node is ready about 2 s sooner
# (README "Java runtime"). Named by the jar's SHA-256 because the JVM does not check that a cache
# belongs to the jar it is given; the start script uses it only for this very jar.
RUN aot="/app/aot/$(sha256sum /app/queen-kv-node.jar | cut -c1-16).aot" \
 && mkdir -p /app/aot \
 && java -XX:AOTCacheOutput="$aot" -Xlog:aot=error -jar /app/queen-kv-node.jar --train 30 > /tmp/training.log 2>&1 \
 || { tail -n 40 /tmp/training.log; exit 1; } \
 && test -s "$aot" && rm -rf /tmp/training.log /tmp/queen-kv-training*
WORKDIR /app
USER 10001:10001
# JSON lines in containers (log collectors parse them); QUEEN_KV_LOG_FORMAT=text overrides it.
ENV QUEEN_KV_DATA_DIR=/data \
    QUEEN_KV_LOG_FORMAT=json \
    JAVA_OPTS="-XX:MaxRAMPercentage=75.0 -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp"
VOLUME ["/data"]
EXPOSE 6632 6634
# QUEEN_KV_NODE_ID may be set directly; in a StatefulSet the operator derives it from the ordinal.
# The operator's StatefulSet runs the same lines (NodeEnv.startScript).
ENTRYPOINT ["sh", "-c", "aot=\"/app/aot/$(sha256sum /app/queen-kv-node.jar 2>/dev/null | cut -c1-16).aot\"; [ -f \"$aot\" ] && set -- \"-XX:AOTCache=$aot\"; exec java \"$@\" $JAVA_OPTS -jar /app/queen-kv-node.jar"]
