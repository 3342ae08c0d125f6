package io.queenkv.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS context that trusts exactly the certificates of a PEM file, e.g. the cluster CA. Public for
 * callers that build their own {@link java.net.http.HttpClient} for {@link QueenKv.Builder#httpClient}
 * (the CLI shares one client between the SDK and the admin routes).
 */
public final class TrustedCertificates {
    private TrustedCertificates() {}

    /**
     * The JDK's PKIX checks against these certificates only; the HTTP client still checks that the
     * node's certificate names the endpoint's host. Fails with {@link IllegalArgumentException} if
     * the file cannot be read or holds no usable certificate.
     */
    public static SSLContext sslContext(Path pemFile) {
        try (InputStream in = Files.newInputStream(pemFile)) {
            Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certificates.isEmpty()) throw new IllegalArgumentException(pemFile + " holds no PEM certificate");
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (Certificate c : certificates) store.setCertificateEntry("trusted-" + i++, c);
            TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the certificates in " + pemFile + ": " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(pemFile + " does not hold usable PEM certificates: " + e.getMessage(), e);
        }
    }
}
