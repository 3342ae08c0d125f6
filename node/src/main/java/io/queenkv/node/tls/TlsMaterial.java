package io.queenkv.node.tls;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;

import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

import io.queenkv.node.config.NodeConfig.TlsFiles;
import io.queenkv.node.tls.Pem.TlsFileException;

/**
 * One consistent reading of the three TLS files: the node's key and certificate chain, and a
 * trust manager for the cluster CA bundle. Reading checks that they fit together — the key
 * belongs to the certificate, and the CA accepts the certificate for both TLS roles the node
 * plays — so a half-rewritten set of files is refused rather than served.
 *
 * @param alias the name the key manager gives this material; unique per reading
 */
record TlsMaterial(String alias, PrivateKey key, X509Certificate[] chain, List<X509Certificate> caCertificates,
                   X509ExtendedTrustManager trust) {
    static final String CERT = "QUEEN_KV_TLS_CERT_FILE";
    static final String KEY = "QUEEN_KV_TLS_KEY_FILE";
    static final String CA = "QUEEN_KV_TLS_CA_FILE";

    static TlsMaterial read(TlsFiles files, String alias) throws TlsFileException {
        X509Certificate[] chain = Pem.certificates(CERT, files.certificate()).toArray(X509Certificate[]::new);
        PrivateKey key = Pem.privateKey(KEY, files.privateKey());
        List<X509Certificate> cas = Pem.certificates(CA, files.ca());
        if (!belongsTo(key, chain[0]))
            throw new TlsFileException(KEY, files.privateKey(), "is not the key of the certificate in " + CERT + "=" + files.certificate());
        X509ExtendedTrustManager trust = trustManagerFor(cas, files);
        // The node presents this certificate as a server (HTTPS, Raft) and as a client (to its peers).
        String problem = null;
        try {
            trust.checkServerTrusted(chain, "EC".equals(key.getAlgorithm()) ? "ECDHE_ECDSA" : "ECDHE_RSA");
        } catch (CertificateException e) {
            problem = "as a server certificate: " + e.getMessage();
        }
        try {
            if (problem == null) trust.checkClientTrusted(chain, key.getAlgorithm());
        } catch (CertificateException e) {
            problem = "as a client certificate: " + e.getMessage();
        }
        if (problem != null)
            throw new TlsFileException(CERT, files.certificate(), "is not accepted by the CA in " + CA + "=" + files.ca() + " " + problem);
        return new TlsMaterial(alias, key, chain, List.copyOf(cas), trust);
    }

    X509Certificate certificate() {
        return chain[0];
    }

    /** The serving certificate in a few words, for the log. */
    String describe() {
        X509Certificate c = certificate();
        return "certificate serial " + c.getSerialNumber().toString(16) + " (" + c.getSubjectX500Principal().getName()
                + ", valid until " + c.getNotAfter().toInstant() + "), " + caCertificates.size() + " CA certificate(s)";
    }

    /** Whether the certificate's public key verifies a signature made with the key. */
    private static boolean belongsTo(PrivateKey key, X509Certificate certificate) {
        if (!key.getAlgorithm().equals(certificate.getPublicKey().getAlgorithm())) return false;
        try {
            Signature signer = Signature.getInstance("EC".equals(key.getAlgorithm()) ? "SHA256withECDSA" : "SHA256withRSA");
            byte[] probe = "queen-kv key check".getBytes(StandardCharsets.US_ASCII);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            signer.initVerify(certificate.getPublicKey());
            signer.update(probe);
            return signer.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static X509ExtendedTrustManager trustManagerFor(List<X509Certificate> cas, TlsFiles files) throws TlsFileException {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < cas.size(); i++) store.setCertificateEntry("ca-" + i, cas.get(i));
            TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
            factory.init(store);
            for (TrustManager tm : factory.getTrustManagers())
                if (tm instanceof X509ExtendedTrustManager x) return x;
            throw new IllegalStateException("the JDK offers no X509ExtendedTrustManager");
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new TlsFileException(CA, files.ca(), "cannot be used as a trust store (" + e.getMessage() + ")");
        }
    }
}
