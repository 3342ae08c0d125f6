# Queen KV operator image. Build the jar first (mvn -DskipTests package), then from the repository root:
#   docker build -f docker/operator.Dockerfile -t queen-kv-operator:dev .
FROM eclipse-temurin:17-jre-alpine
RUN addgroup -S -g 10001 queenkv && adduser -S -u 10001 -G queenkv -h /app queenkv
COPY --chown=root:root operator/target/queen-kv-operator.jar /app/queen-kv-operator.jar
USER 10001:10001
ENV JAVA_OPTS="-XX:MaxRAMPercentage=70 -XX:+ExitOnOutOfMemoryError"
ENTRYPOINT ["sh", "-c", "exec java $JAVA_OPTS -jar /app/queen-kv-operator.jar"]
