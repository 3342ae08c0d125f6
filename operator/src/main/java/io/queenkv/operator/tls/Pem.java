package io.queenkv.operator.tls;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;

/** PEM text of certificates and PKCS#8 private keys, the format the node reads (API.md §5). */
public final class Pem {
    private static final java.util.regex.Pattern BLOCK =
            java.util.regex.Pattern.compile("-----BEGIN ([A-Z ]+)-----\\s*([A-Za-z0-9+/=\\s]+?)\\s*-----END \\1-----");

    private Pem() {}

    public static String certificate(X509Certificate cert) {
        try {
            return block("CERTIFICATE", cert.getEncoded());
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** PKCS#8 ({@code BEGIN PRIVATE KEY}), whatever the key's algorithm. */
    public static String privateKey(PrivateKey key) {
        if (!"PKCS#8".equals(key.getFormat())) throw new IllegalArgumentException("not a PKCS#8 key: " + key.getFormat());
        return block("PRIVATE KEY", key.getEncoded());
    }

    /** Every certificate in {@code pem}, in order. */
    public static List<X509Certificate> certificates(String pem) {
        try {
            CertificateFactory f = CertificateFactory.getInstance("X.509");
            return blocks(pem, "CERTIFICATE").stream().map(der -> {
                try {
                    return (X509Certificate) f.generateCertificate(new ByteArrayInputStream(der));
                } catch (CertificateException e) {
                    throw new IllegalArgumentException("not an X.509 certificate", e);
                }
            }).toList();
        } catch (CertificateException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first PKCS#8 private key in {@code pem}, of algorithm {@code algorithm} (e.g. RSA). */
    public static PrivateKey privateKey(String pem, String algorithm) {
        List<byte[]> keys = blocks(pem, "PRIVATE KEY");
        if (keys.isEmpty()) throw new IllegalArgumentException("no PKCS#8 private key (BEGIN PRIVATE KEY)");
        try {
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(keys.get(0)));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not a PKCS#8 " + algorithm + " key", e);
        }
    }

    private static List<byte[]> blocks(String pem, String type) {
        Matcher m = BLOCK.matcher(pem == null ? "" : pem);
        List<byte[]> out = new java.util.ArrayList<>();
        while (m.find())
            if (m.group(1).equals(type)) out.add(Base64.getMimeDecoder().decode(m.group(2)));
        return out;
    }

    private static String block(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }
}
