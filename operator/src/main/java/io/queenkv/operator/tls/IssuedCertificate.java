package io.queenkv.operator.tls;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;

/** A certificate with its private key. */
public record IssuedCertificate(X509Certificate certificate, PrivateKey key) {

    public String certificatePem() { return Pem.certificate(certificate); }

    public String keyPem() { return Pem.privateKey(key); }

    /** Whether less than {@code fraction} of the certificate's lifetime is left at {@code now} (or it is not valid yet). */
    public boolean lessThanLeft(double fraction, Instant now) {
        return lessThanLeft(certificate, fraction, now);
    }

    public static boolean lessThanLeft(X509Certificate cert, double fraction, Instant now) {
        Instant from = cert.getNotBefore().toInstant();
        Instant to = cert.getNotAfter().toInstant();
        if (now.isBefore(from)) return true;
        Duration lifetime = Duration.between(from, to);
        return Duration.between(now, to).toMillis() < lifetime.toMillis() * fraction;
    }
}
