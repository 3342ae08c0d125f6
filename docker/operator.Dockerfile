# Queen KV operator image. Build the jar first (mvn -DskipTests package), then from the repository root:
#   docker build -f docker/operator.Dockerfile -t queen-kv-operator:dev .
# or both images at once: mvn -DskipTests -Pimages package (docker/pom.xml).
#
# Runs as the non-root user 10001 and works with a read-only root file system: the JVM writes only to
# /tmp (java.io.tmpdir; the Helm chart mounts an emptyDir there). Configuration: WATCH_NAMESPACES
# (comma-separated, empty: every namespace) and JAVA_OPTS.
# The same glibc base as the node image.
FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 queenkv \
 && useradd --system --uid 10001 --gid queenkv --home-dir /app --no-create-home --shell /usr/sbin/nologin queenkv \
 && mkdir -p /app
COPY --chown=root:root operator/target/queen-kv-operator.jar /app/queen-kv-operator.jar
WORKDIR /app
# /healthz, /readyz and /metrics (HEALTH_PORT)
EXPOSE 8080
USER 10001:10001
ENV JAVA_OPTS="-XX:MaxRAMPercentage=75.0 -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp"
ENTRYPOINT ["sh", "-c", "exec java $JAVA_OPTS -jar /app/queen-kv-operator.jar"]
