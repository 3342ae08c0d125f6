# Queen KV node image. Build the jar first (mvn -DskipTests package), then from the repository root:
#   docker build -f docker/node.Dockerfile -t queen-kv-node:dev .
# Runs as a non-root user; writes only to /data (the PVC) and /tmp (an emptyDir under a
# read-only root filesystem).
FROM eclipse-temurin:17-jre-alpine
RUN addgroup -S -g 10001 queenkv && adduser -S -u 10001 -G queenkv -h /app queenkv \
 && mkdir -p /data && chown queenkv:queenkv /data
COPY --chown=root:root node/target/queen-kv-node.jar /app/queen-kv-node.jar
USER 10001:10001
ENV QUEEN_KV_DATA_DIR=/data \
    JAVA_OPTS="-XX:MaxRAMPercentage=70 -XX:+ExitOnOutOfMemoryError"
VOLUME ["/data"]
EXPOSE 6632 6634
# QUEEN_KV_NODE_ID may be set directly; in a StatefulSet the operator derives it from the ordinal.
ENTRYPOINT ["sh", "-c", "exec java $JAVA_OPTS -jar /app/queen-kv-node.jar"]
