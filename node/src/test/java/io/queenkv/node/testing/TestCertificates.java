package io.queenkv.node.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates for TLS tests, made on the spot: a CA, and node certificates it issues for the
 * loopback host with serverAuth and clientAuth (README "Transport security"). EC P-256 keys.
 */
public final class TestCertificates {
    private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());

    private TestCertificates() {}

    /** A certificate authority: its self-signed certificate and its key. */
    public record Ca(X509Certificate certificate, KeyPair keys) {}

    /** A certificate and its private key. */
    public record Issued(X509Certificate certificate, PrivateKey key) {}

    /** The extended key usages a node certificate can carry. */
    public enum Usage { SERVER, CLIENT }

    public static Ca newCa(String name) {
        KeyPair keys = newKeyPair();
        X500Name subject = new X500Name("CN=" + name);
        try {
            X509v3CertificateBuilder b = builder(subject, subject, keys);
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            return new Ca(sign(b, keys.getPrivate()), keys);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A node certificate for localhost and 127.0.0.1, for both TLS roles. */
    public static Issued issue(Ca ca, String commonName) {
        return issue(ca, commonName, Usage.SERVER, Usage.CLIENT);
    }

    public static Issued issue(Ca ca, String commonName, Usage... usages) {
        KeyPair keys = newKeyPair();
        try {
            X509v3CertificateBuilder b = builder(new X500Name(ca.certificate().getSubjectX500Principal().getName()),
                    new X500Name("CN=" + commonName), keys);
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            List<KeyPurposeId> purposes = new ArrayList<>();
            for (Usage u : usages) purposes.add(u == Usage.SERVER ? KeyPurposeId.id_kp_serverAuth : KeyPurposeId.id_kp_clientAuth);
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes.toArray(KeyPurposeId[]::new)));
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
            return new Issued(sign(b, ca.keys().getPrivate()), keys.getPrivate());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the certificate, the key and the CA bundle as PEM files in {@code dir}; answers the node's TLS variables. */
    public static Map<String, String> writeNodeFiles(Path dir, Issued node, X509Certificate... cas) {
        Path cert = dir.resolve("node.crt"), key = dir.resolve("node.key"), ca = dir.resolve("ca.crt");
        writePem(cert, node.certificate());
        writePem(key, node.key());
        writePem(ca, cas);
        Map<String, String> env = new HashMap<>();
        env.put("QUEEN_KV_TLS_CERT_FILE", cert.toString());
        env.put("QUEEN_KV_TLS_KEY_FILE", key.toString());
        env.put("QUEEN_KV_TLS_CA_FILE", ca.toString());
        return env;
    }

    /** Writes certificates ({@code CERTIFICATE}) and private keys (PKCS#8 {@code PRIVATE KEY}) to one PEM file. */
    public static void writePem(Path file, Object... items) {
        StringBuilder out = new StringBuilder();
        try {
            for (Object item : items) {
                if (item instanceof X509Certificate c) out.append(pem("CERTIFICATE", c.getEncoded()));
                else if (item instanceof PrivateKey k) out.append(pem("PRIVATE KEY", k.getEncoded()));
                else throw new IllegalArgumentException("not a certificate or key: " + item);
            }
            Files.writeString(file, out, StandardCharsets.US_ASCII);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String pem(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIALS.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(2))), subject, keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey issuerKey) {
        try {
            return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
        } catch (OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
