package io.queenkv.operator.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** TLS client contexts that trust a cluster's CA and nothing else (not the JDK's default CAs). */
public final class ClusterTrust {
    private ClusterTrust() {}

    /** A context whose only trust anchors are the certificates in {@code caPem} (e.g. {@code ca.crt} of the TLS Secret). */
    public static SSLContext trusting(String caPem) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (X509Certificate ca : Pem.certificates(caPem)) store.setCertificateEntry("ca-" + i++, ca);
            if (i == 0) throw new IllegalArgumentException("no CA certificate in the PEM text");
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("unusable CA certificate: " + e.getMessage(), e);
        }
    }
}
